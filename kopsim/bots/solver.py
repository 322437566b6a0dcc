"""Exact double-dummy solver: the value of a position when every hand is open and both sides play
perfectly (the old side maximises, the young side minimises).

The value of a position is the old side's payout per old seat minus the young side's payout per
young seat at the end of the hand. Payouts are a non-linear function of the card points and tricks
each side has taken (win threshold, ties, schneider/schwarz tiers, doubles, multipliers), so the
search carries both sides' points and tricks down to the end of the hand and prices the leaves
exactly as the batch kernel (`kopsim.engine.kernel`) scores a hand.

The search is a fail-soft alpha-beta minimax over single cards, one iterative numba loop over an
explicit stack whose steps (the leaf, the table probe and store, the ordered moves, the child
node, the value backed up) are small helpers inlined into it: no calls and no reference counting
in the hot loop. It probes a transposition table at trick boundaries. A table entry is keyed by
the whole state that the rest of the hand depends on: the cards still out (which fixes every
hand, since the deal is known), the leader, both sides' points and tricks so far, and whether the
called card's duties still hold (history: the holder may have run away with a low card of its
suit and kept it); it holds a lower and an upper bound.

Legal cards (the called card's duties included, `called_card_duties`), trick winners and scoring
all come from the `CompiledRules` tables and the kernel's steps, in the batch kernel's
arithmetic. What the dealt hands fix is given with the position: the Laufende added to the price
(`laufende_added`), and the called card. `brute_force` is a plain-Python minimax over the
reference engine's rules (`kopsim.engine.reference.legal_cards`, `called_card_duties`,
`CardOrder`, `kopsim.engine.scoring.score`) for the tests.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..engine.bits import ONE, ZERO, allowed_cards, lowbit_index, popcount
from ..engine.codes import (N_PRICED_TIERS, TIER_NAMES, TIER_OUT, WIN_NOBODY, WIN_OLD,
                            WIN_YOUNG, WINNER_NAMES)
from ..engine.steps import (called_card_duties, classify, count_doubles, laufende_value,
                            outcome_slot, pay_out, play_to_trick, price, tie_winner)
from ..rules.cache import compiled, table
from ..rules.compile import CompiledRules

HMUL1 = np.uint64(0x9E3779B97F4A7C15)
HMUL2 = np.uint64(0xBF58476D1CE4E5B9)
U29 = np.uint64(29)
U32 = np.uint64(32)
INF = np.inf

# integer stack columns; I_DUTY: the suit group of the called card while its duties hold (-1
# none), a node's own; I_CALLED: the called card (-1 none), read from the root row only
I_SEAT, I_POS, I_LEADER, I_LED, I_WCARD, I_WSEAT, I_OTR, I_YTR, I_NM, I_MI, I_BMOVE, I_SLOT, \
    I_MAX, I_DUTY, I_CALLED = range(15)
N_I = 15
# what tparams holds past classify's seven settings: the value's direction (`_direction`), and
# the points of the deck
T_DIRECTION, T_POINTS = 7, 8
# float stack columns
F_TPTS, F_OPTS, F_YPTS, F_ALPHA, F_BETA, F_A0, F_B0, F_BEST = range(8)
N_F = 8


# ------------------------------------------------------------------------------ scalar helpers


@njit(cache=True)
def _classify_many(opts, ypts, otr, ytr, tparams, out):
    win_points = tparams[0]
    smax = tparams[1]
    goal = np.int64(tparams[2])
    tie_code = np.int64(tparams[3])
    lone_won = tparams[4] != 0.0
    lone_lost = tparams[5] != 0.0
    smax_old = tparams[6]
    for i in range(opts.shape[0]):
        w, t = classify(opts[i], ypts[i], otr[i], ytr[i], win_points, smax_old, smax, goal,
                        tie_code, lone_won, lone_lost)
        out[i, 0] = w
        out[i, 1] = t


# ------------------------------------------------------------------------------ search inputs


class SolverTables(NamedTuple):
    """The rules of one contract's play and its pricing, built once per solve by `solve`."""

    suit: np.ndarray  # suit group of each card in the contract's order (0: trumps)
    suit_mask: np.ndarray  # the cards of each suit group
    beat: np.ndarray  # [suit led, card]: the cards that beat it
    cpts: np.ndarray  # card points
    strength: np.ndarray  # move ordering: how many cards a card beats when it leads
    play_rules: np.ndarray  # follow suit, trump when void, must beat, run away with (0: no duties)
    tparams: np.ndarray  # classify's settings, then T_DIRECTION, T_POINTS
    vtab: np.ndarray  # value by outcome_slot(winner, tier)


class TranspositionTable(NamedTuple):
    """Bounds on the value of positions at trick boundaries, one entry per hash slot."""

    rem: np.ndarray  # the cards still out
    aux: np.ndarray  # leader | old tricks << 2 | young tricks << 10 | on duty << 18 (-1: empty)
    opts: np.ndarray  # old side's points
    ypts: np.ndarray  # young side's points
    lo: np.ndarray  # lower bound
    hi: np.ndarray  # upper bound


class SearchStack(NamedTuple):
    """One row per depth of the explicit stack, and the node count."""

    rem: np.ndarray  # cards still out
    ints: np.ndarray  # the integer columns I_*
    floats: np.ndarray  # the float columns F_*
    moves: np.ndarray  # the node's cards, best first
    keys: np.ndarray  # their ordering keys
    stats: np.ndarray  # [nodes searched]


# ------------------------------------------------------------------- the steps of the search
# Each is inlined into the search (inline='always'), so the hot loop makes no calls. They take
# arrays and scalars (tuples of scalars at most), never a tuple of arrays. numba counts a
# reference (an atomic add) for every array handed to a helper, and removes the count again only
# when the helper's uses of the array are simple; so these helpers read and write their arrays in
# straight-line code and leave every decision to helpers of scalars (`_window_after_probe`,
# `_bounds_after_search`, `_move_key`, `_after_child`). Where a decision must guard a read or a
# write (the table entry's cards, tested before its other fields; the value backed up to the
# parent), the search loop does it on its own arrays, which are never counted. A count left in
# the loop costs the solver half its speed; tests/test_solver_compiled.py checks that none is.


@njit(cache=True, inline='always')
def _held(hands, seat, rem):
    """The cards seat still holds (hands: a tuple of the four deal masks)."""
    if seat == 0:
        return hands[0] & rem
    if seat == 1:
        return hands[1] & rem
    if seat == 2:
        return hands[2] & rem
    return hands[3] & rem


@njit(cache=True, inline='always')
def _take_trick(old_mask, wseat, tp, opts, ypts, otr, ytr):
    """Both sides' (points, tricks) after seat wseat takes a trick worth tp."""
    if (old_mask >> wseat) & 1:
        return opts + tp, ypts, otr + 1, ytr
    return opts, ypts + tp, otr, ytr + 1


@njit(cache=True, inline='always')
def _outcome_slot(opts, ypts, otr, ytr, win_rule):
    """The outcome slot of a finished hand; win_rule: classify's seven settings, as a tuple
    (in tparams' order, the old side's schneider maximum last)."""
    w, t = classify(opts, ypts, otr, ytr, win_rule[0], win_rule[6], win_rule[1], win_rule[2],
                    win_rule[3], win_rule[4], win_rule[5])
    return outcome_slot(w, t)


