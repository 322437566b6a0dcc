"""The learnt bot's features (kopsim.bots.features): rows of the sizes the ruleset gives, on every
bundled ruleset, that say what the rules say of the seat's view (the orders' trumps, the suit
led, the cards still out), and read nothing but that view."""

import random
from pathlib import Path

import numpy as np

from bundled import searchable_bundled  # tests/bundled.py
import pytest
from test_bots import _random_prefix, _reshuffle_hidden

from kopsim.bots.features import (RANKS, call_action, call_context, call_features, call_order,
                                  card_action, card_context, card_features, card_situation,
                                  feature_sizes, feature_tables)
from kopsim.bots.pimc_kernel import observed
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

SPARE = 3  # columns beyond a row, which no feature may write
SEATS = Path(__file__).parent / "data" / "seats"
# every bundled ruleset, and the tables of three and five (issue 36)
TABLES = sorted(searchable_bundled()) + [str(SEATS / f"{n}.toml")
                                    for n in ("three-handed", "five-handed")]


def _features(cr, obs):
    """(features of each legal action, legal codes) at obs, with SPARE columns past the row."""
    fs = feature_sizes(cr.tables)
    t = feature_tables(cr.tables)
    view = observed(cr, obs)
    if obs.phase == "play":
        legal = np.array([cr.card_index[c] for c in obs.legal_actions], np.int64)
        x = np.zeros((len(legal), fs.card + SPARE))
        card_features(t, view, legal, len(legal), x)
    else:
        legal = np.array([cr.call_names.index(c) for c in obs.legal_actions], np.int64)
        x = np.zeros((len(legal), fs.call + SPARE))
        call_features(t, view, legal, len(legal), x)
    return x, legal


def _states(rules, n, seed):
    rng = random.Random(seed)
    for i in range(n):
        steps = rng.randrange(0, 40) if i % 2 else rng.randrange(0, 3)  # the auction too
        state = _random_prefix(rules, hand_seed(seed, i), i % rules.deck.players, steps, rng)
        if not state.is_terminal():
            yield state, rng


@pytest.mark.parametrize("name", TABLES)
def test_rows_fill_their_size_and_no_more(name):
    rules = load_ruleset(name)
    cr = compiled(rules)
    fs = feature_sizes(cr.tables)
    phases = set()
    for state, _ in _states(rules, 40, 3):
        obs = state.observation(state.current_player())
        x, _ = _features(cr, obs)
        phases.add(obs.phase)
        assert np.isfinite(x).all()
        assert (x[:, -SPARE:] == 0).all()
        assert (x >= 0).all() and x.max() <= 16
        n = fs.card_context if obs.phase == "play" else fs.call_context
        assert (x[:, :n] == x[0, :n]).all()  # the context is the decision's, not the action's
        if len(x) > 1:  # and each action says something of its own
            assert len({row.tobytes() for row in x}) == len(x)
    assert phases == {"auction", "play"}


@pytest.mark.parametrize("name", ["kop", TABLES[-2], TABLES[-1]])
def test_each_part_of_a_row_ends_where_the_sizes_say(name):
    """The context and the action's features end exactly at the sizes `feature_sizes` counts
    (at three and five seats every seat-counted slot is as wide as the table)."""
    rules = load_ruleset(name)
    cr = compiled(rules)
    fs, t = feature_sizes(cr.tables), feature_tables(cr.tables)
    phases = set()
    for state, _ in _states(rules, 30, 5):
        obs = state.observation(state.current_player())
        view = observed(cr, obs)
        x = np.zeros(max(fs.call, fs.card) + SPARE)
        if obs.phase == "play":
            sit = card_situation(t, view)
            assert card_context(t, view, sit, x) == fs.card_context
            card = cr.card_index[obs.legal_actions[0]]
            assert card_action(t, sit, card, x, fs.card_context) == fs.card
        else:
            assert call_context(t, view, x) == fs.call_context
            for call in obs.legal_actions:
                code = cr.call_names.index(call)
                bid = call_order(t, code) >= 0
                end = call_action(t, view, code, x, fs.call_context)
                assert end == fs.call - (not bid) * fs.hand
        phases.add(obs.phase)
    assert phases == {"auction", "play"}


def _trumps(rules, contract: str) -> list[str]:
    return rules.orders[rules.contracts[contract].order].trumps


@pytest.mark.parametrize("name", ["kop", "baska", "schafkopf"])
def test_a_bid_reads_the_hand_in_the_bid_contracts_order(name):
    """The first hand feature of a bid is its share of trumps in that contract's order, and
    its rank bits the highest trumps held, as the ruleset's order lists them."""
    rules = load_ruleset(name)
    cr = compiled(rules)
    fs = feature_sizes(cr.tables)
    hs = cr.n_cards // 4
    seen = set()
    for state, _ in _states(rules, 60, 5):
        if state.is_terminal() or state.observation(state.current_player()).phase != "auction":
            continue
        obs = state.observation(state.current_player())
        x, legal = _features(cr, obs)
        for j, call in enumerate(obs.legal_actions):
            if call not in rules.contracts:
                continue
            at = fs.call - fs.hand  # the bid's hand summary closes the row
            trumps = _trumps(rules, call)
            held = [c for c in obs.dealt if c in trumps]
            assert x[j, at] == pytest.approx(len(held) / hs)
            ranks = [trumps.index(c) for c in held if trumps.index(c) < RANKS]
            assert sorted(np.flatnonzero(x[j, at + 1:at + 1 + RANKS]).tolist()) == sorted(ranks)
            seen.add(call)
    assert len(seen) >= 2


def test_a_card_says_whether_it_takes_the_trick_and_what_is_out():
    """In kop: a card 'takes the trick as it stands' exactly when the reference engine's order
    makes it the trick's winner; the cards out are those neither held nor played."""
    from kopsim.engine.reference import card_orders

    rules = load_ruleset("kop")
    cr = compiled(rules)
    fs = feature_sizes(cr.tables)
    takes = fs.card_context + cr.tables.suit_mask.shape[1] + RANKS + 2
    checked = 0
    for state, _ in _states(rules, 200, 9):
        obs = state.observation(state.current_player())
        if obs.phase != "play" or len(state.trick) == 0:
            continue
        order = card_orders(rules)[rules.contracts[state.contract].order]
        x, _ = _features(cr, obs)
        for j, card in enumerate(obs.legal_actions):
            wins = order.winner_index(list(state.trick) + [card]) == len(state.trick)
            assert x[j, takes] == float(wins), (state.trick, card)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("name", ["kop", "baska", TABLES[-2], TABLES[-1]])
def test_hidden_cards_never_change_a_feature(name):
    rules = load_ruleset(name)
    cr = compiled(rules)
    checked = 0
    for state, rng in _states(rules, 30, 11):
        seat = state.current_player()
        other = _reshuffle_hidden(state, seat, rng)
        if other is None:
            continue
        a, _ = _features(cr, state.observation(seat))
        b, _ = _features(cr, other.observation(seat))
        assert np.array_equal(a, b)
        checked += 1
    assert checked >= 10
