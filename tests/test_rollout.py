"""Rollout teacher values (kopsim.bots.rollout) and the kernel's forced actions they rest on:
a world is played on from a decision's public history and an action, by bots that see only
their own cards; no value reads a card the deciding seat cannot see."""

import random

import numpy as np
import pytest
from test_bots import _random_prefix, _reshuffle_hidden

from kopsim.bots import bot_spec
from kopsim.bots.rollout import (RolloutParams, dealt_order, rollout_decisions,
                                 value_decisions)
from kopsim.bots.teacher import CHUNK, KIND_CALL, KIND_CARD, teacher_deal
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

FAST = {"name": "heuristic"}  # a line-up that needs no training: quick to test with


@pytest.fixture(scope="module")
def kop():
    return load_ruleset("kop")


def _forced(cr, calls, cards):
    row = np.full(cr.max_calls + cr.n_cards, -1, np.int64)
    row[:len(calls)] = calls
    row[cr.max_calls:cr.max_calls + len(cards)] = cards
    return row


def _replays_legally(rules, cr, out, h, seed, dealer):
    """Hand h of a batch, replayed through the reference engine: every action legal."""
    state = State(rules, Deal.from_seed(rules, seed, dealer))
    ci = pi = 0
    while not state.is_terminal():
        if state.phase == "play":
            action = cr.cards[out.cards[h, pi]]
            pi += 1
        else:
            action = cr.call_names[out.calls[h, ci]]
            ci += 1
        if action not in state.legal_actions():
            return False
        state.apply_action(action)
    return True


def test_forced_actions_are_played_and_the_bots_play_on(kop):
    """Hands played by one line-up, forced on another: the other plays them action for action
    as far as forced, then its own way; with nothing forced, as it would unforced."""
    cr = compiled(kop)
    n = 40
    seeds, dealers = hand_seeds(5, 0, n), np.arange(n) % 4
    first = play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    cut = [(int(first.ncalls[h]), 1 + h % 12) for h in range(n)]
    forced = np.array([_forced(cr, first.calls[h, :k], first.cards[h, :p])
                       for h, (k, p) in enumerate(cut)])
    forced[-1] = -1
    rand = [bot_spec("random")]
    out = play_batch(cr, seeds, dealers, bots=rand, forced=forced)
    free = play_batch(cr, seeds, dealers, bots=rand)
    for h, (k, p) in enumerate(cut[:-1]):
        assert (out.calls[h, :k] == first.calls[h, :k]).all()
        assert (out.cards[h, :p] == first.cards[h, :p]).all()
    assert (out.cards[-1] == free.cards[-1]).all()
    # random bots, on their own, leave the forced line somewhere
    assert any((free.cards[h] != first.cards[h]).any() for h in range(n - 1))


def test_a_forced_action_that_is_not_legal_is_left_to_the_bot(kop):
    """A card the seat does not hold, or a call it may not make, is not played: the hand goes
    on legally, as the bot chooses."""
    cr = compiled(kop)
    n = 24
    seeds, dealers = hand_seeds(6, 0, n), np.arange(n) % 4
    free = play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    forced = np.full((n, cr.max_calls + cr.n_cards), -1, np.int64)
    for h in range(n):
        leader_hand = Deal.from_seed(kop, int(seeds[h]), int(dealers[h])).hands[
            (int(dealers[h]) + 1) % 4]
        others = [c for c in range(cr.n_cards) if cr.cards[c] not in leader_hand]
        forced[h, cr.max_calls] = others[h % len(others)]
    out = play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")], forced=forced)
    for h in range(n):
        assert _replays_legally(kop, cr, out, h, int(seeds[h]), int(dealers[h]))
    assert (out.cards == free.cards).all() and (out.calls == free.calls).all()


def test_forced_rows_are_checked(kop):
    cr = compiled(kop)
    bad = np.full((1, cr.max_calls + cr.n_cards), -1, np.int64)
    bad[0, cr.max_calls] = cr.n_cards
    with pytest.raises(ValueError, match="forced action"):
        play_batch(cr, hand_seeds(1, 0, 1), np.zeros(1, np.int64), forced=bad)


