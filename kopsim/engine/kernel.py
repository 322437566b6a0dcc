"""The batch kernel: whole hands (deal, auction, play, scoring) of any compiled ruleset, in numba.

It plays the exact semantics of the reference engine (`kopsim.engine.reference`) from `CompiledRules` tables.
Its bots are the kernel kinds: random (drawing from the same per-seat streams as the reference
`RandomBot`) and heuristic (the very decision functions `HeuristicBot` calls), so the same seeds
give identical hand records in both engines (tests/test_engines_agree.py).
"""

from __future__ import annotations

import os

import numpy as np

from ..bots import bot_spec
from ..bots.heuristic import heuristic_tables
from ..bots.kernel import ev_tables, kernel_lineup, learnt_lineup, plays_endgame
from ..bots.table_size import refuse_unseated
from ..records.format import HandRecord
from ..rules.cache import compiled as compiled_rules, table as rules_table
from ..rules.compile import TIERS, WINNERS, CompiledRules
from ..rules.model import Ruleset
from .codes import BOT_LEARNT, BOT_PIMC
from .jit import compile_once
from .loop import (Lineup, Outcomes, _play_batch, _play_batch_endgame, _play_batch_pimc,
                   _play_batch_pimc_endgame, scratch_for)

__all__ = ["BatchResult", "play_batch", "take", "concat", "_play_batch"]

# KOPSIM_ONE_KERNEL=1: every line-up plays in the kernel that holds every kind (pimc and the
# endgame), with the same results. The bounds-checked runs of the suite set it: a checked build
# takes minutes, and one build then serves what would otherwise be four.
ONE_KERNEL = os.environ.get("KOPSIM_ONE_KERNEL") == "1"


# --------------------------------------------------------------------------------- Python face


class BatchResult:
    """Column arrays of one batch of hands: their seeds, dealers and hand indices, and the
    kernel's output columns (`Outcomes`: contract, declarer, ..., options), read by name as
    attributes (`result.payouts`); `records()` turns them into `HandRecord`s."""

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

    def record(self, i: int, session: int | None = None) -> HandRecord:
        cr = self.compiled
        r = cr.rules
        names = cr.cards
        dealer = int(self.dealers[i])
        n = cr.tables.n_seats
        hands: list[list[str]] = [[] for _ in range(n)]
        for k, ci in enumerate(self.perm[i]):
            hands[(dealer + 1 + k) % n].append(names[ci])
        auction = []
        for j in range(int(self.ncalls[i])):
            code = int(self.calls[i, j])
            auction.append({"seat": int(self.call_seat[i, j]), "call": cr.call_names[code]})
        k = int(self.contract[i])
        tricks = []
        if not r.contracts[cr.contract_names[k]].instant:
            hs = cr.n_cards // n
            leader_cards = self.cards[i]
            for t in range(hs):
                tricks.append({"leader": int(self.leaders[i, t]),
                               "cards": [names[c] for c in leader_cards[n * t:n * t + n]],
                               "winner": int(self.trick_winners[i, t])})
        old = int(self.old[i])
        decl = int(self.declarer[i])
        return HandRecord(
            ruleset=r.name, ruleset_sha256=cr.sha256, seed=int(self.seeds[i]),
            hand_index=int(self.hand_index[i]), session=session, dealer=dealer, hands=hands,
            auction=auction, contract=cr.contract_names[k],
            declarer=None if decl < 0 else decl,
            old_side=[s for s in range(n) if (old >> s) & 1],
            doubles=int(self.doubles[i]), tricks=tricks,
            points=[float(x) for x in self.points[i]],
            tricks_won=[int(x) for x in self.tricks[i]],
            winner=WINNERS[int(self.winner[i])], tier=TIERS[int(self.tier[i])],
            payouts=[float(x) for x in self.payouts[i]],
        )

    def records(self, session: int | None = None):
        for i in range(len(self)):
            yield self.record(i, session)


