"""The compiled core: kernel bot kinds are declared, and the solver prices finished hands exactly
as the reference engine does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bundled import searchable_bundled  # tests/bundled.py

import kopsim
from kopsim.bots.seated import play_batch
from kopsim.bots import BotSpec, bot_spec
from kopsim.bots.heuristic import HeuristicBot, HeuristicParams
from kopsim.bots.kernel import KERNEL_KINDS
from kopsim.rules.compile import compile_rules
from kopsim.experiments.spec import ENGINE_FILES
from kopsim.bots.seated import play_hand
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict
from kopsim.engine.layout import hand_seeds
from kopsim.engine.scoring import score
from kopsim.bots.solver import Dealt, laufende_added, side_value, solve, terminal_outcome
from kopsim.records.format import batch_record


class _UndeclaredKindBot(HeuristicBot):
    """A plug-in that claims a kernel kind nobody declared (it would once have played the
    heuristic's cards without a word)."""

    name = "undeclared-kind"
    kernel_kind = max(KERNEL_KINDS) + 1


def test_a_kernel_kind_that_is_not_declared_is_refused():
    spec = BotSpec(_UndeclaredKindBot, HeuristicParams(), "undeclared-kind")
    seeds = np.arange(4)
    with pytest.raises(ValueError, match="not a declared kernel kind"):
        play_batch(load_ruleset("kop"), seeds, seeds % 4, bots=[spec])


def test_every_declared_kind_is_a_bot_that_names_it():
    for kind, cls in KERNEL_KINDS.items():
        assert cls.kernel_kind == kind
        assert bot_spec(cls.name).kernel_kind == kind


# rulesets with the issue-11 knobs the solver prices: Laufende (fixed by the hands as dealt)
KNOB_FILES = {name: Path(__file__).parent / "data" / "knobs" / f"{name}.toml"
              for name in ("kop-laufende",)}  # and the bundled schafkopf


@pytest.mark.parametrize("name", searchable_bundled() + sorted(KNOB_FILES))
def test_solver_values_final_positions_as_the_reference_pays_them(rulesets, name):
    """Every card played: the solver's value (and outcome) of the position is the reference
    engine's payout of the same hand (kopsim.engine.scoring through reference.State.returns),
    the Laufende included (the solver is given the hands as dealt)."""
    rules = rulesets[name] if name in rulesets else load_ruleset(KNOB_FILES[name])
    cr = compile_rules(rules)
    index = {c: i for i, c in enumerate(cr.cards)}
    bots = [bot_spec("heuristic"), bot_spec("random")] * 2
    seeds = hand_seeds(11, 0, 150)
    seen = set()
    with_laufende = 0
    for i, seed in enumerate(seeds):
        state = play_hand(rules, int(seed), i % 4, bots)
        old_mask = sum(1 << s for s in state.old_side)
        k = cr.contract_names.index(state.contract)
        dealt = [sum(1 << index[c] for c in h) for h in state.deal.hands]
        res = solve(cr, k, old_mask, [0, 0, 0, 0], state.leader, (), state.points,
                    state.tricks_won, state.double_seats, moves=False, line=False,
                    dealt=Dealt(dealt))
        assert res.value == side_value(state.returns(), old_mask), f"hand {i}"
        if not rules.contracts[state.contract].instant:
            winner, tier, payouts, value = terminal_outcome(
                cr, k, old_mask, state.double_seats, state.points, state.tricks_won, dealt)
            assert (winner, tier, payouts) == (state.outcome.winner, state.outcome.tier,
                                               state.returns()), f"hand {i}"
            assert value == res.value
        seen.add((state.outcome.winner, state.outcome.tier))
        with_laufende += laufende_added(cr, k, old_mask, dealt) != 0
    assert len(seen) >= 2  # more than one kind of ending was priced
    assert with_laufende > 0 or name not in KNOB_FILES


def test_an_instant_win_is_valued_at_its_plain_price_even_when_a_multiplier_names_it():
    """The reference scores an instant contract at its out price, before any doubling or
    multiplier; the solver once applied the old-side-won multiplier to it."""
    data, _ = load_raw("baska")
    data["scoring"]["multipliers"].append({"when": "old_side_won", "factor": 3.0})
    rules = ruleset_from_dict(data)
    cr = compile_rules(rules)
    k = cr.contract_names.index("baśka")
    old_mask = 0b0001
    expected = side_value(score(rules, "baśka", [0], [], [0.0] * 4, [0] * 4).payouts, old_mask)
    got = solve(cr, k, old_mask, [0, 0, 0, 0], 0, moves=False, line=False).value
    assert got == expected != 0


def test_the_engine_fingerprint_covers_every_compiled_module():
    """A results folder is only resumed or filled by the same engine code: the compiled core's
    own modules are part of that code."""
    root = Path(kopsim.__file__).parent
    covered = {p for pattern in ENGINE_FILES for p in root.glob(pattern)}
    for module in ("engine/steps.py", "engine/loop.py", "engine/codes.py", "rules/codes.py",
                   "rules/tables.py", "bots/kernel.py"):
        assert root / module in covered, module


def test_a_given_deal_is_dealt_one_card_at_a_time_from_the_dealers_left_and_checked():
    cr = compile_rules(load_ruleset("kop"))
    order = np.arange(16)[::-1].copy()
    res = play_batch(cr, np.array([3]), np.array([1]), given=order[None, :])
    hands = batch_record(res, 0).hands
    # card i goes to seat (dealer + 1 + i) mod 4: the dealer is 1, so seat 2 gets cards 0, 4, ...
    assert hands[2] == [cr.cards[c] for c in order[0::4]]
    assert hands[1] == [cr.cards[c] for c in order[3::4]]
    broken = order.copy()
    broken[0] = broken[1]
    with pytest.raises(ValueError, match="each card of the deck once"):
        play_batch(cr, np.array([3]), np.array([1]), given=broken[None, :])


def test_a_batch_holds_one_copy_of_each_outcome_column():
    from kopsim.engine.kernel import concat, take

    res = play_batch(compile_rules(load_ruleset("kop")), np.arange(6), np.arange(6) % 4)
    with pytest.raises(AttributeError):
        res.payouts = np.zeros((6, 4))
    paid = res.with_columns(payouts=np.ones((6, 4)))
    assert (paid.payouts == 1).all() and (res.payouts != 1).any()
    both = concat([take(paid, np.array([4, 5])), take(res, np.array([0]))])
    assert (both.payouts[:2] == 1).all() and (both.payouts[2] == res.payouts[0]).all()
    assert list(both.seeds) == [4, 5, 0]