@njit(cache=True, inline='always')
def _reachable(opts, ypts, otr, ytr, tricks_left, points_left, win_rule, vtab, direction):
    """(lowest, highest) value the hand can still end with, from a trick boundary: the old side
    taking every trick left, or none (direction: the value's, `_direction`; not 0)."""
    v_old = vtab[_outcome_slot(opts + points_left, ypts, otr + tricks_left, ytr, win_rule)]
    v_young = vtab[_outcome_slot(opts, ypts + points_left, otr, ytr + tricks_left, win_rule)]
    if direction > 0:
        return v_young, v_old
    return v_old, v_young


@njit(cache=True, inline='always')
def _last_trick(rem, leader, hands, suit, beat, cpts):
    """(winner seat, card points) of the last trick: each seat's one card plays itself."""
    wseat = leader
    wcard = 0
    led = 0
    tp = 0.0
    for i in range(4):
        seat = (leader + i) % 4
        c = lowbit_index(_held(hands, seat, rem))
        tp += cpts[c]
        led, wcard, wseat = play_to_trick(i, c, seat, suit[c], beat[led, wcard], led, wcard, wseat)
    return wseat, tp


@njit(cache=True, inline='always')
def _tt_aux(d, s_i, stamp):
    """Node d's leader, both sides' tricks, whether the called card's duties hold, and the
    stamp of the deal searched, packed: its table key beside cards and points (the cards still
    out fix the hands only within a deal; whether the called suit has been led is history: its
    holder may have run away with a lower card and kept the called one)."""
    on_duty = np.int64(s_i[d, I_DUTY] >= 0)
    return (s_i[d, I_LEADER] | (s_i[d, I_OTR] << 2) | (s_i[d, I_YTR] << 10) | (on_duty << 18)
            | (stamp << 19))


@njit(cache=True, inline='always')
def _tt_slot(rem, aux, opts, ypts, tt_bits):
    """The hash slot of a trick-boundary position."""
    hk = (rem ^ (np.uint64(aux) * HMUL1)
          ^ (np.uint64(np.int64(opts * 16.0)) * HMUL2)
          ^ np.uint64(np.int64(ypts * 16.0)))
    hk = (hk ^ (hk >> U29)) * HMUL1
    return np.int64((hk >> U32) & np.uint64(tt_bits))


@njit(cache=True, inline='always')
def _tt_holds(d, slot, aux, s_f, tt_aux, tt_op, tt_yp):
    """Whether the table's slot, already known to hold node d's cards, holds node d itself
    (read without branching: see above)."""
    return ((tt_aux[slot] == aux) & (tt_op[slot] == s_f[d, F_OPTS])
            & (tt_yp[slot] == s_f[d, F_YPTS]))


@njit(cache=True, inline='always')
def _window_after_probe(lo, hi, alpha, beta):
    """(cut, value, alpha, beta): a position's stored bounds lo..hi either settle it, or narrow
    its window."""
    if lo >= beta or lo == hi:
        return True, lo, alpha, beta
    if hi <= alpha:
        return True, hi, alpha, beta
    if lo > alpha:
        alpha = lo
    if hi < beta:
        beta = hi
    return False, 0.0, alpha, beta


@njit(cache=True, inline='always')
def _bounds_after_search(v, a0, b0, lo, hi):
    """(lo, hi) known after a search found v within the window (a0, b0), given bounds lo..hi:
    an upper bound when it failed low, a lower bound when it failed high, else exact."""
    if v <= a0:
        if v < hi:
            hi = v
    elif v >= b0:
        if v > lo:
            lo = v
    else:
        lo = v
        hi = v
    return lo, hi


@njit(cache=True, inline='always')
def _tt_tighten(d, slot, v, s_f, tt_lo, tt_hi):
    """Narrow the bounds the table holds for node d by its value v."""
    lo, hi = _bounds_after_search(v, s_f[d, F_A0], s_f[d, F_B0], tt_lo[slot], tt_hi[slot])
    tt_lo[slot] = lo
    tt_hi[slot] = hi


@njit(cache=True, inline='always')
def _tt_replace(d, slot, rem, aux, v, s_f, tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi):
    """Give node d's slot to node d (whatever it held) with the bounds its value v shows."""
    opts = s_f[d, F_OPTS]
    ypts = s_f[d, F_YPTS]
    lo, hi = _bounds_after_search(v, s_f[d, F_A0], s_f[d, F_B0], -INF, INF)
    tt_rem[slot] = rem
    tt_aux[slot] = aux
    tt_op[slot] = opts
    tt_yp[slot] = ypts
    tt_lo[slot] = lo
    tt_hi[slot] = hi


@njit(cache=True, inline='always')
def _legal(hand, pos, led, wcard, duty, suit_mask, beat, play_rule):
    """(allowed cards, cards beating the one winning the trick); duty: the called card's suit
    group while its duties hold, else -1; play_rule: `_rule_of_play`'s tuple."""
    bw = beat[led, wcard]
    led_mask = suit_mask[led]
    if pos == 0:
        allowed, bw = hand, ZERO
    else:
        allowed = allowed_cards(hand, pos, led_mask, play_rule[3], bw, play_rule[0],
                                play_rule[1], play_rule[2])
    if duty >= 0:
        allowed = called_card_duties(allowed, hand, pos, led == duty, play_rule[4], play_rule[5],
                                     play_rule[6])
    return allowed, bw


@njit(cache=True, inline='always')
def _rule_of_play(play_rules, suit, suit_mask, called):
    """The play rules as a tuple of scalars: follow suit, trump when void, must beat, the trump
    mask, the called card (-1 none), its suit's mask, the run-away count. (Read in straight
    lines, and chosen after: see above.)"""
    called_mask = suit_mask[suit[max(called, 0)]]
    return (play_rules[0] == 1, play_rules[1] == 1, play_rules[2] == 1, suit_mask[0], called,
            called_mask if called >= 0 else ZERO, play_rules[3])


@njit(cache=True, inline='always')
def _move_key(pos, partner_wins, beats, points, strength):
    """How promising a card is (higher first): strong leads; smearing points when partner holds
    the trick (keeping strength); winning the trick; else throwing the least."""
    if pos == 0:
        return strength
    if partner_wins:
        return points * 64.0 - strength
    if beats:
        return 10000.0 + strength
    return -points * 64.0 - strength


@njit(cache=True, inline='always')
def _order_moves(d, allowed, pos, partner_wins, bw, cpts, strength, s_mv, s_key):
    """Node d's allowed cards into s_mv[d], most promising first; returns how many."""
    nm = 0
    m = allowed
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        k = _move_key(pos, partner_wins, (bw >> np.uint64(c)) & ONE, cpts[c], strength[c])
        j = nm
        while j > 0:
            before = s_key[d, j - 1]
            if before >= k:
                break
            s_key[d, j] = before
            s_mv[d, j] = s_mv[d, j - 1]
            j -= 1
        s_key[d, j] = k
        s_mv[d, j] = c
        nm += 1
    return nm


@njit(cache=True, inline='always')
def _distinct(allowed, out, wcard, pos, suit, suit_mask, beat, cpts, duty):
    """The allowed cards less those equal to one kept: of one suit group, as many points, and no
    card between them still out (out: every card held) or winning the trick. Playing one or the
    other then takes the same tricks and points, now and later, and leaves the same choices:
    the cards left differ only in which of two equals is kept. The called card's suit keeps all
    its cards while its duties hold (which card runs away matters there)."""
    live = out | ((ONE << np.uint64(wcard)) if pos > 0 else ZERO)
    kept = ZERO
    m = allowed
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        g = suit[c]
        same = ZERO
        if g != duty:
            k = kept & suit_mask[g]
            while k:
                kb = k & (~k + ONE)
                e = popcount(kb - ONE)
                k ^= kb
                if cpts[e] != cpts[c]:
                    continue
                lo, hi = (c, e) if (beat[g, c] & kb) else (e, c)
                between = beat[g, lo] & ~beat[g, hi] & suit_mask[g] & ~(ONE << np.uint64(hi))
                if not between & live:
                    same = kb
                    break
        if not same:
            kept |= lb
    return kept


