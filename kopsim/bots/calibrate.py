"""Calibration of the `ev` bot: its table of call values, learnt by self-play under a ruleset.

A round plays `deals` deals with an ev bot in every seat, using the current table. In each deal one
call is picked at random among those the auction made; the deal is then replayed once for every
call that was legal at that point, the auction forced to that call and everyone playing on by the
table. What the seat that made it gains over the table's mean payout is a sample of that call's
value for the seat's hand key, position and context; all the calls of one point are valued on the
same deal (common random numbers), so their differences carry little noise. The samples of all
rounds are pooled at full weight (as fictitious play averages its rounds): forgetting earlier
rounds kept the noise of a few rounds' samples in every value, and the policy kept changing on
about a sixth of the decisions on noise alone. A rarely seen hand's value is drawn towards its
strength bucket's (`shrink`).
Rounds repeat until the policy changes on less than `SETTLED` of the decisions, or `rounds`.

Everything is seeded from the parameters, and chunks of deals are fixed in size and summed in
order, so the table is the same whatever the number of jobs. It is cached by the ruleset's sha256
and the parameters, in memory and in the user cache folder (`KOPSIM_CACHE`, else
`$XDG_CACHE_HOME/kopsim`, else `~/.cache/kopsim`); a cached file that fails its checksum is
recomputed, never used.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Callable

import numpy as np

from ..rules.codes import CALL_BID
from ..engine.rng import hand_seed
from ..rules.cache import table as rules_table
from .ev import BUCKETS, UNKNOWN, EvParams, call_order, hand_key, key_space, n_contexts
from .heuristic import heuristic_tables, strength

VERSION = 4  # of the calibration method: a new one invalidates every cached table
CHUNK = 20_000  # deals per piece of work: fixed, so that jobs do not change the result
SETTLED = 0.005
# deals per second per job, by deck size, before this machine has calibrated one (2 cores here)
DEFAULT_RATE = {16: 8_000, 24: 6_000, 32: 4_000}


@dataclass(frozen=True)
class EvTable:
    """A calibrated table of call values and what it was learnt from."""

    values: np.ndarray  # [key, position, context, call code]
    binom: np.ndarray
    edges: np.ndarray
    key: str  # the cache key: method version, ruleset sha256, parameters
    sha256: str  # of the values
    summary: dict  # what it learnt (see `summarise`)


_MEMORY: dict[str, EvTable] = {}


def cache_dir() -> Path:
    if os.environ.get("KOPSIM_CACHE"):
        return Path(os.environ["KOPSIM_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "kopsim"


def cache_key(cr, params: EvParams) -> str:
    """The table's key: the method's version, the ruleset, the parameters, and the hand
    strengths its buckets cut (a table learnt under another definition of strength reads
    every hand into the wrong bucket)."""
    power, _ = heuristic_tables(cr)
    strengths = hashlib.sha256(np.ascontiguousarray(power).tobytes()).hexdigest()[:16]
    text = f"ev-calibration v{VERSION}|{cr.sha256}|{params.model_dump_json()}|{strengths}"
    return hashlib.sha256(text.encode()).hexdigest()


def calibrated(cr, params: EvParams, jobs: int = 1, say: Callable[[str], None] | None = None,
               label: str = "ev", variant: str | None = None) -> EvTable:
    """The ev table of these rules and parameters: from memory, the cache folder, or learnt now
    (and stored), which `say` announces, follows round by round (with a bar on a terminal) and
    ends with a verdict. `variant` names the rules as the experiment does."""
    key = cache_key(cr, params)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_dir() / "ev" / f"{key}.npz"
    found = _load(path, key, cr)
    if found is None:
        start = time.perf_counter()
        found = _learn_saying(cr, params, jobs, say, label, variant)
        _save(path, found)
        played = len(found.summary.get("rounds", [])) * deals_per_round(cr, params)
        _record_rate(cr.n_cards, played / max(time.perf_counter() - start, 1e-9) / max(1, jobs))
    _MEMORY[key] = found
    return found


def _learn_saying(cr, params: EvParams, jobs: int, say, label: str, variant: str | None):
    if say is None:
        return calibrate(cr, params, jobs)
    from ..terminal import progress_bar

    name = cr.rules.name if variant in (None, cr.rules.name) else \
        f"variant {variant} (ruleset {cr.rules.name})"
    per_round = deals_per_round(cr, params)
    say(f"calibrating {label} for {name}, sha256 {cr.sha256[:12]}…: up to {params.rounds} "
        f"rounds of {per_round:,} self-play deals, {jobs} job{'s' * (jobs != 1)}, about "
        f"{estimated_seconds(cr, params, jobs):,.0f} s at most; cached in {cache_dir()}")
    total = params.rounds * per_round
    with progress_bar(total, f"calibrating {label}", unit=" deals") as bar:
        found = calibrate(cr, params, jobs, lambda m: say("  " + m), bar.update)
    say("  " + verdict(found.summary, params))
    return found


def verdict(summary: dict, params: EvParams) -> str:
    """Whether the self-play settled, in words (the module's text: under SETTLED), and if not,
    how far apart the calls were whose order it still changed."""
    rounds = summary.get("rounds", [])
    if not rounds:
        return "no self-play rounds recorded"
    last = rounds[-1]["policy_changed"]
    n = len(rounds)
    if last < SETTLED:
        return (f"settled after {n} round{'s' * (n != 1)}: the last changed the best call on "
                f"{last:.1%} of the sampled decisions (under {SETTLED:.1%})")
    text = (f"not settled after {n} rounds: the last still changed the best call on {last:.1%} "
            f"of the sampled decisions (settled: under {SETTLED:.1%})")
    gap = rounds[-1].get("gap")
    if gap is not None:
        text += (f", between calls worth {gap:.2f} apart on average (in payout units per hand): "
                 "near-ties. More rounds or deals narrow them, slowly "
                 f"(rounds = {min(50, params.rounds * 2)} or deals = {params.deals * 4})")
    return text


def _rates() -> dict:
    """{deck size: deals per second per job} of this machine's last calibrations."""
    try:
        found = json.loads((cache_dir() / "ev" / "rates.json").read_text())
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, (int, float)) and v > 0} \
        if isinstance(found, dict) else {}


