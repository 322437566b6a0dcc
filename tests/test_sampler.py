"""pimc's sampler (kopsim.bots.sampler): every world it draws is consistent with what the seat
saw, each consistent world is drawn about equally often, and a decision's samples follow from its
seed and observation."""

import itertools
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.sampler import (AuctionBook, completion_codes, count_completions, constraints,
                                 decision_state, draw_worlds, needs_code, public_history, replay)
from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset


def _names(cr, row):
    return [[c for j, c in enumerate(cr.cards) if (int(h) >> j) & 1] for h in row]


def _state_after(rules, seed: int, dealer: int, tricks_done: int, cards: int, rng,
                 passing: bool = False) -> State:
    """A hand after its auction (random calls, or passes if passing), `tricks_done` tricks and
    `cards` more cards."""
    state = State(rules, Deal.from_seed(rules, seed, dealer))
    while state.phase == "auction":
        legal = state.legal_actions()
        state.apply_action("pass" if passing and "pass" in legal
                           else legal[rng.randrange(len(legal))])
    for _ in range(rules.deck.players * tricks_done + cards):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def _consistent_deals(rules, state: State, seat: int) -> set[tuple]:
    """Every deal of the cards `seat` cannot see that replays the whole public history (and
    deals seat its own cards), by brute force over the reference engine: each as the other
    seats' sorted hands."""
    n = rules.deck.players
    history = [(s, c) for s, c in state.auction]
    history += [((t.leader + j) % n, c) for t in state.tricks for j, c in enumerate(t.cards)]
    history += [((state.leader + j) % n, c) for j, c in enumerate(state.trick)]
    others = [s for s in range(n) if s != seat]
    played = {s: [c for c in state.deal.hands[s] if c not in state.held[s]] for s in others}
    hidden = sorted(c for s in others for c in state.held[s])
    sizes = [len(state.held[s]) for s in others]
    found = set()
    for parts in _splits(hidden, sizes):
        hands = [None] * n
        hands[seat] = list(state.deal.hands[seat])
        for s, part in zip(others, parts):
            hands[s] = played[s] + list(part)
        if replay(rules, state.deal.dealer, hands, history) is not None:
            found.add(tuple(tuple(sorted(hands[s])) for s in others))
    return found


def _splits(cards, sizes):
    """Every way to split cards into parts of these sizes, in order."""
    if len(sizes) == 1:
        yield (tuple(cards),)
        return
    for first in itertools.combinations(cards, sizes[0]):
        rest = [c for c in cards if c not in first]
        for more in _splits(rest, sizes[1:]):
            yield (first, *more)



def assert_drawn_uniformly(cr, obs, truth, state) -> None:
    """200 draws per world: the sampler draws each consistent world (truth: the other seats'
    hands of each), and no other, each within 5 binomial standard deviations of n / worlds."""
    n = 200 * len(truth)
    worlds = draw_worlds(cr, obs, AuctionBook(cr.rules, obs.dealer, obs.auction), n, state,
                         100 * n)
    others = [s for s in range(cr.tables.n_seats) if s != obs.seat]
    drawn = Counter(tuple(tuple(sorted(_names(cr, row)[s])) for s in others)
                    for row in worlds.hands)
    assert set(drawn) == truth  # each consistent world, and no other
    p = 1 / len(truth)
    sd = (n * p * (1 - p)) ** 0.5
    assert all(abs(k - n * p) < 5 * sd for k in drawn.values()), drawn

def _drawn_uniformly_in_states(rules, seed: int, deals: int, states: int,
                               most_hidden: int | None = None, enough: int | None = None) -> int:
    """`assert_drawn_uniformly` in random states two tricks into hands of rules (dealt from
    run seed `deals`, played at random from `seed`): in those with 3 to 60 consistent worlds
    (and, with most_hidden, at most that many cards held by the other seats: the brute force
    replays every split), stopping after `enough`; returns how many were checked."""
    cr = compiled(rules)
    n = rules.deck.players
    rng = random.Random(seed)
    checked = 0
    for i in range(states):
        state = _state_after(rules, hand_seed(deals, i), i % n, 2, rng.randrange(0, n), rng)
        if state.is_terminal():
            continue
        seat = state.current_player()
        hidden = sum(len(h) for s, h in enumerate(state.held) if s != seat)
        if most_hidden is not None and hidden > most_hidden:
            continue
        obs = state.observation(seat)
        truth = _consistent_deals(rules, state, seat)
        if not 3 <= len(truth) <= 60:
            continue
        assert_drawn_uniformly(cr, obs, truth, np.uint64(i))
        checked += 1
        if checked == enough:
            break
    return checked


