"""The batch kernel: a loop over whole hands (deal, contract, teams, tricks, score) of any
compiled ruleset, each step one of the compiled rules of `kopsim.engine.steps`.

Its bots' decisions are read from the slots of `kopsim.engine.botcalls`, which the kinds of
`kopsim.bots.kernel` fill, so this module imports no bot; `kopsim.engine.kernel` is its Python face.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .bits import ONE, ZERO, allowed_cards, nth_bit, popcount
from . import botcalls
from .codes import (BOT_EV, BOT_RANDOM, CALL_ASK, CALL_BID, CALL_PASS, STYLE_ASK, STYLE_SINGLE,
                    TEAM_ALONE, TIER_INSTANT, TIER_OUT, WIN_OLD)
from .draws import STREAM, draw, mix64
from .steps import (classify, count_doubles, deal, deal_given, eval_preds, form_teams, pay_out, play_to_trick,
                    price, tie_winner)


class Lineup(NamedTuple):
    """The kernel bots of a batch: kind and parameter row of each bot, the bot in each seat of
    each hand, the tables the heuristic and ev kinds read, and the calls calibration forces."""

    bot_kind: np.ndarray  # [bot] BOT_* code
    bot_params: np.ndarray  # [bot, i]
    seat_bot: np.ndarray  # [hand, seat] bot index
    h_power: np.ndarray
    h_ctab: np.ndarray
    ev_values: np.ndarray  # [table, hand key, position, context, call code] (kopsim.bots.ev)
    ev_binom: np.ndarray  # binomial coefficients: the exact key of a hand
    ev_edges: np.ndarray  # [order, bucket edge]: the key of a hand by its strength, if no columns
    explore: np.ndarray  # [hand] (call number, call code) forced, -1 for none; or no rows
    given: np.ndarray  # [hand, i] the i-th card dealt, instead of a shuffle; or no rows


class Scratch(NamedTuple):
    """The kernel's working arrays, sized from the compiled rules and reused hand after hand."""

    perm: np.ndarray  # the deal: cards in the order dealt
    hands: np.ndarray  # the cards dealt to each seat
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
    options: np.ndarray  # [hand, call number] the legal calls, as bits of their codes (when exploring)


def scratch_for(t) -> Scratch:
    nc = t.n_cards
    K = t.c_team.shape[0]
    return Scratch(
        perm=np.zeros(nc, np.int64), hands=np.zeros(4, np.uint64), left=np.zeros(4, np.uint64),
        elig=np.zeros((t.p_start.shape[0], 4), np.bool_), stack=np.zeros(t.pred_stack, np.bool_),
        calls=np.zeros(CALL_BID + K, np.int64), calls_tmp=np.zeros(CALL_BID + K, np.int64),
        double_seats=np.zeros(max(t.n_chain, 1), np.int64), believed_k=np.zeros(4, np.int64),
        believed_decl=np.zeros(4, np.int64), who_played=np.full(nc, -1, np.int64),
        trick=np.full(4, -1, np.int64), rel=np.zeros(4, np.int64), points=np.zeros(4, np.float64),
        tricks=np.zeros(4, np.int64), pay=np.zeros(4, np.float64))


@njit(cache=True, inline='always')
def _draw_seat(seat, n, st0, st1, st2, st3):
    """A draw from seat's own stream (the random kind's decision); the four streams travel as
    scalars: an array handed to a helper in the inner loop costs numba an atomic count."""
    if seat == 0:
        j, st0 = draw(st0, n)
    elif seat == 1:
        j, st1 = draw(st1, n)
    elif seat == 2:
        j, st2 = draw(st2, n)
    else:
        j, st3 = draw(st3, n)
    return j, st0, st1, st2, st3


@njit(cache=True, inline='always')
def _forced_call(calls, m, explore, h, ncalls):
    """The index in calls[:m] of the call that calibration forces at this point, or -1."""
    if explore.shape[0] == 0 or explore[h, 0] != ncalls:
        return -1
    for i in range(m):
        if calls[i] == explore[h, 1]:
            return i
    return -1


@njit(cache=True, inline='always')
def _options_mask(calls, m):
    mask = np.uint64(0)
    for i in range(m):
        mask |= ONE << np.uint64(calls[i])
    return mask


