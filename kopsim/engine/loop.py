"""The batch kernel: a loop over whole hands (deal, contract, auction, teams, tricks, score) of
any compiled ruleset, each step one of the compiled rules of `kopsim.engine.steps`.

Its bots' decisions are read from the slots of `kopsim.engine.botcalls`, which the kinds of
`kopsim.bots.kernel` fill, so this module imports no bot; `kopsim.engine.kernel` is its Python face.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .bits import ONE, ZERO, lowbit_index, nth_bit, popcount
from . import botcalls
from ..rules.codes import (CALL_ASK, CALL_BID, CALL_PASS, PICKUP_DECLARER_MAY, PICKUP_NEVER,
    STYLE_ASK, STYLE_SINGLE, STYLE_VALUE, TEAM_ALONE, TEAM_EACH, TEAM_HOLDERS, TIER_LONE,
    WIN_YOUNG)
from .codes import (BOT_EV, BOT_LEARNT, BOT_PIMC, BOT_RANDOM, PIMC_HEURISTIC_AT,
    REPLAY_CONTRADICTED, REPLAY_NEXT, REPLAY_OVER)
from .draws import STREAM, draw, mix64
from .jit import kernel_jit
from .seats import after, before, seat_count
from .steps import (called_card, classify, count_doubles, deal, deal_given, duty_after_trick,
                    each_alone_result, eval_preds, form_teams, game_price, instant_result,
                    jungfrau_factor, laufende_value, legal_play, mask_points, pay_out,
                    play_to_trick, price, side_tier, talon_taker, tie_winner)


class Lineup(NamedTuple):
    """The kernel bots of a batch: kind and parameter row of each bot, the bot in each seat of
    each hand, the tables the heuristic and ev kinds read, and the calls calibration forces."""

    bot_kind: np.ndarray  # [bot] BOT_* code
    bot_params: np.ndarray  # [bot, i]
    seat_bot: np.ndarray  # [hand, seat] bot index
    card_bot: np.ndarray  # [bot] the index of the bot that plays its cards (itself, but for
    # a split bot: kopsim.bots.split)
    h_power: np.ndarray
    h_ctab: np.ndarray
    ev_values: np.ndarray  # [table, hand key, position, context, call code] (kopsim.bots.ev)
    ev_binom: np.ndarray  # binomial coefficients: the exact key of a hand
    ev_edges: np.ndarray  # [order, bucket edge]: the key of a hand by its strength, if no columns
    explore: np.ndarray  # [hand] (call number, call code) forced, -1 for none; or no rows
    given: np.ndarray  # [hand, i] the i-th card dealt, instead of a shuffle; or no rows
    # [hand, i] the actions forced (rollouts: a decision's history, then the action valued):
    # the code of call i for i < max_calls, else the card played (i - max_calls)-th; each
    # where legal, -1 where the bot chooses; or no rows
    forced: np.ndarray
    # pimc's replay of the public auction on a world (`replay_auction`): [call] (seat, code)
    # said, instead of the bots' calls (no rows in a line-up of bots); replay_out: [0] how
    # many, then what the replay found (REPLAY_*) and the seat to speak next
    replay: np.ndarray
    replay_out: np.ndarray
    pimc: tuple  # the pimc kind's scratch (kopsim.bots.pimc_kernel), or an empty tuple
    learnt: tuple  # the learnt kind's nets (kopsim.bots.learnt_kernel.LearntNets)


class Scratch(NamedTuple):
    """The kernel's working arrays, sized from the compiled rules and reused hand after hand."""

    perm: np.ndarray  # the deal: cards in the order dealt
    hands: np.ndarray  # the cards dealt to each seat
    talon: np.ndarray  # [0] the cards dealt to the talon (no seat's)
    left: np.ndarray  # the cards each seat still holds
    elig: np.ndarray  # [predicate, seat]
    stack: np.ndarray  # the predicate programs' stack
    calls: np.ndarray  # the calls open to a seat
    calls_tmp: np.ndarray
    double_seats: np.ndarray  # a seat per double said
    believed_k: np.ndarray  # the no-bid contract as each seat can tell it
    believed_decl: np.ndarray
    who_played: np.ndarray  # [card] seat, -1 unseen
    trick: np.ndarray  # the cards of the current trick, -1 where not yet played
    rel: np.ndarray  # a seat's view of partnerships (heuristic)
    points: np.ndarray
    tricks: np.ndarray
    pay: np.ndarray
    streams: np.ndarray  # each seat's stream of draws, for the random kind
    seed: np.ndarray  # [0] the hand's seed (the pimc kind's samples start from it)
    shown: np.ndarray  # the contract the table sees before the play (bid in force, or dealt;
    # -1 none: a silent game) and its declarer
    seq: np.ndarray  # the cards played so far, in the order played
    # bidding by value: what each seat's best game is worth to the heuristic kind (-1: not yet
    # valued this hand; its hand does not change while it bids)
    worth: np.ndarray
    # the ev bot's endgame (kopsim.bots.endgame): a deal of the unseen cards and its solution
    eg_played: np.ndarray  # [seat] the cards it has played
    eg_left: np.ndarray  # [seat] the cards the deal gives it now
    eg_dealt: np.ndarray  # [seat] and as dealt
    eg_points: np.ndarray  # [seat] points and tricks taken along the line searched
    eg_tricks: np.ndarray
    eg_pay: np.ndarray
    eg_value: np.ndarray  # [card] the payout of playing it, summed over the deals
    eg_chk: np.ndarray  # [play, (seat, card, place in trick)] the past plays the deals must fit
    eg_chk_m: np.ndarray  # [play, (suit led, cards beating the winner, cards held besides)]
    eg_forbid: np.ndarray  # [seat] the unseen cards its plays show it does not hold
    eg_walk: np.ndarray  # [other seat, column] the walk over the deals (kopsim.bots.endgame W_*)
    eg_ctx: np.ndarray  # the deal's contract, sides, ... (kopsim.bots.endgame X_*)
    eg_node_i: np.ndarray  # [card played, column] the search's stack (kopsim.bots.endgame)
    eg_node_u: np.ndarray
    eg_node_f: np.ndarray


