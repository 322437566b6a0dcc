"""A run of hands: seeds derived up front, sessions laid out, played in chunks by the kernel.

Hand seeds depend only on (run seed, session, hand index), never on chunking or on which process
plays a hand, so any split of a run gives the same hands.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from .batch import BatchResult, concat, play_batch, take
from .compiled import CompiledRules
from .rng import hand_seed, hand_seeds_np
from .session import BankrollSession


def hand_seeds(run_seed: int, start: int, count: int) -> np.ndarray:
    return hand_seeds_np(np.full(count, run_seed, np.uint64),
                         np.arange(start, start + count, dtype=np.uint64))


def session_seed(run_seed: int, session: int) -> int:
    return hand_seed(run_seed, session)


def session_hand_seeds(run_seed: int, sessions: np.ndarray, idx: np.ndarray) -> np.ndarray:
    return hand_seeds_np(hand_seeds_np(np.full(len(sessions), run_seed, np.uint64), sessions), idx)


@dataclass
class Chunk:
    result: BatchResult
    session: np.ndarray | None  # session of each hand (None: the ruleset has no sessions)


def iter_run(cr: CompiledRules, run_seed: int, n_hands: int, chunk: int = 65536) -> Iterator[Chunk]:
    """The first n_hands hands of a run, chunk by chunk, in order."""
    spec = cr.rules.session
    if spec is None:
        for start in range(0, n_hands, chunk):
            count = min(chunk, n_hands - start)
            idx = np.arange(start, start + count, dtype=np.int64)
            yield Chunk(play_batch(cr, hand_seeds(run_seed, start, count), idx % 4, idx), None)
    elif spec.kind == "series":
        length = spec.hands
        for start in range(0, n_hands, chunk):
            count = min(chunk, n_hands - start)
            g = np.arange(start, start + count, dtype=np.int64)
            sess, idx = g // length, g % length
            seeds = session_hand_seeds(run_seed, sess, idx)
            yield Chunk(play_batch(cr, seeds, idx % 4, idx), sess)
    else:
        yield from _bankroll_run(cr, run_seed, n_hands, chunk)


def _bankroll_run(cr: CompiledRules, run_seed: int, n_hands: int, chunk: int) -> Iterator[Chunk]:
    """Sessions end when a player is out, which only play reveals: deal each open session a
    block of hands, keep those up to its end, and deal more to the sessions still going."""
    spec = cr.rules.session
    block = 16
    produced = 0
    first_session = 0
    while produced < n_hands:
        group = max(1, min(chunk // block, (n_hands - produced) // 4 + 1))
        sessions = list(range(first_session, first_session + group))
        state = {s: BankrollSession.start(spec) for s in sessions}
        kept: dict[int, list[BatchResult]] = {s: [] for s in sessions}
        open_ = list(sessions)
        while open_:
            sess = np.repeat(np.array(open_, np.int64), block)
            idx = np.tile(np.arange(block, dtype=np.int64), len(open_))
            idx += np.repeat(np.array([state[s].hands for s in open_], np.int64), block)
            seeds = session_hand_seeds(run_seed, sess, idx)
            res = play_batch(cr, seeds, idx % 4, idx)
            still = []
            for j, s in enumerate(open_):
                b = state[s]
                used = 0
                for i in range(j * block, (j + 1) * block):
                    b.play([float(x) for x in res.payouts[i]])
                    used += 1
                    if b.over:
                        break
                kept[s].append(take(res, np.arange(j * block, j * block + used)))
                if not b.over:
                    still.append(s)
            open_ = still
        for s in sessions:
            part = concat(kept[s])
            room = n_hands - produced
            if room <= 0:
                return
            if len(part) > room:
                part = take(part, np.arange(room))
            produced += len(part)
            yield Chunk(part, np.full(len(part), s, np.int64))
        first_session += group
