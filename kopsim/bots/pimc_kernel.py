"""pimc's decisions, compiled: the batch kernel's pimc kind, and the `PimcBot` of the
reference engine with its usual settings (`pimc_decide` reads an `Observation` into the same
call).

A card: each legal card's double-dummy value to the seat (its side's payout minus the other
side's, per seat) in every world (`worlds.draw_worlds`), under the contract, old side, Laufende
and called card the world makes; the card of the best sum (the first legal one of equal sums).
With a talon the worlds deal it too (`worlds`), and the search counts its points with the
declarer's side where the contract gives them to it, a hand game's value and, bid by value, the
overbid (`pricing`); the calls there, the talon and the game declared are the heuristic's.

A call: the seat's own payout in every world if the auction ended after it (a bid: that
contract, declared by the seat, without doubles; a double: the contract in force, or the
world's no-bid contract, with it; a pass: the same without), played double-dummy from the
first lead. With `punished`, a world in which the seat loses is priced with one more double by
the other side, where the rules let it say one and it costs the seat more. With `sound_bids`,
no bid that loses in more than half the worlds while another call is open. The call of the
best sum (the first of equal sums).

Only the seat's view enters: its own cards, the calls, the contract shown, the cards played
and the tricks' leaders and winners, never the deal. `kopsim.bots.pimc` states the same bot in
Python, over the reference engine, and the tests require both to decide alike.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE, ZERO
from ..engine.botcalls import SeatView
from ..engine.codes import PIMC_HEURISTIC_AT
from ..rules.codes import CALL_BID, N_PRICED_TIERS, TALON_OLD_SIDE
from ..engine.jit import built_call, kernel_jit
from ..engine.seats import after, seat_count
from ..engine.steps import (called_card, form_teams, instant_result, laufende_value,
                            mask_points, pay_out, trick_so_far)
from .pricing import (P_PAY_OLD, P_PAY_YOUNG, P_VALUES, PricingStore, full_window, pricing_row,
                      pricing_store, unscaled)
from .roots import card_value, line_outcome, position_value, solve_position
from .search import (R_DUTY, R_LED, R_OTR, R_POS, R_SEAT, R_WCARD, R_WSEAT, R_YTR, SearchContext,
                     kept_table_bits, new_table, play_tables, ply_room)
from .worlds import WorldScratch, decision_state, draw_worlds, world_scratch

N_SLOTS = 3 * N_PRICED_TIERS
# a pimc bot's kernel parameters (`PimcBot.kernel_params`)
PP_SAMPLES, PP_AUCTION_SAMPLES, PP_MAX_TRIES, PP_PUNISHED, PP_SOUND_BIDS, PP_SEED_LO, \
    PP_SEED_HI = range(7)
assert PP_SEED_HI + 1 == PIMC_HEURISTIC_AT  # (the heuristic's parameters follow pimc's own)


class PimcScratch(NamedTuple):
    """Everything a pimc decision works in: its worlds, the search's tables, store of pricings
    and transposition table, and room for values."""

    worlds: WorldScratch
    play_ints: np.ndarray  # the search's tables (`search.play_tables`)
    order_masks: np.ndarray
    order_floats: np.ndarray
    store: PricingStore
    tt: np.ndarray
    stats: np.ndarray  # [0] positions searched
    plies_u: np.ndarray  # the search's plies' room (`search.ply_room`)
    plies_f: np.ndarray
    values: np.ndarray  # [world, action]
    totals: np.ndarray  # [action]
    losing: np.ndarray  # [action] the worlds in which it loses
    legal: np.ndarray  # the legal cards of a card decision
    doubles: np.ndarray  # a call's doubles (seats)
    root_i: np.ndarray  # a search's root, and room to advance one along a line
    root_f: np.ndarray
    held: np.ndarray  # [seat] a world's cards still held
    line_i: np.ndarray
    line_f: np.ndarray
    line_h: np.ndarray
    line_v: np.ndarray
    pv: np.ndarray
    points: np.ndarray  # [seat] points and tricks taken so far (public)
    tricks: np.ndarray
    pay: np.ndarray  # [seat] payouts
    none_shown: np.ndarray  # (-1, -1)
    drawn: np.ndarray  # [0] the worlds the last decision drew (its values' count)


def pimc_scratch(cr, n_worlds: int) -> PimcScratch:
    """Room for decisions of at most n_worlds worlds in a compiled ruleset."""
    t = cr.tables
    nc, seats = cr.n_cards, t.n_seats
    actions = max(nc // seats, CALL_BID + len(cr.contract_names) + t.n_chain)
    ints, masks, floats = play_tables(cr)
    z = np.zeros
    n = max(n_worlds, 1)
    return PimcScratch(world_scratch(cr, n), ints, masks, floats, pricing_store(cr),
                       new_table(kept_table_bits(nc, t.n_seats)), z(1, np.int64),
                       *ply_room(nc, t.n_seats),
                       z((n, actions)), z(actions), z(actions, np.int64), z(nc, np.int64),
                       z(t.n_chain + 1, np.int64), z(8, np.int64), z(3), z(seats, np.uint64),
                       z(8, np.int64), z(3), z(seats, np.uint64), z(nc), z(nc + 1, np.int64),
                       z(seats), z(seats, np.int64), z(seats), np.full(2, -1, np.int64),
                       z(1, np.int64))


@kernel_jit(inline='always')
def _seed_mix(params):
    """The bot's seed times the golden ratio, mod 2**64 (two 32-bit halves in params)."""
    return (np.uint64(params[PP_SEED_HI]) << np.uint64(32)) | np.uint64(params[PP_SEED_LO])