class Outcomes(NamedTuple):
    """The kernel's output columns, one row per hand (see `BatchResult`)."""

    contract: np.ndarray
    declarer: np.ndarray
    old: np.ndarray
    doubles: np.ndarray
    winner: np.ndarray
    tier: np.ndarray
    points: np.ndarray
    tricks: np.ndarray
    payouts: np.ndarray
    perm: np.ndarray
    calls: np.ndarray
    call_seat: np.ndarray
    ncalls: np.ndarray
    cards: np.ndarray
    leaders: np.ndarray
    trick_winners: np.ndarray
    taken: np.ndarray  # [hand] the talon picked up (1), played hand (0), no pick-up (-1)
    laid: np.ndarray  # [hand, i] the i-th card laid away after picking it up, -1 none
    options: np.ndarray  # [hand, call number] the legal calls, as bits of their codes (when exploring)


def scratch_for(t) -> Scratch:
    nc, n = t.n_cards, t.n_seats  # the per-seat arrays have one row a seat: the kernel reads n
    K, V = t.c_team.shape[0], t.bid_values.shape[0]  # the calls open: pass, bids or values
    return Scratch(
        perm=np.zeros(nc, np.int64), hands=np.zeros(n, np.uint64), talon=np.zeros(1, np.uint64),
        left=np.zeros(n, np.uint64),
        elig=np.zeros((t.p_start.shape[0], n), np.bool_), stack=np.zeros(t.pred_stack, np.bool_),
        calls=np.zeros(CALL_BID + K + V, np.int64), calls_tmp=np.zeros(CALL_BID + K + V, np.int64),
        double_seats=np.zeros(max(t.n_chain, 1), np.int64), believed_k=np.zeros(n, np.int64),
        believed_decl=np.zeros(n, np.int64), who_played=np.full(nc, -1, np.int64),
        trick=np.full(n, -1, np.int64), rel=np.zeros(n, np.int64), points=np.zeros(n, np.float64),
        tricks=np.zeros(n, np.int64), pay=np.zeros(n, np.float64),
        streams=np.zeros(n, np.uint64), seed=np.zeros(1, np.uint64),
        shown=np.full(2, -1, np.int64), seq=np.full(nc, -1, np.int64),
        worth=np.full(n, -1.0, np.float64),
        eg_played=np.zeros(n, np.uint64), eg_left=np.zeros(n, np.uint64),
        eg_dealt=np.zeros(n, np.uint64), eg_points=np.zeros(n, np.float64),
        eg_tricks=np.zeros(n, np.int64), eg_pay=np.zeros(n, np.float64),
        eg_value=np.zeros(nc, np.float64), eg_chk=np.zeros((nc, 3), np.int64),
        eg_chk_m=np.zeros((nc, 3), np.uint64), eg_forbid=np.zeros(n, np.uint64),
        eg_walk=np.zeros((n, 4), np.uint64), eg_ctx=np.zeros(8, np.int64),
        eg_node_i=np.zeros((nc, 8), np.int64), eg_node_u=np.zeros((nc, 2), np.uint64),
        eg_node_f=np.zeros((nc, 5), np.float64))


# Every function here is compiled without numba's reference counting (`kernel_jit`): the kernel
# allocates nothing and its arrays belong to the caller, and without it the steps can take the
# named tuples whole (with it, each array a helper touched cost two atomic counts per call).


@kernel_jit()
def _no_bid_contract(t, elig, forehand):
    """(contract, declarer) if nobody bids: the first no-bid contract whose condition someone
    meets (the first such seat from forehand declares it if it is played alone)."""
    for j in range(t.no_bid.shape[0]):
        k = t.no_bid[j]
        if not t.c_has_pred[k]:
            return k, -1
        for i in range(seat_count(t)):
            s = after(forehand, i, seat_count(t))
            if elig[k, s]:
                return k, (s if t.c_team[k] == TEAM_ALONE else -1)
    return -1, -1


@kernel_jit()
def _believe_no_bid(t, elig, bel_k, bel_decl):
    """What each seat can tell of the no-bid contract from its own hand: a contract it would
    play alone, or the normal one (the heuristic plays by this)."""
    for s in range(seat_count(t)):
        bel_k[s] = t.normal_k
        bel_decl[s] = -1
        for j in range(t.no_bid.shape[0]):
            k = t.no_bid[j]
            if k == t.normal_k:
                break
            if t.c_team[k] == TEAM_ALONE and elig[k, s]:
                bel_k[s] = k
                bel_decl[s] = s
                break


@kernel_jit()
def _dealt_contract(t, elig, forehand):
    """(contract, declarer) that the deal itself makes (a special hand), or (-1, -1)."""
    for j in range(t.dealt.shape[0]):
        k = t.dealt[j]
        for i in range(seat_count(t)):
            s = after(forehand, i, seat_count(t))
            if elig[k, s]:
                return k, s
    return -1, -1


@kernel_jit()
def _open_calls(t, sc, seat, first, fo, bid, bidder, nd, imp, imp_decl):
    """Writes the calls open to seat into sc.calls in canonical order (pass or ask, bids low
    to high, the next double); returns (their number, the number of bids among them)."""
    buf = sc.calls
    K = t.c_team.shape[0]
    buf[0] = CALL_ASK if fo else CALL_PASS
    m = 1
    floor = t.bid_floor[bid] if bid >= 0 else -1
    for j in range(floor + 1, t.bids.shape[0]):
        k = t.bids[j]
        if (t.c_has_pred[k] and not sc.elig[k, seat]) or (t.c_first_call_only[k] and not first):
            continue
        buf[m] = CALL_BID + k
        m += 1
    n_bids = m - 1
    if t.style != STYLE_SINGLE and not fo and t.n_chain > 0:
        k, decl = (bid, bidder) if bid >= 0 else (imp, imp_decl)
        if _may_double(t, sc, seat, k, decl, nd, t.c_max_doubles[bid] if bid >= 0
                       else t.cap_without_bid):
            buf[m] = CALL_BID + K + nd
            m += 1
    return m, n_bids


@kernel_jit()
def _may_double(t, sc, seat, k, decl, nd, cap):
    """May seat say the next double (nd said so far, cap allowed) on contract k of declarer
    decl (the bid in force, or the contract played if nobody bids)?"""
    if nd >= cap:
        return False
    sides_known = decl >= 0 or t.c_team[k] == TEAM_HOLDERS
    if nd == 0:
        if t.c_first_double_young[k] and sides_known:
            old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, decl, sc.hands,
                             seat_count(t))
            return not (old >> seat) & 1
        return seat != decl or t.c_decl_double_first[k]
    if t.forbid_own_double and sides_known:
        old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, decl, sc.hands,
                         seat_count(t))
        return ((old >> seat) & 1) != ((old >> sc.double_seats[nd - 1]) & 1)
    return True


