"""Seats round the table, for any number of them: the compiled arithmetic on seat numbers.

A table has n seats, numbered clockwise 0 .. n-1 (the ruleset states n once: `deck.players`,
compiled to `RuleTables.n_seats`); play goes clockwise, so the seat i places after seat s is
`after(s, i, n)`. These replace `% n`: a comparison and a subtraction, no division, as fast as
the `% 4` they replace (which compiled to a mask)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, inline='always')
def after(seat, i, n):
    """The seat i places after `seat` (0 <= seat < n, 0 <= i <= n)."""
    s = seat + i
    return s - n if s >= n else s


@njit(cache=True, inline='always')
def before(seat, i, n):
    """The seat i places before `seat` (0 <= seat < n, 0 <= i <= n): also how far `seat` sits
    after seat i (before(s, forehand, n): s's place counted from forehand)."""
    s = seat - i
    return s + n if s < 0 else s


@njit(cache=True, inline='always')
def seat_count(t):
    """The seat count of compiled rules t (`RuleTables`): at a table of an unrolled size the
    length of t.seat_ids, a constant numba folds (that size is compiled apart); at any other the
    run-time t.n_seats (t.seat_ids empty: those sizes share one build)."""
    k = len(t.seat_ids)
    return k if k > 0 else t.n_seats