@njit(cache=True, inline='always')
def _open_moves(d, allowed, bw, s_i, s_f, old_mask, cpts, strength, s_mv, s_key):
    """Ready node d to try its allowed cards (bw: those beating the trick's winner), best
    first."""
    s_f[d, F_A0] = s_f[d, F_ALPHA]
    s_f[d, F_B0] = s_f[d, F_BETA]
    pos = s_i[d, I_POS]
    is_max = (old_mask >> s_i[d, I_SEAT]) & 1
    s_i[d, I_MAX] = is_max
    partner_wins = pos > 0 and ((old_mask >> s_i[d, I_WSEAT]) & 1) == is_max
    s_i[d, I_NM] = _order_moves(d, allowed, pos, partner_wins, bw, cpts, strength, s_mv, s_key)
    s_i[d, I_MI] = 0
    s_i[d, I_BMOVE] = -1
    s_f[d, F_BEST] = -INF if is_max else INF


@njit(cache=True, inline='always')
def _play_card(c, p_i, p_f, p, c_i, c_f, e, old_mask, suit, beat, cpts):
    """Row e of (c_i, c_f): row p of (p_i, p_f) after its seat plays card c (the trick scored
    when it is complete), with the parent's window."""
    seat = p_i[p, I_SEAT]
    pos = p_i[p, I_POS]
    led = p_i[p, I_LED]
    wcard = p_i[p, I_WCARD]
    tp = p_f[p, F_TPTS] + cpts[c]
    led, wcard, wseat = play_to_trick(pos, c, seat, suit[c], beat[led, wcard], led, wcard,
                                      p_i[p, I_WSEAT])
    opts = p_f[p, F_OPTS]
    ypts = p_f[p, F_YPTS]
    otr = p_i[p, I_OTR]
    ytr = p_i[p, I_YTR]
    duty = p_i[p, I_DUTY]
    if pos == 3:
        opts, ypts, otr, ytr = _take_trick(old_mask, wseat, tp, opts, ypts, otr, ytr)
        if led == duty:
            duty = -1  # the called suit has been led: the duties end
        c_i[e, I_POS] = 0
        c_i[e, I_SEAT] = wseat
        c_i[e, I_LEADER] = wseat
        c_f[e, F_TPTS] = 0.0
    else:
        c_i[e, I_POS] = pos + 1
        c_i[e, I_SEAT] = (seat + 1) % 4
        c_i[e, I_LEADER] = p_i[p, I_LEADER]
        c_f[e, F_TPTS] = tp
    c_i[e, I_LED] = led
    c_i[e, I_WCARD] = wcard
    c_i[e, I_WSEAT] = wseat
    c_i[e, I_OTR] = otr
    c_i[e, I_YTR] = ytr
    c_i[e, I_DUTY] = duty
    c_f[e, F_OPTS] = opts
    c_f[e, F_YPTS] = ypts
    c_f[e, F_ALPHA] = p_f[p, F_ALPHA]
    c_f[e, F_BETA] = p_f[p, F_BETA]


@njit(cache=True, inline='always')
def _after_child(is_max, v, best, alpha, beta):
    """(better, alpha, beta) of a node whose best so far is `best` once a card proved worth v:
    whether v is its new best, and its window after."""
    if is_max:
        if v <= best:
            return False, alpha, beta
        if v > alpha:
            alpha = v
        return True, alpha, beta
    if v >= best:
        return False, alpha, beta
    if v < beta:
        beta = v
    return True, alpha, beta


@njit(cache=True, inline='always')
def _set_root(root_i, root_f, root_rem, alpha0, beta0, s_rem, s_i, s_f):
    """Row 0 of the stack: the root position searched within (alpha0, beta0)."""
    for j in range(N_I):
        s_i[0, j] = root_i[j]
    for j in range(N_F):
        s_f[0, j] = root_f[j]
    s_rem[0] = root_rem
    s_f[0, F_ALPHA] = alpha0
    s_f[0, F_BETA] = beta0


@njit(cache=True, inline='always')
def _window_within(alpha0, beta0, vtab):
    """The window narrowed to the values an outcome can take. Exact: every value searched is an
    outcome's (or backed up from outcomes'), so a fail-low at the lowest outcome is that outcome.
    It lets a seat stop looking once it has secured the best outcome there is, which a window
    of infinities never does: in a contract of two outcomes (a solo won or lost) it searches a
    tenth of the nodes."""
    lo = vtab[0]
    hi = vtab[0]
    for v in vtab:
        lo = min(lo, v)
        hi = max(hi, v)
    return max(alpha0, lo), min(beta0, hi)


# ----------------------------------------------------------------------------------- the search

ENTER, NEXT_MOVE, RETURN = 0, 1, 2  # what the search loop does next