# ------------------------------------------------------------------------------ searching


@kernel_jit(inline='always')
def _first_lead_root(ps, o_suit, called, forehand):
    """ps.root_*: nothing played yet, forehand to lead, the called card on duty."""
    ri, rf = ps.root_i, ps.root_f
    ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD], ri[R_WSEAT] = forehand, 0, 0, 0, forehand
    ri[R_OTR], ri[R_YTR], ri[R_DUTY] = 0, 0, (o_suit[called] if called >= 0 else -1)
    rf[0], rf[1], rf[2] = 0.0, 0.0, 0.0


@kernel_jit(inline='always')
def _value_tells_pay(pf, side):
    """Whether an outcome's value tells the seat's payout (side: the row's payouts of the
    seat's side), as it does when the sides split every payment evenly."""
    for i in range(N_SLOTS):
        for j in range(i):
            if pf[P_VALUES + i] == pf[P_VALUES + j] and pf[side + i] != pf[side + j]:
                return False
    return True


@kernel_jit(inline='always')
def _lead_payout(t, ps, h, k, old, called, n_doubles, added, seat, forehand):
    """Seat's payout when contract k is played double-dummy from the first lead in the deal h
    (its old side old, the doubles ps.doubles[:n_doubles], Laufende added, called card)."""
    side, ctx = _search(t, ps, k, old, called, n_doubles, added, 0, -1)
    pf = ctx.pf
    lo, hi = full_window(pf)
    _first_lead_root(ps, t.suit[t.c_order[k]], called, forehand)
    v = position_value(ps.root_i, ps.root_f, h, lo, hi, side, ctx)
    pay = P_PAY_OLD if (old >> seat) & 1 else P_PAY_YOUNG
    if _value_tells_pay(pf, pay):
        for i in range(N_SLOTS):
            if pf[P_VALUES + i] == v:
                return pf[pay + i]
    # the payout of a best line's outcome
    for s in range(seat_count(t)):
        ps.line_h[s] = h[s]
    for i in range(ps.pv.shape[0]):
        ps.pv[i] = -1
    solve_position(ps.root_i, ps.root_f, ps.line_h, side, ctx, ps.line_v, ps.pv,
                   np.bool_(False), np.bool_(True))
    _first_lead_root(ps, t.suit[t.c_order[k]], called, forehand)
    for s in range(seat_count(t)):
        ps.line_h[s] = h[s]
    return pf[pay + line_outcome(ps.root_i, ps.root_f, ps.line_h, ps.pv, side[0], ctx)]


