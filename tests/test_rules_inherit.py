"""`extends` with `[inherit]` (issue 11, item 1): a child ruleset removes what it does not play and
adds to inherited lists, instead of copying the parent whole; a child that replaces an inherited
list of tables without saying so is told. The rule of thumb it serves: a league that plays baska
without gran du writes one line, and an added restriction never drops the parent's."""

import pytest
from hypothesis import given, settings, strategies as st

from kopsim.cli import main
from kopsim.errors import InputError
from kopsim.experiments.spec import load_experiment
from kopsim.rules.inherit import inherit
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


NO_GRAN_DU = 'extends = "baska"\n[inherit]\nremove = [\'contracts."gran du"\']\n'
ZOLO_RESTRICTION = ('[[auction.restrictions]]\nforbid = ["zolo"]\nfirst_call = true\n'
                    'note = "no zolo at one\'s first call"\n')


def test_remove_drops_an_inherited_contract_and_nothing_else(tmp_path):
    baska = load_ruleset("baska")
    child = load_ruleset(write(tmp_path, "league.toml", NO_GRAN_DU))
    assert "gran du" in baska.contracts and "gran du" not in child.contracts
    assert set(child.contracts) == set(baska.contracts) - {"gran du"}
    assert child.contracts["gran"] == baska.contracts["gran"]
    assert child.bids() == [b for b in baska.bids() if b != "gran du"]


def test_append_keeps_the_parents_restrictions_and_adds_the_childs(tmp_path):
    parent = load_ruleset("kop-sportowy")
    text = 'extends = "kop-sportowy"\n[inherit]\nappend = ["auction.restrictions"]\n'
    child = load_ruleset(write(tmp_path, "c.toml", text + ZOLO_RESTRICTION))
    assert child.auction.restrictions[:-1] == parent.auction.restrictions
    assert len(child.auction.restrictions) == len(parent.auction.restrictions) + 1
    assert child.auction.restrictions[-1].forbid == ["zolo"]


def test_replacing_an_inherited_list_of_tables_is_said_by_validate(tmp_path, capsys):
    replaced = write(tmp_path, "r.toml", 'extends = "kop-sportowy"\n' + ZOLO_RESTRICTION)
    n = len(load_ruleset("kop-sportowy").auction.restrictions)
    assert len(load_ruleset(replaced).auction.restrictions) == 1  # replaced, as before
    assert main(["rules", "validate", str(replaced)]) == 0
    out = capsys.readouterr().out
    assert f"auction.restrictions: replaces the {n} inherited items" in out and "append" in out
    appended = write(tmp_path, "a.toml", 'extends = "kop-sportowy"\n[inherit]\n'
                     'append = ["auction.restrictions"]\n' + ZOLO_RESTRICTION)
    assert main(["rules", "validate", str(appended)]) == 0
    assert "note" not in capsys.readouterr().out


def test_remove_by_index_counts_the_parents_items(tmp_path):
    parent = load_ruleset("kop-sportowy")
    text = 'extends = "kop-sportowy"\n[inherit]\nremove = ["auction.restrictions[0]"]\n'
    child = load_ruleset(write(tmp_path, "c.toml", text))
    assert child.auction.restrictions == parent.auction.restrictions[1:]


def test_what_inherit_refuses_is_located(tmp_path):
    cases = {
        'extends = "kop"\n[inherit]\nremove = [\'contracts."gran du"\']\n':
            ("inherit.remove[0]", "nothing inherited at contracts.\"gran du\""),
        'extends = "kop"\n[inherit]\nremove = ["auction.restrictions[3]"]\n':
            ("inherit.remove[0]", "nothing inherited"),
        'extends = "kop"\n[inherit]\nremove = ["contracts.zolo du"]\n':
            ("inherit.remove[0]", "not a TOML key path"),
        'extends = "kop"\ndeck = { ranks = ["A"] }\n[inherit]\nappend = ["deck"]\n':
            ("inherit.append[0]", "append needs a list"),
        'extends = "kop"\n[inherit]\nkeep = ["deck"]\n': ("inherit.keep", "unknown key"),
        '[inherit]\nremove = ["deck"]\n': ("inherit", "needs `extends`"),
    }
    for i, (text, (where, words)) in enumerate(cases.items()):
        path = write(tmp_path, f"bad{i}.toml", text)
        with pytest.raises(InputError) as e:
            load_ruleset(path)
        assert any(p.where == where and words in p.message and p.source == str(path)
                   for p in e.value.problems), (text, e.value.problems)


def test_removing_what_others_name_is_caught_by_validation(tmp_path):
    # kop's no-bid order names cicha: removing it leaves a located error, not a broken ruleset
    path = write(tmp_path, "c.toml", 'extends = "kop"\n[inherit]\nremove = ["contracts.cicha"]\n')
    with pytest.raises(InputError) as e:
        load_ruleset(path)
    assert any("cicha" in p.message for p in e.value.problems)


def test_an_experiments_overrides_follow_inherit_too(tmp_path):
    write(tmp_path, "e.toml", 'name = "e"\ndeals = 10\nbots = "random"\nvariants = [{ ruleset = '
          '"baska", label = "no-gran-du", overrides = { inherit = { remove = '
          '[\'contracts."gran du"\'] } } }]\n')
    exp = load_experiment(tmp_path / "e.toml")
    assert "gran du" not in exp.variants[0].rules.contracts


KEYS = ["contracts", "zolo", '"zolo du"', "auction", "restrictions", "deck", "orders", "x", ""]


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.dictionaries(
    st.sampled_from(["remove", "append", "keep"]),
    st.one_of(st.lists(st.one_of(
        st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).map(".".join),
        st.tuples(st.lists(st.sampled_from(KEYS), min_size=1, max_size=3).map(".".join),
                  st.integers(0, 9)).map(lambda t: f"{t[0]}[{t[1]}]"),
        st.text(max_size=8), st.integers()), max_size=4), st.integers(), st.text(max_size=4)),
    max_size=3))
def test_any_inherit_table_loads_or_is_refused_with_a_located_error(spec):
    data, _ = load_raw("kop")
    try:
        merged, notes = inherit(data, {"inherit": spec}, "child.toml")
        ruleset_from_dict(merged, "child.toml")
    except InputError as e:
        assert e.problems and all(p.source == "child.toml" and p.message for p in e.problems)
