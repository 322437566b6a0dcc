"""The batch kernel: whole hands (deal, auction, play, scoring) of any compiled ruleset, in numba.

It plays the exact semantics of the reference engine (`kopsim.engine.reference`) from `CompiledRules` tables.
Its bots are the kernel kinds: random (drawing from the same per-seat streams as the reference
`RandomBot`) and heuristic (the very decision functions `HeuristicBot` calls), so the same seeds
give identical hand records in both engines (tests/test_engines_agree.py).
"""

from __future__ import annotations

import os
from typing import NamedTuple

import numpy as np

from ..rules.compile import CompiledRules
from .jit import compile_once
from .loop import (Lineup, Outcomes, _play_batch, _play_batch_endgame, _play_batch_pimc,
                   _play_batch_pimc_endgame, scratch_for)

__all__ = ["BatchResult", "Seated", "play_seated", "take", "concat", "_play_batch"]

# KOPSIM_ONE_KERNEL=1: every line-up plays in the kernel that holds every kind (pimc and the
# endgame), with the same results. The bounds-checked runs of the suite set it: a checked build
# takes minutes, and one build then serves what would otherwise be four.
ONE_KERNEL = os.environ.get("KOPSIM_ONE_KERNEL") == "1"


# --------------------------------------------------------------------------------- Python face


class BatchResult:
    """Column arrays of one batch of hands: their seeds, dealers and hand indices, and the
    kernel's output columns (`Outcomes`: contract, declarer, ..., options), read by name as
    attributes (`result.payouts`); `kopsim.records.format.batch_record` turns hand i into a
    `HandRecord`."""

    def __init__(self, compiled: CompiledRules, seeds: np.ndarray, dealers: np.ndarray,
                 hand_index: np.ndarray, outcomes: Outcomes):
        self.compiled = compiled
        self.seeds, self.dealers, self.hand_index = seeds, dealers, hand_index
        self.outcomes = outcomes

    def __getattr__(self, name: str):
        if name in Outcomes._fields:  # only reached for names the instance does not hold
            return getattr(self.outcomes, name)
        raise AttributeError(f"BatchResult has no column {name!r}")

    def __setattr__(self, name: str, value) -> None:
        if name in Outcomes._fields:  # one copy of each column: the outcomes'
            raise AttributeError(f"{name} is an outcome column: use with_columns({name}=...)")
        super().__setattr__(name, value)

    def with_columns(self, **columns) -> "BatchResult":
        """The same hands with the given outcome columns replaced."""
        return BatchResult(self.compiled, self.seeds, self.dealers, self.hand_index,
                           self.outcomes._replace(**columns))

    def __len__(self) -> int:
        return len(self.seeds)


class Seated(NamedTuple):
    """The kernel bots of a batch, as the bots stage seats them (`kopsim.bots.kernel.seat_bots`):
    the kernel's fields of `loop.Lineup` that name bots and their tables, and which build of
    the kernel plays them."""

    bot_kind: np.ndarray  # [bot] BOT_* code
    bot_params: np.ndarray  # [bot, i]
    seat_bot: np.ndarray  # [hand, seat] bot index (writable: see seat_bots)
    card_bot: np.ndarray  # [bot] the bot that plays its cards
    h_power: np.ndarray
    h_ctab: np.ndarray
    ev_values: np.ndarray
    ev_binom: np.ndarray
    ev_edges: np.ndarray
    pimc: tuple  # the pimc kind's scratch, or () when no bot reads a seat's whole view
    learnt: tuple
    endgame: bool  # an ev bot plays an endgame: the kernel is built with it