@kernel_jit(inline='always')
def _search(t, ps, k, old, called, n_doubles, added, hand, bid):
    """(side, context) of a search of contract k with this old side and called card (-1
    none), under the doubles ps.doubles[:n_doubles], the Laufende added, played hand (1) or
    not (0), bid by value at t.bid_values[bid] (-1: not) (its pricing found or built in the
    store). (int64 values, never literal constants, into the searches: one build of each.)"""
    r = pricing_row(t, np.int64(k), np.int64(old), ps.doubles, np.int64(n_doubles),
                    np.float64(added), np.int64(hand), np.int64(bid), ps.store)
    o = t.c_order[k]
    side = (np.int64(old), np.int64(called), ps.store.sid[r])
    return side, SearchContext(ps.play_ints[k], ps.order_masks[o], ps.order_floats[o],
                               ps.store.rows[r], ps.tt, ps.stats, ps.plies_u, ps.plies_f)


@kernel_jit(inline='always')
def _contract_payout(t, ps, h, k, declarer, n_doubles, seat, forehand, punished):
    """Seat's payout in the deal h when the auction ends in contract k of declarer under the
    doubles ps.doubles[:n_doubles] (see the module docstring: punished)."""
    old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, declarer, h,
                     seat_count(t))
    if t.c_instant[k]:
        for s in range(seat_count(t)):
            ps.pay[s] = 0.0
        winner, _, _, v = instant_result(t.c_won, t.c_thrown_in, k)
        pay_out(ps.pay, v, winner, old, t.settle, t.lone_once, seat_count(t))
        return ps.pay[seat]
    added = laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, k, h, old)
    called = -1
    if t.c_run_away[k] > 0:
        called = called_card(t.c_team[k], t.c_team_cards, k, declarer, h)
    pay = _lead_payout(t, ps, h, k, old, called, n_doubles, added, seat, forehand)
    if not punished or pay >= 0.0 or n_doubles >= t.c_max_doubles[k]:
        return pay
    n = seat_count(t)
    mine = old if (old >> seat) & 1 else (~old & ((1 << n) - 1))
    other = 0
    while other < n and (mine >> other) & 1:
        other += 1
    if other == n or (n_doubles == 0 and t.c_first_double_young[k] and (old >> other) & 1):
        return pay
    ps.doubles[n_doubles] = other  # the other side doubles once more
    return min(pay, _lead_payout(t, ps, h, k, old, called, n_doubles + 1, added, seat,
                                 forehand))


# ------------------------------------------------------------------------------------ calls


@kernel_jit(inline='always')
def _call_values(t, ps, nw, seat, dealer, legal, m, punished):
    """ps.values[w, j]: seat's payout in world w if it says legal[j] (see the module
    docstring)."""
    ws = ps.worlds
    K = t.c_team.shape[0]
    bid, bidder = ws.shown[0], ws.shown[1]  # public: the bid in force
    nd = ws.doubles[0]
    forehand = after(dealer, 1, seat_count(t))
    for w in range(nw):
        h = ws.hands[w]
        for j in range(m):
            code = legal[j]
            if CALL_BID <= code < CALL_BID + K:  # a bid: that contract, without doubles
                k, d, n = code - CALL_BID, seat, 0
            else:
                n = nd
                for i in range(nd):
                    ps.doubles[i] = ws.double_seats[i]
                if code >= CALL_BID + K:  # a double
                    ps.doubles[n] = seat
                    n += 1
                k, d = (bid, bidder) if bid >= 0 else (ws.implied[w], ws.implied_decl[w])
            ps.values[w, j] = _contract_payout(t, ps, h, k, d, n, seat, forehand, punished)