@kernel_jit()
def _restrict_calls(t, sc, m, seat, first, bid, asked):
    """Removes from sc.calls[:m] what the auction's restrictions forbid seat now; returns the
    number left. A restriction never leaves a seat without a call."""
    K = t.c_team.shape[0]
    forbidden, fdouble, any_r = ZERO, False, False
    for i in range(t.r_forbid.shape[0]):
        if t.r_first_call[i] >= 0 and (t.r_first_call[i] == 1) != first:
            continue
        if t.r_bid_in_force[i] >= 0 and (t.r_bid_in_force[i] == 1) != (bid >= 0):
            continue
        if t.r_asked[i] >= 0 and (t.r_asked[i] == 1) != (((asked >> seat) & 1) == 1):
            continue
        if t.r_has_holding[i] and not sc.elig[K + i, seat]:
            continue
        forbidden |= t.r_forbid[i]
        fdouble = fdouble or t.r_forbid_double[i]
        any_r = True
    if not any_r:
        return m
    buf, kept = sc.calls, 0
    for i in range(m):
        c = buf[i]
        bad = fdouble if c >= CALL_BID + K else ((forbidden >> np.uint64(c)) & ONE) == ONE
        if not bad:
            sc.calls_tmp[kept] = c
            kept += 1
    if kept == 0:
        return m
    for i in range(kept):
        buf[i] = sc.calls_tmp[i]
    return kept


@kernel_jit(inline='always')
def _draw_seat(streams, seat, n):
    """A draw from seat's own stream: the random kind's decision."""
    j, streams[seat] = draw(streams[seat], n)
    return j


@kernel_jit(inline='always')
def _replayed_call(lu, sc, seat, m, ncalls):
    """The index in sc.calls[:m] of the public call number ncalls, replayed; -1 once every
    public call is (the seat to speak next noted), or if the deal contradicts it (this seat
    did not speak then, or could not say that call)."""
    out = lu.replay_out
    if ncalls == out[0]:
        out[1] = REPLAY_NEXT
        out[2] = seat
        return -1
    if lu.replay[ncalls, 0] == seat:
        for i in range(m):
            if sc.calls[i] == lu.replay[ncalls, 1]:
                return i
    out[1] = REPLAY_CONTRADICTED
    return -1


@kernel_jit(inline='always')
def _choose_call(t, lu, sc, out, h, seat, m, ncalls, position, force, bots, pimc):
    """The index in sc.calls[:m] of the call seat makes (-1: a replay stops here); force: the
    bid in force (-1 none), its bidder, the doubles said on it, and whether this is the round
    a silent first round reopens. bots, pimc: constants of each compiled auction: do bots say
    the calls (else the public calls are replayed, `replay_auction`: no bot is compiled in),
    may one be of the pimc kind?"""
    if bots:
        return _bot_call(t, lu, sc, out, h, seat, m, ncalls, position, force, pimc)
    return _replayed_call(lu, sc, seat, m, ncalls)


@kernel_jit(inline='always')
def _view(sc, out, h, seat, dealer, ncalls, played, to_speak):
    """What seat has seen of hand h (`botcalls.SeatView`): its own cards (the declarer's as
    the talon left them), the calls, the contract shown, the talon picked up or not, the cards
    it laid away (the declarer's alone), the cards played. (Its numbers as int64 values, never
    literal constants: one build of a bot's decision serves every call of it.)"""
    taken = np.int64(out.taken[h]) if to_speak < 0 else np.int64(-1)
    laid = sc.talon[0] if taken == 1 and seat == sc.shown[1] else ZERO
    return botcalls.SeatView(np.int64(seat), np.int64(dealer), sc.hands[seat], out.calls[h],
                             out.call_seat[h], np.int64(ncalls), sc.shown, sc.seq,
                             np.int64(played), out.leaders[h], out.trick_winners[h],
                             np.int64(to_speak), taken, laid)


@kernel_jit(inline='always')
def _heuristic_row(lu, b):
    """The heuristic's parameters in bot b's row: a pimc bot's after its own
    (PIMC_HEURISTIC_AT), any other kind's from the start."""
    return lu.bot_params[b, PIMC_HEURISTIC_AT if lu.bot_kind[b] == BOT_PIMC else 0:]


@kernel_jit(inline='always')
def _forced_call(lu, h, ncalls, buf, m):
    """The index in buf[:m] of the call forced as call ncalls of hand h; -1 if none is, or if
    it is not among them."""
    if lu.forced.shape[0] > 0 and ncalls < lu.forced.shape[1]:
        code = lu.forced[h, ncalls]
        for i in range(m):
            if code >= 0 and buf[i] == code:
                return i
    return -1


@kernel_jit(inline='always')
def _forced_card(t, lu, h, played, allowed):
    """The card forced as the played-th of hand h; -1 if none is, or if it is not allowed."""
    if lu.forced.shape[0] > 0:
        card = lu.forced[h, lu.forced.shape[1] - t.n_cards + played]
        if 0 <= card < t.n_cards and (allowed >> np.uint64(card)) & ONE:
            return card
    return -1


