"""Searches started from a root position (`kopsim.bots.search`), compiled: a position solved
whole (its value, each legal card's value, a best line), and one position searched in many deals
(pimc's sampled worlds: the value of the first lead, the value of each of a seat's cards, a
seat's payout at the end of a best line).

A root is the position's ints and floats (`search.root_arrays`); a deal is a row of four hand
masks, the cards each seat still holds. Values come scaled as the search compares them (read
them with `pricing.unscaled`, or a seat's payout by outcome), except where said.
"""

from __future__ import annotations

import numpy as np

from ..engine.bits import ONE, popcount
from ..engine.jit import kernel_jit
from .pricing import full_window, outcome_of, unscaled
from .search import (R_DUTY, R_LED, R_OTR, R_POS, R_SEAT, R_WCARD, R_WSEAT, R_YTR, X_GOAL,
                     _allowed, _hand, after_card, child_value, ply_value)

NULL_WINDOW = 1e-9  # half a null window: scaled values differ by far more


@kernel_jit(inline='always')
def _root(ri, rf, h):
    """The root's position (`search.Position`'s fields) in a deal of hands h."""
    return (h[0] | h[1] | h[2] | h[3], ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD],
            ri[R_WSEAT], rf[0], rf[1], rf[2], ri[R_OTR], ri[R_YTR], ri[R_DUTY])


@kernel_jit()
def position_value(ri, rf, h, lo, hi, old_mask, called, sid, ci, cm, cf, pf, tt, stats):
    """The root's scaled value within (lo, hi) in the deal h."""
    rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty = _root(ri, rf, h)
    return ply_value(rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty, lo, hi,
                     h[0], h[1], h[2], h[3], old_mask, called, sid, ci, cm, cf, pf, tt, stats)


@kernel_jit()
def card_value(c, ri, rf, h, lo, hi, old_mask, called, sid, ci, cm, cf, pf, tt, stats):
    """The scaled value within (lo, hi) of playing card c at the root in the deal h."""
    rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty = _root(ri, rf, h)
    return child_value(c, rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty, lo,
                       hi, h[0], h[1], h[2], h[3], old_mask, called, sid, ci, cm, cf, pf, tt,
                       stats)


@kernel_jit(inline='always')
def _best_card(ri, rf, h, target, want_all, move_vals, old_mask, called, sid, ci, cm, cf, pf,
               tt, stats):
    """The first of the root's legal cards (in card order) that keeps the value `target`, or
    -1; with want_all every legal card is searched whole and its value (unscaled) written to
    move_vals[card]."""
    lo, hi = full_window(pf)
    rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty = _root(ri, rf, h)
    m = _allowed(_hand(h[0], h[1], h[2], h[3], seat), pos, led, wcard, duty, called, ci, cm)
    is_max = (old_mask >> seat) & 1
    chosen = -1
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        if want_all:
            v = card_value(c, ri, rf, h, lo, hi, old_mask, called, sid, ci, cm, cf, pf, tt,
                           stats)
            move_vals[c] = unscaled(pf, v)
            if v == target and chosen < 0:
                chosen = c
        else:  # a null window around the target: does this card keep the value?
            v = card_value(c, ri, rf, h, target - NULL_WINDOW, target + NULL_WINDOW, old_mask,
                           called, sid, ci, cm, cf, pf, tt, stats)
            if v >= target if is_max else v <= target:
                return c
    return chosen


@kernel_jit()
def solve_position(ri, rf, h, old_mask, called, sid, ci, cm, cf, pf, tt, stats, move_vals, pv,
                   want_moves, want_line):
    """The root's scaled value in the deal h (its hands still held); with want_moves each legal
    card's value (unscaled) in move_vals[card]; with want_line a best line in pv (-1 after
    its end). ri, rf: the root, advanced along the line (scratch of the caller's)."""
    lo, hi = full_window(pf)
    value = position_value(ri, rf, h, lo, hi, old_mask, called, sid, ci, cm, cf, pf, tt, stats)
    ply = 0
    while want_moves or want_line:
        c = _best_card(ri, rf, h, value, want_moves and ply == 0, move_vals, old_mask, called,
                       sid, ci, cm, cf, pf, tt, stats)
        if not want_line or c < 0:
            break
        pv[ply] = c
        ply += 1
        _advance(ri, rf, h, c, old_mask, ci, cm, cf)
    return value