@kernel_jit(inline='always')
def _best(ps, m, among_mask):
    """The index of the highest total among the actions of among_mask (all if none), the
    first of equal ones."""
    best = -1
    for j in range(m):
        if among_mask and not (among_mask >> np.uint64(j)) & ONE:
            continue
        if best < 0 or ps.totals[j] > ps.totals[best]:
            best = j
    return best


@kernel_jit()
def pimc_call(t, ps, params, seed, view, legal, m):
    """The index in legal[:m] (call codes) of the call pimc makes seeing view (a
    `botcalls.SeatView`; see the module docstring)."""
    if m == 1:
        return 0
    n = np.int64(params[PP_AUCTION_SAMPLES])
    # the auction's decisions start from one state: their worlds differ only by what the calls
    # since rule out
    state = decision_state(seed, _seed_mix(params), view.seat, 0)
    nw = draw_worlds(t, ps.worlds, view, n, state, n * np.int64(params[PP_MAX_TRIES]))
    ps.drawn[0] = nw
    if nw == 0:
        return 0  # nothing consistent found: should not happen; play safe and legal
    _call_values(t, ps, nw, view.seat, view.dealer, legal, m, params[PP_PUNISHED] != 0.0)
    K = t.c_team.shape[0]
    sound = ZERO
    for j in range(m):
        ps.totals[j] = 0.0
        ps.losing[j] = 0
    for w in range(nw):
        for j in range(m):
            ps.totals[j] += ps.values[w, j]
            ps.losing[j] += ps.values[w, j] < 0.0
    for j in range(m):
        bid = CALL_BID <= legal[j] < CALL_BID + K
        if not (bid and 2 * ps.losing[j] > nw):
            sound |= ONE << np.uint64(j)
    return _best(ps, m, sound if params[PP_SOUND_BIDS] != 0.0 else ZERO)


# ------------------------------------------------------------------------------------ cards


