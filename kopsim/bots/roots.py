"""Searches started from a root position (`kopsim.bots.search`), compiled: a position solved
whole (its value, each legal card's value, a best line), and one position searched in many deals
(pimc's sampled worlds: the value of the first lead, the value of each of a seat's cards, a
seat's payout at the end of a best line).

A root is the position's ints and floats (`search.root_arrays`); a deal is a row of hand masks,
one a seat, the cards each seat still holds. Values come scaled as the search compares them (read
them with `pricing.unscaled`, or a seat's payout by outcome), except where said.
"""

from __future__ import annotations

import numpy as np

from ..engine.bits import ONE, popcount
from ..engine.jit import kernel_jit
from .pricing import full_window, outcome_of, unscaled
from .search import (R_DUTY, R_LED, R_OTR, R_POS, R_SEAT, R_WCARD, R_WSEAT, R_YTR, X_GOAL,
                     after_card, allowed_of, child_value, ply_value)

# A search from a root reads `side`, (old side's seats, the called card while on duty or -1, the
# search id of the pricing row), and `ctx`, a `search.SearchContext`.

NULL_WINDOW = 1e-9  # half a null window: scaled values differ by far more


@kernel_jit(inline='always')
def _root(ri, rf, h):
    """The root's position in the deal h: (rem, trick, score, duty, hands), as the search takes
    them."""
    rem = h[0]
    for s in range(1, h.shape[0]):
        rem |= h[s]
    return (rem, (ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD], ri[R_WSEAT], rf[0]),
            (rf[1], rf[2], ri[R_OTR], ri[R_YTR]), ri[R_DUTY], h)


@kernel_jit()
def position_value(ri, rf, h, lo, hi, side, ctx):
    """The root's scaled value within (lo, hi) in the deal h."""
    rem, trick, score, duty, hands = _root(ri, rf, h)
    return ply_value(rem, trick, score, duty, lo, hi, hands, side, ctx)


@kernel_jit()
def card_value(c, ri, rf, h, lo, hi, side, ctx):
    """The scaled value within (lo, hi) of playing card c at the root in the deal h."""
    rem, trick, score, duty, hands = _root(ri, rf, h)
    return child_value(c, rem, trick, score, duty, lo, hi, hands, side, ctx)


@kernel_jit(inline='always')
def _best_card(ri, rf, h, target, want_all, move_vals, side, ctx):
    """The first of the root's legal cards (in card order) that keeps the value `target`, or
    -1; with want_all every legal card is searched whole and its value (unscaled) written to
    move_vals[card]."""
    lo, hi = full_window(ctx.pf)
    rem, trick, score, duty, hands = _root(ri, rf, h)
    seat, pos, led, wcard, _, _ = trick
    old_mask, called, _ = side
    m = allowed_of(hands[seat], pos, led, wcard, duty, called, ctx)
    is_max = (old_mask >> seat) & 1
    chosen = -1
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        if want_all:
            v = card_value(c, ri, rf, h, lo, hi, side, ctx)
            move_vals[c] = unscaled(ctx.pf, v)
            if v == target and chosen < 0:
                chosen = c
        else:  # a null window around the target: does this card keep the value?
            v = card_value(c, ri, rf, h, target - NULL_WINDOW, target + NULL_WINDOW, side, ctx)
            if v >= target if is_max else v <= target:
                return c
    return chosen


@kernel_jit()
def solve_position(ri, rf, h, side, ctx, move_vals, pv, want_moves, want_line):
    """The root's scaled value in the deal h (its hands still held); with want_moves each legal
    card's value (unscaled) in move_vals[card]; with want_line a best line in pv (-1 after
    its end). ri, rf and h are advanced along the line (the caller's scratch)."""
    lo, hi = full_window(ctx.pf)
    value = position_value(ri, rf, h, lo, hi, side, ctx)
    ply = 0
    while want_moves or want_line:
        c = _best_card(ri, rf, h, value, want_moves and ply == 0, move_vals, side, ctx)
        if not want_line or c < 0:
            break
        pv[ply] = c
        ply += 1
        _advance(ri, rf, h, c, side[0], ctx)
    return value


@kernel_jit(inline='always')
def _advance(ri, rf, h, c, old_mask, ctx):
    """The root and the deal h after card c is played from it."""
    rem, trick, score, duty, _ = _root(ri, rf, h)
    h[trick[0]] &= ~(ONE << np.uint64(c))
    rem, trick, score, duty = after_card(c, rem, trick, score, duty, old_mask, ctx)
    ri[R_SEAT], ri[R_POS], ri[R_LED], ri[R_WCARD], ri[R_WSEAT] = trick[:5]
    rf[0] = trick[5]
    rf[1], rf[2], ri[R_OTR], ri[R_YTR] = score
    ri[R_DUTY] = duty


@kernel_jit(inline='always')
def line_outcome(ri, rf, h, pv, old_mask, ctx):
    """The outcome slot at the end of the line pv played from the root (ri, rf and h are
    advanced along it)."""
    for ply in range(pv.shape[0]):
        if pv[ply] < 0:
            break
        _advance(ri, rf, h, pv[ply], old_mask, ctx)
    return outcome_of(rf[1], rf[2], ri[R_OTR], ri[R_YTR], ctx.pf, ctx.ci[X_GOAL])


# ------------------------------------------------------------------------- many deals, one root


@kernel_jit()
def values_of_deals(ri, rf, held, rows, side, ctx, out):
    """out[w]: the root's scaled value in each deal w of rows (held[w]: each seat's cards)."""
    lo, hi = full_window(ctx.pf)
    for w in rows:
        out[w] = position_value(ri, rf, held[w], lo, hi, side, ctx)


@kernel_jit()
def move_values_of_deals(ri, rf, held, rows, moves, side, ctx, out):
    """out[w, j]: the value (unscaled) of playing moves[j] at the root in each deal w of
    rows, each searched with the whole window."""
    lo, hi = full_window(ctx.pf)
    for w in rows:
        for j in range(moves.shape[0]):
            out[w, j] = unscaled(ctx.pf, card_value(moves[j], ri, rf, held[w], lo, hi, side,
                                                    ctx))


@kernel_jit()
def line_payouts_of_deals(ri, rf, held, rows, side, ctx, seat_pay, room, pv, out):
    """out[w]: a seat's payout (seat_pay by outcome slot) at the end of a best line from the
    root in each deal w of rows (room: a root and a deal to advance, card values; pv: a
    line's room)."""
    root_i, root_f, deal, values = room
    for w in rows:
        _copy_root(ri, rf, held[w], root_i, root_f, deal)
        for i in range(pv.shape[0]):
            pv[i] = -1
        solve_position(root_i, root_f, deal, side, ctx, values, pv, np.bool_(False),
                       np.bool_(True))
        _copy_root(ri, rf, held[w], root_i, root_f, deal)
        out[w] = seat_pay[line_outcome(root_i, root_f, deal, pv, side[0], ctx)]


@kernel_jit(inline='always')
def _copy_root(ri, rf, h, to_i, to_f, to_h):
    for i in range(ri.shape[0]):
        to_i[i] = ri[i]
    for i in range(rf.shape[0]):
        to_f[i] = rf[i]
    for i in range(h.shape[0]):
        to_h[i] = h[i]
