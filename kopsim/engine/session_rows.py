"""Session rows of `kopsim run`, fast: series placement points for thousands of sessions at once,
and the victory-card bankroll walked through millions of hands in compiled code.

Both give exactly the floats of `kopsim.engine.sessions` (`series_points`, `bankroll_step`): the same
operations in the same order. tests/test_experiment_sessions.py holds them to it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

from ..rules.model import Session


def series_place_points(totals: np.ndarray, spec: Session) -> np.ndarray:
    """`series_points` of each row of totals [m, seats]: tied places share their points, and the
    bonus is shared by the seats that end positive."""
    totals = np.asarray(totals, np.float64)
    n = totals.shape[1]
    pts = list(spec.placement_points)
    # share[g, e]: the points of places g .. g+e-1 shared by e tied seats, as series_points sums
    share = np.zeros((n + 1, n + 1), np.float64)
    for g in range(n):
        for e in range(1, n - g + 1):
            share[g, e] = sum(pts[g:g + e]) / e
    greater = (totals[:, None, :] > totals[:, :, None]).sum(axis=2)  # seats ahead of each seat
    equal = (totals[:, None, :] == totals[:, :, None]).sum(axis=2)  # tied with it, itself too
    out = share[greater, equal]
    positive = totals > 0
    npos = positive.sum(axis=1)
    bonus = np.zeros(len(totals), np.float64)
    has = npos > 0
    bonus[has] = spec.positive_bonus / npos[has]
    return np.where(positive, out + bonus[:, None], out)


@njit(cache=True)
def _bankroll_step(bal, pay, new, left):
    """`kopsim.engine.sessions.bankroll_step` for a seat per entry of `pay`, into `new` (same
    float operations, same order: pairwise debts, then each loser in seat order pays in full or
    unit by unit)."""
    n = pay.shape[0]
    gain = 0.0
    for s in range(n):
        if pay[s] > 0:
            gain += pay[s]
    for s in range(n):
        new[s] = bal[s]
    for loser in range(n):
        p = pay[loser]
        if not p < 0:
            continue
        nw = 0
        total = 0.0
        for w in range(n):
            left[w] = 0.0
            if pay[w] > 0:
                left[w] = -p * pay[w] / gain
                total += left[w]
                nw += 1
        if nw == 0:
            continue
        if new[loser] >= total:
            new[loser] -= total
            for w in range(n):
                if pay[w] > 0:
                    new[w] += left[w]
            continue
        while new[loser] > 0:
            any_left = False
            for w in range(n):
                if pay[w] > 0 and left[w] > 0:
                    any_left = True
            if not any_left:
                break
            for k in range(1, n):
                w = (loser + k) % n
                if not pay[w] > 0:
                    continue
                if new[loser] <= 0:
                    break
                unit = 1.0
                if left[w] < unit:
                    unit = left[w]
                if new[loser] < unit:
                    unit = new[loser]
                if unit <= 0:
                    continue
                new[loser] -= unit
                new[w] += unit
                left[w] -= unit


@njit(cache=True)
def _scan(deal_ids, pay, start, bal, st, kept, held, paid, ends, e_bal):
    """Walk deals in order through bankroll sessions. st = [open, session, next session, hands,
    first deal]; a session opens only on a deal id divisible by the seat count (the width of
    `pay`). For each kept hand, `kept`
    [3, n] gets its position, session and hand index, `held` the balances before it and `paid`
    what moved; for each ended session, `ends` [3, n + 1] gets its session, hands and first deal
    and `e_bal` its balances. Returns (kept, ended)."""
    n = pay.shape[1]
    new = np.zeros(n, np.float64)
    left = np.zeros(n, np.float64)
    nk = 0
    ne = 0
    for i in range(deal_ids.shape[0]):
        d = deal_ids[i]
        if st[0] == 0:
            if d % n != 0:
                continue
            for s in range(n):
                bal[s] = start
            st[0] = 1
            st[1] = st[2]
            st[2] += 1
            st[3] = 0
            st[4] = d
        _bankroll_step(bal, pay[i], new, left)
        for s in range(n):
            held[nk, s] = bal[s]
            paid[nk, s] = new[s] - bal[s]
            bal[s] = new[s]
        kept[0, nk] = i
        kept[1, nk] = st[1]
        kept[2, nk] = st[3]
        nk += 1
        st[3] += 1
        low = bal[0]
        for s in range(1, n):
            if bal[s] < low:
                low = bal[s]
        if low <= 0:
            ends[0, ne] = st[1]
            ends[1, ne] = st[3]
            ends[2, ne] = st[4]
            for s in range(n):
                e_bal[ne, s] = bal[s]
            ne += 1
            st[0] = 0
    return nk, ne


@dataclass(frozen=True)
class BankrollCarry:
    """Where the bankroll sessions stand between two chunks of deals: whether a session is
    open, its number, the number the next one gets, its hands so far, the balances (while
    open) and its first deal. The default is a run's start: no session yet."""

    open: bool = False
    session: int = -1
    next_session: int = 0
    hands: int = 0
    balance: tuple[float, ...] | None = None  # one entry a seat
    first_deal: int = -1

    def state(self, seats: int) -> tuple[np.ndarray, np.ndarray]:
        """The scan's registers: [open, session, next session, hands, first deal], balances."""
        st = np.array([int(self.open), self.session, self.next_session, self.hands,
                       self.first_deal], np.int64)
        return st, np.array(self.balance if self.open else np.zeros(seats), np.float64)

    @classmethod
    def from_state(cls, st: np.ndarray, bal: np.ndarray) -> "BankrollCarry":
        is_open = bool(st[0])
        return cls(is_open, int(st[1]), int(st[2]), int(st[3]),
                   tuple(float(x) for x in bal) if is_open else None, int(st[4]))