@pytest.mark.parametrize("name", ["kop", "baska", "kop-sportowy"])
def test_every_consistent_world_is_drawn_about_equally_often(name):
    assert _drawn_uniformly_in_states(load_ruleset(name), 4, 9, 40) >= 3


SEATS = Path(__file__).resolve().parent / "data" / "seats"


@pytest.mark.parametrize("table", ["three-handed", "five-handed"])
def test_every_consistent_world_is_drawn_about_equally_often_at_other_tables(table):
    rules = load_ruleset(SEATS / f"{table}.toml")
    assert _drawn_uniformly_in_states(rules, 5, 11, 60, most_hidden=8, enough=4) >= 3


def test_the_completions_are_counted_exactly():
    # a hand-counted end position: 6 unseen cards, two each; the first other seat is void in
    # two of them (it may hold 4), the others may hold any
    free = np.arange(6, dtype=np.int64)
    allowed = np.array([0b111100, 0, 0b111111, 0b111111], np.uint64)
    need = np.array([2, 0, 2, 2], np.int64)
    others = np.array([0, 2, 3], np.int64)
    ways = np.zeros((7, completion_codes(need, others)))
    assert ways.shape[1] == 9  # seat 0 takes 0-2 cards, seat 2 takes 0-2, seat 3 the rest
    count_completions(free, allowed, others, need, ways)
    # seat 0 takes 2 of its 4 cards (6 ways), the other two split the 4 left (6 ways)
    assert ways[0, needs_code(need, others)] == 36.0
    allowed[0] = np.uint64(0b000001)  # only one card it may hold, but it needs two
    count_completions(free, allowed, others, need, ways)
    assert ways[0, needs_code(need, others)] == 0.0


def test_the_completions_are_counted_exactly_at_a_table_of_five():
    # 8 unseen cards, two each to four other seats, every seat may hold any: 8! / (2!)^4
    free = np.arange(8, dtype=np.int64)
    others = np.array([1, 2, 3, 4], np.int64)
    need = np.array([0, 2, 2, 2, 2], np.int64)
    allowed = np.array([0] + [0xFF] * 4, np.uint64)
    ways = np.zeros((9, completion_codes(need, others)))
    assert ways.shape[1] == 27
    count_completions(free, allowed, others, need, ways)
    assert ways[0, needs_code(need, others)] == 2520.0
    allowed[4] = np.uint64(0b11)  # the last seat may hold two cards only: it must take both
    count_completions(free, allowed, others, need, ways)
    assert ways[0, needs_code(need, others)] == 90.0  # 6! / (2!)^3


def test_a_decision_draws_the_same_worlds_for_the_same_seed_and_observation():
    rules = load_ruleset("kop")
    cr = compiled(rules)
    state = _state_after(rules, hand_seed(3, 1), 1, 1, 1, random.Random(2))
    seat = state.current_player()
    obs = state.observation(seat)

    def draw(base):
        start = decision_state(base, len(public_history(obs)))
        return draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 24, start,
                           4800).hands

    assert np.array_equal(draw(17), draw(17))
    assert not np.array_equal(draw(17), draw(18))
    # and the bot's decision, from a fresh bot or one that has decided before
    spec = bot_spec("pimc")
    bot = spec.make(hand_seed(3, 1), seat, rules)
    first = bot.act(obs)
    assert bot.act(obs) == first == spec.make(hand_seed(3, 1), seat, rules).act(obs)


def test_constraints_rule_out_exactly_what_the_play_showed():
    rules = load_ruleset("kop")
    cr = compiled(rules)
    rng = random.Random(8)
    for i in range(30):
        state = _state_after(rules, hand_seed(6, i), i % 4, 1, rng.randrange(0, 4), rng)
        if state.is_terminal():
            continue
        seat = state.current_player()
        cons = constraints(cr, state.observation(seat), [int(cr.tables.c_order[
            cr.contract_names.index(state.contract)])])
        index = {c: j for j, c in enumerate(cr.cards)}
        for s in range(4):
            if s == seat:
                continue
            held = sum(1 << index[c] for c in state.held[s])
            assert held & ~int(cons.allowed[s]) == 0  # the true hand is never ruled out
            assert int(cons.need[s]) == len(state.held[s])