@kernel_jit(inline='always')
def _bot_call(t, lu, sc, out, h, seat, m, ncalls, position, force, pimc):
    """The index in sc.calls[:m] of the call seat makes: the one calibration forces, else its
    bot's choice (position: the seat's, counted from forehand; in the round a silent first
    round reopens the ev kind has a context of its own, after every other)."""
    bid, bidder, nd, reopening = force
    buf = sc.calls
    explore = lu.explore
    if explore.shape[0] > 0 and explore[h, 0] == ncalls:
        for i in range(m):
            if buf[i] == explore[h, 1]:
                return i
    forced = _forced_call(lu, h, ncalls, buf, m)
    if forced >= 0:
        return forced
    b = lu.seat_bot[h, seat]
    kind = lu.bot_kind[b]
    if kind == BOT_RANDOM:
        return _draw_seat(sc.streams, seat, m)
    if pimc and kind == BOT_PIMC:
        view = _view(sc, out, h, seat, before(seat, position + 1, seat_count(t)), ncalls, 0, seat)
        return botcalls.pimc_call(t, lu.pimc, lu.bot_params[b], sc.seed[0], view, buf,
                                  np.int64(m))
    if pimc and kind == BOT_LEARNT:
        if m == 1:  # one call: the call and its arguments cost more than the choice
            return 0
        view = _view(sc, out, h, seat, before(seat, position + 1, seat_count(t)), ncalls, 0, seat)
        return botcalls.learnt_call(lu.learnt, lu.bot_params[b], view, buf, np.int64(m))
    if kind == BOT_EV:
        k = bid if bid >= 0 else t.normal_k
        context = (2 * (bid + 1) + (bidder == seat)) * (t.n_chain + 1) + nd
        if reopening:
            context = 2 * (t.c_team.shape[0] + 1) * (t.n_chain + 1)
        return botcalls.ev_call(buf, m, sc.hands[seat], position, context, lu.h_ctab[k, 2],
                                lu.h_ctab, lu.h_power, lu.ev_values, lu.ev_binom, lu.ev_edges,
                                lu.bot_params[b])
    # BOT_HEURISTIC: kernel_lineup refuses any kind it does not declare
    return botcalls.heuristic_call(buf, m, sc.hands[seat], seat, bid, bidder,
                                   sc.believed_k[seat], sc.believed_decl[seat], t.c_team.shape[0],
                                   lu.h_ctab, lu.h_power, lu.bot_params[b])


@kernel_jit(inline='always')
def _record_call(lu, sc, out, h, ncalls, seat, call, m):
    """Writes call, said by seat, as call number ncalls of hand h, with the options it was
    chosen from (sc.calls[:m]) when calibration explores."""
    if ncalls < out.calls.shape[1]:
        out.calls[h, ncalls] = call
        out.call_seat[h, ncalls] = seat
        if lu.explore.shape[0] > 0:
            mask = ZERO
            for i in range(m):
                mask |= ONE << np.uint64(sc.calls[i])
            out.options[h, ncalls] = mask


@kernel_jit(inline='always')
def _auction(t, lu, sc, out, h, forehand, imp, imp_decl, bots, pimc):
    """Plays the auction of hand h; returns (bid in force or -1, its bidder, doubles said),
    the seat of each double in sc.double_seats (bots, pimc: see `_choose_call`)."""
    K = t.c_team.shape[0]
    nd, ncalls, bid, bidder = 0, 0, -1, -1
    spoken, asked, passes, any_call, turn, speaks = 0, 0, 0, False, forehand, 0
    reopening, reopened, min_calls = False, False, 0  # a silent round reopens it once
    while True:
        if t.style == STYLE_SINGLE:
            if speaks == seat_count(t):
                break
            turn = after(forehand, speaks, seat_count(t))
            speaks += 1
        first = ((spoken >> turn) & 1) == 0
        fo = t.style == STYLE_ASK and turn == forehand and first
        # the usual calls, replaced by the announcements in the round a silent first round
        # reopens (with the usual ones built in an else branch instead, four random bots on kop
        # played a fifth slower: measured)
        m, n_bids = _open_calls(t, sc, turn, first, fo, bid, bidder, nd, imp, imp_decl)
        if reopening:
            m = _announcements(t, sc, turn, first)
        if t.r_forbid.shape[0] > 0:
            m = _restrict_calls(t, sc, m, turn, first, bid, asked)
        if t.style == STYLE_SINGLE and n_bids == 0:
            continue  # nothing to bid: this seat does not speak
        j = _choose_call(t, lu, sc, out, h, turn, m, ncalls, before(turn, forehand, seat_count(t)),
                         (bid, bidder, nd, reopening), bots, pimc)
        if j < 0:  # a replay stops
            out.ncalls[h] = ncalls
            return bid, bidder, nd
        call = sc.calls[j]
        _record_call(lu, sc, out, h, ncalls, turn, call, m)
        ncalls += 1
        if call == CALL_PASS:
            passes += 1
        else:
            passes = 0
            any_call = True
            if call == CALL_ASK:
                asked |= 1 << turn
            elif call < CALL_BID + K:
                k = call - CALL_BID
                keep = bid >= 0 and t.c_add_on_to[k] == bid and bidder == turn
                bid, bidder, nd = k, turn, (nd if keep else 0)  # an add-on keeps the doubles
            else:
                sc.double_seats[nd] = turn
                nd += 1
        spoken |= 1 << turn
        if t.style != STYLE_SINGLE:
            if reopening and (bid >= 0 or passes == seat_count(t)):
                if bid < 0:
                    break  # nobody announced
                # the announcement in force, the auction restarts from forehand; it ends only
                # once every seat has spoken in it
                reopening, passes, turn, min_calls = False, 0, forehand, ncalls + seat_count(t)
                continue
            if not reopening and ncalls >= min_calls and passes >= (
                    t.end_after_passes if any_call else t.end_after_passes_without_call):
                if not t.reopen or reopened or bid >= 0 or nd > 0:
                    break
                reopening, reopened, passes, turn = True, True, 0, forehand  # a silent round
                continue
            turn = after(turn, 1, seat_count(t))
    if t.doubles_after_single and bid >= 0:
        nd, ncalls = _doubling_round(t, lu, sc, out, h, forehand, bid, bidder, ncalls, spoken,
                                     bots, pimc)
    out.ncalls[h] = ncalls
    return bid, bidder, nd


@kernel_jit()
def _announcements(t, sc, seat, first):
    """Writes into sc.calls the calls open to seat in the round a silent first round reopens:
    pass, then each contract of c_announce it may bid, low to high; returns their number."""
    sc.calls[0] = CALL_PASS
    m = 1
    for j in range(t.bids.shape[0]):
        k = t.bids[j]
        if t.c_announce[k] and not (t.c_has_pred[k] and not sc.elig[k, seat]) \
                and not (t.c_first_call_only[k] and not first):
            sc.calls[m] = CALL_BID + k
            m += 1
    return m