class BankrollScan(NamedTuple):
    """The kept hands of a chunk (positions into it) with their session, hand index, the cards
    each seat held before the hand and what each seat actually gained or paid on it (a loser who
    cannot pay in full pays what he has); the sessions that ended in the chunk {session, hands,
    balance [m, seats], complete, first_deal}; the carry at the chunk's end."""

    keep: np.ndarray
    session: np.ndarray
    hand_index: np.ndarray
    held: np.ndarray
    paid: np.ndarray
    ended: dict
    carry: BankrollCarry


def bankroll_scan(spec: Session, carry: BankrollCarry, deal_ids: np.ndarray, payouts: np.ndarray,
                  final: bool) -> BankrollScan:
    """One chunk's deals, in order, through the victory-card sessions, given each deal's nominal
    payouts (what the rules price the hand at), from `carry` at the chunk's start. With
    final=True a session still open is ended as incomplete."""
    n, seats = payouts.shape
    st, bal = carry.state(seats)
    kept = np.empty((3, n), np.int64)  # rows: position, session, hand index
    held = np.empty((n, seats), np.float64)
    paid = np.empty((n, seats), np.float64)
    ends = np.empty((3, n + 1), np.int64)  # rows: session, hands, first deal
    e_bal = np.empty((n + 1, seats), np.float64)
    nk, ne = _scan(np.ascontiguousarray(deal_ids, np.int64),
                   np.ascontiguousarray(payouts, np.float64), float(spec.start), bal, st,
                   kept, held, paid, ends, e_bal)
    keep, sess, hidx = kept
    e_sess, e_hands, e_first = ends
    complete = np.ones(ne, bool)
    if final and st[0] == 1:
        e_sess[ne], e_hands[ne], e_first[ne] = st[1], st[3], st[4]
        e_bal[ne] = bal
        ne += 1
        complete = np.r_[complete, False]
    ended = {"session": e_sess[:ne], "hands": e_hands[:ne], "balance": e_bal[:ne],
             "complete": complete, "first_deal": e_first[:ne]}
    return BankrollScan(keep[:nk], sess[:nk], hidx[:nk], held[:nk], paid[:nk], ended,
                        BankrollCarry.from_state(st, bal))


def ended_before(scan: BankrollScan, n: int) -> dict:
    """The sessions of `scan.ended` whose last hand is among the first n kept hands."""
    last = np.searchsorted(scan.session, scan.ended["session"], side="right") - 1
    inside = last < n
    return {key: value[inside] for key, value in scan.ended.items()}