@pytest.mark.parametrize("name", ["kop", "schafkopf"])
def test_a_dealt_order_deals_the_hands_given(name):
    rules = load_ruleset(name)
    cr = compiled(rules)
    rng = random.Random(2)
    for i in range(20):
        deck = list(range(cr.n_cards))
        rng.shuffle(deck)
        hs = cr.n_cards // 4
        hands = np.array([sum(1 << c for c in deck[s * hs:(s + 1) * hs]) for s in range(4)],
                         np.uint64)
        dealer = i % 4
        out = play_batch(cr, hand_seeds(1, 0, 1), np.array([dealer]),
                         given=dealt_order(hands, dealer, cr.tables.deal_to)[None])
        dealt = [0] * 4
        for j, c in enumerate(out.perm[0]):
            dealt[(dealer + 1 + j) % 4] |= 1 << int(c)
        assert dealt == [int(h) for h in hands]


@pytest.fixture(scope="module")
def kop_rows(kop):
    return rollout_decisions(kop, RolloutParams(deals=12, worlds=6, bot=FAST))


def test_the_rows_follow_the_line_ups_play_and_value_every_legal_action(kop_rows, kop):
    """Each deal's rows are the decisions with a choice along the line-up's own play, in
    order, each with a value for every legal action and the best of them taken."""
    d, cr = kop_rows, compiled(kop)
    params = RolloutParams(deals=12, worlds=6, bot=FAST)
    assert set(d.deal.tolist()) == set(range(params.deals))
    assert (d.kind == KIND_CALL).sum() > 10 and (d.kind == KIND_CARD).sum() > 50
    for i in range(params.deals):
        seed, dealer = teacher_deal(params.deals_of(), i, kop.deck.players)
        hand = play_batch(cr, np.array([seed]), np.array([dealer]),
                          bots=[bot_spec(params.bot)])
        state = State(kop, Deal.from_seed(kop, seed, dealer))
        rows = iter(np.flatnonzero(d.deal == i).tolist())
        ci = pi = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.phase == "play":
                action = cr.cards[hand.cards[0, pi]]
                pi += 1
            else:
                action = cr.call_names[hand.calls[0, ci]]
                ci += 1
            if len(legal) > 1:
                r = next(rows)
                names = cr.cards if d.kind[r] == KIND_CARD else cr.call_names
                assert [names[c] for c in d.legal[r, :d.n_legal[r]]] == legal
                v = d.values[r, :d.n_legal[r]]
                assert np.isfinite(v).all() and d.chosen[r] == int(np.argmax(v))
            state.apply_action(action)
        assert next(rows, None) is None
    spread = [np.ptp(d.values[r, :d.n_legal[r]]) for r in range(len(d))]
    assert np.mean(np.array(spread) > 0) > 0.3  # actions differ in what they bring


def test_no_value_reads_a_hidden_card(kop):
    """The same view with the others' cards dealt again gives the same values."""
    cr = compiled(kop)
    params = RolloutParams(worlds=5, bot=FAST)
    bots = [bot_spec(FAST)]
    rng = random.Random(7)
    checked = 0
    for i in range(16):
        seed = hand_seed(33, i)
        state = _random_prefix(kop, seed, i % 4, rng.randrange(0, 20), rng)
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        seat = state.current_player()
        other = _reshuffle_hidden(state, seat, rng)
        if other is None:
            continue
        (a,), (b,) = (value_decisions(cr, params, bots, [(seed, s.observation(seat))])
                      for s in (state, other))
        assert a[1] == b[1] and np.array_equal(a[2], b[2])
        checked += 1
    assert checked >= 5


def test_the_rows_are_the_same_whatever_the_jobs(kop):
    params = RolloutParams(deals=CHUNK + 3, seed=4, worlds=3, bot=FAST)
    one = rollout_decisions(kop, params, jobs=1)
    two = rollout_decisions(kop, params, jobs=2)
    for name, a, b in zip(one._fields, one, two):
        assert np.array_equal(a, b, equal_nan=a.dtype.kind == "f"), name
