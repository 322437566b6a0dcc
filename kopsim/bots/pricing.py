"""What a finished hand is worth to the double-dummy search, compiled: one row per contract,
number of old seats, doubles, Laufende, hand game and value bid (`fill_pricing`), kept in a
store and built on first use (`pricing_row`).

A row holds the outcome rule (`classify`'s settings), each outcome's value (the old side's
payout per seat minus the young side's) scaled to at most 1 by a power of two, so that doubles
which only scale the price make the same search, exactly; the value unscaled, and an old and a
young seat's payout by outcome (the sides pay alike seat by seat); and the value's direction:
+1 if more points and tricks never hurt the old side, -1 if they never help it (a bettel), else
0. The search reads the first part (up to `P_SEARCHED`), pricing a call reads the rest.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import popcount
from ..rules.codes import N_PRICED_TIERS, WIN_OLD, WIN_YOUNG
from ..engine.jit import kernel_jit
from ..engine.steps import (classify, count_doubles, game_price, outcome_slot, pay_out,
                            tie_winner)

N_SLOTS = 3 * N_PRICED_TIERS  # outcome slots: nobody's, the old side's, the young side's

P_WIN, P_SMAX, P_SMAX_OLD, P_LONE_WON, P_LONE_LOST, P_TIE_WIN, P_DIRECTION, P_DECK, \
    P_SCALE = range(9)
P_VALUES = 9  # [slot] the value scaled (what the search compares)
P_SEARCHED = P_VALUES + N_SLOTS  # the part of a row that decides the search
P_UNSCALED = P_SEARCHED  # [slot] the value
P_PAY_OLD = P_UNSCALED + N_SLOTS  # [slot] an old seat's payout
P_PAY_YOUNG = P_PAY_OLD + N_SLOTS  # [slot] a young seat's
P_WIDTH = P_PAY_YOUNG + N_SLOTS


class PricingStore(NamedTuple):
    """Pricing rows built on first use (`pricing_row`), by (contract, old seats, counted
    doubles, side of the last one, Laufende, hand game, value bid); rows that search alike
    share a search id (the transposition table's entries are keyed by it). A full store starts
    afresh, with new ids."""

    index: np.ndarray  # [k, n_old, counted, last + 1, Laufende, hand, bid + 1] -> row, -1 none
    rows: np.ndarray  # [row, P_*]
    sid: np.ndarray  # [row] the search id
    count: np.ndarray  # [0] rows used, [1] the next search id, [2] how often it started afresh
    sums: np.ndarray  # every total of card points a set of cards makes, ascending
    scratch: np.ndarray  # [seat] payouts


def point_sums(card_points: np.ndarray) -> np.ndarray:
    """Every total of points a set of cards can make (the value's direction is checked over
    them)."""
    sums = {0.0}
    for p in card_points.tolist():
        sums |= {x + p for x in sums}
    return np.array(sorted(sums), np.float64)


def pricing_store(cr, capacity: int = 4096) -> PricingStore:
    """An empty store for a compiled ruleset: an index over every key, `capacity` rows."""
    t = cr.tables
    lauf = int((t.c_lauf_cards >= 0).sum(axis=1).max(initial=0))
    shape = (len(cr.contract_names), t.n_seats + 1, int(t.c_max_doubles.max(initial=0)) + 1, 3,
             lauf + 1, 2, t.bid_values.shape[0] + 1)
    rows = min(int(np.prod(shape)), capacity)
    return PricingStore(np.full(shape, -1, np.int64), np.zeros((rows, P_WIDTH), np.float64),
                        np.zeros(rows, np.int64), np.zeros(3, np.int64),
                        point_sums(t.card_points), np.zeros(t.n_seats, np.float64))


@kernel_jit(inline='always')
def outcome_value(opts, ypts, otr, ytr, pf, goal):
    """The scaled value of a hand finished with these points and tricks (pf: a row)."""
    w, t = classify(opts, ypts, otr, ytr, pf[P_WIN], pf[P_SMAX_OLD], pf[P_SMAX], goal,
                    np.int64(pf[P_TIE_WIN]), pf[P_LONE_WON] != 0.0, pf[P_LONE_LOST] != 0.0)
    return pf[P_VALUES + outcome_slot(w, t)]


@kernel_jit(inline='always')
def outcome_of(opts, ypts, otr, ytr, pf, goal):
    """The outcome slot of a hand finished with these points and tricks."""
    w, t = classify(opts, ypts, otr, ytr, pf[P_WIN], pf[P_SMAX_OLD], pf[P_SMAX], goal,
                    np.int64(pf[P_TIE_WIN]), pf[P_LONE_WON] != 0.0, pf[P_LONE_LOST] != 0.0)
    return outcome_slot(w, t)


@kernel_jit(inline='always')
def _direction(pf, goal, sums, n_tricks):
    """+1 if the value never falls when the old side ends with more points or tricks, -1 if
    it never rises, 0 if neither, over every total of points and number of tricks."""
    deck = pf[P_DECK]
    up = True
    down = True
    for otr in range(n_tricks + 1):
        for i in range(sums.shape[0]):
            v = outcome_value(sums[i], deck - sums[i], otr, n_tricks - otr, pf, goal)
            if i > 0:
                w = outcome_value(sums[i - 1], deck - sums[i - 1], otr, n_tricks - otr, pf, goal)
                up = up and v >= w
                down = down and v <= w
            if otr > 0:
                w = outcome_value(sums[i], deck - sums[i], otr - 1, n_tricks - otr + 1, pf, goal)
                up = up and v >= w
                down = down and v <= w
    if up:
        return 1.0
    if down:
        return -1.0
    return 0.0


@kernel_jit(inline='always')
def _scale_of(biggest):
    """A power of two that brings `biggest` (>= 0) into (0.5, 1]: scaling by it is exact."""
    scale = 1.0
    if biggest > 0.0:
        while biggest * scale > 1.0:
            scale *= 0.5
        while biggest * scale <= 0.5:
            scale *= 2.0
    return scale


@kernel_jit(inline='always')
def fill_pricing(t, k, n_old, counted, last, added, bid_value, sums, pay, row):
    """row: the pricing of contract k with n_old old seats under `counted` doubles (the last
    said by side `last`, -1 none), `added` to its price (Laufende, a hand game's value), bid
    by value at bid_value (0: not), through the kernel's steps (`game_price`, `pay_out`); pay:
    a float a seat of scratch."""
    row[P_WIN] = t.c_win_points[k]
    row[P_SMAX] = t.schneider_max
    row[P_SMAX_OLD] = t.schneider_max_old
    row[P_LONE_WON] = 1.0 if n_old == 1 and not t.c_won_tiered[k] else 0.0
    row[P_LONE_LOST] = 1.0 if n_old == 1 and not t.c_lost_tiered[k] else 0.0
    row[P_TIE_WIN] = tie_winner(t.tie_rule, counted, last)
    n = t.n_seats
    old = (1 << n_old) - 1  # the sides' sizes price a hand: the old seats are 0.., the last young
    for i in range(N_SLOTS):
        row[P_UNSCALED + i] = 0.0
        row[P_PAY_OLD + i] = 0.0
        row[P_PAY_YOUNG + i] = 0.0
    biggest = 0.0
    for w in (WIN_OLD, WIN_YOUNG):
        for tier in range(N_PRICED_TIERS):
            over, v = game_price(t.c_won, t.c_lost, t.c_mult, t.c_base_value, k, w, tier,
                                 counted, t.tie_value, t.factor, added, bid_value)
            for s in range(n):
                pay[s] = 0.0
            pay_out(pay, v, WIN_YOUNG if over else w, old, t.settle, t.lone_once, n)
            slot = outcome_slot(w, tier)
            po = pay[0] if n_old > 0 else 0.0
            py = pay[n - 1] if n_old < n else 0.0
            row[P_PAY_OLD + slot] = po
            row[P_PAY_YOUNG + slot] = py
            row[P_UNSCALED + slot] = po - py
            biggest = max(biggest, abs(po - py))
    scale = _scale_of(biggest)
    row[P_SCALE] = scale
    for i in range(N_SLOTS):
        row[P_VALUES + i] = row[P_UNSCALED + i] * scale
    deck = 0.0
    for c in range(t.card_points.shape[0]):
        deck += t.card_points[c]
    row[P_DECK] = deck
    row[P_DIRECTION] = _direction(row, np.int64(t.c_goal[k]), sums, t.hand_size)


@kernel_jit()
def fill_row(t, k, n_old, counted, last, added, bid_value, sums, pay, row):
    """`fill_pricing`, callable from Python."""
    fill_pricing(t, k, n_old, counted, last, added, bid_value, sums, pay, row)


@kernel_jit(inline='always')
def _alike(rows, a, b):
    """Whether rows a and b make the same search (their scale aside)."""
    for i in range(P_SEARCHED):
        if i != P_SCALE and rows[a, i] != rows[b, i]:
            return False
    return True


@kernel_jit(inline='always')
def _clear(index):
    flat = index.reshape(index.size)
    for i in range(flat.shape[0]):
        flat[i] = -1


@kernel_jit()
def pricing_row(t, k, old_mask, double_seats, nd, added, hand, bid, store):
    """The store's row pricing contract k for this old side under double_seats[:nd] with the
    Laufende `added`, played hand (hand: 1; its hand value added) or not (0), bid by value
    at t.bid_values[bid] (-1: not), built on first use."""
    counted, last = count_doubles(double_seats, nd, old_mask, t.c_max_doubles[k])
    n_lauf = 0
    if t.c_lauf_value[k] > 0.0:
        n_lauf = min(np.int64(added / t.c_lauf_value[k] + 0.5), store.index.shape[4] - 1)
    n_old = popcount(np.uint64(old_mask))
    r = store.index[k, n_old, counted, last + 1, n_lauf, hand, bid + 1]
    if r >= 0:
        return r
    if store.count[0] == store.rows.shape[0]:  # full: start afresh (new ids: no stale entry)
        _clear(store.index)
        store.count[0] = 0
        store.count[2] += 1
    r = store.count[0]
    store.count[0] += 1
    bid_value = t.bid_values[bid] if bid >= 0 else 0
    fill_pricing(t, k, n_old, counted, last, added + (t.c_hand_value[k] if hand else 0.0),
                 bid_value, store.sums, store.scratch, store.rows[r])
    store.index[k, n_old, counted, last + 1, n_lauf, hand, bid + 1] = r
    store.sid[r] = -1
    for c in range(store.index.shape[2]):  # doubles that only scale the price: one search
        for side in range(3):
            other = store.index[k, n_old, c, side, n_lauf, hand, bid + 1]
            if other >= 0 and other != r and _alike(store.rows, r, other):
                store.sid[r] = store.sid[other]
    if store.sid[r] < 0:
        store.sid[r] = store.count[1]
        store.count[1] += 1
    return r


@kernel_jit(inline='always')
def full_window(pf):
    """The window of a whole search: the lowest and highest scaled value (every value searched
    is an outcome's, so a fail-low at the lowest is that outcome; a seat that has secured the
    best outcome there is stops looking)."""
    lo = pf[P_VALUES]
    hi = pf[P_VALUES]
    for i in range(N_SLOTS):
        lo = min(lo, pf[P_VALUES + i])
        hi = max(hi, pf[P_VALUES + i])
    return lo, hi


@kernel_jit(inline='always')
def unscaled(pf, v):
    """The value of the outcome whose scaled value is v (a search's values are outcomes')."""
    for i in range(N_SLOTS):
        if pf[P_VALUES + i] == v:
            return pf[P_UNSCALED + i]
    return v / pf[P_SCALE]


@kernel_jit()
def slot_of(opts, ypts, otr, ytr, pf, goal):
    """`outcome_of`, callable from Python."""
    return outcome_of(opts, ypts, otr, ytr, pf, goal)