@njit(cache=True)
def _play_batch(seeds, dealers, t, lu, sc, out):
    """Plays hand h from seeds[h], dealt by dealers[h]: deal, contract, auction, teams, tricks,
    score; each rule is a step of `kopsim.engine.steps`, each decision a kernel bot's."""
    # every table and scratch array is taken out of its named tuple once, here: numba counts a
    # reference for each member of a tuple handed to a helper, which the inner loops cannot pay
    nc = t.n_cards
    card_points, suit, suit_mask, beat_mask = t.card_points, t.suit, t.suit_mask, t.beat_mask
    bids, bid_pos, c_has_pred, c_first_call_only = t.bids, t.bid_pos, t.c_has_pred, \
        t.c_first_call_only
    c_team, c_team_cards, c_team_mask = t.c_team, t.c_team_cards, t.c_team_mask
    c_instant, c_order, c_max_doubles = t.c_instant, t.c_order, t.c_max_doubles
    c_decl_double_first, no_bid, dealt = t.c_decl_double_first, t.no_bid, t.dealt
    r_forbid, r_forbid_double, r_has_holding = t.r_forbid, t.r_forbid_double, t.r_has_holding
    r_first_call, r_bid_in_force, r_asked = t.r_first_call, t.r_bid_in_force, t.r_asked
    p_op, p_mask, p_a, p_b, p_start, p_end = t.p_op, t.p_mask, t.p_a, t.p_b, t.p_start, t.p_end
    c_won, c_lost, c_mult, c_all_tricks = t.c_won, t.c_lost, t.c_mult, t.c_all_tricks
    c_won_tiered, c_lost_tiered = t.c_won_tiered, t.c_lost_tiered
    bot_kind, seat_bot, bot_params, h_power, h_ctab = lu.bot_kind, lu.seat_bot, lu.bot_params, \
        lu.h_power, lu.h_ctab
    ev_values, ev_binom, ev_edges, explore = lu.ev_values, lu.ev_binom, lu.ev_edges, lu.explore
    given, o_options = lu.given, out.options
    exploring = explore.shape[0] > 0
    o_contract, o_declarer, o_old, o_doubles = out.contract, out.declarer, out.old, out.doubles
    o_winner, o_tier, o_points, o_tricks = out.winner, out.tier, out.points, out.tricks
    o_payouts, o_perm, o_calls, o_call_seat = out.payouts, out.perm, out.calls, out.call_seat
    o_ncalls, o_cards, o_leaders, o_twin = out.ncalls, out.cards, out.leaders, out.trick_winners
    n_hands = seeds.shape[0]
    normal_k = t.normal_k
    K = c_team.shape[0]
    hs = nc // 4
    style = t.style
    end_passes = t.end_after_passes
    end_passes_nocall = t.end_after_passes_without_call
    follow, trump_void, must_beat = t.follow_suit, t.trump_when_void, t.must_beat
    max_calls = o_calls.shape[1]
    cap_without_bid = t.cap_without_bid
    n_chain = t.n_chain
    n_restr = r_forbid.shape[0]
    perm, hands, left, elig, stack = sc.perm, sc.hands, sc.left, sc.elig, sc.stack
    buf, tmp, dseats, who_played = sc.calls, sc.calls_tmp, sc.double_seats, sc.who_played
    trick_buf, rel, bel_k, bel_decl = sc.trick, sc.rel, sc.believed_k, sc.believed_decl
    points, tricks, pay = sc.points, sc.tricks, sc.pay
    zero_sum, tie_nobody, factor, tie_value = t.zero_sum, t.tie_nobody, t.factor, t.tie_value
    win_points, schneider_max = t.win_points, t.schneider_max

    for h in range(n_hands):
        seed = np.uint64(seeds[h])
        st0 = mix64(seed + STREAM)  # each seat's stream, for the random kind (scalars: fast)
        st1 = mix64(seed + np.uint64(2) * STREAM)
        st2 = mix64(seed + np.uint64(3) * STREAM)
        st3 = mix64(seed + np.uint64(4) * STREAM)
        dealer = dealers[h]
        forehand = (dealer + 1) % 4
        deal(perm, hands, mix64(seed), dealer)
        if given.shape[0] > 0:  # calibration deals the hands it studies
            deal_given(perm, hands, given, h, dealer)
        for i in range(nc):
            o_perm[h, i] = perm[i]
        eval_preds(elig, hands, dealer, p_op, p_mask, p_a, p_b, p_start, p_end, stack)
        # --- the no-bid contract; what each seat can tell of it; a contract the deal makes
        # (inline: as helpers returning pairs these cost the random line-up a tenth of its speed)
        imp, imp_decl = -1, -1
        for j in range(no_bid.shape[0]):
            k = no_bid[j]
            if not c_has_pred[k]:
                imp = k
                break
            found = -1
            for i in range(4):
                s = (forehand + i) % 4
                if elig[k, s]:
                    found = s
                    break
            if found >= 0:
                imp = k
                if c_team[k] == TEAM_ALONE:
                    imp_decl = found
                break
        for s in range(4):
            bel_k[s] = normal_k
            bel_decl[s] = -1
            for j in range(no_bid.shape[0]):
                k = no_bid[j]
                if k == normal_k:
                    break
                if c_team[k] == TEAM_ALONE and elig[k, s]:
                    bel_k[s] = k
                    bel_decl[s] = s
                    break
        contract, declarer = -1, -1
        for j in range(dealt.shape[0]):
            k = dealt[j]
            for i in range(4):
                s = (forehand + i) % 4
                if elig[k, s]:
                    contract = k
                    declarer = s
                    break
            if contract >= 0:
                break
        # --- auction
        nd, ncalls, bid, bidder = 0, 0, -1, -1
        if contract < 0:
            spoken, asked, passes, any_call, turn, speaks = 0, 0, 0, False, forehand, 0
            while True:
                if style == STYLE_SINGLE:
                    if speaks == 4:
                        break
                    turn = (forehand + speaks) % 4
                    speaks += 1
                # --- legal calls, in canonical order: pass | ask, bids low to high, double
                seat = turn
                first = ((spoken >> seat) & 1) == 0
                fo = style == STYLE_ASK and seat == forehand and first
                buf[0] = CALL_ASK if fo else CALL_PASS
                m = 1
                floor = -1
                if bid >= 0:
                    floor = bid_pos[bid]
                for j in range(floor + 1, bids.shape[0]):
                    k = bids[j]
                    if c_has_pred[k] and not elig[k, seat]:
                        continue
                    if c_first_call_only[k] and not first:
                        continue
                    buf[m] = CALL_BID + k
                    m += 1
                n_open_bids = m - 1
                if style != STYLE_SINGLE and not fo and n_chain > 0:
                    if bid < 0:
                        cap = cap_without_bid
                        ck = imp
                        decl = imp_decl
                    else:
                        cap = c_max_doubles[bid]
                        ck = bid
                        decl = bidder
                    ok = nd < cap
                    if ok and nd == 0 and seat == decl and not c_decl_double_first[ck]:
                        ok = False
                    if ok:
                        buf[m] = CALL_BID + K + nd
                        m += 1
                if n_restr > 0:
                    forbidden = ZERO
                    fdouble = False
                    any_r = False
                    for i in range(n_restr):
                        if r_first_call[i] >= 0 and (r_first_call[i] == 1) != first:
                            continue
                        if r_bid_in_force[i] >= 0 and (r_bid_in_force[i] == 1) != (bid >= 0):
                            continue
                        if r_asked[i] >= 0 and (r_asked[i] == 1) != (((asked >> seat) & 1) == 1):
                            continue
                        if r_has_holding[i] and not elig[K + i, seat]:
                            continue
                        forbidden |= r_forbid[i]
                        fdouble = fdouble or r_forbid_double[i]
                        any_r = True
                    if any_r:
                        kept = 0
                        for i in range(m):
                            c = buf[i]
                            if c < CALL_BID + K:
                                bad = ((forbidden >> np.uint64(c)) & ONE) == ONE
                            else:
                                bad = fdouble
                            if not bad:
                                tmp[kept] = c
                                kept += 1
                        if kept > 0:  # a restriction never leaves a seat without a call
                            for i in range(kept):
                                buf[i] = tmp[i]
                            m = kept
                if style == STYLE_SINGLE and n_open_bids == 0:
                    continue  # nothing to bid: this seat does not speak
                b = seat_bot[h, turn]
                j = _forced_call(buf, m, explore, h, ncalls)
                if j >= 0:
                    pass  # calibration tries this call, whatever the bot would say
                elif bot_kind[b] == BOT_RANDOM:  # the seat's own stream
                    j, st0, st1, st2, st3 = _draw_seat(turn, m, st0, st1, st2, st3)
                elif bot_kind[b] == BOT_EV:
                    j = botcalls.ev_call(buf, m, hands[turn], (turn - forehand) % 4,
                                         (2 * (bid + 1) + (bidder == turn)) * (n_chain + 1) + nd,
                                         h_ctab[bid if bid >= 0 else normal_k, 2], h_ctab,
                                         h_power, ev_values, ev_binom, ev_edges, bot_params[b])
                else:  # BOT_HEURISTIC: kernel_lineup refuses any kind it does not declare
                    j = botcalls.heuristic_call(buf, m, hands[turn], turn, bid, bidder,
                                                bel_k[turn], bel_decl[turn], K, h_ctab, h_power,
                                                bot_params[b])
                call = buf[j]
                if ncalls < max_calls:
                    o_calls[h, ncalls] = call
                    o_call_seat[h, ncalls] = turn
                    if exploring:
                        o_options[h, ncalls] = _options_mask(buf, m)
                ncalls += 1
                if call == CALL_PASS:
                    passes += 1
                else:
                    passes = 0
                    any_call = True
                    if call == CALL_ASK:
                        asked |= 1 << turn
                    elif call < CALL_BID + K:
                        bid = call - CALL_BID
                        bidder = turn
                        nd = 0
                    else:
                        dseats[nd] = turn
                        nd += 1
                spoken |= 1 << turn
                if style != STYLE_SINGLE:
                    if passes >= (end_passes if any_call else end_passes_nocall):
                        break
                    turn = (turn + 1) % 4
            if bid >= 0:
                contract = bid
                declarer = bidder
            else:
                contract = imp
                declarer = imp_decl
        o_ncalls[h] = ncalls
        old = form_teams(c_team[contract], c_team_mask[contract], c_team_cards, contract,
                         declarer, hands)
        n_old = 0
        for s in range(4):
            points[s] = 0.0
            tricks[s] = 0
            pay[s] = 0.0
            if (old >> s) & 1:
                n_old += 1
        o_contract[h] = contract
        o_declarer[h] = declarer
        o_old[h] = old
        if c_instant[contract]:  # won at once, at the out price, without doubles
            winner, tier, counted, v = WIN_OLD, TIER_INSTANT, 0, c_won[contract, TIER_OUT]
        else:
            # --- play
            o = c_order[contract]
            leader = forehand
            for c in range(nc):
                who_played[c] = -1
            for s in range(4):
                left[s] = hands[s]
            trump = suit_mask[o, 0]
            for n in range(hs):
                o_leaders[h, n] = leader
                led, w, wseat, pts = 0, 0, leader, 0.0
                for i in range(4):
                    trick_buf[i] = -1
                for i in range(4):
                    seat = (leader + i) % 4
                    hand = left[seat]
                    allowed = allowed_cards(hand, i, suit_mask[o, led], trump,
                                            beat_mask[o, led, w], follow, trump_void, must_beat)
                    m = popcount(allowed)
                    b = seat_bot[h, seat]
                    if bot_kind[b] == BOT_RANDOM:  # the seat's own stream
                        j, st0, st1, st2, st3 = _draw_seat(seat, m, st0, st1, st2, st3)
                        card = nth_bit(allowed, j)
                    else:
                        kb = bid if bid >= 0 else bel_k[seat]
                        db = bidder if bid >= 0 else bel_decl[seat]
                        botcalls.heuristic_relations(rel, seat, hands[seat], kb, db, h_ctab,
                                                     c_team_cards, who_played)
                        card = botcalls.heuristic_card(
                            allowed, hand, h_ctab[kb, 2], trick_buf, leader, rel, who_played,
                            suit, suit_mask, beat_mask, h_power, bot_params[b])
                    trick_buf[i] = card
                    who_played[card] = seat
                    left[seat] = hand & ~(ONE << np.uint64(card))
                    o_cards[h, 4 * n + i] = card
                    pts += card_points[card]
                    led, w, wseat = play_to_trick(i, card, seat, suit[o, card],
                                                  beat_mask[o, led, w], led, w, wseat)
                o_twin[h, n] = wseat
                points[wseat] += pts
                tricks[wseat] += 1
                leader = wseat
            # --- scoring
            old_pts, young_pts, old_tricks, young_tricks = 0.0, 0.0, 0, 0
            for s in range(4):
                if (old >> s) & 1:
                    old_pts += points[s]
                    old_tricks += tricks[s]
                else:
                    young_pts += points[s]
                    young_tricks += tricks[s]
            counted, last = count_doubles(dseats, nd, old, c_max_doubles[contract])
            lone_won = n_old == 1 and not c_won_tiered[contract]
            lone_lost = n_old == 1 and not c_lost_tiered[contract]
            winner, tier = classify(old_pts, young_pts, old_tricks, young_tricks, win_points,
                                    schneider_max, c_all_tricks[contract],
                                    tie_winner(tie_nobody, counted, last), lone_won, lone_lost)
            v = price(c_won, c_lost, c_mult, contract, winner, tier, counted, tie_value, factor)
        pay_out(pay, v, winner, old, zero_sum)
        o_doubles[h] = counted
        o_winner[h] = winner
        o_tier[h] = tier
        for s in range(4):
            o_points[h, s] = points[s]
            o_tricks[h, s] = tricks[s]
            o_payouts[h, s] = pay[s]


