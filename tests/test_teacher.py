"""Teacher data (kopsim.bots.teacher): pimc's decisions with its value of every legal action,
recorded from the deciding seat's view alone, the same whatever the jobs."""

import random

import numpy as np
import pytest
from test_bots import _random_prefix, _reshuffle_hidden

from kopsim.bots import bot_spec
from kopsim.bots.pimc import PimcBot, PimcParams, scratch
from kopsim.bots.pimc_kernel import pimc_valued
from kopsim.bots.teacher import (CHUNK, KIND_CALL, KIND_CARD, TeacherParams, teacher_deal,
                                 teacher_decisions)
from kopsim.bots.seated import play_hand
from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

SMALL = dict(samples=4, auction_samples=4)


@pytest.fixture(scope="module")
def kop():
    return load_ruleset("kop")


@pytest.fixture(scope="module")
def kop_rows(kop):
    return teacher_decisions(kop, TeacherParams(deals=24, **SMALL))


def _actions(state: State) -> list[str]:
    return [c for _, c in state.auction] + [c for t in state.tricks for c in t.cards]


@pytest.mark.parametrize("name", ["kop", "baska"])
def test_the_rows_are_the_decisions_pimc_makes(name):
    """Replaying each deal with the rows' chosen actions (and the forced ones) plays the hand
    four pimc bots play through the reference engine, action for action."""
    rules = load_ruleset(name)
    params = TeacherParams(deals=10, **SMALL)
    d = teacher_decisions(rules, params)
    pimc = bot_spec({"name": "pimc", **SMALL})
    cr = compiled(rules)
    for i in range(params.deals):
        seed, dealer = teacher_deal(params, i, rules.deck.players)
        state = State(rules, Deal.from_seed(rules, seed, dealer))
        rows = iter(np.flatnonzero(d.deal == i).tolist())
        while not state.is_terminal():
            legal = state.legal_actions()
            if len(legal) == 1:
                state.apply_action(legal[0])
                continue
            r = next(rows)
            names = cr.cards if d.kind[r] == KIND_CARD else cr.call_names
            assert [names[c] for c in d.legal[r, :d.n_legal[r]]] == legal
            assert d.seat[r] == state.current_player()
            state.apply_action(legal[d.chosen[r]])
        assert next(rows, None) is None
        assert _actions(state) == _actions(play_hand(rules, seed, dealer, [pimc] * 4))


def test_a_card_row_takes_the_card_of_highest_value(kop_rows):
    d = kop_rows
    cards = np.flatnonzero(d.kind == KIND_CARD)
    calls = np.flatnonzero(d.kind == KIND_CALL)
    assert len(cards) > 100 and len(calls) > 20
    for r in cards:
        v = d.values[r, :d.n_legal[r]]
        assert d.chosen[r] == int(np.argmax(v))  # the first of equal ones, as pimc
    # the values are spread, not a constant: pimc prefers some cards by a margin
    spread = [np.ptp(d.values[r, :d.n_legal[r]]) for r in cards]
    assert np.mean(np.array(spread) > 0) > 0.3
    assert np.isfinite(d.values[calls, 0]).all()
    assert np.isnan(d.values[cards[0], d.n_legal[cards[0]]:]).all()


def test_a_row_is_what_the_seat_saw(kop_rows, kop):
    """Its own cards as dealt, and every card in play order, the tricks' winners for the tricks
    finished only."""
    d, cr = kop_rows, compiled(kop)
    params = TeacherParams(deals=24, **SMALL)
    for r in range(0, len(d), 7):
        seed, dealer = teacher_deal(params, int(d.deal[r]), kop.deck.players)
        deal = Deal.from_seed(kop, seed, dealer)
        own = sum(1 << cr.card_index[c] for c in deal.hands[d.seat[r]])
        assert int(d.own[r]) == own and d.dealer[r] == dealer
        played = int(d.played[r])
        assert (d.cards[r, played:] == -1).all() and (d.cards[r, :played] >= 0).all()
        assert (d.winners[r, played // 4:] == -1).all()


@pytest.mark.parametrize("name", ["kop", "baska"])
def test_no_row_reads_a_hidden_card(name):
    """The same view with the others' cards dealt again gives the same row: view, values and
    choice."""
    rules = load_ruleset(name)
    cr = compiled(rules)
    ps = scratch(cr, 4)
    row_params = PimcBot.kernel_params(PimcParams(**SMALL))
    rng = random.Random(3)
    checked = 0
    for i in range(16):
        seed = hand_seed(31, i)
        state = _random_prefix(rules, seed, i % 4, rng.randrange(0, 20), rng)
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        seat = state.current_player()
        other = _reshuffle_hidden(state, seat, rng)
        if other is None:
            continue
        a = pimc_valued(cr, ps, row_params, seed, state.observation(seat))
        b = pimc_valued(cr, ps, row_params, seed, other.observation(seat))
        for x, y in zip(a[0], b[0]):
            assert np.array_equal(np.asarray(x), np.asarray(y))
        assert a[1] == b[1]
        assert np.array_equal(a[2], b[2])
        checked += 1
    assert checked >= 5


def test_the_rows_are_the_same_whatever_the_jobs(kop):
    params = TeacherParams(deals=CHUNK + 3, seed=4, **SMALL)
    one = teacher_decisions(kop, params, jobs=1)
    two = teacher_decisions(kop, params, jobs=2)
    for name, a, b in zip(one._fields, one, two):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
    assert set(one.deal.tolist()) == set(range(params.deals))
