"""Scalar helpers shared by the compiled paths (batch kernel, solver): bit counting on card
masks, and the one compiled statement of which cards a seat may play.

Scalars only, on purpose: numba pays an atomic reference count for every array passed to a
helper, which in an inner loop costs more than the work itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

ONE = np.uint64(1)
ZERO = np.uint64(0)
M55 = np.uint64(0x5555555555555555)
M33 = np.uint64(0x3333333333333333)
M0F = np.uint64(0x0F0F0F0F0F0F0F0F)
M01 = np.uint64(0x0101010101010101)


@njit(cache=True, inline='always')
def popcount(m):
    # the SWAR idiom, which LLVM turns into a single popcnt instruction
    m = m - ((m >> ONE) & M55)
    m = (m & M33) + ((m >> np.uint64(2)) & M33)
    m = (m + (m >> np.uint64(4))) & M0F
    return np.int64((m * M01) >> np.uint64(56))


@njit(cache=True, inline='always')
def lowbit_index(m):
    return popcount((m & (~m + ONE)) - ONE)


@njit(cache=True, inline='always')
def nth_bit(m, k):
    """Index of the k-th lowest set bit of m."""
    for _ in range(k):
        m &= m - ONE
    return lowbit_index(m)


@njit(cache=True, inline='always')
def allowed_cards(hand, pos, led_mask, trump_mask, beat_w, follow, trump_void, must_beat):
    """The cards a seat may play: anything when leading (pos 0); else the suit led, or failing
    that a trump (trump_void), or failing that anything; then, among those, the ones that beat
    the winning card if there are any (must_beat). led_mask: the cards of the suit led;
    beat_w: the cards that beat the card currently winning the trick."""
    if pos == 0:
        return hand
    same = hand & led_mask
    if same:
        allowed = same if follow else hand
    elif trump_void and (hand & trump_mask):
        allowed = hand & trump_mask
    else:
        allowed = hand
    if must_beat:
        b = allowed & beat_w
        if b:
            allowed = b
    return allowed
