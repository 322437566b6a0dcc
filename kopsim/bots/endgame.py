"""endgame: the ev bot's card in the last tricks, solved exactly over every consistent deal.

When few cards are left, the bot deals the cards it has not seen to the other seats in every way
that fits what it has seen (each seat's number of cards, each card a seat played being legal from
the hand the deal gives it, under the ruleset's play rules: a failure to follow, to trump or to
beat shows what the seat did not hold; the bidder meets his contract's condition), and solves each
such deal exactly to the end of the hand: every seat plays the card best for its side there. A
deal is valued by the seat's payout in it: the contract and the teams the deal makes (a silent
cicha is whoever holds both black queens there), the doubles said, and the kernel's scoring
(`kopsim.engine.loop.score_hand`, so `classify`, `price`, `pay_out`). The card with the best
payout summed over the deals is played; the first in card order on equal sums.

It applies from `prm[P_ENDGAME]` tricks before the end, and only where the unseen cards can be
dealt in at most `prm[P_WORLDS]` ways (counted by card counts alone, before the deals are
checked): the cost grows with that number, and the budget is a fraction of a microsecond.

It reads the seat's own cards (sc.hands[seat], sc.left[seat]) and what is public in the
kernel's scratch (who played which card, in which order, the trick, points and tricks taken, the
doubles), never another seat's cards: the reference-engine face fills a scratch from an
`Observation` alone, and the engines' cross-check requires the same cards from both.
"""

from __future__ import annotations

import numpy as np

from ..engine.bits import ONE, ZERO, allowed_cards, lowbit_index, popcount
from ..rules.codes import TEAM_ALONE, TEAM_EACH
from ..engine.jit import built_call, kernel_jit
from ..engine.loop import cards_allowed, score_hand, scratch_for
from ..engine.seats import after, before, seat_count
from ..engine.steps import (called_card, duty_after_trick, eval_pred, form_teams, pay_out,
                            play_to_trick, trick_so_far)
from ..rules.compile import card_mask
from .sampler import duties_kept

P_ENDGAME, P_WORLDS = 8, 9  # the ev kernel row: tricks before the end, most deals to solve
# the slots of sc.eg_ctx: the deal's contract, old side, doubles, a seat of each side; the order
# the checks of past plays were made in and their number; the consistent deals of the last call
X_K, X_OLD, X_ND, X_OLD_SEAT, X_YOUNG_SEAT, X_CHECK_ORDER, X_N_CHECKS, X_WORLDS = range(8)
N_CTX = 8


@kernel_jit(inline='always')
def _cards_held(t, s, leader, pos, tricks_left):
    """The cards seat s holds when the seat to play at place pos of the trick led by leader
    holds tricks_left: one fewer if s has played to this trick."""
    return tricks_left - (1 if before(s, leader, t.n_seats) < pos else 0)


MANY_DEALS = 1 << 40  # more deals than any budget: `_deals_bound` stops counting there


@kernel_jit(inline='always')
def _deals_bound(t, seat, leader, pos, tricks_left, u):
    """The ways of dealing u unseen cards to the other seats in the numbers they hold (the
    multinomial), or MANY_DEALS if more: each binomial is built up to the smaller of its two
    sides, so every partial product is a lower bound and the count can stop once past it."""
    ways, rest = 1, u
    for i in range(1, t.n_seats - 1):  # the last other seat takes what is left: one way
        k = _cards_held(t, after(seat, i, t.n_seats), leader, pos, tricks_left)
        for j in range(min(k, rest - k)):
            ways = ways * (rest - j) // (j + 1)
            if ways > MANY_DEALS:
                return MANY_DEALS
        rest -= k
    return ways


@kernel_jit(inline='always')
def _public_cards(t, sc, seat):
    """sc.eg_played[s]: the cards seat s has played; returns the cards seat has not seen."""
    for s in range(t.n_seats):
        sc.eg_played[s] = ZERO
    seen = sc.hands[seat]
    for c in range(t.n_cards):
        s = sc.who_played[c]
        if s >= 0:
            sc.eg_played[s] |= ONE << np.uint64(c)
            seen |= ONE << np.uint64(c)
    full = ~ZERO if t.n_cards == 64 else (ONE << np.uint64(t.n_cards)) - ONE
    return full & ~seen