def _record_rate(n_cards: int, rate: float) -> None:
    rates = {**_rates(), str(n_cards): rate}
    path = cache_dir() / "ev" / "rates.json"
    tmp = path.with_name(f"rates.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(rates))
        os.replace(tmp, path)
    except OSError:
        pass  # only an estimate is lost


def estimated_seconds(cr, params: EvParams, jobs: int) -> float:
    """An upper bound of a calibration's time (every round played): deals at the rate this
    machine last calibrated a deck of this size, else a rate measured on 2 cores."""
    rate = _rates().get(str(cr.n_cards)) or DEFAULT_RATE.get(cr.n_cards, DEFAULT_RATE[32])
    return params.rounds * deals_per_round(cr, params) / (rate * max(1, min(jobs, 64)))


def deals_per_round(cr, params: EvParams) -> int:
    """`deals`, rounded up to a whole number of passes over the hand keys where keys are exact."""
    from .calibrate_play import round_deals
    return round_deals(_Setting(cr, params))


def is_cached(cr, params: EvParams) -> bool:
    key = cache_key(cr, params)
    return key in _MEMORY or _load(cache_dir() / "ev" / f"{key}.npz", key, cr) is not None


# ---------------------------------------------------------------------------------- the method


class _Setting:
    """What one ruleset's calibration reads: tables, key space, the card order of each call."""

    def __init__(self, cr, params: EvParams):
        self.cr, self.params = cr, params
        self.n_seats = cr.tables.n_seats  # the table's positions, forehand .. dealer
        self.power, self.ctab = rules_table(cr.rules, "heuristic", lambda: heuristic_tables(cr))
        self.binom, self.edges, self.n_keys = key_space(cr, self.power)
        self.K = len(cr.contract_names)
        self.n_codes = CALL_BID + self.K + cr.tables.n_chain
        self.n_chain = int(cr.tables.n_chain)
        self.n_ctx = n_contexts(self.K, self.n_chain, cr.tables.reopen)
        if self.n_codes > 64:  # calibration records the legal calls of a point as 64 bits
            from ..errors import InputError, Problem
            raise InputError([Problem(cr.rules.name, "contracts", f"the ev bot needs at most 64 "
                                      f"call codes (pass, ask, bids, doubles); this ruleset has "
                                      f"{self.n_codes}")])
        self.normal = int(cr.tables.normal_k)
        self.code_order = np.array([[call_order(c, self._ctx_order(x), self.ctab)
                                     for c in range(self.n_codes)] for x in range(self.n_ctx)])
        self.key_masks = self._key_masks()
        self.coarse = self._coarse_keys()

    def _key_masks(self) -> np.ndarray | None:
        """[key] -> the hand (bitmask), with exact keys; None with strength buckets."""
        if self.edges.shape[1] > 0:
            return None
        nc, hs = self.cr.n_cards, self.cr.n_cards // self.n_seats
        masks = np.zeros(self.n_keys, np.uint64)
        for cards in combinations(range(nc), hs):
            m = np.uint64(sum(1 << c for c in cards))
            masks[hand_key(m, 0, self.binom, self.edges, self.power)] = m
        return masks

    def _ctx_order(self, ctx: int) -> int:
        k = ctx // (self.n_chain + 1) // 2 - 1  # K: the reopening round's, without a bid
        return int(self.ctab[k if 0 <= k < self.K else self.normal, 2])

    def _coarse_keys(self) -> np.ndarray:
        """[key, order] -> strength bucket: the coarser level exact keys are drawn towards."""
        n_orders = self.power.shape[0]
        out = np.zeros((self.n_keys, n_orders), np.int64)
        if self.key_masks is None:
            return out
        for o in range(n_orders):
            s = np.array([strength(m, o, self.power) for m in self.key_masks])
            cuts = np.quantile(s, np.arange(1, BUCKETS) / BUCKETS)
            out[:, o] = np.searchsorted(cuts, s, side="right")
        return out

    def empty(self) -> np.ndarray:
        return np.zeros((self.n_keys, self.n_seats, self.n_ctx, self.n_codes), np.float64)

    def table(self, values: np.ndarray, summary: dict | None = None, key: str = "") -> EvTable:
        """The table of these values; without a key, a working table of a round, played but
        never stored, so left without the checksum (which costs as much as a round's play)."""
        values = np.ascontiguousarray(values, np.float64)
        sha = hashlib.sha256(values.data).hexdigest() if key else ""
        return EvTable(values, self.binom, self.edges, key, sha, summary or {})


def calibrate(cr, params: EvParams, jobs: int = 1,
              progress: Callable[[str], None] | None = None,
              advance: Callable[[int], None] | None = None) -> EvTable:
    """Learns the table by rounds of self-play (see the module's text)."""
    from .calibrate_play import explore_round, summarise
    st = _Setting(cr, params)
    total, count = st.empty(), st.empty()
    values = estimate(st, total, count)
    history = []
    for r in range(params.rounds):
        s, n = explore_round(st, st.table(values), r, jobs, advance)
        total, count = total + s, count + n
        new = estimate(st, total, count)
        changed = policy_change(values, new, count)
        gap = flip_gap(values, new, count)
        values = new
        history.append({"round": r + 1, "policy_changed": changed, "gap": gap})
        if progress:
            progress(f"round {r + 1}/{params.rounds}: the policy changed on {changed:.1%} "
                     "of the decisions")
        if r > 0 and changed < SETTLED:
            break
    summary = summarise(st, st.table(values))
    summary["rounds"] = history
    return st.table(values, summary, cache_key(cr, params))


def estimate(st: _Setting, total: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Values from the sums and counts of samples: each key's mean drawn towards its bucket's,
    each bucket's towards the position and context's; UNKNOWN where a call was never tried (the
    pass and the ask: 0)."""
    m = st.params.shrink
    g_total, g_count = total.sum(axis=0), count.sum(axis=0)  # [pos, ctx, code]
    g_mean = np.where(g_count > 0, g_total / np.maximum(g_count, 1e-12), 0.0)
    values = np.empty_like(total)
    n_buckets = int(st.coarse.max()) + 1
    for ctx in range(st.n_ctx):
        for code in range(st.n_codes):
            b = st.coarse[:, st.code_order[ctx, code]]
            for pos in range(st.n_seats):
                t, n = total[:, pos, ctx, code], count[:, pos, ctx, code]
                bucket = _shrunk(np.bincount(b, t, n_buckets), np.bincount(b, n, n_buckets),
                                 g_mean[pos, ctx, code], m)
                values[:, pos, ctx, code] = _shrunk(t, n, bucket[b], m)
    never = g_count <= 0
    values[:, never] = UNKNOWN
    values[:, :, :, :CALL_BID] = np.where(never[None, :, :, :CALL_BID], 0.0,
                                          values[:, :, :, :CALL_BID])
    return values


def _shrunk(total, count, prior, m: float):
    """Means of samples drawn towards prior with the weight of m samples (none: the prior)."""
    if m > 0:
        return (total + m * prior) / (count + m)
    return np.where(count > 0, total / np.maximum(count, 1e-12), prior)


def flip_gap(old: np.ndarray, new: np.ndarray, count: np.ndarray) -> float | None:
    """Over the sampled decisions whose best call changed (weighted by samples): how much the new
    best call is worth more than the old one, by the new values; None if none changed. Small:
    the flips are between calls of nearly equal value, noise rather than a wrong policy."""
    weight = count.sum(axis=-1)
    was, now = old.argmax(axis=-1), new.argmax(axis=-1)
    old_best_now = np.take_along_axis(new, was[..., None], axis=-1)[..., 0]
    gap = new.max(axis=-1) - old_best_now
    flipped = (was != now) & (weight > 0) & (old_best_now > UNKNOWN / 2)
    if weight[flipped].sum() <= 0:
        return None
    return float((weight * gap)[flipped].sum() / weight[flipped].sum())


def policy_change(old: np.ndarray, new: np.ndarray, count: np.ndarray) -> float:
    """The share of sampled decisions (weighted by samples) whose best call differs."""
    weight = count.sum(axis=-1)
    if weight.sum() <= 0:
        return 1.0
    differs = old.argmax(axis=-1) != new.argmax(axis=-1)
    return float((weight * differs).sum() / weight.sum())


# ---------------------------------------------------------------------------------- the cache


def _save(path: Path, table: EvTable) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        np.savez_compressed(f, values=table.values, binom=table.binom, edges=table.edges,
                            meta=np.array(json.dumps({"key": table.key, "sha256": table.sha256,
                                                      "summary": table.summary})))
    os.replace(tmp, path)


def _load(path: Path, key: str, cr) -> EvTable | None:
    """The cached table, or None if absent or not exactly what was stored for this key."""
    try:
        with np.load(path, allow_pickle=False) as z:
            values, binom, edges = z["values"], z["binom"], z["edges"]
            meta = json.loads(str(z["meta"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if (meta.get("key") != key or values.dtype != np.float64 or values.ndim != 4
            or hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()
            != meta.get("sha256")
            or binom.shape != (cr.n_cards + 1, cr.n_cards // cr.tables.n_seats + 2)
            or values.shape[1] != cr.tables.n_seats):
        return None
    return EvTable(values, binom, edges, key, meta["sha256"], meta.get("summary", {}))


def round_seed(params: EvParams, r: int) -> int:
    return hand_seed(params.seed, 1_000_003 + r)


def prepare(cr, bots, jobs: int = 1, say: Callable[[str], None] | None = None,
            variant: str | None = None) -> list[EvTable]:
    """The tables of a line-up's ev bots, learnt before play where the cache lacks them (saying
    so, naming the variant), so that the processes that play find them in the cache folder."""
    from ..engine.codes import BOT_EV
    return [calibrated(cr, b.params, jobs, say, b.label, variant) for b in bots
            if b.kernel_kind == BOT_EV]
