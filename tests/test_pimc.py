"""pimc's valuations: first-lead payouts (shared between doubles, kept between calls) and card
values over many worlds, each checked against a plain solve of one deal at a time."""

import random

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.pimc import card_values, contract_payouts, deal_solver
from kopsim.bots.sampler import Reading
from kopsim.bots.solver import solve
from kopsim.engine.reference import Deal, State, old_side_of
from kopsim.engine.rng import hand_seed
from kopsim.engine.scoring import score
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset
from kopsim.engine.steps import play_to_trick


def _masks(cr, hands):
    index = {c: i for i, c in enumerate(cr.cards)}
    return [sum(1 << index[c] for c in h) for h in hands]


def _line_payout(cr, contract, old, doubles, deal, seat):
    """The seat's payout at the end of solve's best line, scored by the reference engine."""
    k = cr.contract_names.index(contract)
    mask = sum(1 << s for s in old)
    forehand = (deal.dealer + 1) % 4
    line = solve(cr, k, mask, _masks(cr, deal.hands), forehand, (), double_seats=doubles,
                 moves=False, line=True).best_line
    a = cr.tables
    o = int(a.c_order[k])
    points, tricks, leader = [0.0] * 4, [0] * 4, forehand
    for t in range(0, len(line), 4):
        led = w = 0
        wseat = leader
        for j, c in enumerate(line[t:t + 4]):
            led, w, wseat = (int(x) for x in play_to_trick(j, c, (leader + j) % 4, a.suit[o, c],
                                                           a.beat_mask[o, led, w], led, w, wseat))
        points[wseat] += sum(float(a.card_points[c]) for c in line[t:t + 4])
        tricks[wseat] += 1
        leader = wseat
    return score(cr.rules, contract, old, list(doubles), points, tricks).payouts[seat]


@pytest.mark.parametrize("name", ["kop", "baska"])
def test_first_lead_payouts_agree_with_a_scored_best_line(name):
    rules = load_ruleset(name)
    cr = compiled(rules)
    rng = random.Random(3)
    deals = [Deal.from_seed(rules, hand_seed(4, i), 3) for i in range(8)]  # forehand: seat 0
    hands = np.array([_masks(cr, d.hands) for d in deals], np.uint64)
    known: dict = {}
    for contract in cr.contract_names:
        c = rules.contracts[contract]
        for doubles in ((), (1,), (1, 2), (2, 1, 3)):
            if len(doubles) > rules.max_doubles(contract):
                continue
            seat, declarer = rng.randrange(4), rng.randrange(4)
            d = None if c.team == "holders" else declarer
            got = contract_payouts(cr, contract, d, doubles, hands, 0, seat, known)
            fresh = contract_payouts(cr, contract, d, doubles, hands, 0, seat)
            assert np.array_equal(got, fresh)  # what was kept is what a new search finds
            for w, deal in enumerate(deals):
                old = old_side_of(rules, deal, contract, d)
                if c.instant:
                    want = score(rules, contract, old, [], [0] * 4, [0] * 4).payouts[seat]
                else:
                    want = _line_payout(cr, contract, old, doubles, deal, seat)
                assert got[w] == pytest.approx(want)
    assert known  # first-lead values were kept


def test_a_punished_call_is_priced_with_the_other_sides_double_where_it_fails():
    # `punished`: where the seat's side loses, the other side doubles once more if that costs
    # the seat more; a won contract keeps its price
    rules = load_ruleset("kop")
    cr = compiled(rules)
    deals = [Deal.from_seed(rules, hand_seed(6, i), 3) for i in range(24)]
    hands = np.array([_masks(cr, d.hands) for d in deals], np.uint64)
    seat = 0
    lost = 0
    for contract, declarer in (("zolo", 0), ("normal", None), ("zolo", 2)):
        plain = contract_payouts(cr, contract, declarer, [], hands, 0, seat)
        punished = contract_payouts(cr, contract, declarer, [], hands, 0, seat, punished=True)
        for w, deal in enumerate(deals):
            if plain[w] >= 0:
                assert punished[w] == plain[w]
                continue
            old = old_side_of(rules, deal, contract, declarer)
            other = next(s for s in range(4) if (s in old) != (seat in old))
            doubled = contract_payouts(cr, contract, declarer, [other], hands[w:w + 1], 0, seat)
            assert punished[w] == min(plain[w], doubled[0])  # (a tie's double may help seat)
            lost += punished[w] < plain[w]
    assert lost >= 10


def test_doubles_that_scale_every_price_share_one_search():
    cr = compiled(load_ruleset("kop"))
    k = cr.contract_names.index("normal")
    solver = deal_solver(cr)
    # seats 0 and 2 play; a double by a young seat, then a redouble, then another double (each
    # time the young side doubled last: the same tie rule)
    plain = solver.first_lead(k, 0b0101, (1,), 0)
    doubled = solver.first_lead(k, 0b0101, (1, 2, 3), 0)
    assert plain.search == doubled.search
    assert plain.pay != doubled.pay  # the same value, read at the doubled price
    # no double at all: ties are decided differently, so the search is another one
    assert solver.first_lead(k, 0b0101, (), 0).search != plain.search