@kernel_jit(inline='always')
def _prepare_checks(t, sc, seat, n_played, o):
    """For every card another seat played after a trick's lead, what the rules' test of it
    needs in card order o: its seat, card and place in the trick, the suit led, the cards that
    beat the winning one, and the cards the seat still held then that the deal is not asked
    for (the card and those it played later)."""
    n, n_seats = 0, t.n_seats
    for start in range(0, n_played, n_seats):
        led, w, wseat = 0, 0, 0
        for i in range(min(n_seats, n_played - start)):
            c = sc.seq[start + i]
            s = sc.who_played[c]
            if i > 0 and s != seat:
                known = ZERO
                for p in range(start + i, n_played):
                    if sc.who_played[sc.seq[p]] == s:
                        known |= ONE << np.uint64(sc.seq[p])
                sc.eg_chk[n, 0], sc.eg_chk[n, 1], sc.eg_chk[n, 2] = s, c, i
                sc.eg_chk_m[n, 0] = t.suit_mask[o, led]
                sc.eg_chk_m[n, 1] = t.beat_mask[o, led, w]
                sc.eg_chk_m[n, 2] = known
                n += 1
            led, w, wseat = play_to_trick(i, c, s, t.suit[o, c], t.beat_mask[o, led, w], led, w,
                                          wseat)
    sc.eg_ctx[X_CHECK_ORDER] = o
    sc.eg_ctx[X_N_CHECKS] = n


