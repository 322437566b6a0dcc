"""Broken rulesets get one located message per problem, exit code 2 and no traceback."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from kopsim.cli import main
from kopsim.errors import InputError
from kopsim.rules.load import BUNDLED_DIR, bundled_names, load_ruleset

RULESETS = BUNDLED_DIR  # not the cwd: pytest may run anywhere


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def problems_of(path):
    with pytest.raises(InputError) as e:
        load_ruleset(str(path))
    return [str(p) for p in e.value.problems]


@pytest.mark.parametrize("name", bundled_names())
def test_every_bundled_ruleset_validates(name, capsys):
    assert main(["rules", "validate", str(RULESETS / f"{name}.toml")]) == 0
    assert "ok" in capsys.readouterr().out


def test_toml_syntax_error_names_file_and_line(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        name = "x"
        [scoring
        style = "zero_sum"
        """)
    [msg] = problems_of(p)
    assert str(p) in msg and "line 3" in msg and "TOML syntax error" in msg


def test_unknown_key_and_wrong_type_have_key_paths(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [contracts.zolo]
        bid_rnak = 2
        [scoring]
        schneider_max_points = "25"
        """)
    msgs = problems_of(p)
    assert any("contracts.zolo.bid_rnak" in m and "unknown key" in m for m in msgs)
    assert any("scoring.schneider_max_points" in m for m in msgs)
    assert len(msgs) == 2


def test_a_misspelt_key_names_its_near_miss(tmp_path):
    p = write(tmp_path, "typo.toml", """\
        extends = "kop"
        [scoring]
        schneider_max_point = 24
        [contracts.zolo]
        bid_rnak = 2
        [contracts.zolo.payout]
        lots = 5
        [auction]
        no_bidd = ["normal"]
        frobnicate = 1
        """)
    msgs = problems_of(p)
    for where, guess in (("scoring.schneider_max_point", "schneider_max_points"),
                         ("contracts.zolo.bid_rnak", "bid_rank"),
                         ("contracts.zolo.payout.lots", "lost"), ("auction.no_bidd", "no_bid")):
        assert any(where in m and f"unknown key (did you mean {guess!r}?)" in m for m in msgs), \
            msgs
    # nothing near: no guess
    assert any("auction.frobnicate: unknown key" in m and "did you mean" not in m for m in msgs)


def test_order_missing_and_repeating_cards(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [orders.as-dycha]
        trumps = ["AH", "AH", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D"]
        """)
    msgs = problems_of(p)
    assert any("orders.as-dycha" in m and "AH appears more than once" in m for m in msgs)
    assert any("orders.as-dycha" in m and "misses 10H" in m for m in msgs)


def test_contract_without_payout_and_unknown_order(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [contracts.bettel]
        bid_rank = 9
        order = "nope"
        payout = { won = 3 }
        """)
    msgs = problems_of(p)
    assert any("contracts.bettel.payout.lost" in m for m in msgs)
    assert any("contracts.bettel.order" in m and "nope" in m for m in msgs)


def test_predicate_naming_a_card_not_in_the_deck(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [contracts.wesele]
        eligible = { holds_all = ["QC", "KS"] }
        """)
    [msg] = problems_of(p)
    assert "contracts.wesele.eligible.holds_all[1]" in msg and "'KS'" in msg


def test_cap_beyond_the_doubling_chain(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [contracts.zolo]
        max_doubles = 5
        """)
    [msg] = problems_of(p)
    assert "contracts.zolo.max_doubles" in msg and "beyond the doubling chain" in msg


def test_extends_cycle_and_missing_parent(tmp_path):
    write(tmp_path, "a.toml", 'extends = "./b.toml"\nname = "a"\n')
    write(tmp_path, "b.toml", 'extends = "./a.toml"\nname = "b"\n')
    [msg] = problems_of(tmp_path / "a.toml")
    assert "extends cycle" in msg and "a.toml" in msg and "b.toml" in msg
    p = write(tmp_path, "c.toml", 'extends = "no-such-ruleset"\nname = "c"\n')
    [msg] = problems_of(p)
    assert "extends" in msg and "no-such-ruleset" in msg


def test_predicate_needs_exactly_one_key(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [contracts.wesele]
        eligible = { holds_all = ["QC"], holds_any = ["QS"] }
        """)
    [msg] = problems_of(p)
    assert "contracts.wesele.eligible" in msg and "exactly one" in msg


def test_inherited_predicates_are_replaced_not_merged(tmp_path):
    p = write(tmp_path, "ok.toml", """\
        extends = "kop"
        name = "any-queen-wesele"
        [contracts.wesele]
        eligible = { holds_any = ["QC", "QS"] }
        """)
    r = load_ruleset(str(p))
    assert r.contracts["wesele"].eligible.holds_any == ["QC", "QS"]
    assert r.contracts["wesele"].eligible.holds_all is None


def test_unbid_contract_needs_a_player(tmp_path):
    p = write(tmp_path, "bad.toml", """\
        extends = "kop"
        [auction]
        no_bid = ["zolo", "normal"]
        """)
    msgs = problems_of(p)
    assert any("auction.no_bid[0]" in m and "nobody is its player" in m for m in msgs)
    # cicha, no longer listed, can never be played: reported as well
    assert any("contracts.cicha" in m and "never be played" in m for m in msgs)


def test_cli_exit_code_2_and_no_traceback(tmp_path):
    bad = write(tmp_path, "bad.toml", 'extends = "kop"\n[contracts.zolo]\nmax_doubles = 9\n')
    good = str(RULESETS / "kop.toml")
    proc = subprocess.run([sys.executable, "-m", "kopsim.cli", "rules", "validate", good,
                           str(bad)], capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "contracts.zolo.max_doubles" in proc.stderr
    assert "kop.toml: ok" in proc.stdout  # the good file was still checked
    proc = subprocess.run([sys.executable, "-m", "kopsim.cli", "simulate", str(bad),
                           "--hands", "10"], capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_missing_file(capsys):
    assert main(["rules", "show", "no/such/file.toml"]) == 2
    assert "no such ruleset file" in capsys.readouterr().err