def test_worlds_are_consistent_when_the_contract_may_be_played_in_either_of_two_orders():
    # baska with cicha played in gran's card order: when nobody bids, whether cicha or normal is
    # played (in different orders) depends on the hidden cards, so the play rules cards out
    # only under both orders, and each world is replayed
    from kopsim.rules.load import load_raw, ruleset_from_dict

    data, _ = load_raw("baska")
    data["contracts"]["cicha"]["order"] = data["contracts"]["gran"]["order"]
    rules = ruleset_from_dict(data)
    cr = compiled(rules)
    orders = {int(cr.tables.c_order[k]) for k in cr.tables.no_bid}
    assert len(orders) == 2
    rng = random.Random(2)
    checked = 0
    for i in range(30):
        state = _state_after(rules, hand_seed(13, i), i % 4, 1, rng.randrange(0, 4), rng,
                             passing=True)
        if state.is_terminal() or state.bid is not None:
            continue
        seat = state.current_player()
        obs = state.observation(seat)
        worlds = draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 8,
                             np.uint64(i), 8000)
        assert len(worlds.readings) == 8
        for row in worlds.hands:
            hands = _names(cr, row)
            hands[seat] = list(state.deal.hands[seat])
            assert replay(rules, obs.dealer, hands, public_history(obs)) is not None
        checked += 1
    assert checked >= 5


KNOBS = Path(__file__).resolve().parent / "data" / "knobs"


def _worlds_replayed(cr, obs, n: int, state) -> int:
    """Draws n worlds for obs and asserts that each replays the whole public history, in obs's
    phase, and reads as its own replay does; returns how many were drawn."""
    worlds = draw_worlds(cr, obs, AuctionBook(cr.rules, obs.dealer, obs.auction), n, state,
                         100 * n)
    for row, reading in zip(worlds.hands, worlds.readings):
        st = replay(cr.rules, obs.dealer, _names(cr, row), public_history(obs))
        assert st is not None and st.phase == obs.phase, (public_history(obs), _names(cr, row))
        assert (st.contract, st.declarer, st.implied_contract()) == \
            (reading.contract, reading.declarer, reading.implied)
    return len(worlds.readings)


@pytest.mark.parametrize("name", ["schafkopf-kurz"] + [
    pytest.param(str(KNOBS / f"{k}.toml"), id=k)
    for k in ("kop-own-double-forbidden", "baska-own-double-forbidden")])
def test_worlds_replay_the_doubles_that_the_sides_allowed(name):
    # who may double depends on the sides the cards make (Schafkopf's kontra by the opponents
    # only; no double of one's own side's double): every world drawn replays the auction, and
    # reads it as its own replay does (a book that read a key on one deal only once drew
    # worlds in which a double said was not legal)
    rules = load_ruleset(name)
    cr = compiled(rules)
    rng = random.Random(4)
    checked = 0
    for i in range(25):
        state = State(rules, Deal.from_seed(rules, hand_seed(13, i), i % 4))
        while state.phase == "auction":
            obs = state.observation(state.current_player())
            if state.double_seats and len(obs.legal_actions) > 1:
                checked += _worlds_replayed(cr, obs, 30, decision_state(i, len(obs.auction)))
            legal = state.legal_actions()
            doubles = [a for a in legal if a in rules.doubling.names]
            state.apply_action(doubles[0] if doubles and rng.random() < 0.6
                               else rng.choice(legal))
    assert checked > 300


def _every_ruleset():
    from bundled import searchable_bundled  # tests/bundled.py

    return searchable_bundled() + [pytest.param(str(p), id=p.stem)
                                    for p in sorted(KNOBS.glob("*.toml"))]


@pytest.mark.parametrize("name", _every_ruleset())
def test_worlds_replay_the_whole_history_at_every_decision(name):
    # in a single round only the seats with a bid open speak (in kop-victory-cards, the holder
    # of both black queens): a world in which another seat would have spoken, or the auction
    # would still be going on, contradicts what the table saw, though every call said replays
    # on it. At every decision of random hands, each world drawn replays the calls and cards and
    # reads as its replay does
    rules = load_ruleset(name)
    cr = compiled(rules)
    rng = random.Random(2)
    checked = {"auction": 0, "play": 0}
    for i in range(12 if "victory" in name else 4):
        state = State(rules, Deal.from_seed(rules, hand_seed(17, i), i % 4))
        while not state.is_terminal():
            obs = state.observation(state.current_player())
            if len(obs.legal_actions) > 1:
                checked[obs.phase] += _worlds_replayed(
                    cr, obs, 8, decision_state(i, len(public_history(obs))))
            state.apply_action(rng.choice(state.legal_actions()))
    assert checked["auction"] > 5 and checked["play"] > 150, checked