@njit(cache=True)
def _search(root_i, root_f, root_rem, alpha0, beta0, hands, old_mask, tables, tt, stack, stamp):
    """Fail-soft alpha-beta value of the root position within (alpha0, beta0). tables: a
    SolverTables, tt: a TranspositionTable, stack: a SearchStack (unpacked once, here); stamp:
    the deal's mark in the table's keys (a table serves many deals, each under its own stamp)."""
    suit, suit_mask, beat, cpts, strength, play_rules, tparams, vtab = tables
    tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi = tt
    s_rem, s_i, s_f, s_mv, s_key, stats = stack
    play_rule = _rule_of_play(play_rules, suit, suit_mask, root_i[I_CALLED])
    win_rule = (tparams[0], tparams[1], np.int64(tparams[2]), np.int64(tparams[3]),
                tparams[4] != 0.0, tparams[5] != 0.0, tparams[6])
    held = (hands[0], hands[1], hands[2], hands[3])
    direction = tparams[T_DIRECTION]
    deck_points = tparams[T_POINTS]
    tt_bits = tt_rem.shape[0] - 1
    alpha0, beta0 = _window_within(alpha0, beta0, vtab)
    _set_root(root_i, root_f, root_rem, alpha0, beta0, s_rem, s_i, s_f)
    d = 0
    mode = ENTER
    v = 0.0
    nodes = 0
    while True:
        if mode == ENTER:
            nodes += 1
            rem = s_rem[d]
            s_i[d, I_SLOT] = -1
            if s_i[d, I_POS] == 0:
                n = popcount(rem)
                if n == 0 or n == 4:  # the hand is over, or its last trick plays itself
                    opts = s_f[d, F_OPTS]
                    ypts = s_f[d, F_YPTS]
                    otr = s_i[d, I_OTR]
                    ytr = s_i[d, I_YTR]
                    if n == 4:
                        wseat, tp = _last_trick(rem, s_i[d, I_LEADER], held, suit, beat, cpts)
                        opts, ypts, otr, ytr = _take_trick(old_mask, wseat, tp, opts, ypts, otr,
                                                           ytr)
                    v = vtab[_outcome_slot(opts, ypts, otr, ytr, win_rule)]
                    mode = RETURN
                    continue
                if direction != 0.0:  # what is left to take cannot leave the window
                    lo, hi = _reachable(s_f[d, F_OPTS], s_f[d, F_YPTS], s_i[d, I_OTR],
                                        s_i[d, I_YTR], n // 4,
                                        deck_points - s_f[d, F_OPTS] - s_f[d, F_YPTS],
                                        win_rule, vtab, direction)
                    if hi <= s_f[d, F_ALPHA] or lo == hi:
                        v = hi
                        mode = RETURN
                        continue
                    if lo >= s_f[d, F_BETA]:
                        v = lo
                        mode = RETURN
                        continue
                # transposition table: trick boundaries with two or more tricks to go
                aux = _tt_aux(d, s_i, stamp)
                slot = _tt_slot(rem, aux, s_f[d, F_OPTS], s_f[d, F_YPTS], tt_bits)
                s_i[d, I_SLOT] = slot
                # (the cards first: most slots hold other cards, and an entry's other fields
                # lie in five more arrays, far apart in memory)
                if tt_rem[slot] == rem and _tt_holds(d, slot, aux, s_f, tt_aux, tt_op, tt_yp):
                    cut, v, alpha, beta = _window_after_probe(tt_lo[slot], tt_hi[slot],
                                                              s_f[d, F_ALPHA], s_f[d, F_BETA])
                    if cut:
                        mode = RETURN
                        continue
                    s_f[d, F_ALPHA] = alpha
                    s_f[d, F_BETA] = beta
            # one of each set of equal cards (`_distinct`); every legal card at the root of a
            # search for move values is tried by its caller
            pos = s_i[d, I_POS]
            allowed, bw = _legal(_held(held, s_i[d, I_SEAT], rem), pos, s_i[d, I_LED],
                                 s_i[d, I_WCARD], s_i[d, I_DUTY], suit_mask, beat, play_rule)
            allowed = _distinct(allowed, rem, s_i[d, I_WCARD], pos, suit, suit_mask, beat, cpts,
                                s_i[d, I_DUTY])
            _open_moves(d, allowed, bw, s_i, s_f, old_mask, cpts, strength, s_mv, s_key)
            mode = NEXT_MOVE
        elif mode == NEXT_MOVE:
            mi = s_i[d, I_MI]
            if mi >= s_i[d, I_NM]:
                v = s_f[d, F_BEST]
                slot = s_i[d, I_SLOT]
                if slot >= 0:
                    rem = s_rem[d]
                    aux = _tt_aux(d, s_i, stamp)
                    if tt_rem[slot] == rem and _tt_holds(d, slot, aux, s_f, tt_aux, tt_op, tt_yp):
                        _tt_tighten(d, slot, v, s_f, tt_lo, tt_hi)
                    else:
                        _tt_replace(d, slot, rem, aux, v, s_f, tt_rem, tt_aux, tt_op, tt_yp,
                                    tt_lo, tt_hi)
                mode = RETURN
                continue
            c = s_mv[d, mi]
            s_i[d, I_MI] = mi + 1
            _play_card(c, s_i, s_f, d, s_i, s_f, d + 1, old_mask, suit, beat, cpts)
            s_rem[d + 1] = s_rem[d] & ~(ONE << np.uint64(c))
            d += 1
            mode = ENTER
        else:
            if d == 0:
                stats[0] += nodes
                return v
            d -= 1
            # the parent takes the value of the card it tried last (written here, not in a
            # helper: a helper's writes under a condition would keep reference counts)
            better, alpha, beta = _after_child(s_i[d, I_MAX], v, s_f[d, F_BEST], s_f[d, F_ALPHA],
                                               s_f[d, F_BETA])
            if better:
                s_f[d, F_BEST] = v
                s_i[d, I_BMOVE] = s_mv[d, s_i[d, I_MI] - 1]
                s_f[d, F_ALPHA] = alpha
                s_f[d, F_BETA] = beta
            if alpha >= beta:
                s_i[d, I_MI] = s_i[d, I_NM]  # cut off: skip the cards left
            mode = NEXT_MOVE


@njit(cache=True)
def _solve_all(root_i, root_f, root_rem, hands, old_mask, tables, tt, stack, move_vals, pv,
               wants, stamp):
    """Root value; with wants[0] (moves) each legal card's value (move_vals[card]); with
    wants[1] (the line) a principal variation in pv (-1 after its end). Returns the root
    value."""
    want_moves, want_pv = wants
    value = _search(root_i, root_f, root_rem, -INF, INF, hands, old_mask, tables, tt, stack,
                    stamp)
    if not want_moves and not want_pv:
        return value
    suit, suit_mask, beat, cpts = tables.suit, tables.suit_mask, tables.beat, tables.cpts
    play_rule = _rule_of_play(tables.play_rules, suit, suit_mask, root_i[I_CALLED])
    # the position on the line so far, as one stack row (the shape _play_card writes)
    cur_i = root_i.copy().reshape((1, N_I))
    cur_f = root_f.copy().reshape((1, N_F))
    rem = root_rem
    target = value
    ply = 0
    while rem != ZERO and (want_pv or ply == 0):
        seat = cur_i[0, I_SEAT]
        allowed, _ = _legal(hands[seat] & rem, cur_i[0, I_POS], cur_i[0, I_LED],
                            cur_i[0, I_WCARD], cur_i[0, I_DUTY], suit_mask, beat, play_rule)
        is_max = (old_mask >> seat) & 1
        chosen = -1
        chosen_i = cur_i.copy()
        chosen_f = cur_f.copy()
        m = allowed
        while m:
            lb = m & (~m + ONE)
            c = popcount(lb - ONE)
            m ^= lb
            ci = cur_i.copy()
            cf = cur_f.copy()
            _play_card(c, cur_i, cur_f, 0, ci, cf, 0, old_mask, suit, beat, cpts)
            crem = rem & ~(ONE << np.uint64(c))
            if ply == 0 and want_moves:
                cv = _search(ci[0], cf[0], crem, -INF, INF, hands, old_mask, tables, tt, stack,
                             stamp)
                move_vals[c] = cv
                hit = cv == target
            elif chosen < 0:
                # a null window around the target: does this card keep the value?
                cv = _search(ci[0], cf[0], crem, target - 1e-9, target + 1e-9, hands, old_mask,
                             tables, tt, stack, stamp)
                hit = cv >= target if is_max else cv <= target
            else:
                hit = False
            if hit and chosen < 0:
                chosen = c
                chosen_i = ci
                chosen_f = cf
                if not want_moves or ply > 0:
                    break
        if not want_pv or chosen < 0:
            break
        pv[ply] = chosen
        ply += 1
        cur_i = chosen_i
        cur_f = chosen_f
        rem = rem & ~(ONE << np.uint64(chosen))
    return value


# ------------------------------------------------------------------------- many deals, one position


@njit(cache=True, inline='always')
def _line_slot(root_i, root_f, pv, old_mask, tables, p_i, p_f):
    """The outcome slot at the end of the line pv played from the root (p_i, p_f: two rows of
    scratch)."""
    tp = tables.tparams
    win_rule = (tp[0], tp[1], np.int64(tp[2]), np.int64(tp[3]), tp[4] != 0.0, tp[5] != 0.0,
                tp[6])
    p_i[0] = root_i
    p_f[0] = root_f
    r = 0
    for ply in range(pv.shape[0]):
        if pv[ply] < 0:
            break
        _play_card(pv[ply], p_i, p_f, r, p_i, p_f, 1 - r, old_mask, tables.suit, tables.beat,
                   tables.cpts)
        r = 1 - r
    return _outcome_slot(p_f[r, F_OPTS], p_f[r, F_YPTS], p_i[r, I_OTR], p_i[r, I_YTR], win_rule)