@kernel_jit(inline='always')
def _doubling_round(t, lu, sc, out, h, forehand, bid, bidder, ncalls, spoken, bots, pimc):
    """The doubling round after a single declaration round: from forehand each seat passes or
    says the next double, until end_after_passes passes follow a double, or four passes none.
    Returns (doubles said, calls so far)."""
    K = t.c_team.shape[0]
    nd, passes, doubled, turn = 0, 0, False, forehand
    while True:
        sc.calls[0] = CALL_PASS
        m = 1
        if _may_double(t, sc, turn, bid, bidder, nd, t.c_max_doubles[bid]):
            sc.calls[1] = CALL_BID + K + nd
            m = 2
        if t.r_forbid.shape[0] > 0:
            m = _restrict_calls(t, sc, m, turn, ((spoken >> turn) & 1) == 0, bid, 0)
        j = _choose_call(t, lu, sc, out, h, turn, m, ncalls, before(turn, forehand, seat_count(t)),
                         (bid, bidder, nd, False), bots, pimc)
        if j < 0:  # a replay stops
            return nd, ncalls
        call = sc.calls[j]
        _record_call(lu, sc, out, h, ncalls, turn, call, m)
        ncalls += 1
        spoken |= 1 << turn
        if call == CALL_PASS:
            passes += 1
        else:
            sc.double_seats[nd] = turn
            nd += 1
            passes, doubled = 0, True
        if passes >= (t.end_after_passes if doubled else seat_count(t)):
            return nd, ncalls
        turn = after(turn, 1, seat_count(t))


@kernel_jit(inline='always')
def _choose_card(t, lu, sc, out, h, seat, allowed, force, at, endgame, pimc):
    """The card seat plays from allowed: its bot's choice (the ev kind's in the last tricks is
    its endgame's, where that applies; else it plays as the heuristic kind). force: the bid in
    force (-1 none), its bidder, the doubles said; at: the trick's leader, forehand, and how
    many cards were played before this one."""
    bid, bidder, nd = force
    leader, forehand, played = at
    forced = _forced_card(t, lu, h, played, allowed)
    if forced >= 0:
        return forced
    b = lu.card_bot[lu.seat_bot[h, seat]]
    kind = lu.bot_kind[b]
    if kind == BOT_RANDOM:
        return nth_bit(allowed, _draw_seat(sc.streams, seat, popcount(allowed)))
    if pimc and kind == BOT_PIMC:
        view = _view(sc, out, h, seat, before(forehand, 1, seat_count(t)), out.ncalls[h], played,
                     -1)
        return botcalls.pimc_card(t, lu.pimc, lu.bot_params[b], sc.seed[0], view, allowed)
    if pimc and kind == BOT_LEARNT:
        if not allowed & (allowed - ONE):  # one card: the call and its arguments cost more
            return lowbit_index(allowed)
        view = _view(sc, out, h, seat, before(forehand, 1, seat_count(t)), out.ncalls[h], played,
                     -1)
        return botcalls.learnt_card(lu.learnt, lu.bot_params[b], view, allowed)
    if endgame and kind == BOT_EV:
        card = botcalls.ev_endgame_card(t, sc, seat, allowed, leader, bid, bidder, nd, forehand,
                                        lu.bot_params[b])
        if card >= 0:
            return card
    k = bid if bid >= 0 else sc.believed_k[seat]
    decl = bidder if bid >= 0 else sc.believed_decl[seat]
    botcalls.heuristic_relations(sc.rel, seat, sc.hands[seat], k, decl, lu.h_ctab,
                                 t.c_team_cards, sc.who_played)
    return botcalls.heuristic_card(allowed, sc.left[seat], lu.h_ctab[k], sc.trick, leader,
                                   sc.rel, sc.who_played, t.suit, t.suit_mask, t.beat_mask,
                                   lu.h_power, lu.bot_params[b])


@kernel_jit(inline='always')
def _talon_phase(t, lu, sc, out, h, rule, contract, declarer):
    """Where rule (PICKUP_*) has the declarer pick the talon up: he takes it (or plays hand,
    where he may choose) and lays as many cards away, which are the talon from then on;
    sc.hands[declarer] the cards he plays (out.taken, out.laid). The seat's bot decides, for
    contract (bid by value: the one it means to declare): the random kind draws from the
    seat's stream, any other decides as the heuristic kind."""
    out.taken[h] = -1
    if rule == PICKUP_NEVER or declarer < 0:
        return
    random = lu.bot_kind[lu.seat_bot[h, declarer]] == BOT_RANDOM
    o, goal = t.c_order[contract], t.c_goal[contract]
    take = True
    if rule == PICKUP_DECLARER_MAY:
        take = (_draw_seat(sc.streams, declarer, 2) == 0 if random else
                botcalls.heuristic_take(sc.hands[declarer], o, goal, lu.h_power))
    out.taken[h] = 1 if take else 0
    if not take:
        return
    hand, laid = sc.hands[declarer] | sc.talon[0], ZERO
    for i in range(t.talon_size):
        if random:
            card = nth_bit(hand, _draw_seat(sc.streams, declarer, popcount(hand)))
        else:
            card = botcalls.heuristic_lay(hand, o, goal, t.suit, t.suit_mask, t.beat_mask,
                                          lu.h_power)
        hand &= ~(ONE << np.uint64(card))
        laid |= ONE << np.uint64(card)
        out.laid[h, i] = card
    sc.hands[declarer], sc.talon[0] = hand, laid


@kernel_jit(inline='always')
def _value_call(t, lu, sc, out, h, seat, m, ncalls, held, bots):
    """The index in sc.calls[:m] of the call seat makes bidding by value (held: the value in
    force, 0 none): forced, replayed (bots false: see `_choose_call`), drawn by the random
    kind, or the heuristic kind's (the pimc kind decides as the heuristic, `_heuristic_row`;
    any other kind: the bots stage refuses them)."""
    if not bots:
        return _replayed_call(lu, sc, seat, m, ncalls)
    forced = _forced_call(lu, h, ncalls, sc.calls, m)
    if forced >= 0:
        return forced
    b = lu.seat_bot[h, seat]
    if lu.bot_kind[b] == BOT_RANDOM:
        return _draw_seat(sc.streams, seat, m)
    if sc.worth[seat] < 0:
        sc.worth[seat] = botcalls.heuristic_worth(sc.hands[seat], t, lu.h_ctab, lu.h_power,
                                                  _heuristic_row(lu, b))
    return botcalls.heuristic_value_call(sc.calls, m, sc.worth[seat], held, t)