def play_batch(compiled: CompiledRules | Ruleset, seeds: np.ndarray, dealers: np.ndarray,
               hand_index: np.ndarray | None = None, bots: list | None = None,
               seat_bot: np.ndarray | None = None, explore: np.ndarray | None = None,
               ev_table=None, given: np.ndarray | None = None,
               forced: np.ndarray | None = None) -> BatchResult:
    """Play one hand per seed; hand i is dealt by `dealers[i]`. `bots` are `BotSpec`s that run
    in the kernel (default: random for every seat); `seat_bot[i, s]` is the index in `bots` of
    the bot in seat s for hand i (default: bot s in seat s, or the single bot everywhere).
    `explore[i] = (j, code)` (calibration) forces the j-th call of hand i to be `code` where it
    is legal, and records every call's legal options (`options`); -1 forces nothing. `ev_table`
    (calibration) is the table every ev bot plays with, instead of its calibrated one; `given[i]`
    (calibration) the cards of deal i in the order dealt, instead of its shuffle; `forced[i]`
    (rollouts) actions of hand i forced where legal (`loop.Lineup.forced`: call codes in the
    first max_calls columns, then cards in play order; -1: the bot chooses)."""
    cr = compiled_rules(compiled)
    seeds = np.ascontiguousarray(seeds, np.int64)
    dealers = np.ascontiguousarray(dealers, np.int64)
    n = len(seeds)
    nc, seats = cr.n_cards, cr.tables.n_seats
    hs = nc // seats
    bots = bots or [bot_spec("random")]
    refuse_unseated(cr.rules, bots)  # only random and heuristic play any table yet
    bots, bot_kind, bot_params, seat_bot, card_bot = kernel_lineup(bots, seat_bot, n, seats)
    # numba types a read-only array apart from a writable one: without this a broadcast seat_bot
    # (read-only) and a copied one (writable) made a second build of each kernel, 40 s apiece
    seat_bot = np.require(seat_bot, requirements="W")
    ev_values, ev_binom, ev_edges = ev_tables(cr, bots, bot_params, ev_table)
    explore = _explore_rows(cr, explore, n)
    given = _given_deals(given, n, nc)
    forced = _forced_rows(cr, forced, n)
    h_power, h_ctab = rules_table(cr.rules, "heuristic", lambda: heuristic_tables(cr))
    out = Outcomes(
        contract=np.empty(n, np.int16), declarer=np.empty(n, np.int8), old=np.empty(n, np.int8),
        doubles=np.empty(n, np.int8), winner=np.empty(n, np.int8), tier=np.empty(n, np.int8),
        points=np.empty((n, seats), np.float64), tricks=np.empty((n, seats), np.int8),
        payouts=np.empty((n, seats), np.float64), perm=np.empty((n, nc), np.int8),
        calls=np.zeros((n, cr.max_calls), np.int16), call_seat=np.zeros((n, cr.max_calls), np.int8),
        ncalls=np.empty(n, np.int16), cards=np.zeros((n, nc), np.int8),
        leaders=np.zeros((n, hs), np.int8), trick_winners=np.zeros((n, hs), np.int8),
        options=np.zeros((len(explore), cr.max_calls), np.uint64),
    )
    pimc = _pimc_scratch(cr, bot_kind, bot_params)
    learnt = learnt_lineup(cr, bots, bot_params)
    # the learnt kind reads the seat's whole view, as pimc does: it plays in pimc's kernels
    if (ONE_KERNEL or (bot_kind == BOT_LEARNT).any()) and not pimc:
        from ..bots.pimc_kernel import pimc_scratch
        pimc = pimc_scratch(cr, 1)
    lineup = Lineup(bot_kind, bot_params, seat_bot, card_bot, h_power, h_ctab, ev_values,
                    ev_binom, ev_edges, explore, given, forced, np.zeros((0, 2), np.int64),
                    np.zeros(3, np.int64), pimc, learnt)
    endgame = plays_endgame(bots)
    kernel = ((_play_batch_pimc_endgame if endgame or ONE_KERNEL else _play_batch_pimc) if pimc
              else _play_batch_endgame if endgame else _play_batch)
    args = (seeds, dealers, cr.tables, lineup, scratch_for(cr.tables), out)
    compile_once(kernel, args)
    kernel(*args)
    if hand_index is None:
        hand_index = np.arange(n, dtype=np.int64)
    return BatchResult(cr, seeds, dealers, np.asarray(hand_index, np.int64), out)


def _pimc_scratch(cr: CompiledRules, bot_kind: np.ndarray, bot_params: np.ndarray) -> tuple:
    """The pimc kind's scratch, sized for the line-up's pimc bots; () without one."""
    from ..bots.pimc_kernel import PP_AUCTION_SAMPLES, PP_SAMPLES, pimc_scratch

    rows = bot_params[bot_kind == BOT_PIMC]
    if not len(rows):
        return ()
    return pimc_scratch(cr, int(rows[:, [PP_SAMPLES, PP_AUCTION_SAMPLES]].max()))


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
