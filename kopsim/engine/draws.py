"""The compiled SplitMix64 draws of `kopsim.engine.rng`: the deal's stream and one stream per seat."""

from __future__ import annotations

import numpy as np
from numba import njit

from .rng import GOLDEN as _G, MIX1 as _M1, MIX2 as _M2, STREAM as _S

GOLDEN = np.uint64(_G)
MIX1 = np.uint64(_M1)
MIX2 = np.uint64(_M2)
STREAM = np.uint64(_S)
U30, U27, U31, U32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@njit(cache=True, inline='always')
def mix64(z):
    z = (z ^ (z >> U30)) * MIX1
    z = (z ^ (z >> U27)) * MIX2
    return z ^ (z >> U31)


@njit(cache=True, inline='always')
def draw(state, n):
    """One SplitMix64 step: (uniform index in [0, n), next state)."""
    state = state + GOLDEN
    return np.int64(((mix64(state) >> U32) * np.uint64(n)) >> U32), state

