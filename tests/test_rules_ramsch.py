"""Ramsch, written from the rule (docs/rules/SCHAFKOPF.md, "Ramsch"; openschafkopf's Ramsch):
when nobody declares, each plays for himself; the seat with the most points pays the price to
each of the others; of seats tied on the most points the one who played the highest trump
loses (or, by the other reading, the one with the most tricks); each seat without a trick
(Jungfrau) doubles what the loser pays; a seat taking every trick (Durchmarsch) wins alone and
receives the Durchmarsch price from each instead. The ruleset: tests/data/knobs/schafkopf-ramsch
.toml, Ramsch 10, Durchmarsch 30, in the Sauspiel's order (Obers, Unters, hearts)."""

from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.engine.scoring import each_alone
from kopsim.errors import InputError
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict
from kopsim.records.format import batch_record

KNOB = Path(__file__).parent / "data" / "knobs" / "schafkopf-ramsch.toml"
RULES = load_ruleset(KNOB)


def ramsch(points, tricks, played_by=None, forehand=0, rules=RULES):
    old, out = each_alone(rules, "ramsch", points, tricks, played_by or {}, forehand)
    return old, out.winner, list(out.payouts)


def test_the_most_points_pay_the_price_to_each_of_the_others():
    assert ramsch([40, 30, 30, 20], [3, 2, 2, 1]) == ([0], "young", [-30, 10, 10, 10])
    assert ramsch([20, 30, 45, 25], [1, 2, 3, 2]) == ([2], "young", [10, 10, -30, 10])


def test_each_seat_without_a_trick_doubles_what_the_loser_pays():
    assert ramsch([60, 40, 20, 0], [4, 3, 1, 0]) == ([0], "young", [-60, 20, 20, 20])
    assert ramsch([80, 40, 0, 0], [5, 3, 0, 0]) == ([0], "young", [-120, 40, 40, 40])


def test_of_seats_tied_on_the_most_points_the_one_who_played_the_highest_trump_loses():
    # seat 1 played the Q of spades (the 2nd trump), seat 0 only the J of clubs (the 5th)
    played = {"JC": 0, "QS": 1, "QC": 2}
    assert ramsch([40, 40, 25, 15], [3, 2, 2, 1], played) == ([1], "young", [10, -30, 10, 10])
    played = {"JC": 1, "QS": 0, "QC": 2}
    assert ramsch([40, 40, 25, 15], [3, 2, 2, 1], played) == ([0], "young", [-30, 10, 10, 10])


def test_of_seats_tied_the_one_with_most_tricks_loses_by_the_other_reading():
    data, _ = load_raw(KNOB)
    data["contracts"]["ramsch"]["ramsch"]["loser"] = "most_tricks"
    rules = ruleset_from_dict(data)
    played = {"QC": 1}  # seat 1 played the highest trump, but seat 0 took more tricks
    assert ramsch([40, 40, 25, 15], [3, 2, 2, 1], played, rules=rules)[0] == [0]
    assert ramsch([40, 40, 25, 15], [2, 2, 2, 2], played, rules=rules)[0] == [1]


def test_a_durchmarsch_wins_alone_and_no_jungfrau_doubles_it():
    assert ramsch([120, 0, 0, 0], [8, 0, 0, 0]) == ([0], "old", [90, -30, -30, -30])


def test_a_durchmarsch_by_points_and_none_at_all():
    data, _ = load_raw(KNOB)
    data["contracts"]["ramsch"]["ramsch"]["durchmarsch"] = 91
    rules = ruleset_from_dict(data)
    assert ramsch([95, 10, 15, 0], [5, 1, 2, 0], rules=rules) == ([0], "old", [90, -30, -30, -30])
    del data["contracts"]["ramsch"]["ramsch"]["durchmarsch"]
    rules = ruleset_from_dict(data)
    # every trick and no Durchmarsch: the most points, and three Jungfrauen (x8)
    assert ramsch([120, 0, 0, 0], [8, 0, 0, 0], rules=rules) == ([0], "young",
                                                                  [-240, 80, 80, 80])


def _expected(rec):
    """The rule, from a hand record: (old side, payouts)."""
    points, tricks = rec.points, rec.tricks_won
    if max(tricks) == 8:
        s = tricks.index(8)
        return [s], [90.0 if t == s else -30.0 for t in range(4)]
    tied = [s for s in range(4) if points[s] == max(points)]
    trumps = RULES.orders["herz"].trumps
    played = {c: (t["leader"] + i) % 4 for t in rec.tricks for i, c in enumerate(t["cards"])}
    loser = next((played[c] for c in trumps if played.get(c) in tied), tied[0])
    v = 10.0 * 2 ** tricks.count(0)
    return [loser], [-3 * v if s == loser else v for s in range(4)]


def test_the_kernel_plays_and_pays_ramsch_hands_by_the_rule():
    seeds = hand_seeds(5, 0, 1500)
    batch = play_batch(compile_rules(RULES), seeds, np.arange(1500) % 4,
                       bots=[bot_spec("heuristic")] * 4)
    seen = 0
    for i in range(1500):
        rec = batch_record(batch, i)
        if rec.contract != "ramsch":
            continue
        seen += 1
        old, pay = _expected(rec)
        assert rec.old_side == old and list(rec.payouts) == pay and rec.declarer is None, i
    assert seen > 100


@pytest.mark.parametrize("edit, where", [
    (lambda c: c.update(goal="points"), 'contracts.ramsch.goal'),
    (lambda c: c.update(team="alone"), 'contracts.ramsch.team'),
    (lambda c: c.update(bid_rank=99), 'contracts.ramsch.bid_rank'),
    (lambda c: c.pop("max_doubles"), 'contracts.ramsch.max_doubles'),
    (lambda c: c.update(payout={"won": 30, "lost": {"out": 10, "schneider": 20,
                                                    "schwarz": 30}}),
     'contracts.ramsch.payout.lost'),
    (lambda c: c["ramsch"].update(durchmarsch=60), 'contracts.ramsch.ramsch.durchmarsch'),
    (lambda c: c.update(team_cards=["QC"]), 'contracts.ramsch.team_cards'),
])
def test_a_ramsch_that_cannot_be_played_is_refused_where_it_is_wrong(edit, where):
    data, _ = load_raw(KNOB)
    edit(data["contracts"]["ramsch"])
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert where in {p.where for p in e.value.problems}


def test_a_ramsch_nobody_falls_back_to_is_refused():
    data, _ = load_raw(KNOB)
    data["auction"]["no_bid"] = ["sauspiel eichel"]
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert "contracts.ramsch" in {p.where for p in e.value.problems}


def test_the_double_dummy_bots_refuse_a_ruleset_with_a_ramsch_before_playing(tmp_path):
    """Their search plays two sides; a Ramsch has four: refused where the bot is named."""
    from kopsim.cli import main

    exp = tmp_path / "e.toml"
    exp.write_text(f'deals = 8\nbots = ["heuristic", "cheat-dd", "heuristic", "heuristic"]\n'
                   f'variants = [{str(KNOB)!r}]\n', encoding="utf-8")
    assert main(["run", str(exp), "--out", str(tmp_path / "out")]) == 2
    assert not (tmp_path / "out").exists()
    assert main(["duel", str(KNOB), "--a", "pimc", "--b", "heuristic", "--deals", "4"]) == 2
    assert main(["duel", "schafkopf", "--a", "heuristic", "--b", "random", "--deals", "4"]) == 0
