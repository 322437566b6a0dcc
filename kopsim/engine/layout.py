"""The layout of deals, stated once: which deal ids a run plays, and for each its seed, dealer,
session, hand index in the session and seat line-up. `kopsim run`, `kopsim simulate`, `kopsim
duel` and the test fixtures all take their deals from here, so the same ruleset and seed deal the
same hands in every one of them.

With n seats at the table (the line-up's length, the ruleset's `deck.players`), deal d has seed
`hand_seed(run_seed, d)` and dealer `d % n`. Sessions start on deal ids that are multiples of n
(their hand i is dealt by seat i % n): a series of L hands takes deals [s*L', s*L' + L) with
L' = L rounded up to a multiple of n (`series_stride`); a bankroll session runs until a player is
out and the next starts at the next multiple of n, so its session and hand
index are known only once play has been scanned (`bankroll_run`). The line-up turns one seat
clockwise every `period` deals (None: it stays put). In a tournament, series s is round
s % rounds of tournament s // rounds, and the players (the line-up's places) are re-seated for
each round, by the tournament's plan or by a draw from the run seed (`tournament_seating`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ..rules.model import MAX_SEATS, MIN_SEATS
from .rng import hand_seeds_np

if TYPE_CHECKING:  # the compiled kernel loads only when hands are played
    from ..rules.compile import CompiledRules

NO_SESSION = -1  # the session and hand index of a bankroll deal before the scan places it


def hand_seeds(run_seed: int, start: int, count: int) -> np.ndarray:
    """The seeds of deals start .. start + count - 1."""
    return deal_seeds(run_seed, np.arange(start, start + count, dtype=np.uint64))


def deal_seeds(run_seed: int, deal_ids: np.ndarray) -> np.ndarray:
    return hand_seeds_np(np.full(len(deal_ids), run_seed, np.uint64), deal_ids)


def series_stride(length: int, seats: int) -> int:
    """Deals per series slot: its length rounded up to a multiple of the seat count."""
    return -(-length // seats) * seats


SEATING_STREAM = np.uint64(1 << 62)  # seat draws: seeds far beyond every deal id's


def tournament_seating(run_seed: int, series: np.ndarray, rounds: int,
                       plan: tuple[tuple[int, ...], ...] | None, seats: int) -> np.ndarray:
    """[n, seats]: the player (a place of the line-up) in each seat for each series: by the
    plan's row for the round (repeating), or, without a plan, drawn for each series from the run
    seed (the order of a seed per seat of its own), so any process computes the same seating."""
    series = np.asarray(series, np.int64)
    if plan is not None:
        return np.asarray(plan, np.int64)[(series % rounds) % len(plan)]
    ids = (series[:, None] * seats + np.arange(seats)).astype(np.uint64) + SEATING_STREAM
    keys = deal_seeds(run_seed, ids.reshape(-1)).reshape(-1, seats)
    return np.argsort(keys, axis=1, kind="stable").astype(np.int64)


class Deals(NamedTuple):
    """Deals of a run, one entry per deal, in deal order."""

    deal_id: np.ndarray  # int64
    seed: np.ndarray  # int64
    dealer: np.ndarray  # int64
    session: np.ndarray | None  # int64; None: no sessions. Bankroll: NO_SESSION until scanned
    hand_index: np.ndarray  # int64: in the session, else in the run. Bankroll: NO_SESSION
    seat_bot: np.ndarray  # [n, seats] int64: index of the bot in each seat


@dataclass(frozen=True)
class DealLayout:
    """How the hands of a run (one variant of an experiment, a simulate run, a duel) lie on
    deal ids. The line-up has one entry a seat: its length is the seat count."""

    run_seed: int
    session: str | None = None  # None, "series" or "bankroll"
    length: int | None = None  # series: hands per session
    lineup: tuple[int, ...] = ()  # seat -> bot, before rotation; one entry a seat
    period: int | None = None  # deals between rotations of the line-up; None: fixed
    rounds: int | None = None  # series per tournament; None: no tournament
    plan: tuple[tuple[int, ...], ...] | None = None  # a tournament's seating plan; None: drawn

    def __post_init__(self):
        if not MIN_SEATS <= len(self.lineup) <= MAX_SEATS:
            raise ValueError(f"a line-up of {MIN_SEATS}..{MAX_SEATS} seats, got {self.lineup!r}")

    @property
    def seats(self) -> int:
        return len(self.lineup)

    def stride(self) -> int:
        """Deals per series slot."""
        return series_stride(self.length, self.seats)

    def seat_bots(self, deal_ids: np.ndarray) -> np.ndarray:
        """[n, seats] indices of the bots: who sits where at each deal."""
        line, n = np.asarray(self.lineup, np.int64), self.seats
        d = np.asarray(deal_ids, np.int64)
        if self.rounds is not None:
            series = d // self.stride()
            return line[tournament_seating(self.run_seed, series, self.rounds, self.plan, n)]
        rot = np.zeros(len(d), np.int64) if self.period is None else (d // self.period) % n
        return np.stack([line[(s - rot) % n] for s in range(n)], axis=1)

    def deals(self, start: int, stop: int) -> Deals:
        """The deals with ids in [start, stop) that the run plays (a series skips the deals
        between its end and the next slot)."""
        d = np.arange(start, stop, dtype=np.int64)
        if self.session == "series":
            d = d[(d % self.stride()) < self.length]
        return self.of(d)

    def hands(self, first: int, count: int) -> Deals:
        """Hands first .. first + count - 1 of the run, counted in play order (not bankroll:
        where its hands lie shows only in play)."""
        assert self.session != "bankroll"
        g = np.arange(first, first + count, dtype=np.int64)
        if self.session == "series":
            g = (g // self.length) * self.stride() + g % self.length
        return self.of(g)

    def of(self, deal_ids: np.ndarray) -> Deals:
        """The given deals, laid out."""
        d = np.asarray(deal_ids, np.int64)
        if self.session == "series":
            stride = self.stride()
            session, hand_index = d // stride, d % stride
        elif self.session == "bankroll":
            session, hand_index = (np.full(len(d), NO_SESSION, np.int64) for _ in range(2))
        else:
            session, hand_index = None, d
        return Deals(d, deal_seeds(self.run_seed, d), d % self.seats, session, hand_index,
                     self.seat_bots(d))


def ruleset_layout(cr: CompiledRules, run_seed: int) -> DealLayout:
    """A ruleset's own sessions, every seat one bot (`kopsim simulate`, fixtures)."""
    spec, lineup = cr.rules.session, (0,) * cr.tables.n_seats
    if spec is None:
        return DealLayout(run_seed, lineup=lineup)
    return DealLayout(run_seed, spec.kind, spec.hands if spec.kind == "series" else None, lineup)
