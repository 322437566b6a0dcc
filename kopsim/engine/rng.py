"""Seeds and random streams, identical in plain Python and in the numba kernel.

Every hand has its own 63-bit seed derived from (run seed, hand index), so any hand can be
replayed alone and any split of a run into chunks or processes gives the same hands. A hand's
seed opens five SplitMix64 streams: stream 0 shuffles the deck, stream 1 + s drives seat s's
random choices. Per-seat streams keep one seat's draws independent of how often the others draw,
which is what lets the reference engine and the batch kernel agree card for card.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
STREAM = 0xD1B54A32D192ED03
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def hand_seed(run_seed: int, hand_index: int) -> int:
    """The seed of hand `hand_index` of a run seeded with `run_seed` (fits an int64)."""
    return mix64((run_seed & MASK64) * GOLDEN + hand_index) >> 1


class Stream:
    """SplitMix64: tiny, fast, and easy to reproduce exactly in compiled code."""

    __slots__ = ("state",)

    def __init__(self, seed: int, stream: int):
        self.state = mix64((seed + stream * STREAM) & MASK64)

    def next(self) -> int:
        self.state = (self.state + GOLDEN) & MASK64
        return mix64(self.state)

    def choice(self, n: int) -> int:
        """Uniform integer in [0, n) by multiply-shift on the high 32 bits."""
        return ((self.next() >> 32) * n) >> 32


def shuffled(seed: int, n: int) -> list[int]:
    """Fisher–Yates permutation of range(n) from stream 0 of `seed`."""
    rng = Stream(seed, 0)
    a = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.choice(i + 1)
        a[i], a[j] = a[j], a[i]
    return a


def hand_seeds_np(run_seeds, hand_indices):
    """Vectorised `hand_seed` over numpy arrays (uint64 arithmetic wraps like the scalar one)."""
    import numpy as np

    with np.errstate(over="ignore"):
        z = (np.asarray(run_seeds).astype(np.uint64) * np.uint64(GOLDEN)
             + np.asarray(hand_indices).astype(np.uint64))
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(1)).astype(np.int64)