def play_seated(cr: CompiledRules, seeds: np.ndarray, dealers: np.ndarray, seated: Seated,
                hand_index: np.ndarray | None = None, explore: np.ndarray | None = None,
                given: np.ndarray | None = None,
                forced: np.ndarray | None = None) -> BatchResult:
    """Play one hand per seed with the seated bots; hand i is dealt by `dealers[i]`.
    `explore[i] = (j, code)` (calibration) forces the j-th call of hand i to be `code` where it
    is legal, and records every call's legal options (`options`); -1 forces nothing. `given[i]`
    (calibration) the cards of deal i in the order dealt, instead of its shuffle; `forced[i]`
    (rollouts) actions of hand i forced where legal (`loop.Lineup.forced`: call codes in the
    first max_calls columns, then cards in play order; -1: the bot chooses). The front door
    that seats bots by name is `kopsim.bots.seated.play_batch`."""
    seeds = np.ascontiguousarray(seeds, np.int64)
    dealers = np.ascontiguousarray(dealers, np.int64)
    n = len(seeds)
    nc, seats = cr.n_cards, cr.tables.n_seats
    hs = cr.tables.hand_size
    if seated.seat_bot.shape != (n, seats):
        raise ValueError(f"seat_bot must be [hands, seats] = {(n, seats)}, "
                         f"not {seated.seat_bot.shape}")
    explore = _explore_rows(cr, explore, n)
    given = _given_deals(given, n, nc)
    forced = _forced_rows(cr, forced, n)
    out = Outcomes(
        contract=np.empty(n, np.int16), declarer=np.empty(n, np.int8), old=np.empty(n, np.int8),
        doubles=np.empty(n, np.int8), winner=np.empty(n, np.int8), tier=np.empty(n, np.int8),
        points=np.empty((n, seats), np.float64), tricks=np.empty((n, seats), np.int8),
        payouts=np.empty((n, seats), np.float64), perm=np.empty((n, nc), np.int8),
        calls=np.zeros((n, cr.max_calls), np.int16), call_seat=np.zeros((n, cr.max_calls), np.int8),
        ncalls=np.empty(n, np.int16), cards=np.zeros((n, nc), np.int8),
        leaders=np.zeros((n, hs), np.int8), trick_winners=np.zeros((n, hs), np.int8),
        taken=np.full(n, -1, np.int8), laid=np.full((n, cr.tables.talon_size), -1, np.int8),
        options=np.zeros((len(explore), cr.max_calls), np.uint64),
    )
    s = seated
    lineup = Lineup(s.bot_kind, s.bot_params, s.seat_bot, s.card_bot, s.h_power, s.h_ctab,
                    s.ev_values, s.ev_binom, s.ev_edges, explore, given, forced,
                    np.zeros((0, 2), np.int64), np.zeros(3, np.int64), s.pimc, s.learnt)
    kernel = ((_play_batch_pimc_endgame if s.endgame or ONE_KERNEL else _play_batch_pimc)
              if s.pimc else _play_batch_endgame if s.endgame else _play_batch)
    args = (seeds, dealers, cr.tables, lineup, scratch_for(cr.tables), out)
    compile_once(kernel, args)
    kernel(*args)
    if hand_index is None:
        hand_index = np.arange(n, dtype=np.int64)
    return BatchResult(cr, seeds, dealers, np.asarray(hand_index, np.int64), out)


def _explore_rows(cr: CompiledRules, explore, n: int) -> np.ndarray:
    """The forced calls, checked: the kernel records each call's options as 64 bits."""
    if explore is None:
        return np.zeros((0, 2), np.int64)
    n_codes = 2 + len(cr.contract_names) + cr.tables.n_chain
    if n_codes > 64:
        raise ValueError(f"exploring needs at most 64 call codes; {cr.rules.name} has {n_codes}")
    return np.ascontiguousarray(explore, np.int64).reshape(n, 2)


def _given_deals(given, n: int, nc: int) -> np.ndarray:
    """The given deals, checked to be whole decks: the kernel indexes its tables by card."""
    if given is None:
        return np.zeros((0, nc), np.int64)
    given = np.ascontiguousarray(given, np.int64).reshape(n, nc)
    if not (np.sort(given, axis=1) == np.arange(nc)).all():
        raise ValueError("every given deal must hold each card of the deck once")
    return given


def _forced_rows(cr: CompiledRules, forced, n: int) -> np.ndarray:
    """The forced actions, checked: a call code or -1 in each of the first max_calls columns,
    a card or -1 in each of the n_cards after."""
    width = cr.max_calls + cr.n_cards
    if forced is None:
        return np.zeros((0, width), np.int64)
    forced = np.ascontiguousarray(forced, np.int64).reshape(n, width)
    n_codes = 2 + len(cr.contract_names) + cr.tables.n_chain
    if not ((forced[:, :cr.max_calls] >= -1).all() and (forced[:, :cr.max_calls] < n_codes).all()
            and (forced[:, cr.max_calls:] >= -1).all()
            and (forced[:, cr.max_calls:] < cr.n_cards).all()):
        raise ValueError("a forced action must be -1, a call code or a card of the deck")
    return forced


INDEX_COLUMNS = ("seeds", "dealers", "hand_index")


def take(res: BatchResult, idx: np.ndarray) -> BatchResult:
    """The hands `idx` of a batch, in that order."""
    index = [getattr(res, k)[idx] for k in INDEX_COLUMNS]
    outcomes = Outcomes(*[column[idx] if len(column) else column  # options: only when exploring
                          for column in res.outcomes])
    return BatchResult(res.compiled, *index, outcomes)


def concat(parts: list[BatchResult]) -> BatchResult:
    index = [np.concatenate([getattr(p, k) for p in parts]) for k in INDEX_COLUMNS]
    columns = {k: np.concatenate([getattr(p.outcomes, k) for p in parts])
               for k in Outcomes._fields}
    if any(len(p.options) == 0 for p in parts):  # recorded only when exploring
        columns["options"] = parts[0].options[:0]
    return BatchResult(parts[0].compiled, *index, Outcomes(**columns))