@kernel_jit(inline='always')
def _taken_so_far(t, ps, cards, played, winners):
    """ps.points, ps.tricks: what each seat has taken in the finished tricks."""
    n = seat_count(t)
    for s in range(n):
        ps.points[s] = 0.0
        ps.tricks[s] = 0
    for trick in range(played // n):
        w = winners[trick]
        ps.tricks[w] += 1
        for i in range(n):
            ps.points[w] += t.card_points[cards[n * trick + i]]


@kernel_jit(inline='always')
def _card_root(t, ps, k, old, called, cards, played, leaders, talon_points):
    """ps.root_*: the open trick of the play so far in contract k, for old side old; called:
    the called card while on duty (-1 none); talon_points: the talon's points, which count for
    the old side (0: they do not)."""
    o = t.c_order[k]
    n = seat_count(t)
    ri, rf = ps.root_i, ps.root_f
    opts = talon_points
    ypts = 0.0
    otr = ytr = 0
    for s in range(n):
        if (old >> s) & 1:
            opts += ps.points[s]
            otr += ps.tricks[s]
        else:
            ypts += ps.points[s]
            ytr += ps.tricks[s]
    led, wcard, wseat, tp, seat = trick_so_far(cards, played - played % n, played % n,
                                               leaders[played // n], n, o, t.suit, t.beat_mask,
                                               t.card_points)
    ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD], ri[R_WSEAT] = seat, played % n, led, wcard, \
        wseat
    ri[R_OTR], ri[R_YTR], ri[R_DUTY] = otr, ytr, (t.suit[o, called] if called >= 0 else -1)
    rf[0], rf[1], rf[2] = tp, opts, ypts


@kernel_jit(inline='always')
def _on_duty(t, k, called, cards, played):
    """The called card while its duties hold (no finished trick led in its suit), else -1."""
    if called < 0:
        return -1
    o = t.c_order[k]
    n = seat_count(t)
    for trick in range(played // n):
        if t.suit[o, cards[n * trick]] == t.suit[o, called]:
            return -1
    return called


@kernel_jit(inline='always')
def _value_bid(t, view):
    """The index in t.bid_values of the last value the auction named (-1: none, or not bid by
    value): a game bid by value is lost below it."""
    bid = -1
    for i in range(view.ncalls):
        v = np.int64(view.calls[i]) - t.value_code
        if 0 <= v < t.bid_values.shape[0]:
            bid = v
    return bid


@kernel_jit(inline='always')
def _add_card_values(t, ps, w, seat, m, view, gone, hand, bid):
    """ps.totals[j] += the value to seat of playing ps.legal[j] in world w (gone: the cards
    played; hand, bid: see `_search`)."""
    cards, played, leaders = view.cards, view.played, view.leaders
    ws = ps.worlds
    h = ws.hands[w]
    k, d = ws.contract[w], ws.declarer[w]
    old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, d, h, seat_count(t))
    # (a card no seat holds lies in the talon: with the old side's, validation holds it)
    added = laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, k, h, old)
    called = -1
    if t.c_run_away[k] > 0:
        called = _on_duty(t, k, called_card(t.c_team[k], t.c_team_cards, k, d, h), cards,
                          played)
    nd = ws.doubles[0]
    for i in range(nd):
        ps.doubles[i] = ws.double_seats[i]
    side, ctx = _search(t, ps, k, old, called, nd, added, hand, bid)
    talon = 0.0
    if t.c_talon_to[k] == TALON_OLD_SIDE:
        talon = mask_points(ws.talon[w], t.card_points)
    _card_root(t, ps, k, old, called, cards, played, leaders, talon)
    for s in range(seat_count(t)):
        ps.held[s] = h[s] & ~gone
    lo, hi = full_window(ctx.pf)
    sign = 1.0 if (old >> seat) & 1 else -1.0
    for j in range(m):
        v = card_value(ps.legal[j], ps.root_i, ps.root_f, ps.held, lo, hi, side, ctx)
        ps.totals[j] += sign * unscaled(ctx.pf, v)


@kernel_jit()
def pimc_card(t, ps, params, seed, view, allowed):
    """The card pimc plays from allowed seeing view (a `botcalls.SeatView`; see the module
    docstring)."""
    seat, cards, played = view.seat, view.cards, view.played
    m = 0
    gone = ZERO
    for c in range(t.n_cards):
        if (allowed >> np.uint64(c)) & ONE:
            ps.legal[m] = c
            m += 1
    if m == 1:
        return ps.legal[0]
    for i in range(played):
        gone |= ONE << np.uint64(cards[i])
    n = np.int64(params[PP_SAMPLES])
    state = decision_state(seed, _seed_mix(params), seat, view.ncalls + played)
    nw = draw_worlds(t, ps.worlds, view, n, state, n * np.int64(params[PP_MAX_TRIES]))
    ps.drawn[0] = nw
    if nw == 0:
        return ps.legal[0]  # nothing consistent found: should not happen; play safe and legal
    _taken_so_far(t, ps, cards, played, view.winners)
    for j in range(m):
        ps.totals[j] = 0.0
    hand, bid = np.int64(view.taken == 0), _value_bid(t, view)
    for w in range(nw):
        _add_card_values(t, ps, w, seat, m, view, gone, hand, bid)
    return ps.legal[_best(ps, m, ZERO)]


# ------------------------------------------------------------------------- the Python face


def kernel_params(samples: int, auction_samples: int, max_tries: int, punished: bool,
                  sound_bids: bool, seed: int) -> list[float]:
    """A pimc bot's parameter row (PP_*): its seed enters as seed times the golden ratio, mod
    2**64, in two exact halves."""
    mix = (seed * 0x9E3779B97F4A7C15) & (2 ** 64 - 1)
    return [float(samples), float(auction_samples), float(max_tries), float(punished),
            float(sound_bids), float(mix & 0xFFFFFFFF), float(mix >> 32)]


