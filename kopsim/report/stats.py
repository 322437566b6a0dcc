"""95% confidence intervals: Wilson for proportions, the normal approximation for means.

Everything here works on small aggregated numbers (counts, sums, sums of squares), so the heavy
lifting stays in polars and a mean over millions of hands is combined from per-group moments.
"""

from __future__ import annotations

import math

Z = 1.959963984540054  # the 97.5% quantile of the standard normal: two-sided 95%


def wilson(k: float, n: float, z: float = Z) -> tuple[float, float, float]:
    """(proportion, low, high): the Wilson score interval for k successes in n trials."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    p = k / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    # (rounding can put an end a hair past p when p is 0 or 1)
    return (p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def mean_ci(n: float, mean: float, sd: float, z: float = Z) -> tuple[float, float]:
    """(low, high) of the normal-approximation interval mean ± z·sd/√n (sd with n − 1)."""
    if n is None or n < 2 or mean is None or sd is None or math.isnan(sd):
        return (math.nan, math.nan)
    half = z * sd / math.sqrt(n)
    return (mean - half, mean + half)


def moments(n: float, s1: float, s2: float) -> tuple[float, float]:
    """(mean, sample sd) from the count, sum and sum of squares."""
    if not n:
        return (math.nan, math.nan)
    mean = s1 / n
    if n < 2:
        return (mean, math.nan)
    var = max(s2 - n * mean * mean, 0.0) / (n - 1)
    return (mean, math.sqrt(var))


def significant(lo: float, hi: float) -> bool:
    """Does the interval exclude 0?"""
    return not (math.isnan(lo) or math.isnan(hi)) and (lo > 0 or hi < 0)