@kernel_jit(inline='always')
def _n_played(t, sc, seat, pos):
    """The cards played so far, seat being at place pos of the trick."""
    return (t.n_cards // t.n_seats - popcount(sc.left[seat])) * t.n_seats + pos


@kernel_jit(inline='always')
def _plays_fit(t, sc, o):
    """Whether every card the other seats played was legal from the hands of this deal."""
    trump = t.suit_mask[o, 0]
    for j in range(sc.eg_ctx[X_N_CHECKS]):
        s, c, i = sc.eg_chk[j, 0], sc.eg_chk[j, 1], sc.eg_chk[j, 2]
        held = sc.eg_left[s] | sc.eg_chk_m[j, 2]
        ok = allowed_cards(held, i, sc.eg_chk_m[j, 0], trump, sc.eg_chk_m[j, 1], t.follow_suit,
                           t.trump_when_void, t.must_beat)
        if not (ok >> np.uint64(c)) & ONE:
            return False
    return True


@kernel_jit(inline='always')
def _forbid_cards(t, sc, unseen):
    """sc.eg_forbid[s]: the unseen cards seat s cannot hold, one card at a time: those that
    would have made one of its plays illegal. When suit must be followed that is exact (each
    test of a play is that the hand holds none of some cards), and a deal fits the plays if
    and only if it gives no seat a card forbidden to it."""
    trump = t.suit_mask[sc.eg_ctx[X_CHECK_ORDER], 0]
    for s in range(t.n_seats):
        sc.eg_forbid[s] = ZERO
    for j in range(sc.eg_ctx[X_N_CHECKS]):
        s, c, i = sc.eg_chk[j, 0], sc.eg_chk[j, 1], sc.eg_chk[j, 2]
        rest = unseen
        while rest:
            x = rest & (~rest + ONE)
            rest &= rest - ONE
            ok = allowed_cards(sc.eg_chk_m[j, 2] | x, i, sc.eg_chk_m[j, 0], trump,
                               sc.eg_chk_m[j, 1], t.follow_suit, t.trump_when_void, t.must_beat)
            if not (ok >> np.uint64(c)) & ONE:
                sc.eg_forbid[s] |= x


@kernel_jit(inline='always')
def _one_order(t, bid):
    """The card order of every contract a deal could be played in, or -1 if they differ: the
    bid's; or, without a bid, that of every no-bid and every dealt contract not won at once."""
    if bid >= 0:
        return t.c_order[bid]
    o = t.c_order[t.no_bid[0]]
    for j in range(t.no_bid.shape[0]):
        if t.c_order[t.no_bid[j]] != o:
            return -1
    for j in range(t.dealt.shape[0]):
        k = t.dealt[j]
        if not t.c_instant[k] and t.c_order[k] != o:
            return -1
    return o


@kernel_jit(inline='always')
def _eligible(t, sc, k, s, forehand):
    return eval_pred(k, sc.eg_dealt[s], before(s, forehand, t.n_seats), t.p_op, t.p_mask, t.p_a,
                     t.p_b, t.p_start, t.p_end, sc.stack)


@kernel_jit(inline='always')
def _deal_contract(t, sc, bid, bidder, forehand):
    """(contract, declarer) of the deal in sc.eg_dealt, or (-1, -1) if the deal contradicts
    the auction: a contract the deal itself makes ends the auction before it starts (and an
    instant one the hand); a bidder meets his contract's condition; without a bid the first
    no-bid contract whose condition someone meets is played (the kernel's `_no_bid_contract`)."""
    for j in range(t.dealt.shape[0]):
        k = t.dealt[j]
        for i in range(t.n_seats):
            s = after(forehand, i, t.n_seats)
            if _eligible(t, sc, k, s, forehand):
                if bid >= 0 or t.c_instant[k]:
                    return -1, -1
                return k, s
    if bid >= 0:
        if t.c_has_pred[bid] and not _eligible(t, sc, bid, bidder, forehand):
            return -1, -1
        return bid, bidder
    for j in range(t.no_bid.shape[0]):
        k = t.no_bid[j]
        if not t.c_has_pred[k]:
            return k, -1
        for i in range(t.n_seats):
            s = after(forehand, i, t.n_seats)
            if _eligible(t, sc, k, s, forehand):
                return k, (s if t.c_team[k] == TEAM_ALONE else -1)
    return -1, -1


# the columns of the search's stack (sc.eg_node_i, _u, _f): a node is a seat about to play
# (N_TOOK: who took the trick; N_DUTY: the called card's suit while its duties hold, else -1)
N_POS, N_LEADER, N_LED, N_W, N_WSEAT, N_SEAT, N_TOOK, N_DUTY = range(8)
U_HAND, U_MOVES = range(2)  # the mover's cards, the cards it has yet to try
F_PTS, F_TRICK_PTS, F_BEST, F_BEST_OLD, F_BEST_YOUNG = range(5)


@kernel_jit(inline='always')
def _enter(t, sc, o, d, pos, leader, led, w, wseat, pts, duty, called):
    """Node d of the search: the seat at place pos of the trick led by leader to play, the trick
    so far led, w, wseat, pts (suit led, winning card, its seat, points); duty: the called
    card's suit while its duties hold (else -1), called: the called card."""
    seat = after(leader, pos, t.n_seats)
    ni, nu, nf = sc.eg_node_i, sc.eg_node_u, sc.eg_node_f
    ni[d, N_POS], ni[d, N_LEADER], ni[d, N_LED], ni[d, N_W] = pos, leader, led, w
    ni[d, N_WSEAT], ni[d, N_SEAT], ni[d, N_TOOK], ni[d, N_DUTY] = wseat, seat, -1, duty
    hand = sc.eg_left[seat]
    nu[d, U_HAND] = hand
    nu[d, U_MOVES] = cards_allowed(t, sc.eg_ctx[X_K], hand, pos, led, w,
                                   called if duty >= 0 else -1, duty)
    nf[d, F_PTS], nf[d, F_BEST], nf[d, F_BEST_OLD], nf[d, F_BEST_YOUNG] = pts, -np.inf, 0.0, 0.0


@kernel_jit(inline='always')
def _back_up(sc, d, v_old, v_young):
    """Node d's last card led to (v_old, v_young): take back the trick it completed, and keep
    the card if it is the best so far for the mover's side (the first of equal ones)."""
    ni, nf = sc.eg_node_i, sc.eg_node_f
    took = ni[d, N_TOOK]
    if took >= 0:
        sc.eg_points[took] -= nf[d, F_TRICK_PTS]
        sc.eg_tricks[took] -= 1
        ni[d, N_TOOK] = -1
    mine = v_old if (sc.eg_ctx[X_OLD] >> ni[d, N_SEAT]) & 1 else v_young
    if mine > nf[d, F_BEST]:
        nf[d, F_BEST], nf[d, F_BEST_OLD], nf[d, F_BEST_YOUNG] = mine, v_old, v_young


@kernel_jit(inline='always')
def _line_value(t, sc, o, pos, leader, led, w, wseat, pts, duty, called):
    """(payout of an old seat, payout of a young seat) at the end of the hand when the seat at
    place pos of the trick led by leader plays next (led, w, wseat, pts: the trick so far; pos
    n_seats: the trick is complete; duty, called: see `_enter`) and every seat then plays the card
    best for its side, the first in card order on equal payouts. An explicit stack (sc.eg_node_*),
    one row per card played."""
    took, trick_pts = -1, pts
    if pos == t.n_seats:  # the card just played completed the trick
        took = wseat
        sc.eg_points[took] += trick_pts
        sc.eg_tricks[took] += 1
        duty = duty_after_trick(duty, led)
        pos, leader, led, w, pts = 0, took, 0, 0, 0.0
    if sc.eg_left[after(leader, pos, t.n_seats)] == ZERO:  # and the hand: nobody holds a card
        v_old, v_young = _leaf(t, sc)
    else:
        _enter(t, sc, o, 0, pos, leader, led, w, wseat, pts, duty, called)
        v_old, v_young = _search(t, sc, o, called)
    if took >= 0:
        sc.eg_points[took] -= trick_pts
        sc.eg_tricks[took] -= 1
    return v_old, v_young


@kernel_jit(inline='always')
def _search(t, sc, o, called):
    """The value of node 0 (see `_line_value`), searched depth first."""
    ni, nu, nf = sc.eg_node_i, sc.eg_node_u, sc.eg_node_f
    d = 0
    while True:
        moves = nu[d, U_MOVES]
        if moves == ZERO:  # node d is searched: back its value up to its parent
            sc.eg_left[ni[d, N_SEAT]] = nu[d, U_HAND]
            v_old, v_young = nf[d, F_BEST_OLD], nf[d, F_BEST_YOUNG]
            if d == 0:
                return v_old, v_young
            d -= 1
            _back_up(sc, d, v_old, v_young)
            continue
        c = lowbit_index(moves)
        nu[d, U_MOVES] = moves & (moves - ONE)
        pos, seat, led, w = ni[d, N_POS], ni[d, N_SEAT], ni[d, N_LED], ni[d, N_W]
        sc.eg_left[seat] = nu[d, U_HAND] & ~(ONE << np.uint64(c))
        led, w, wseat = play_to_trick(pos, c, seat, t.suit[o, c], t.beat_mask[o, led, w], led, w,
                                      ni[d, N_WSEAT])
        pts = nf[d, F_PTS] + t.card_points[c]
        duty = ni[d, N_DUTY]
        if pos < t.n_seats - 1:
            _enter(t, sc, o, d + 1, pos + 1, ni[d, N_LEADER], led, w, wseat, pts, duty, called)
            d += 1
            continue
        sc.eg_points[wseat] += pts
        sc.eg_tricks[wseat] += 1
        ni[d, N_TOOK], nf[d, F_TRICK_PTS] = wseat, pts
        if sc.eg_left[wseat] == ZERO:  # the last trick is complete
            v_old, v_young = _leaf(t, sc)
            _back_up(sc, d, v_old, v_young)
        else:
            _enter(t, sc, o, d + 1, 0, wseat, 0, 0, wseat, 0.0, duty_after_trick(duty, led),
                   called)
            d += 1


@kernel_jit(inline='always')
def _leaf(t, sc):
    """(payout of an old seat, of a young seat) of the finished hand in sc.eg_points/eg_tricks."""
    k, old, nd = sc.eg_ctx[X_K], sc.eg_ctx[X_OLD], sc.eg_ctx[X_ND]
    winner, tier, counted, v = score_hand(t, sc.eg_points, sc.eg_tricks, sc.double_seats, k, old,
                                          nd, sc.eg_dealt)
    for s in range(t.n_seats):
        sc.eg_pay[s] = 0.0
    pay_out(sc.eg_pay, v, winner, old, t.settle, t.lone_once, seat_count(t))
    young_seat = sc.eg_ctx[X_YOUNG_SEAT]
    return sc.eg_pay[sc.eg_ctx[X_OLD_SEAT]], (sc.eg_pay[young_seat] if young_seat >= 0 else 0.0)


@kernel_jit(inline='always')
def _duty_now(t, sc, o, called, n_done):
    """The called card's suit if its duties still hold after n_done finished tricks (none was
    led in it), else -1; -1 without a called card."""
    if called < 0:
        return -1
    duty = t.suit[o, called]
    for n in range(n_done):
        duty = duty_after_trick(duty, t.suit[o, sc.seq[t.n_seats * n]])
    return duty


@kernel_jit(inline='always')
def _solve_deal(t, sc, seat, allowed, leader, pos, k, old, nd, called):
    """Adds to sc.eg_value[c], for each card c of allowed, seat's payout in the deal of
    sc.eg_left when it plays c and every seat then plays its side's best (called: the deal's
    called card, -1 none)."""
    o = t.c_order[k]
    sc.eg_ctx[X_K], sc.eg_ctx[X_OLD], sc.eg_ctx[X_ND] = k, old, nd
    sc.eg_ctx[X_OLD_SEAT] = lowbit_index(np.uint64(old))
    young = (~old) & ((1 << t.n_seats) - 1)
    sc.eg_ctx[X_YOUNG_SEAT] = lowbit_index(np.uint64(young)) if young else -1
    for s in range(t.n_seats):
        sc.eg_points[s], sc.eg_tricks[s] = sc.points[s], sc.tricks[s]
    led, w, wseat, pts, _ = trick_so_far(sc.trick, 0, pos, leader, t.n_seats, o, t.suit,
                                         t.beat_mask, t.card_points)
    hand = sc.eg_left[seat]
    duty = _duty_now(t, sc, o, called, t.n_cards // t.n_seats - popcount(hand))
    mine_old = (old >> seat) & 1 == 1
    moves = allowed
    while moves:
        c = lowbit_index(moves)
        moves &= moves - ONE
        sc.eg_left[seat] = hand & ~(ONE << np.uint64(c))
        led2, w2, wseat2 = play_to_trick(pos, c, seat, t.suit[o, c], t.beat_mask[o, led, w], led,
                                         w, wseat)
        v_old, v_young = _line_value(t, sc, o, pos + 1, leader, led2, w2, wseat2,
                                     pts + t.card_points[c], duty, called)
        sc.eg_value[c] += v_old if mine_old else v_young
    sc.eg_left[seat] = hand


@kernel_jit(inline='always')
def _add_deal(t, sc, seat, allowed, leader, pos, bid, bidder, nd, forehand, fits):
    """Solves the deal of sc.eg_left if it fits everything seen (fits: the plays are known to
    fit it); returns whether it did."""
    for s in range(t.n_seats):
        sc.eg_dealt[s] = sc.eg_left[s] | sc.eg_played[s]
    k, decl = _deal_contract(t, sc, bid, bidder, forehand)
    if k < 0 or t.c_team[k] == TEAM_EACH:  # each for himself: no two sides to search
        return False
    o = t.c_order[k]
    if not fits:
        if sc.eg_ctx[X_CHECK_ORDER] != o:
            _prepare_checks(t, sc, seat, _n_played(t, sc, seat, pos), o)
        if not _plays_fit(t, sc, o):
            return False
    called = -1
    if t.c_run_away[k] > 0:
        called = called_card(t.c_team[k], t.c_team_cards, k, decl, sc.eg_dealt)
        if called >= 0 and not _duties_fit(t, sc, k, called, _n_played(t, sc, seat, pos)):
            return False
    old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, decl, sc.eg_dealt,
                     seat_count(t))
    _solve_deal(t, sc, seat, allowed, leader, pos, k, old, nd, called)
    return True


@kernel_jit(inline='always')
def _duties_fit(t, sc, k, called, n_played):
    """Whether the seat this deal gives the called card to kept its duties in the cards played
    (see `duties_kept`)."""
    holder = 0
    while not (sc.eg_dealt[holder] >> np.uint64(called)) & ONE:
        holder += 1
    return duties_kept(sc.seq, sc.who_played, n_played, holder, sc.eg_dealt[holder], called,
                       t.c_order[k], t.suit, t.suit_mask, t.beat_mask,
                       (t.follow_suit, t.trump_when_void, t.must_beat, t.n_seats),
                       t.c_run_away[k])


@kernel_jit(inline='always')
def endgame_card(t, sc, seat, allowed, leader, bid, bidder, nd, forehand, prm):
    """The card seat plays from allowed in the last prm[P_ENDGAME] tricks, best on average over
    every consistent deal of the unseen cards; -1 where the endgame does not apply (earlier, or
    more than prm[P_WORLDS] deals). bid, bidder: the bid in force (-1 none); nd: the doubles said
    since it (their seats in sc.double_seats); forehand: the first seat to lead. (The test of
    the window is inlined into the kernel; the search is a call, as inlining it too made the
    kernel take minutes to compile.)"""
    tricks_left = popcount(sc.left[seat])
    if tricks_left > prm[P_ENDGAME] or popcount(allowed) < 2:
        return -1
    # the cap on the deals, tested before the call: handing the search the rules and scratch
    # tuples costs more than a hand's play where it would find too many deals anyway
    pos = _place(t, sc)
    if _deals_bound(t, seat, leader, pos, tricks_left,
                    popcount(_public_cards(t, sc, seat))) > prm[P_WORLDS]:
        return -1
    return _solve_endgame(t, sc, seat, allowed, leader, bid, bidder, nd, forehand, prm)


W_REST, W_OPEN, W_NEXT, W_DONE = range(4)  # the columns of sc.eg_walk, one row an other seat


@kernel_jit(inline='always')
def _walk_start(t, sc, seat, level, rest):
    """Level level of the walk over the deals (the level-th seat after seat) deals from rest:
    its hands to try are the subsets of rest its plays allow, largest first."""
    w = sc.eg_walk
    w[level, W_REST] = rest
    w[level, W_OPEN] = rest & ~sc.eg_forbid[after(seat, level + 1, t.n_seats)]
    w[level, W_NEXT], w[level, W_DONE] = w[level, W_OPEN], ZERO


@kernel_jit(inline='always')
def _every_deal(t, sc, seat, allowed, leader, pos, bid, bidder, nd, forehand, fits, unseen):
    """Solves every deal of the unseen cards to the other seats, in the numbers they hold, that
    gives no seat a card forbidden to it (`_add_deal` checks the rest); returns the deals
    solved. A walk over the seats after seat in turn (sc.eg_walk, a row each): each tries the
    subsets of what the seats before it left, the last takes the remainder."""
    last, tricks_left = t.n_seats - 2, popcount(sc.left[seat])
    level = 0
    _walk_start(t, sc, seat, 0, unseen)
    worlds, w = 0, sc.eg_walk
    while level >= 0:
        s = after(seat, level + 1, t.n_seats)
        if level == last:
            if not w[level, W_REST] & sc.eg_forbid[s]:
                sc.eg_left[s] = w[level, W_REST]
                if _add_deal(t, sc, seat, allowed, leader, pos, bid, bidder, nd, forehand, fits):
                    worlds += 1
            level -= 1
            continue
        if w[level, W_DONE]:
            level -= 1
            continue
        hand = w[level, W_NEXT]
        if hand == ZERO:
            w[level, W_DONE] = ONE
        else:
            w[level, W_NEXT] = (hand - ONE) & w[level, W_OPEN]
        if popcount(hand) == _cards_held(t, s, leader, pos, tricks_left):
            sc.eg_left[s] = hand
            _walk_start(t, sc, seat, level + 1, w[level, W_REST] & ~hand)
            level += 1
    return worlds


@kernel_jit(inline='always')
def _place(t, sc):
    """The place in the open trick of the seat to play: the cards played to it."""
    pos = 0
    while pos < t.n_seats and sc.trick[pos] >= 0:
        pos += 1
    return pos


@kernel_jit()
def _solve_endgame(t, sc, seat, allowed, leader, bid, bidder, nd, forehand, prm):
    """`endgame_card` in its window."""
    tricks_left = popcount(sc.left[seat])
    pos = _place(t, sc)
    unseen = _public_cards(t, sc, seat)
    if _deals_bound(t, seat, leader, pos, tricks_left, popcount(unseen)) > prm[P_WORLDS]:
        return -1
    for x in range(t.n_cards):
        sc.eg_value[x] = 0.0
    sc.eg_ctx[X_CHECK_ORDER] = -1
    o = _one_order(t, bid)
    fits = t.follow_suit and o >= 0  # then the plays are tested once, card by card
    for s in range(t.n_seats):
        sc.eg_forbid[s] = ZERO
    if fits:
        _prepare_checks(t, sc, seat, _n_played(t, sc, seat, pos), o)
        _forbid_cards(t, sc, unseen)
    sc.eg_left[seat] = sc.left[seat]
    worlds = _every_deal(t, sc, seat, allowed, leader, pos, bid, bidder, nd, forehand, fits,
                         unseen)
    sc.eg_ctx[X_WORLDS] = worlds
    if worlds == 0:
        return -1
    best, best_value = -1, -np.inf
    moves = allowed
    while moves:
        x = lowbit_index(moves)
        moves &= moves - ONE
        if sc.eg_value[x] > best_value:
            best, best_value = x, sc.eg_value[x]
    return best


# ------------------------------------------------------------------------ the reference-engine face


def observed_scratch(cr, obs):
    """A kernel scratch holding what obs shows (the seat's own cards and everything public) and
    nothing else; and (allowed, leader, bid, bidder, doubles, forehand) as the kernel passes
    them to `endgame_card`."""
    t = cr.tables
    sc = scratch_for(t)
    index = cr.card_index
    sc.hands[obs.seat] = np.uint64(card_mask(obs.dealt, index))
    sc.left[obs.seat] = np.uint64(card_mask(obs.hand, index))
    leader, p = after(obs.dealer, 1, obs.seats), 0
    for trick in obs.tricks:
        leader = trick.leader
        points = 0.0
        for j, (name, seat) in enumerate(zip(trick.cards, trick.players(obs.seats))):
            c = index[name]
            sc.who_played[c] = seat
            sc.seq[p] = c
            p += 1
            points += t.card_points[c]
            if trick.winner is None:
                sc.trick[j] = c
        if trick.winner is not None:
            sc.points[trick.winner] += points
            sc.tricks[trick.winner] += 1
            leader = trick.winner
    bid, bidder, nd = _public_bid(cr, obs)
    for i, s in enumerate(nd):
        sc.double_seats[i] = s
    allowed = np.uint64(card_mask(obs.legal_actions, index))
    return sc, (allowed, leader, bid, bidder, len(nd), after(obs.dealer, 1, obs.seats))


def _public_bid(cr, obs) -> tuple[int, int, list[int]]:
    """(the bid in force, its bidder, the seats of the doubles said since it) as the kernel
    holds them: a contract the deal made (no call made it) counts as no bid there."""
    rules = cr.rules
    bid, bidder, doubles = -1, -1, []
    for seat, call in obs.auction:
        if call in rules.contracts:
            bid, bidder, doubles = cr.contract_names.index(call), seat, []
        elif call in rules.doubling.names:
            doubles.append(seat)
    return bid, bidder, doubles


def endgame_choice(cr, obs, prm) -> tuple[int, int]:
    """(the card `endgame_card` plays for obs, -1 if it does not apply; the consistent deals it
    solved)."""
    sc, (allowed, leader, bid, bidder, nd, forehand) = observed_scratch(cr, obs)
    args = (cr.tables, sc, obs.seat, allowed, leader, bid, bidder, nd, forehand, prm)
    card = built_call(endgame_card, *args)
    return int(card), int(sc.eg_ctx[X_WORLDS])