@njit(cache=True)
def _move_values_of_deals(root_i, root_f, held, rows, moves, old_mask, tables, tt, stack, stamp,
                          out):
    """out[w, j]: the value of playing moves[j] at the root when the seats hold held[w], for
    each w in rows; deal w is searched under stamp + w. Each move is searched with a full
    window: the root's own value would be one more search."""
    p_i = root_i.copy().reshape((1, N_I))
    p_f = root_f.copy().reshape((1, N_F))
    c_i = np.zeros((1, N_I), np.int64)
    c_f = np.zeros((1, N_F), np.float64)
    for w in rows:
        h = held[w]
        rem = h[0] | h[1] | h[2] | h[3]
        for j in range(moves.shape[0]):
            c = moves[j]
            _play_card(c, p_i, p_f, 0, c_i, c_f, 0, old_mask, tables.suit, tables.beat,
                       tables.cpts)
            out[w, j] = _search(c_i[0], c_f[0], rem & ~(ONE << np.uint64(c)), -INF, INF, h,
                                old_mask, tables, tt, stack, stamp + w)


@njit(cache=True)
def _line_payouts_of_deals(root_i, root_f, held, rows, old_mask, tables, tt, stack, stamp,
                           seat_pay, out):
    """out[w]: one seat's payout (seat_pay by outcome slot) at the end of a best line from the
    root when the seats hold held[w], for each w in rows (deal w under stamp + w)."""
    n = root_i.shape[0]
    pv = np.full(64, -1, np.int64)
    move_vals = np.full(64, np.nan, np.float64)
    p_i = np.zeros((2, n), np.int64)
    p_f = np.zeros((2, root_f.shape[0]), np.float64)
    for w in rows:
        h = held[w]
        rem = h[0] | h[1] | h[2] | h[3]
        pv[:] = -1
        _solve_all(root_i, root_f, rem, h, old_mask, tables, tt, stack, move_vals, pv,
                   (False, True), stamp + w)
        out[w] = seat_pay[_line_slot(root_i, root_f, pv, old_mask, tables, p_i, p_f)]


@njit(cache=True)
def _values_of_deals(root_i, root_f, held, rows, old_mask, tables, tt, stack, stamp, out):
    """out[w]: the root's double-dummy value when the seats hold held[w], for each w in rows
    (deal w under stamp + w)."""
    for w in rows:
        h = held[w]
        rem = h[0] | h[1] | h[2] | h[3]
        out[w] = _search(root_i, root_f, rem, -INF, INF, h, old_mask, tables, tt, stack,
                         stamp + w)


def _pay_of_value(vtab: np.ndarray, seat_pay: np.ndarray) -> dict[float, float] | None:
    """{value: seat's payout} if the value of an outcome tells the seat's payout (as it does
    when the sides split every payment evenly), else None."""
    pay: dict[float, float] = {}
    for v, p in zip(vtab.tolist(), seat_pay.tolist()):
        if pay.setdefault(v, p) != p:
            return None
    return pay