@kernel_jit(inline='always')
def _value_offers(t, sc, cur):
    """Writes into sc.calls pass and every value above the cur-th; returns their number."""
    sc.calls[0] = CALL_PASS
    m = 1
    for v in range(cur + 1, t.bid_values.shape[0]):
        sc.calls[m] = t.value_code + v
        m += 1
    return m


@kernel_jit(inline='always')
def _value_auction(t, lu, sc, out, h, forehand, bots):
    """Bidding by value (Skat's Reizen, `Auction.style`): each seat after forehand in turn
    bids to the senior seat left standing, naming a higher value or passing; the senior holds
    it or passes; the one left standing declares. Nobody naming a value, forehand may name one
    or pass. Returns (the index of the value bid, the declarer), (-1, -1) if nobody bid."""
    n = seat_count(t)
    senior, cur, ncalls, stopped = forehand, -1, 0, False
    if bots:  # (a replay's scratch has no worth: see kopsim.bots.worlds.ReplayScratch)
        sc.worth[:] = -1.0
    for j in range(1, n):
        junior = after(forehand, j, n)
        while True:
            m = _value_offers(t, sc, cur)
            i = _value_call(t, lu, sc, out, h, junior, m, ncalls, 0, bots)
            stopped = i < 0  # a replay stops
            if stopped:
                break
            _record_call(lu, sc, out, h, ncalls, junior, sc.calls[i], m)
            ncalls += 1
            if i == 0:  # the junior passes: the senior stands
                break
            cur = sc.calls[i] - t.value_code
            sc.calls[0], sc.calls[1] = CALL_PASS, CALL_ASK
            i = _value_call(t, lu, sc, out, h, senior, 2, ncalls, t.bid_values[cur], bots)
            stopped = i < 0
            if stopped:
                break
            _record_call(lu, sc, out, h, ncalls, senior, sc.calls[i], 2)
            ncalls += 1
            if i == 0:  # the senior passes: the junior stands, senior to the next
                senior = junior
                break
        if stopped:
            break
    if cur < 0 and not stopped:  # nobody named a value: forehand's last word
        m = _value_offers(t, sc, -1)
        i = _value_call(t, lu, sc, out, h, forehand, m, ncalls, 0, bots)
        if i >= 0:
            _record_call(lu, sc, out, h, ncalls, forehand, sc.calls[i], m)
            ncalls += 1
        if i > 0:
            cur, senior = sc.calls[i] - t.value_code, forehand
    out.ncalls[h] = ncalls
    return (cur, senior) if cur >= 0 else (-1, -1)


@kernel_jit(inline='always')
def _declarable(t, sc, cur, hand_game):
    """Writes into sc.calls the contracts a declarer may declare at the cur-th value, in a
    hand game or not (bid order, `Ruleset.declarable`); returns their number (validation: at
    least one, as one contract is never hand_only)."""
    m = 0
    for j in range(t.bids.shape[0]):
        k = t.bids[j]
        top = t.c_top_value[k] + (t.c_hand_value[k] if hand_game else 0.0)
        if top >= t.bid_values[cur] and (hand_game or not t.c_hand_only[k]):
            sc.calls[m] = k
            m += 1
    for j in range(t.bids.shape[0] if m == 0 else 0):  # none reaches it: any, overbid
        if hand_game or not t.c_hand_only[t.bids[j]]:
            sc.calls[m] = t.bids[j]
            m += 1
    return m


@kernel_jit(inline='always')
def _declare_by_value(t, lu, sc, out, h, declarer, cur):
    """The declarer who bid the cur-th value deals with the talon (t.pick_up) and declares a
    contract that can reach his bid: his bot's choice (the random kind draws; any other
    chooses as the heuristic, which means the contract it would declare from its dealt hand
    when it takes the talon up and lays cards away). Returns the contract, shown to all."""
    b = lu.seat_bot[h, declarer]
    random = lu.bot_kind[b] == BOT_RANDOM
    m = _declarable(t, sc, cur, t.pick_up == PICKUP_DECLARER_MAY)  # what he may mean to
    meant = sc.calls[0]
    if not random:
        meant = sc.calls[botcalls.heuristic_declare(sc.hands[declarer], t, sc.calls, m,
                                                    lu.h_ctab, lu.h_power, _heuristic_row(lu, b),
                                                    False)]
    _talon_phase(t, lu, sc, out, h, t.pick_up, meant, declarer)
    m = _declarable(t, sc, cur, out.taken[h] == 0)
    if random:
        k = sc.calls[_draw_seat(sc.streams, declarer, m)]
    else:
        k = sc.calls[botcalls.heuristic_declare(sc.hands[declarer], t, sc.calls, m, lu.h_ctab,
                                                lu.h_power, _heuristic_row(lu, b), True)]
    sc.shown[0], sc.shown[1] = k, declarer
    return k


@kernel_jit(inline='always')
def cards_allowed(t, contract, hand, pos, led, w, called, called_suit):
    """The cards of hand that may be played as card pos of a trick of contract (led in suit
    group led, card w winning it), while the called card (-1 none, of group called_suit) keeps
    its duties."""
    o = t.c_order[contract]
    return legal_play(hand, pos, t.suit_mask[o, led], t.suit_mask[o, 0], t.beat_mask[o, led, w],
                      (t.follow_suit, t.trump_when_void, t.must_beat), led == called_suit,
                      called, t.suit_mask[o, max(called_suit, 0)], t.c_run_away[contract])