def test_card_values_agree_with_solving_each_world_alone():
    rules = load_ruleset("kop")
    cr = compiled(rules)
    rng = random.Random(6)
    checked = 0
    for i in range(12):
        state = State(rules, Deal.from_seed(rules, hand_seed(7, i), i % 4))
        while state.phase != "play" or len(state.tricks) < 1 + i % 2:
            if state.is_terminal():
                break
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        if state.is_terminal() or len(state.legal_actions()) < 2:
            continue
        seat = state.current_player()
        obs = state.observation(seat)
        hands = np.array([_masks(cr, state.deal.hands)], np.uint64)
        reading = Reading(state.contract, state.declarer, (state.contract, state.declarer),
                          tuple(state.double_seats))
        values = card_values(cr, obs, hands, [reading], seat)
        index = {c: j for j, c in enumerate(cr.cards)}
        mask = sum(1 << s for s in state.old_side)
        res = solve(cr, cr.contract_names.index(state.contract), mask, _masks(cr, state.held),
                    state.leader, [index[c] for c in state.trick], state.points,
                    state.tricks_won, state.double_seats)
        sign = 1.0 if seat in state.old_side else -1.0
        want = [sign * res.move_values[index[c]] for c in obs.legal_actions]
        assert values[0].tolist() == pytest.approx(want)
        checked += 1
    assert checked >= 4


def test_an_auction_decision_is_the_same_from_a_fresh_bot():
    rules = load_ruleset("kop")
    spec = bot_spec({"name": "pimc", "auction_samples": 6})
    seed = hand_seed(12, 0)
    state = State(rules, Deal.from_seed(rules, seed, 0))
    bots = [spec.make(seed, s, rules) for s in range(4)]
    compared = 0
    while state.phase == "auction":
        seat = state.current_player()
        obs = state.observation(seat)
        call = bots[seat].act(obs)  # this bot has valued calls of this hand before
        if len(obs.legal_actions) > 1:
            assert spec.make(seed, seat, rules).act(obs) == call
            compared += 1
        state.apply_action(call)
    assert compared >= 2


@pytest.mark.parametrize("name", ["kop-victory-cards", "kop"])
def test_the_shared_auction_book_changes_no_decision(name, monkeypatch):
    # the pimc seats of a process read one book of the auction's keys, carried from hand to
    # hand while the auctions extend it; a decision is the same with a book of its own (in
    # kop-victory-cards the first speaker changes from hand to hand)
    import kopsim.bots.pimc as pimc
    from kopsim.bots.sampler import AuctionBook

    rules = load_ruleset(name)
    spec = bot_spec({"name": "pimc", "samples": 8, "auction_samples": 6})

    def play(hands: int) -> list[str]:
        actions = []
        for i in range(hands):
            seed = hand_seed(31, i)
            state = State(rules, Deal.from_seed(rules, seed, 0))
            bots = [spec.make(seed, s, rules) for s in range(4)]
            while not state.is_terminal():  # (the Python statement reads the book)
                actions.append(bots[state.current_player()].act_in_python(
                    state.observation(state.current_player())))
                state.apply_action(actions[-1])
        return actions

    shared = play(30)
    monkeypatch.setattr(pimc, "auction_book",
                        lambda rules, dealer, auction, to_speak: AuctionBook(rules, dealer,
                                                                             auction))
    assert play(30) == shared


def test_worlds_solved_together_under_one_table_get_their_own_values():
    # the bot's table is shared by every world: a world must never read another's entries
    rules = load_ruleset("kop")
    cr = compiled(rules)
    from kopsim.bots.sampler import AuctionBook, draw_worlds

    rng = random.Random(9)
    state = State(rules, Deal.from_seed(rules, hand_seed(5, 2), 2))
    while state.phase != "play" or len(state.tricks) < 1 or len(state.legal_actions()) < 2:
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    seat = state.current_player()
    obs = state.observation(seat)
    worlds = draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 12,
                         np.uint64(4), 4000)
    values = card_values(cr, obs, worlds.hands, worlds.readings, seat)
    index = {c: j for j, c in enumerate(cr.cards)}
    played = sum(1 << index[c] for t in obs.tricks for c in t.cards)
    trick = [index[c] for c in state.trick]
    assert len(worlds.readings) == 12
    for w, (row, r) in enumerate(zip(worlds.hands, worlds.readings)):
        k = cr.contract_names.index(r.contract)
        held = [int(h) & ~played for h in row]
        deal = Deal(obs.dealer, tuple(tuple(c for j, c in enumerate(cr.cards) if int(h) >> j & 1)
                                      for h in row))
        old = sum(1 << s for s in old_side_of(rules, deal, r.contract, r.declarer))
        res = solve(cr, k, old, held, state.leader, trick, state.points, state.tricks_won,
                    r.double_seats)
        sign = 1.0 if (old >> seat) & 1 else -1.0
        assert values[w].tolist() == pytest.approx(
            [sign * res.move_values[index[c]] for c in obs.legal_actions])