@kernel_jit(inline='always')
def _advance(ri, rf, h, c, old_mask, ci, cm, cf):
    """The root and the deal h after card c is played from it."""
    rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty = _root(ri, rf, h)
    s = seat
    rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty = after_card(
        c, rem, seat, pos, led, wcard, wseat, tp, opts, ypts, otr, ytr, duty, old_mask, ci, cm,
        cf)
    h[s] &= ~(ONE << np.uint64(c))
    ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD], ri[R_WSEAT] = seat, pos, led, wcard, wseat
    ri[R_OTR], ri[R_YTR], ri[R_DUTY] = otr, ytr, duty
    rf[0], rf[1], rf[2] = tp, opts, ypts
    return rem


@kernel_jit(inline='always')
def line_outcome(ri, rf, h, pv, old_mask, ci, cm, cf, pf):
    """The outcome slot at the end of the line pv played from the root (ri, rf and h are
    advanced along it)."""
    for ply in range(pv.shape[0]):
        if pv[ply] < 0:
            break
        _advance(ri, rf, h, pv[ply], old_mask, ci, cm, cf)
    return outcome_of(rf[1], rf[2], ri[R_OTR], ri[R_YTR], pf, ci[X_GOAL])


# ------------------------------------------------------------------------- many deals, one root


@kernel_jit()
def values_of_deals(ri, rf, held, rows, old_mask, called, sid, ci, cm, cf, pf, tt, stats, out):
    """out[w]: the root's scaled value in each deal w of rows (held[w]: each seat's cards)."""
    lo, hi = full_window(pf)
    for w in rows:
        out[w] = position_value(ri, rf, held[w], lo, hi, old_mask, called, sid, ci, cm, cf, pf,
                                tt, stats)


@kernel_jit()
def move_values_of_deals(ri, rf, held, rows, moves, old_mask, called, sid, ci, cm, cf, pf, tt,
                         stats, out):
    """out[w, j]: the value (unscaled) of playing moves[j] at the root in each deal w of
    rows, each searched with the whole window."""
    lo, hi = full_window(pf)
    for w in rows:
        for j in range(moves.shape[0]):
            out[w, j] = unscaled(pf, card_value(moves[j], ri, rf, held[w], lo, hi, old_mask,
                                                called, sid, ci, cm, cf, pf, tt, stats))


@kernel_jit()
def line_payouts_of_deals(ri, rf, held, rows, old_mask, called, sid, ci, cm, cf, pf, tt, stats,
                          seat_pay, scratch_i, scratch_f, scratch_h, scratch_v, pv, out):
    """out[w]: a seat's payout (seat_pay by outcome slot) at the end of a best line from the
    root in each deal w of rows (scratch_*: a root and a deal to advance, card values; pv: a
    line's room)."""
    for w in rows:
        _copy_root(ri, rf, held[w], scratch_i, scratch_f, scratch_h)
        for i in range(pv.shape[0]):
            pv[i] = -1
        solve_position(scratch_i, scratch_f, scratch_h, old_mask, called, sid, ci, cm, cf, pf,
                       tt, stats, scratch_v, pv, False, True)
        _copy_root(ri, rf, held[w], scratch_i, scratch_f, scratch_h)
        out[w] = seat_pay[line_outcome(scratch_i, scratch_f, scratch_h, pv, old_mask, ci, cm, cf,
                                       pf)]


@kernel_jit(inline='always')
def _copy_root(ri, rf, h, to_i, to_f, to_h):
    for i in range(ri.shape[0]):
        to_i[i] = ri[i]
    for i in range(rf.shape[0]):
        to_f[i] = rf[i]
    for i in range(4):
        to_h[i] = h[i]