@kernel_jit(inline='always')
def _play_tricks(t, lu, sc, out, h, leader, contract, declarer, force, endgame, pimc):
    """Plays the tricks of hand h in contract's card order (force: the bid in force, its
    bidder, the doubles said); each trick's points and the trick go to its winner (sc.points,
    sc.tricks)."""
    o = t.c_order[contract]
    forehand = leader
    for c in range(t.n_cards):
        sc.who_played[c] = -1
    n = seat_count(t)
    for s in range(n):
        sc.left[s] = sc.hands[s]
    called = -1  # the called card, while its duties hold (until its suit is first led)
    if t.c_run_away[contract] > 0:
        called = called_card(t.c_team[contract], t.c_team_cards, contract, declarer, sc.hands)
    called_suit = t.suit[o, called] if called >= 0 else -1
    for tr in range(t.hand_size):
        out.leaders[h, tr] = leader
        led, w, wseat, pts = 0, 0, leader, 0.0
        for i in range(n):
            sc.trick[i] = -1
        for i in range(n):
            seat = after(leader, i, n)
            allowed = cards_allowed(t, contract, sc.left[seat], i, led, w, called, called_suit)
            card = _choose_card(t, lu, sc, out, h, seat, allowed, force,
                                (leader, forehand, n * tr + i), endgame, pimc)
            sc.trick[i] = card
            sc.seq[n * tr + i] = card
            sc.who_played[card] = seat
            sc.left[seat] &= ~(ONE << np.uint64(card))
            out.cards[h, n * tr + i] = card
            pts += t.card_points[card]
            led, w, wseat = play_to_trick(i, card, seat, t.suit[o, card],
                                          t.beat_mask[o, led, w], led, w, wseat)
        called_suit = duty_after_trick(called_suit, led)
        if called_suit < 0:
            called = -1
        out.trick_winners[h, tr] = wseat
        sc.points[wseat] += pts
        sc.tricks[wseat] += 1
        leader = wseat


@kernel_jit()
def score_hand(t, points, tricks, double_seats, contract, old, nd, dealt, hand_game=False,
               bid_value=0):
    """(winner, tier, counted doubles, value) of the hand played in contract (points, tricks:
    each seat's; double_seats[:nd]: who doubled; dealt: each seat's cards as dealt, for the
    Laufende); a hand game adds the contract's hand value; a game bid by value (bid_value > 0)
    worth less than the bid is lost (Skat's overbid). The ev bot's endgame prices its lines
    here."""
    old_pts, young_pts, old_tricks, young_tricks, n_old = 0.0, 0.0, 0, 0, 0
    for s in range(seat_count(t)):
        if (old >> s) & 1:
            old_pts += points[s]
            old_tricks += tricks[s]
            n_old += 1
        else:
            young_pts += points[s]
            young_tricks += tricks[s]
    counted, last = count_doubles(double_seats, nd, old, t.c_max_doubles[contract])
    lone_won = n_old == 1 and not t.c_won_tiered[contract]
    lone_lost = n_old == 1 and not t.c_lost_tiered[contract]
    winner, tier = classify(old_pts, young_pts, old_tricks, young_tricks,
                            t.c_win_points[contract], t.schneider_max_old, t.schneider_max,
                            t.c_goal[contract], tie_winner(t.tie_rule, counted, last), lone_won,
                            lone_lost)
    added = laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, contract, dealt, old)
    added += t.c_hand_value[contract] if hand_game else 0.0
    over, v = game_price(t.c_won, t.c_lost, t.c_mult, t.c_base_value, contract, winner, tier,
                         counted, t.tie_value, t.factor, added, bid_value)
    if over:  # overbid: lost, at the bid's value
        return WIN_YOUNG, side_tier(old_pts, old_tricks, t.schneider_max_old), counted, v
    return winner, tier, counted, v


@kernel_jit()
def score_each_alone(t, sc, contract, forehand):
    """(old, winner, tier, counted doubles, value) of a hand played each for himself (Ramsch):
    the loser, or a Durchmarsch's winner, settles alone with the three others at the flat price,
    doubled by each seat without a trick (Jungfrau) when the loser pays."""
    old, winner = each_alone_result(sc.points, sc.tricks, sc.who_played,
                                    t.trump_rank[t.c_order[contract]], t.c_ramsch_loser[contract],
                                    t.c_durch_points[contract], t.c_durch_all[contract],
                                    t.hand_size, forehand, seat_count(t))
    v = price(t.c_won, t.c_lost, t.c_mult, contract, winner, TIER_LONE, 0, t.tie_value,
              t.factor, 0.0)
    if winner == WIN_YOUNG and t.c_jungfrau[contract]:
        v *= jungfrau_factor(sc.tricks, seat_count(t))
    return old, winner, TIER_LONE, 0, v


@kernel_jit()
def _deal_hand(t, lu, sc, out, h, seed, dealer):
    """Deals hand h (shuffled from its seed, or as calibration gives it), seeds each seat's
    stream, and works out who meets which condition (sc.elig)."""
    for s in range(seat_count(t)):
        sc.streams[s] = mix64(seed + np.uint64(s + 1) * STREAM)
    sc.seed[0] = seed
    deal(sc.perm, sc.hands, sc.talon, mix64(seed), dealer, t.deal_to, seat_count(t))
    if lu.given.shape[0] > 0:
        deal_given(sc.perm, sc.hands, sc.talon, lu.given, h, dealer, t.deal_to, seat_count(t))
    for i in range(t.n_cards):
        out.perm[h, i] = sc.perm[i]
    eval_preds(sc.elig, sc.hands, dealer, t.p_op, t.p_mask, t.p_a, t.p_b, t.p_start, t.p_end,
               sc.stack, seat_count(t))


@kernel_jit(inline='always')
def _contract_of(t, lu, sc, out, h, forehand, bots, pimc):
    """(contract, declarer, bid in force, its bidder, doubles said, no-bid contract, its
    declarer) that the deal in sc (sc.elig worked out) makes: its special hand, or its
    auction's (bots, pimc: see `_choose_call`); sc.shown: what the table sees of it. Bid by
    value, a declarer is yet to declare: contract -1, the bid the index of his value."""
    imp, imp_decl = _no_bid_contract(t, sc.elig, forehand)
    contract, declarer = _dealt_contract(t, sc.elig, forehand)
    bid, bidder, nd = -1, -1, 0
    if contract >= 0:
        out.ncalls[h] = 0
        sc.shown[0], sc.shown[1] = contract, declarer
    elif t.style == STYLE_VALUE:  # the declarer declares once the talon is dealt with
        cur, declarer = _value_auction(t, lu, sc, out, h, forehand, bots)
        if declarer >= 0:
            return -1, declarer, cur, declarer, 0, imp, imp_decl
        contract, declarer = imp, imp_decl
        sc.shown[0], sc.shown[1] = -1, -1
        if _listed(t.dealt, contract):
            sc.shown[0], sc.shown[1] = contract, declarer
    else:
        bid, bidder, nd = _auction(t, lu, sc, out, h, forehand, imp, imp_decl, bots, pimc)
        contract, declarer = (bid, bidder) if bid >= 0 else (imp, imp_decl)
        sc.shown[0], sc.shown[1] = bid, bidder
        if bid < 0 and _listed(t.dealt, contract):  # (as the reference engine shows it)
            sc.shown[0], sc.shown[1] = contract, declarer
    return contract, declarer, bid, bidder, nd, imp, imp_decl


