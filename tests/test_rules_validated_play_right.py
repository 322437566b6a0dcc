"""A ruleset that validates plays correctly in both engines, or it does not validate (issue 30:
six defects a fuzzing round found, each with its regression test here; the fuzz tests in
tests/test_fuzz_rulesets.py generate the same kinds of input)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.cli import main
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.bots.seated import play_hand
from kopsim.errors import InputError, dotted
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

KNOBS = Path(__file__).parent / "data" / "knobs"
KOP_TRUMPS = ["AH", "10H", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D", "AC",
              "10C", "AS", "10S"]


def validate(path, capsys) -> tuple[int, str]:
    rc = main(["rules", "validate", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return rc, err


def write(tmp_path, text: str, name: str = "r.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def same_records(rules, hands: int, lineup=("random",) * 4, seed: int = 11) -> int:
    """Plays the same deals in the kernel and the reference engine; returns the number of
    hands, failing on the first whose records differ."""
    bots = [bot_spec(b) for b in lineup]
    seeds, dealers = hand_seeds(seed, 0, hands), np.arange(hands) % 4
    batch = play_batch(compile_rules(rules), seeds, dealers, bots=bots)
    for i in range(hands):
        ref = record_from_state(play_hand(rules, int(seeds[i]), int(dealers[i]), bots),
                                int(seeds[i]), i)
        assert batch_record(batch, i).to_dict() == ref.to_dict(), f"hand {i} differs"
    return hands


# ------------------------------------------------------------- 1. empty names are no names

def test_the_order_named_empty_of_the_fuzzing_round_is_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n[orders.""]\ntrumps = '
              + json.dumps(KOP_TRUMPS) + '\n[contracts.zolo]\norder = ""\n')
    rc, err = validate(p, capsys)
    assert rc == 2
    assert f'{p}: orders."": a name cannot be empty' in err
    assert f"{p}: contracts.zolo.order: a name cannot be empty" in err


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["orders"].update({"": d["orders"]["as-dycha"]}), 'orders.""'),
    (lambda d: d["orders"].update({" ": d["orders"]["as-dycha"]}), 'orders." "'),
    (lambda d: d["contracts"].update({"": d["contracts"]["zolo"]}), 'contracts.""'),
    (lambda d: d["contracts"]["zolo"].update(order=""), "contracts.zolo.order"),
    (lambda d: d["deck"]["ranks"].append(""), "deck.ranks[4]"),
    (lambda d: d["deck"]["suits"].__setitem__(0, "  "), "deck.suits[0]"),
    (lambda d: d["deck"]["points"].update({"": 0}), 'deck.points.""'),
    (lambda d: d["doubling"]["names"].__setitem__(1, ""), "doubling.names[1]"),
    (lambda d: d["auction"].update(no_bid=["", "normal"]), "auction.no_bid[0]"),
    (lambda d: d["auction"].update(ask_call=""), "auction.ask_call"),
    (lambda d: d.update(name=""), "name"),
])
def test_an_empty_or_blank_name_is_refused_where_it_is(edit, where):
    data, _ = load_raw("kop")
    edit(data)
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert where in {p.where for p in e.value.problems}
    assert any("a name cannot be" in p.message for p in e.value.problems)


def test_a_laufende_contract_counts_its_orders_trumps_when_no_cards_are_listed():
    rules = load_ruleset(KNOBS / "kop-laufende.toml")
    for c in rules.contracts.values():
        if c.laufende is not None and not c.laufende.cards:
            assert c.laufende_cards(rules.orders) == rules.orders[c.order].trumps


# ------------------------------------------------------ 2. a folder where a file should be

def test_a_folder_as_the_ruleset_or_its_parent_is_a_located_input_error(tmp_path, capsys):
    folder = tmp_path / "rules.toml"
    folder.mkdir()
    rc, err = validate(folder, capsys)
    assert rc == 2 and f"error: {folder}: a folder" in err
    for parent in ("/", "rules.toml"):
        p = write(tmp_path, f'extends = "{parent}"\nname = "x"\n', "child.toml")
        rc, err = validate(p, capsys)
        assert rc == 2 and f"error: {p}: extends:" in err and "a folder" in err
    assert main(["simulate", str(folder), "--hands", "10"]) == 2
    assert "a folder" in capsys.readouterr().err


def test_a_folder_as_an_experiments_variant_or_file_is_a_located_input_error(tmp_path):
    (tmp_path / "v.toml").mkdir()
    (tmp_path / "e.toml").write_text('name = "e"\ndeals = 100\nseed = 1\n'
                                     'bots = ["random", "random", "random", "random"]\n'
                                     '[[variants]]\nruleset = "v.toml"\n', encoding="utf-8")
    (tmp_path / "d.toml").mkdir()
    for argv in (["run", "e.toml", "--check"], ["run", "d.toml", "--check"]):
        proc = subprocess.run([sys.executable, "-m", "kopsim.cli", *argv], cwd=tmp_path,
                              capture_output=True, text=True)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "a folder" in proc.stderr and ".toml" in proc.stderr


# ------------------------------------------- 3. [inherit] remove counts the parent's items

def _child(tmp_path, removes: list[str]) -> Path:
    return write(tmp_path, 'extends = "kop-sportowy"\nname = "x"\n[inherit]\nremove = '
                 + json.dumps(removes) + "\n")


def test_a_removal_listed_twice_is_refused(tmp_path, capsys):
    p = _child(tmp_path, ["auction.restrictions[0]", "auction.restrictions[0]"])
    rc, err = validate(p, capsys)
    assert rc == 2
    assert (f"{p}: inherit.remove[1]: auction.restrictions[0] is listed twice (first at "
            "inherit.remove[0])") in err


def test_removed_indices_count_the_parents_items_in_any_order(tmp_path):
    parent = load_raw("kop-sportowy")[0]["auction"]["restrictions"]
    assert len(parent) >= 2
    for removes in (["auction.restrictions[0]"], ["auction.restrictions[1]"],
                    ["auction.restrictions[0]", "auction.restrictions[1]"],
                    ["auction.restrictions[1]", "auction.restrictions[0]"]):
        gone = {int(r[-2]) for r in removes}
        data, _ = load_raw(_child(tmp_path, removes))
        assert data["auction"].get("restrictions", []) == [
            x for i, x in enumerate(parent) if i not in gone]


# ---------------------------------------- 4. non-integer factors: the same bits in both engines

@pytest.mark.parametrize("text", [
    "[doubling]\nfactor = 1.1\n",
    "[doubling]\nfactor = 1.3\n[[scoring.multipliers]]\nwhen = \"old_side_lost\"\nfactor = 1.7\n"
    "[[scoring.multipliers]]\nwhen = \"old_side_lost\"\nfactor = 0.3\n"
    "[[scoring.multipliers]]\nwhen = \"tie\"\nfactor = 1.1\n",
])
def test_a_non_integer_factor_gives_the_same_payouts_in_both_engines(tmp_path, text, capsys):
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n' + text)
    rules = load_ruleset(p)
    assert same_records(rules, 600) == 600
    log = tmp_path / "log.jsonl"
    assert main(["simulate", str(p), "--hands", "2000", "--seed", "1544", "--log",
                 str(log)]) == 0
    assert main(["replay", str(log), "--rules", str(p)]) == 0, capsys.readouterr().out[-3000:]
    payouts = [json.loads(x)["payouts"] for x in log.read_text().splitlines()]
    # the factor does make payouts that are no whole numbers
    assert any(not float(v).is_integer() for pay in payouts for v in pay)


# ------------------------------------------------- 5. card points are whole numbers, exactly

def test_fractional_card_points_are_refused(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n[deck]\n'
              'points = { A = 0.1, "10" = 0.2, Q = 0.3, J = 0.4 }\n')
    rc, err = validate(p, capsys)
    assert rc == 2 and f"{p}: deck.points.A: card points are whole numbers" in err
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n[deck]\n'
              'points = { A = 11.0, "10" = 10, Q = 3, J = 2 }\n')
    assert validate(p, capsys)[0] == 0  # 11.0 is a whole number


def test_a_side_with_half_the_points_does_not_win_by_the_documented_default(tmp_path):
    # docs/rulesets.md, scoring.win_points: the pack's total / 2, rounded down, + 1. With one
    # point per ace and ten only (8 in all) the old side needs 5; 4 of 8 is no win
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n[deck]\n'
              'points = { A = 1, "10" = 1, Q = 0, J = 0 }\n')
    rules = load_ruleset(p)
    n = 3000
    batch = play_batch(compile_rules(rules), hand_seeds(2, 0, n), np.arange(n) % 4,
                       bots=[bot_spec("heuristic")] * 4)  # mostly normal games, two against two
    halves = 0
    for i in range(n):
        rec = batch_record(batch, i)
        c = rules.contracts[rec.contract]
        if c.instant or c.goal != "points" or not rec.tricks:
            continue
        old = sum(rec.points[s] for s in rec.old_side)
        if old == 4:  # 4:4 is a tie, settled by the tie rule (kop: the last double loses)
            assert rec.tier == "tie", i
            halves += 1
        else:
            assert (rec.winner == "old") == (old >= 8 // 2 + 1) and rec.tier != "tie", i
    assert halves > 20


# ---------------------------------------------------------------- 6. exactly zero-sum

def _zero_sum_rulesets():
    out = [(name, load_ruleset(name)) for name in ("kop", "baska", "kop-sportowy", "schafkopf")]
    out += [(p.stem, load_ruleset(p)) for p in sorted(KNOBS.glob("*.toml"))]
    return [(name, r) for name, r in out if r.scoring.style == "zero_sum"]


@pytest.mark.parametrize("name, rules", _zero_sum_rulesets(), ids=lambda x: x
                         if isinstance(x, str) else "")
def test_every_hand_of_a_zero_sum_ruleset_sums_to_exactly_zero(name, rules):
    n = 4000
    batch = play_batch(compile_rules(rules), hand_seeds(3, 0, n), np.arange(n) % 4,
                       bots=[bot_spec("heuristic")] * 4)
    sums = [math.fsum(row) for row in batch.payouts.tolist()]  # the real sum, no rounding
    assert sums.count(0.0) == n, [s for s in sums if s][:5]


def test_a_lone_game_settled_once_pays_its_price_and_the_last_opponent_takes_the_residue():
    rules = load_ruleset(KNOBS / "kop-scoring-knobs.toml")
    assert rules.scoring.lone_settlement == "once"
    from kopsim.engine.scoring import distribute
    pay = distribute(rules, 160.0, "young", [1])  # seat 1 alone lost: pays 160 in all
    assert pay[1] == -160.0 and math.fsum(pay) == 0.0
    third = 160.0 / 3
    assert pay[2] == pay[3] == third and pay[0] == 160.0 - 2 * third  # seat 0: last after 1
    assert same_records(rules, 400) == 400


# ------------------------------------------------------------------------------- smaller

def test_an_error_quotes_a_long_value_cut_short(tmp_path, capsys):
    p = write(tmp_path, 'extends = "kop"\nname = "x"\n[play]\nfollow_suit = '
              + json.dumps(list(range(5000))) + "\n")
    rc, err = validate(p, capsys)
    assert rc == 2 and "play.follow_suit" in err
    assert max(len(line) for line in err.splitlines()) < 400


def test_a_bankroll_of_a_fraction_of_a_card_is_refused():
    # found by the fuzzer: start = 0.1 paid [-0.1, -0.1, 0.20000000000000004, 0]
    data, _ = load_raw("kop-victory-cards")
    data["session"]["start"] = 0.1
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any(p.where == "session.start" and "whole cards" in p.message
               for p in e.value.problems)


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["contracts"]["normal"]["payout"].update(won=0.1), "contracts.normal.payout.won"),
    (lambda d: (d.update(doubling={"names": ["kontra"], "factor": 1.5}),
                d["auction"].update(doubles_after_single_round=True)), "doubling.factor"),
])
def test_a_bankroll_refuses_prices_that_are_no_whole_cards(edit, where):
    # found by the fuzzer: won = 0.1 moved [0.0999…964, -0.1000…09, -0.1000…09, 0.0999…964]
    data, _ = load_raw("kop-victory-cards")
    edit(data)
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any(p.where == where and "whole" in p.message for p in e.value.problems)


@pytest.mark.parametrize("edit, where, what", [
    (lambda d: d["auction"].update(no_bid=["cicha", "normal", "cicha"]), "auction.no_bid[2]",
     "listed twice"),
    (lambda d: d["contracts"]["normal"].update(bid_class=1), "contracts.normal.bid_class",
     "needs a bid_rank"),
])
def test_what_would_be_silently_ignored_is_refused(edit, where, what):
    data, _ = load_raw("kop")
    edit(data)
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any(p.where == where and what in p.message for p in e.value.problems), \
        [str(p) for p in e.value.problems]


def test_an_add_on_to_an_instant_contract_is_refused():
    data, _ = load_raw(KNOBS / "baska-du-add-on.toml")
    added = next(n for n, c in data["contracts"].items() if "add_on_to" in c)
    base = data["contracts"][added]["add_on_to"]
    data["contracts"][base]["instant"] = True
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any(p.where == f"contracts.{dotted([added])}.add_on_to" and "instant" in p.message
               for p in e.value.problems), [str(p) for p in e.value.problems]