class DealSolver:
    """Solves one position in many deals (pimc's sampled worlds) under one transposition table,
    kept from decision to decision: the table's keys hold each deal's stamp, so no entry of one
    deal is read in another (the cards still out fix the hands only within one deal), and the
    table is never cleared."""

    def __init__(self, cr: CompiledRules):
        self.cr = compiled(cr)
        nc = self.cr.n_cards
        self.tt = _transposition_table(min(22, max(10, 3 * (nc // 4) + 2)))
        self.stack = _search_stack(nc + 2, nc)
        self.next_stamp = 1  # stamp 0 is `solve`'s, with a table of its own
        self.first_leads: dict[tuple, FirstLead] = {}
        self.first_roots: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # by the doubles as said: most lookups repeat one, and finding its stand-in costs more
        self.leads_as_said: dict[tuple, FirstLead] = {}
        self.tables_as_said: dict[tuple, SolverTables] = {}

    def _stamps(self, n: int) -> np.int64:
        first = self.next_stamp
        self.next_stamp += n
        return np.int64(first)

    def move_values(self, contract: int, old_mask: int, doubles, held: np.ndarray,
                    rows: np.ndarray, position: tuple, moves: np.ndarray, out: np.ndarray,
                    added: float = 0.0, called: int = -1) -> None:
        """out[w, j]: the double-dummy value (old side minus young side) of playing moves[j]
        now, in each deal w of rows (held[w]: the cards each seat still holds); position:
        (leader, trick, points, tricks). The deals share what the dealt hands fix: the Laufende
        added to the price, and the called card while its duties hold (-1 none)."""
        said = (contract, old_mask, tuple(doubles), added)
        tables = self.tables_as_said.get(said)
        if tables is None:
            tables = self.tables_as_said[said] = _solver_tables(
                self.cr, contract, old_mask, canonical_doubles(self.cr, contract, old_mask,
                                                               doubles), added)
        root_i, root_f = root_rows(tables, old_mask, *position, called=called)
        _move_values_of_deals(root_i, root_f, held, rows, moves, np.int64(old_mask), tables,
                              self.tt, self.stack, self._stamps(held.shape[0]), out)

    def first_lead(self, contract: int, old_mask: int, doubles, seat: int, added: float = 0.0,
                   called: int = -1) -> "FirstLead":
        """How seat's payout in the contract, played from the first lead, is searched and read
        (see `FirstLead`); added: the Laufende of the deals, called: their called card."""
        said = (contract, old_mask, tuple(doubles), seat, added, called)
        lead = self.leads_as_said.get(said)
        if lead is not None:
            return lead
        key = (contract, old_mask, canonical_doubles(self.cr, contract, old_mask, doubles),
               seat, float(added), int(called))
        lead = self.first_leads.get(key)
        if lead is None:
            lead = self.first_leads[key] = _first_lead(self.cr, contract, old_mask, key[2], seat,
                                                       key[4], key[5])
        self.leads_as_said[said] = lead
        return lead

    def _first_root(self, lead: "FirstLead", forehand: int):
        """The root of a first lead: nothing played, nothing taken, whatever the contract (but
        its called card, whose duties hold from the first lead)."""
        key = (forehand, lead.called)
        root = self.first_roots.get(key)
        if root is None:
            root = self.first_roots[key] = root_rows(lead.tables, lead.old_mask, forehand, (),
                                                     (0.0,) * 4, (0,) * 4, lead.called)
        return root

    def first_lead_values(self, lead: "FirstLead", held: np.ndarray, rows: np.ndarray,
                          forehand: int, out: np.ndarray) -> None:
        """out[w]: the value of lead's search in each deal w of rows (read it with lead.pay)."""
        root_i, root_f = self._first_root(lead, forehand)
        _values_of_deals(root_i, root_f, held, rows, np.int64(lead.old_mask), lead.tables,
                         self.tt, self.stack, self._stamps(held.shape[0]), out)

    def first_lead_line_payouts(self, lead: "FirstLead", held: np.ndarray, rows: np.ndarray,
                                forehand: int, out: np.ndarray) -> None:
        """out[w]: the seat's payout at the end of a best line from the first lead, in each
        deal w of rows (when lead.pay cannot read it from the value)."""
        root_i, root_f = self._first_root(lead, forehand)
        _line_payouts_of_deals(root_i, root_f, held, rows, np.int64(lead.old_mask), lead.tables,
                               self.tt, self.stack, self._stamps(held.shape[0]),
                               lead.seat_pay, out)


class FirstLead(NamedTuple):
    """A contract's first-lead search under some doubles, for one seat. The search runs on the
    outcome values scaled to at most 1 in size: doubles that scale every price by one factor
    (and leave the tie rule alone) make the same search, so `search` (its key) is the same and
    one deal's value serves all of them."""

    search: tuple  # deals searched under equal keys have equal values
    tables: SolverTables  # the scaled ones
    old_mask: int
    called: int  # the called card, whose duties the play keeps (-1 none)
    seat_pay: np.ndarray  # the seat's payout by outcome slot
    pay: dict[float, float] | None  # the seat's payout by scaled value; None if it cannot tell


def canonical_doubles(cr: CompiledRules, contract: int, old_mask: int, doubles) -> tuple:
    """Doubles that price the contract as these do: a hand's price and tie rule read only how
    many doubles count and which side said the last (`count_doubles`), so one seat of each side,
    alternating, stands for them, and the tables built for them serve every such sequence."""
    seats = np.array([int(x) for x in doubles] or [0], np.int64)
    counted, last = count_doubles(seats, len(doubles), old_mask,
                                  int(cr.tables.c_max_doubles[contract]))
    old = next((s for s in range(4) if (old_mask >> s) & 1), 0)
    young = next((s for s in range(4) if not (old_mask >> s) & 1), 0)
    first = last if counted % 2 else (WIN_OLD + WIN_YOUNG - last)
    return tuple(old if (first == WIN_OLD) == (i % 2 == 0) else young for i in range(counted))


def _first_lead(cr: CompiledRules, contract: int, old_mask: int, doubles, seat: int,
                added: float, called: int) -> FirstLead:
    t = _solver_tables(cr, contract, old_mask, doubles, added)
    scale = float(np.max(np.abs(t.vtab))) or 1.0
    tables = t._replace(vtab=t.vtab / scale)
    seat_pay = _payouts_by_slot(cr, contract, old_mask, doubles, added)[:, seat].copy()
    called = called if t.play_rules[3] > 0 else -1
    key = (contract, old_mask, called, t.tparams.tobytes(), tables.vtab.tobytes())
    return FirstLead(key, tables, old_mask, called, seat_pay,
                     _pay_of_value(tables.vtab, seat_pay))


def _payouts_by_slot(cr: CompiledRules, contract: int, old_mask: int, double_seats,
                     added: float = 0.0) -> np.ndarray:
    """[outcome slot, seat]: each seat's payout for each outcome of the contract, the
    Laufende `added` to its price."""
    doubles = tuple(int(s) for s in double_seats)
    return table(cr.rules, ("solver payouts", contract, old_mask, doubles, float(added)),
                 lambda: _prepare(cr, contract, old_mask, doubles, added).ptab.reshape(-1, 4))


# ---------------------------------------------------------------------------------- Python face


class Dealt(NamedTuple):
    """What a position's cards do not show, which the deal fixed: the hands as dealt (masks;
    they fix the Laufende), and the called card while its duties hold (its suit not led yet;
    None: no card on duty)."""

    hands: tuple | list | None = None
    called: int | None = None


@dataclass
class SolveResult:
    value: float
    best_line: list[int]
    move_values: dict[int, float]
    nodes: int = 0  # nodes searched, over every search the call made
    to_move: int | None = None  # the seat whose cards move_values prices


@dataclass
class _Prepared:
    """Everything about a contract and its sides that does not change during the play."""

    tparams: np.ndarray  # classify's settings, then T_DIRECTION, T_POINTS
    vtab: np.ndarray  # value by outcome_slot(winner, tier)
    ptab: np.ndarray  # payouts [winner - WIN_NOBODY, tier, seat]
    counted: int
    last: int


def side_value(pay, old_mask: int) -> float:
    """Old side's payout per old seat minus the young side's per young seat."""
    old = [pay[s] for s in range(4) if (old_mask >> s) & 1]
    young = [pay[s] for s in range(4) if not (old_mask >> s) & 1]
    return (sum(old) / len(old) if old else 0.0) - (sum(young) / len(young) if young else 0.0)


def _prepare(cr: CompiledRules, contract: int, old_mask: int, double_seats,
             added: float = 0.0) -> _Prepared:
    """The contract's outcome table: (winner, tier) -> payouts and value, through the compiled
    steps the kernel scores with (count_doubles, tie_winner, price, pay_out); added: the
    Laufende, which the dealt hands fix (`laufende_added`)."""
    t = cr.tables
    k = contract
    seats = np.array([int(x) for x in double_seats] or [0], np.int64)
    counted, last = count_doubles(seats, len(double_seats), old_mask, int(t.c_max_doubles[k]))
    n_old = bin(old_mask).count("1")
    tparams = np.array([t.win_points, t.schneider_max, float(t.c_goal[k]),
                        tie_winner(t.tie_rule, counted, last),
                        1.0 if n_old == 1 and not t.c_won_tiered[k] else 0.0,
                        1.0 if n_old == 1 and not t.c_lost_tiered[k] else 0.0,
                        t.schneider_max_old, 0.0, 0.0], np.float64)
    vtab = np.zeros(3 * N_PRICED_TIERS, np.float64)
    ptab = np.zeros((3, N_PRICED_TIERS, 4), np.float64)
    for w in (WIN_OLD, WIN_YOUNG):
        for tier in range(N_PRICED_TIERS):
            v = price(t.c_won, t.c_lost, t.c_mult, k, w, tier, counted, t.tie_value, t.factor,
                      added)
            pay = np.zeros(4, np.float64)
            pay_out(pay, v, w, old_mask, t.zero_sum, t.lone_once)
            ptab[w - WIN_NOBODY, tier] = pay
            vtab[outcome_slot(w, tier)] = side_value(pay, old_mask)
    cpts = np.asarray(t.card_points, np.float64)
    tparams[T_DIRECTION] = table(cr.rules, ("solver direction", tparams.tobytes(),
                                            vtab.tobytes()),
                                 lambda: _direction(tparams, vtab, cpts, cr.n_cards // 4))
    tparams[T_POINTS] = float(cpts.sum())
    return _Prepared(tparams, vtab, ptab, counted, last)


def _direction(tparams: np.ndarray, vtab: np.ndarray, cpts: np.ndarray, n_tricks: int) -> float:
    """+1 if the outcome's value never falls when the old side ends with more points or tricks,
    -1 if it never rises, 0 if neither: then what the old side may still take bounds the
    value (`_reachable`), which the search uses to stop early. Every split of the points a deal
    can make is checked, with every number of tricks."""
    sums = {0.0}
    for p in cpts.tolist():
        sums |= {x + p for x in sums}
    total = float(cpts.sum())
    opts = np.array(sorted(sums), np.float64)
    grid = np.zeros((opts.shape[0], n_tricks + 1), np.float64)
    out = np.zeros((opts.shape[0], 2), np.int64)
    for otr in range(n_tricks + 1):
        _classify_many(opts, total - opts, np.full(opts.shape[0], otr, np.int64),
                       np.full(opts.shape[0], n_tricks - otr, np.int64), tparams, out)
        grid[:, otr] = vtab[[outcome_slot(int(w), int(tier)) for w, tier in out]]
    steps = np.concatenate([np.diff(grid, axis=0).ravel(), np.diff(grid, axis=1).ravel()])
    if (steps >= 0).all():
        return 1.0
    if (steps <= 0).all():
        return -1.0
    return 0.0


def laufende_added(cr: CompiledRules, contract: int, old_mask: int, dealt) -> float:
    """What the Laufende add to the contract's price on this deal (dealt: each seat's cards as
    dealt, masks), through the kernel's `laufende_value`."""
    t = cr.tables
    return float(laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, int(contract),
                                np.array([int(h) for h in dealt], np.uint64), int(old_mask)))


def _added(cr: CompiledRules, contract: int, old_mask: int, hands, trick, dealt) -> float:
    """The Laufende of a position: from the hands as dealt; a position nothing has been played
    from is its own deal; else the dealt hands must be given."""
    if not cr.tables.c_lauf_from[contract]:
        return 0.0
    if dealt is None:
        held = 0
        for h in hands:
            held |= int(h)
        if trick or held != (1 << cr.n_cards) - 1:
            raise ValueError(f"contract {cr.contract_names[contract]} adds Laufende: give the "
                             "hands as dealt (dealt=...)")
        dealt = hands
    return laufende_added(cr, contract, old_mask, dealt)


def terminal_outcome(cr: CompiledRules, contract: int, old_mask: int, double_seats, points,
                     tricks, dealt=None) -> tuple[str | None, str, tuple[float, ...], float]:
    """(winner, tier, payouts, value) of a finished hand, through the solver's leaf arithmetic
    (dealt: the hands as dealt, for the Laufende; without them none are added)."""
    added = 0.0 if dealt is None else laufende_added(cr, contract, old_mask, dealt)
    prep = _prepare(cr, contract, old_mask, double_seats, added)
    opts = sum(float(points[s]) for s in range(4) if (old_mask >> s) & 1)
    ypts = sum(float(points[s]) for s in range(4) if not (old_mask >> s) & 1)
    otr = sum(int(tricks[s]) for s in range(4) if (old_mask >> s) & 1)
    ytr = sum(int(tricks[s]) for s in range(4) if not (old_mask >> s) & 1)
    out = np.zeros((1, 2), np.int64)
    _classify_many(np.array([opts]), np.array([ypts]), np.array([otr], np.int64),
                   np.array([ytr], np.int64), prep.tparams, out)
    w, t = int(out[0, 0]), int(out[0, 1])
    return (WINNER_NAMES[w], TIER_NAMES[t], tuple(float(x) for x in prep.ptab[w - WIN_NOBODY, t]),
            float(prep.vtab[outcome_slot(w, t)]))


class _Tables:
    """Per (ruleset, order) arrays for the search, kept in the rules cache."""

    def __init__(self, cr: CompiledRules, order: int, run_away: int):
        a = cr.tables
        nc = cr.n_cards
        self.suit = np.ascontiguousarray(a.suit[order].astype(np.int64))
        self.suit_mask = np.ascontiguousarray(a.suit_mask[order])
        self.beat = np.ascontiguousarray(a.beat_mask[order])
        self.cpts = np.ascontiguousarray(a.card_points, np.float64)
        # strength: how many cards of the deck this card beats when it leads (trumps above all)
        strength = np.zeros(nc, np.float64)
        for c in range(nc):
            s = self.suit[c]
            stronger = bin(int(self.beat[s, c])).count("1")
            strength[c] = (nc - stronger) + (nc if s == 0 else 0)
        self.strength = strength
        p = cr.rules.play
        self.play_rules = np.array([p.follow_suit, p.trump_when_void, p.must_beat, run_away],
                                   np.int64)


def _tables(cr: CompiledRules, contract: int) -> _Tables:
    """The search's arrays for a contract: its card order's, and its called card's duties."""
    key = (int(cr.tables.c_order[contract]), int(cr.tables.c_run_away[contract]))
    return table(cr.rules, ("solver",) + key, lambda: _Tables(cr, *key))


def _solver_tables(cr: CompiledRules, contract: int, old_mask: int, double_seats,
                   added: float = 0.0) -> SolverTables:
    """The search's tables for a contract played by these sides under these doubles, the
    Laufende `added` to its price, built once (a bot solves the same contract for every card
    it weighs)."""
    doubles = tuple(int(s) for s in double_seats)

    def build() -> SolverTables:
        t = _tables(cr, contract)
        prep = _prepare(cr, contract, old_mask, doubles, added)
        return SolverTables(t.suit, t.suit_mask, t.beat, t.cpts, t.strength, t.play_rules,
                            prep.tparams, prep.vtab)

    return table(cr.rules, ("solver", contract, old_mask, doubles, float(added)), build)


def table_bits(n_left: int) -> int:
    """The size of `solve`'s transposition table (2 ** bits entries) for n_left cards still
    out: larger for deeper searches (the tests shrink it to make entries collide)."""
    return min(22, max(10, 3 * (n_left // 4) + 2))


def _transposition_table(tt_bits: int) -> TranspositionTable:
    size = 1 << tt_bits
    return TranspositionTable(np.zeros(size, np.uint64), np.full(size, -1, np.int64),
                              np.zeros(size, np.float64), np.zeros(size, np.float64),
                              np.zeros(size, np.float64), np.zeros(size, np.float64))


def _search_stack(depth: int, n_cards: int) -> SearchStack:
    # the moves of one node, ordered: at most a hand, which is at most the deck
    return SearchStack(np.zeros(depth, np.uint64), np.zeros((depth, N_I), np.int64),
                       np.zeros((depth, N_F), np.float64), np.zeros((depth, n_cards), np.int64),
                       np.zeros((depth, n_cards), np.float64), np.zeros(1, np.int64))


def _check_position(cr, hands, leader, trick) -> None:
    nc = cr.n_cards
    if len(hands) != 4:
        raise ValueError(f"expected 4 hands, got {len(hands)}")
    if not 0 <= leader < 4:
        raise ValueError(f"leader {leader} is not a seat 0-3")
    if len(trick) > 3:
        raise ValueError("the current trick holds at most 3 cards; score a complete trick first")
    seen = 0
    for h in hands:
        h = int(h)
        if h >> nc:
            raise ValueError("a hand holds a card beyond the deck")
        if seen & h:
            raise ValueError("a card is held by two seats")
        seen |= h
    for c in trick:
        if (seen >> int(c)) & 1:
            raise ValueError(f"card {cr.cards[c]} is both played and held")
    counts = [bin(int(h)).count("1") for h in hands]
    played = {(leader + i) % 4 for i in range(len(trick))}
    n = counts[leader] + (1 if trick else 0)
    for s in range(4):
        want = n - (1 if s in played else 0)
        if counts[s] != want:
            raise ValueError(f"seat {s} holds {counts[s]} cards, expected {want} "
                             f"(leader {leader}, {len(trick)} cards in the trick)")


def root_rows(tables: SolverTables, old_mask: int, leader: int, trick, points, tricks,
              called: int = -1):
    """The search's root row (integer and float columns): the open trick, led by `leader`,
    replayed; both sides' points and tricks from each seat's; called: the called card while its
    duties hold (ignored where the contract gives it none)."""
    opts = sum(float(points[s]) for s in range(4) if (old_mask >> s) & 1)
    ypts = sum(float(points[s]) for s in range(4) if not (old_mask >> s) & 1)
    otr = sum(int(tricks[s]) for s in range(4) if (old_mask >> s) & 1)
    ytr = sum(int(tricks[s]) for s in range(4) if not (old_mask >> s) & 1)
    seat = leader
    led = wcard = 0
    wseat = leader
    tpts = 0.0
    for i, c in enumerate(trick):
        tpts += tables.cpts[c]
        led, wcard, wseat = (int(x) for x in play_to_trick(i, c, seat, tables.suit[c],
                                                           tables.beat[led, wcard], led, wcard,
                                                           wseat))
        seat = (seat + 1) % 4
    root_i = np.zeros(N_I, np.int64)
    root_i[[I_SEAT, I_POS, I_LEADER, I_LED, I_WCARD, I_WSEAT, I_OTR, I_YTR]] = \
        [seat, len(trick), leader, led, wcard, wseat, otr, ytr]
    called = int(called) if called is not None and tables.play_rules[3] > 0 else -1
    root_i[I_CALLED] = called
    root_i[I_DUTY] = tables.suit[called] if called >= 0 else -1
    root_f = np.zeros(N_F, np.float64)
    root_f[F_TPTS], root_f[F_OPTS], root_f[F_YPTS] = tpts, opts, ypts
    return root_i, root_f


def solve(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
          points=(0, 0, 0, 0), tricks=(0, 0, 0, 0), double_seats=(), *, moves: bool = True,
          line: bool = True, dealt: Dealt = Dealt()) -> SolveResult:
    """Exact double-dummy value of a position (see the module docstring). `hands` are the uint64
    masks of the cards each seat still holds; `trick` the cards already played to the current
    trick, led by `leader`; `dealt` what the deal fixed (see `Dealt`: the hands as dealt are
    needed for a contract with Laufende once cards have been played). `moves=False` /
    `line=False` skip move values / the best line."""
    cr = compiled(cr)
    a = cr.tables
    contract = int(contract)
    old_mask = int(old_mask) & 15
    if a.c_instant[contract]:
        # won at once, without play: at the out price, without doubles or multipliers
        pay = np.zeros(4, np.float64)
        pay_out(pay, a.c_won[contract, TIER_OUT], WIN_OLD, old_mask, a.zero_sum, a.lone_once)
        v = side_value(pay, old_mask)
        return SolveResult(v, [], {}, 0, None)
    trick = [int(c) for c in trick]
    hands_arr = np.array([int(h) for h in hands], np.uint64)
    _check_position(cr, hands_arr, int(leader), trick)
    added = _added(cr, contract, old_mask, hands_arr, trick, dealt.hands)
    tables = _solver_tables(cr, contract, old_mask, double_seats, added)
    root_i, root_f = root_rows(tables, old_mask, int(leader), trick, points, tricks,
                               dealt.called)
    seat = int(root_i[I_SEAT])
    rem = 0
    for h in hands_arr:
        rem |= int(h)
    n_left = bin(rem).count("1")
    move_vals = np.full(cr.n_cards, np.nan, np.float64)
    pv = np.full(max(n_left, 1), -1, np.int64)
    stack = _search_stack(n_left + 2, cr.n_cards)
    value = _solve_all(root_i, root_f, np.uint64(rem), hands_arr, old_mask, tables,
                       _transposition_table(table_bits(n_left)), stack, move_vals, pv,
                       (moves, line), 0)
    mv = {int(c): float(move_vals[c]) for c in range(cr.n_cards) if not np.isnan(move_vals[c])}
    best = [int(c) for c in pv if c >= 0] if line else []
    return SolveResult(float(value), best, mv, int(stack.stats[0]), seat if rem else None)


# ------------------------------------------------------------------------- plain reference search


class _Position:
    """The cards still held, the current trick and the called card while its duties hold, with
    the reference engine's legal cards."""

    def __init__(self, rules, contract_name, held, trick, called):
        from ..engine.reference import card_orders, deck_index

        c = rules.contracts[contract_name]
        self.play = rules.play
        self.held = held
        self.trick = trick
        self.order = card_orders(rules)[c.order]
        self.deck_index = deck_index(rules)
        self.run_away = c.called_card_rules.run_away_with if c.called_card_rules else 0
        self.called = called if self.run_away else None

    def legal(self, seat):
        from ..engine.reference import called_card_duties, legal_cards

        hand = sorted(self.held[seat], key=self.deck_index.__getitem__)
        allowed = legal_cards(self.play, self.order, hand, self.trick)
        if self.called is None or self.called not in hand:
            return allowed
        return called_card_duties(self.order, allowed, hand, self.trick, self.called,
                                  self.run_away)

    def trick_done(self, played) -> str | None:
        """The called card while its duties hold, before the complete trick played was
        scored; after it, the duties end if it was led in the called card's suit."""
        before = self.called
        if before is not None and self.order.suit[played[0]] == self.order.suit[before]:
            self.called = None
        return before


def brute_force(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
                points=(0, 0, 0, 0), tricks=(0, 0, 0, 0), double_seats=(),
                with_moves: bool = False, dealt: Dealt = Dealt()):
    """Plain minimax, no pruning and no table, on the reference engine's rules: legal cards from
    `kopsim.engine.reference.legal_cards` and `called_card_duties` (for dealt.called), trick
    winners from `CardOrder`, payouts from `kopsim.engine.scoring.score` (the Laufende from
    dealt.hands). Returns the value (and, with_moves, {card index: value})."""
    from ..engine.scoring import score

    rules = cr.rules
    name = cr.contract_names[contract]
    names = cr.cards
    idx = {c: i for i, c in enumerate(names)}
    old_side = [s for s in range(4) if (old_mask >> s) & 1]
    held = [[names[c] for c in range(cr.n_cards) if (int(h) >> c) & 1] for h in hands]
    dealt_names = None if dealt.hands is None else [
        [names[c] for c in range(cr.n_cards) if (int(h) >> c) & 1] for h in dealt.hands]
    if rules.contracts[name].instant:
        out = score(rules, name, old_side, list(double_seats), list(points), list(tricks))
        return (side_value(out.payouts, old_mask), {}) if with_moves else \
            side_value(out.payouts, old_mask)
    cur = [names[c] for c in trick]
    shim = _Position(rules, name, held, cur,
                     None if dealt.called is None else names[dealt.called])
    pts = [float(x) for x in points]
    trk = [int(x) for x in tricks]
    pt = rules.points_of

    def rec(leader: int):
        if not shim.trick and not any(shim.held):
            out = score(rules, name, old_side, list(double_seats), pts, trk, dealt_names)
            return side_value(out.payouts, old_mask), None
        seat = (leader + len(shim.trick)) % 4
        maximise = (old_mask >> seat) & 1
        best = None
        vals = {}
        for card in shim.legal(seat):
            shim.held[seat].remove(card)
            shim.trick.append(card)
            if len(shim.trick) == 4:
                played = list(shim.trick)
                w = (leader + shim.order.winner_index(played)) % 4
                gain = sum(pt(c) for c in played)
                pts[w] += gain
                trk[w] += 1
                shim.trick.clear()
                duty = shim.trick_done(played)
                v, _ = rec(w)
                shim.called = duty
                pts[w] -= gain
                trk[w] -= 1
                shim.trick.extend(played)
            else:
                v, _ = rec(leader)
            shim.trick.pop()
            shim.held[seat].append(card)
            vals[idx[card]] = v
            if best is None or (v > best if maximise else v < best):
                best = v
        return best, vals

    v, vals = rec(int(leader))
    return (v, vals or {}) if with_moves else v