@kernel_jit()
def _listed(ks, k):
    """Whether k is among ks."""
    for i in range(ks.shape[0]):
        if ks[i] == k:
            return True
    return False


@kernel_jit(inline='always')
def replay_auction(t, lu, sc, out, dealer):
    """What the public auction lu.replay (lu.replay_out[0] calls) makes of the deal in
    sc.hands (a world of the pimc kind's): (REPLAY_OVER: it ended there, REPLAY_NEXT: it goes
    on, the seat to speak next, else REPLAY_CONTRADICTED; that seat; the contract, its
    declarer, once over; the no-bid contract, its declarer; the doubles said, their seats in
    sc.double_seats). What the table saw of the contract is in sc.shown."""
    forehand = after(dealer, 1, seat_count(t))
    eval_preds(sc.elig, sc.hands, dealer, t.p_op, t.p_mask, t.p_a, t.p_b, t.p_start, t.p_end,
               sc.stack, seat_count(t))
    lu.replay_out[1] = REPLAY_OVER
    lu.replay_out[2] = -1
    contract, declarer, _, _, nd, imp, imp_decl = _contract_of(t, lu, sc, out, 0, forehand,
                                                               False, False)
    found = lu.replay_out[1]
    if found == REPLAY_OVER and out.ncalls[0] < lu.replay_out[0]:
        found = REPLAY_CONTRADICTED  # it ended before the table's did
    if found != REPLAY_OVER:
        contract, declarer = -1, -1
    return found, lu.replay_out[2], contract, declarer, imp, imp_decl, nd


@kernel_jit(inline='always')
def _play_hand(seeds, dealers, t, lu, sc, out, h, endgame, pimc):
    """Plays hand h from seeds[h], dealt by dealers[h]: deal, contract, auction, teams, tricks,
    score; each rule is a step of `kopsim.engine.steps`, each decision a kernel bot's. endgame,
    pimc (constants of each kernel): may an ev bot's card play solve the last tricks, may a
    bot be of the pimc kind?"""
    dealer = dealers[h]
    forehand = after(dealer, 1, seat_count(t))
    _deal_hand(t, lu, sc, out, h, np.uint64(seeds[h]), dealer)
    _believe_no_bid(t, sc.elig, sc.believed_k, sc.believed_decl)
    contract, declarer, bid, bidder, nd, _, _ = _contract_of(t, lu, sc, out, h, forehand, True,
                                                             pimc)
    bid_value = 0
    if contract < 0:  # bid by value: the talon, then the game declared
        bid_value = t.bid_values[bid]
        contract = _declare_by_value(t, lu, sc, out, h, declarer, bid)
        bid = contract
    else:
        _talon_phase(t, lu, sc, out, h, t.c_pick_up[contract], contract, declarer)
    old = form_teams(t.c_team[contract], t.c_team_mask[contract], t.c_team_cards, contract,
                     declarer, sc.hands, seat_count(t))
    for s in range(seat_count(t)):
        sc.points[s], sc.tricks[s], sc.pay[s] = 0.0, 0, 0.0
    if t.c_instant[contract]:
        winner, tier, counted, v = instant_result(t.c_won, t.c_thrown_in, contract)
    else:
        _play_tricks(t, lu, sc, out, h, forehand, contract, declarer, (bid, bidder, nd),
                     endgame, pimc)
        taker = talon_taker(t.c_talon_to[contract], old, out.trick_winners[h, t.hand_size - 1],
                            seat_count(t))
        if taker >= 0:
            sc.points[taker] += mask_points(sc.talon[0], t.card_points)
        if t.c_team[contract] == TEAM_EACH:
            old, winner, tier, counted, v = score_each_alone(t, sc, contract, forehand)
        else:
            winner, tier, counted, v = score_hand(t, sc.points, sc.tricks, sc.double_seats,
                                                  contract, old, nd, sc.hands,
                                                  out.taken[h] == 0, bid_value)
    pay_out(sc.pay, v, winner, old, t.settle, t.lone_once, seat_count(t))
    out.contract[h], out.declarer[h], out.old[h] = contract, declarer, old
    out.doubles[h], out.winner[h], out.tier[h] = counted, winner, tier
    for s in range(seat_count(t)):
        out.points[h, s] = sc.points[s]
        out.tricks[h, s] = sc.tricks[s]
        out.payouts[h, s] = sc.pay[s]


# Four kernels, the ev bots' endgame and the pimc kind compiled only into theirs: a call handing
# over the rules and scratch tuples (hundreds of arguments) cost every other line-up a fifth of
# its speed by its mere presence in the card loop, even never taken. ev bots that play no endgame
# (`endgame_tricks = 0`, the default) play in the kernels without it.
@kernel_jit()
def _play_batch(seeds, dealers, t, lu, sc, out):
    """Plays every hand of the batch (`_play_hand`); a line-up without pimc bots or an ev
    endgame."""
    for h in range(seeds.shape[0]):
        _play_hand(seeds, dealers, t, lu, sc, out, h, False, False)


@kernel_jit()
def _play_batch_endgame(seeds, dealers, t, lu, sc, out):
    """Plays every hand of the batch (`_play_hand`); a line-up with an ev bot's endgame."""
    for h in range(seeds.shape[0]):
        _play_hand(seeds, dealers, t, lu, sc, out, h, True, False)


@kernel_jit()
def _play_batch_pimc(seeds, dealers, t, lu, sc, out):
    """Plays every hand of the batch (`_play_hand`); a line-up with pimc bots, without an ev
    endgame."""
    for h in range(seeds.shape[0]):
        _play_hand(seeds, dealers, t, lu, sc, out, h, False, True)


@kernel_jit()
def _play_batch_pimc_endgame(seeds, dealers, t, lu, sc, out):
    """Plays every hand of the batch (`_play_hand`); a line-up with pimc bots and an ev bot's
    endgame."""
    for h in range(seeds.shape[0]):
        _play_hand(seeds, dealers, t, lu, sc, out, h, True, True)
