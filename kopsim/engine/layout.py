"""A run of hands for `kopsim simulate`, laid out on deal ids exactly as `kopsim run` lays them
out (kopsim/experiments/spec.py, kopsim/experiments/run.py), so the same ruleset and seed deal the same hands in both.

Deal d has seed `hand_seed(seed, d)` and dealer `d % 4`. Sessions start on deal ids that are
multiples of 4 (their hand i is dealt by seat i % 4): a series of L hands takes deals
[s*L', s*L' + L) with L' = L rounded up to a multiple of 4; a bankroll session runs until a
player is out and the next starts at the next multiple of 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .kernel import BatchResult, play_batch, take
from ..rules.compile import CompiledRules
from .rng import hand_seeds_np


def hand_seeds(run_seed: int, start: int, count: int) -> np.ndarray:
    return hand_seeds_np(np.full(count, run_seed, np.uint64),
                         np.arange(start, start + count, dtype=np.uint64))


def deal_seeds(run_seed: int, deal_ids: np.ndarray) -> np.ndarray:
    return hand_seeds_np(np.full(len(deal_ids), run_seed, np.uint64), deal_ids)


@dataclass
class Chunk:
    result: BatchResult  # its hand_index is the index in the run, or in the session
    session: np.ndarray | None  # session of each hand (None: the ruleset has no sessions)
    # bankroll sessions: result.payouts is what moved; these are the rules' price of each hand
    # and the cards each seat held before it
    nominal_payouts: np.ndarray | None = None
    bankroll: np.ndarray | None = None


def iter_run(cr: CompiledRules, run_seed: int, n_hands: int, chunk: int = 65536) -> Iterator[Chunk]:
    """The first n_hands hands of a run, chunk by chunk, in order."""
    spec = cr.rules.session
    if spec is None:
        for start in range(0, n_hands, chunk):
            count = min(chunk, n_hands - start)
            d = np.arange(start, start + count, dtype=np.int64)
            yield Chunk(play_batch(cr, deal_seeds(run_seed, d), d % 4, d), None)
    elif spec.kind == "series":
        length = spec.hands
        stride = -(-length // 4) * 4
        for start in range(0, n_hands, chunk):
            g = np.arange(start, min(n_hands, start + chunk), dtype=np.int64)
            sess, idx = g // length, g % length
            d = sess * stride + idx
            yield Chunk(play_batch(cr, deal_seeds(run_seed, d), d % 4, idx), sess)
    else:
        yield from _bankroll_run(cr, run_seed, n_hands, chunk)


def _bankroll_run(cr: CompiledRules, run_seed: int, n_hands: int, chunk: int) -> Iterator[Chunk]:
    """Sessions end when a player is out, which only play reveals: play deals in order and let
    the bankroll scan keep the hands of each session."""
    from ..experiments.run import CARRY0
    from .session_rows import bankroll_scan

    spec = cr.rules.session
    carry = dict(CARRY0)
    produced, cursor = 0, 0
    while produced < n_hands:
        d = np.arange(cursor, cursor + chunk, dtype=np.int64)
        cursor += chunk
        res = play_batch(cr, deal_seeds(run_seed, d), d % 4, d)
        scan = bankroll_scan(spec, carry, d, res.payouts, final=False)
        carry = scan.carry
        n = min(len(scan.keep), n_hands - produced)
        if n == 0:
            continue
        part = take(res, scan.keep[:n])
        part.hand_index = scan.hand_index[:n].astype(np.int64)
        part.payouts = scan.paid[:n]
        produced += n
        yield Chunk(part, scan.session[:n].astype(np.int64), res.payouts[scan.keep[:n]],
                    scan.held[:n])
