"""A contract won only by taking no trick (issue 11, item 10: Schafkopf's Bettel, Skat's Null):
the old side wins if it took no trick and loses as soon as it takes one, whatever the points.
Scored by the reference scoring and by the compiled steps (the solver's leaf arithmetic)."""

from pathlib import Path

import pytest

from kopsim.bots.solver import terminal_outcome
from kopsim.engine.scoring import score
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset
from kopsim.rules.show import show

KNOB = Path(__file__).parent / "data" / "knobs" / "kop-bettel.toml"


def both(rules, old, points, tricks):
    ref = score(rules, "bettel", old, [], points, tricks)
    cr = compile_rules(rules)
    w, tier, pay, _ = terminal_outcome(cr, cr.contract_names.index("bettel"),
                                       sum(1 << s for s in old), [], points, tricks)
    assert (w, tier) == (ref.winner, ref.tier) and pay == pytest.approx(ref.payouts)
    return ref.winner, list(ref.payouts)


def test_no_trick_wins_and_one_trick_loses_whatever_the_points():
    rules = load_ruleset(KNOB)
    assert both(rules, [0], [0, 104, 0, 0], [0, 4, 0, 0]) == ("old", [18, -6, -6, -6])
    # one trick of no points at all still loses
    assert both(rules, [0], [0, 50, 54, 0], [1, 2, 1, 0]) == ("young", [-18, 6, 6, 6])
    assert both(rules, [0], [60, 44, 0, 0], [3, 1, 0, 0])[0] == "young"


def test_the_goal_is_shown():
    assert "no trick" in show(load_ruleset(KNOB))