def observed(cr, obs) -> SeatView:
    """What obs's seat saw, as the batch kernel hands it to `pimc_call` and `pimc_card` (in the
    same types: both share one build)."""
    index = cr.card_index
    codes = {name: i for i, name in enumerate(cr.call_names)}
    cards, leaders, winners = [], [], []
    for trick in obs.tricks:
        leaders.append(trick.leader)
        winners.append(-1 if trick.winner is None else trick.winner)
        cards += [index[c] for c in trick.cards]
    n = cr.tables.n_seats
    if len(cards) % n == 0:  # a trick to lead: by the last one's winner, or forehand
        leaders.append(winners[-1] if winners else (obs.dealer + 1) % n)
    # the cards it plays with: as dealt, and as the talon changed them (the kernel's)
    own = laid = 0
    for c in obs.dealt + obs.talon_seen:
        own |= 1 << index[c]
    for c in obs.laid_away:
        laid |= 1 << index[c]
    hs = cr.tables.hand_size
    return SeatView(
        obs.seat, obs.dealer, np.uint64(own & ~laid),
        np.array([codes[c] for _, c in obs.auction] or [0], np.int16),
        np.array([s for s, _ in obs.auction] or [0], np.int8), len(obs.auction),
        np.array([-1 if obs.bid is None else cr.contract_names.index(obs.bid),
                  -1 if obs.bidder is None else obs.bidder], np.int64),
        np.array(cards + [-1] * (cr.n_cards - len(cards)), np.int64), len(cards),
        np.array((leaders + [0] * hs)[:hs], np.int8),
        np.array(winners + [0] * (hs - len(winners)), np.int8),
        obs.seat if obs.phase == "auction" else -1,
        {True: 1, False: 0, None: -1}[obs.talon_taken] if obs.phase != "auction" else -1,
        np.uint64(laid))


def pimc_decide(cr, ps: PimcScratch, params: list[float], hand_seed: int, obs) -> str:
    """pimc's action at obs (legal_actions has two or more), by the compiled decisions."""
    return obs.legal_actions[pimc_valued(cr, ps, params, hand_seed, obs)[1]]


def pimc_valued(cr, ps: PimcScratch, params: list[float], hand_seed: int, obs
                ) -> tuple[SeatView, int, np.ndarray]:
    """(what obs's seat saw, the index in obs.legal_actions of pimc's action, pimc's mean
    value of each legal action over its worlds, in that order): the compiled decision, with
    the values it chose by (all 0 if no world was found). legal_actions has two or more."""
    from . import kernel  # noqa: F401  (fills the kernel's slots, which the replays compile)

    view = observed(cr, obs)
    row = np.array(params, np.float64)
    seed = np.uint64(hand_seed)
    legal = list(obs.legal_actions)
    m = len(legal)
    if obs.phase == "play":
        allowed = 0
        for c in legal:
            allowed |= 1 << cr.card_index[c]
        card = built_call(pimc_card, cr.tables, ps, row, seed, view, np.uint64(allowed))
        index = legal.index(cr.cards[card])
        # ps.legal[:m]: the legal cards in card order, which totals follows
        slot = {int(c): j for j, c in enumerate(ps.legal[:m])}
        totals = np.array([ps.totals[slot[cr.card_index[c]]] for c in legal])
    else:
        codes = {name: i for i, name in enumerate(cr.call_names)}
        calls = np.array([codes[c] for c in legal], np.int64)
        index = int(built_call(pimc_call, cr.tables, ps, row, seed, view, calls, m))
        totals = ps.totals[:m].copy()
    nw = int(ps.drawn[0])
    return view, index, totals / nw if nw else np.zeros(m)
