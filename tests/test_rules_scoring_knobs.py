"""The scoring knobs of issue 11 (items 5 and 6), from their statement:
- how a lone player is settled: with each opponent (kop's reading: "the lone winner collects from
  each of the three"), or once, the amount shared by the three;
- a tie on points that the old side loses whatever was doubled ("old side loses" / "young side
  wins"), beside "the side of the last counted double loses" and "nobody wins";
- schneider thresholds per side: Schafkopf's declarers are free (not schneider) from 31 points,
  its defenders from 30, so the old side, losing, is schneider with at most 30, the young side
  with at most 29.
Each case is scored by the reference scoring and by the solver's leaf arithmetic (the compiled
steps the kernel scores with), which must agree."""

import pytest

from kopsim.bots.solver import terminal_outcome
from kopsim.engine.scoring import score
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_raw, ruleset_from_dict


def kop(**scoring):
    data, _ = load_raw("kop")
    data["scoring"] = {**data.get("scoring", {}), **scoring}
    return ruleset_from_dict(data)


def both(rules, contract, old, double_seats, points, tricks):
    """(winner, tier, payouts) by the reference scoring, checked against the compiled steps."""
    ref = score(rules, contract, old, double_seats, points, tricks)
    cr = compile_rules(rules)
    mask = sum(1 << s for s in old)
    w, tier, pay, _ = terminal_outcome(cr, cr.contract_names.index(contract), mask,
                                       double_seats, points, tricks)
    assert (w, tier) == (ref.winner, ref.tier)
    assert pay == pytest.approx(ref.payouts, abs=1e-12)
    return ref.winner, ref.tier, list(ref.payouts)


ZOLO_WON = ("zolo", [0], [], [60, 44, 0, 0], [3, 1, 0, 0])  # kop's zolo: 5 from each opponent


def test_a_lone_player_is_settled_with_each_opponent_by_default():
    assert both(kop(), *ZOLO_WON)[2] == [15, -5, -5, -5]
    assert both(kop(lone_settlement="each_opponent"), *ZOLO_WON)[2] == [15, -5, -5, -5]


def test_a_lone_player_settled_once_gets_the_value_once_a_third_from_each():
    winner, _, pay = both(kop(lone_settlement="once"), *ZOLO_WON)
    assert winner == "old" and pay == pytest.approx([5, -5 / 3, -5 / 3, -5 / 3])
    lost = ("zolo", [0], [], [40, 64, 0, 0], [1, 3, 0, 0])
    assert both(kop(lone_settlement="once"), *lost)[2] == pytest.approx([-5, 5 / 3, 5 / 3, 5 / 3])
    # a team game is not a lone game: each winner receives the value, as before
    team = ("normal", [0, 1], [], [60, 0, 44, 0], [3, 0, 1, 0])
    assert both(kop(lone_settlement="once"), *team)[2] == both(kop(), *team)[2]


# a normal game at 52:52 in which the young side (seat 2) said the only double
TIE_DOUBLED_BY_YOUNG = ("normal", [0, 1], [2], [52, 0, 52, 0], [2, 0, 2, 0])
TIE_UNDOUBLED = ("normal", [0, 1], [], [52, 0, 52, 0], [2, 0, 2, 0])


def test_a_tie_lost_by_the_old_side_whatever_was_doubled():
    # kop's own rule: the side of the last counted double loses, so here the old side wins
    assert both(kop(), *TIE_DOUBLED_BY_YOUNG)[:2] == ("old", "tie")
    assert both(kop(tie="old_side_loses"), *TIE_DOUBLED_BY_YOUNG)[:2] == ("young", "tie")
    assert both(kop(tie="old_side_loses"), *TIE_UNDOUBLED)[:2] == ("young", "tie")
    assert both(kop(tie="nobody_wins"), *TIE_DOUBLED_BY_YOUNG)[0] is None


def test_schneider_thresholds_differ_by_side():
    schafkopf_like = kop(schneider_max_points=29, old_side_schneider_max_points=30)
    # the old side loses with 30 points and a trick: schneider (it needed 31 to be free)
    assert both(schafkopf_like, "normal", [0, 1], [], [30, 0, 74, 0], [1, 0, 3, 0])[1] == \
        "schneider"
    assert both(schafkopf_like, "normal", [0, 1], [], [31, 0, 73, 0], [1, 0, 3, 0])[1] == "out"
    # the young side loses with 30: free (schneider only with 29 or fewer)
    assert both(schafkopf_like, "normal", [0, 1], [], [74, 0, 30, 0], [3, 0, 1, 0])[1] == "out"
    assert both(schafkopf_like, "normal", [0, 1], [], [75, 0, 29, 0], [3, 0, 1, 0])[1] == \
        "schneider"
    # without the per-side key, both sides share schneider_max_points (kop: 25)
    assert both(kop(), "normal", [0, 1], [], [30, 0, 74, 0], [1, 0, 3, 0])[1] == "out"
