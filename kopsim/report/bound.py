"""How much of the gap between the heuristic and a bot that sees every card each fair bot closes.

At a table where a bound (a bot marked "[sees all hands]"), the `heuristic` baseline and fair
bots all play, each hand gives every bot's payout (the mean over its seats). For a fair bot B,
with x = pay(B) − pay(heuristic) and y = pay(bound) − pay(heuristic) per hand, the fraction of
the gap it closes is mean(x) / mean(y): 0 plays like the heuristic, 1 like the bound. Its 95%
interval is the delta method's on the per-hand pairs (x, y), which share the cards.
"""

from __future__ import annotations

import math

import polars as pl

from .stats import Z

BOUND_MARK = "[sees all hands]"
BASELINE = "heuristic"


def gap_queries(h: pl.LazyFrame, lineups: pl.DataFrame, seats: int) -> dict[str, pl.LazyFrame]:
    """Per variant with a bound, a baseline and a fair bot in every hand: the sums behind each
    fair bot's fraction. Empty where no variant has them."""
    out = {}
    for v in lineups["variant"].unique(maintain_order=True).to_list():
        seen = lineups.filter(pl.col("variant") == v)
        tables = [set(r[f"bot_{s}"] for s in range(seats)) for r in seen.iter_rows(named=True)]
        common = set.intersection(*tables) if tables else set()
        bounds = sorted(b for b in common if b.endswith(BOUND_MARK))
        fair = sorted(b for b in common if not b.endswith(BOUND_MARK) and b != BASELINE)
        if len(bounds) != 1 or BASELINE not in common or not fair:
            continue
        pay = {b: _bot_pay(b, seats) for b in [bounds[0], BASELINE, *fair]}
        y = pay[bounds[0]] - pay[BASELINE]
        sums = [pl.len().alias("n"), y.sum().alias("sy"), (y * y).sum().alias("syy")]
        for i, b in enumerate(fair):
            x = pay[b] - pay[BASELINE]
            sums += [x.sum().alias(f"sx{i}"), (x * x).sum().alias(f"sxx{i}"),
                     (x * y).sum().alias(f"sxy{i}")]
        out[v] = (h.filter(pl.col("variant") == v).select(sums), bounds[0], fair)
    return out


def _bot_pay(bot: str, seats: int) -> pl.Expr:
    """The bot's payout on a hand: the mean over the seats it holds."""
    held = [pl.col(f"bot_{s}") == bot for s in range(seats)]
    total = sum(pl.when(held[s]).then(pl.col(f"payout_{s}")).otherwise(0.0)
                for s in range(seats))
    return total / sum(held[s].cast(pl.Float64) for s in range(seats))


def gap_closed(sums: pl.DataFrame, variant: str, bound: str, fair: list[str]) -> list[dict]:
    r = sums.row(0, named=True)
    n = r["n"]
    rows = []
    for i, b in enumerate(fair):
        frac, lo, hi = _ratio_ci(n, r[f"sx{i}"], r["sy"], r[f"sxx{i}"], r["syy"], r[f"sxy{i}"])
        rows.append({"variant": variant, "bot": b, "bound": bound, "baseline": BASELINE,
                     "hands": n, "gap_closed": frac, "gap_closed_lo": lo, "gap_closed_hi": hi,
                     "gap": r["sy"] / n if n else math.nan})
    return rows


def _ratio_ci(n, sx, sy, sxx, syy, sxy) -> tuple[float, float, float]:
    """mean(x) / mean(y) and its delta-method 95% interval (NaN where the gap is 0)."""
    if n < 2 or sy == 0:
        return math.nan, math.nan, math.nan
    mx, my = sx / n, sy / n
    r = mx / my
    vx = (sxx - n * mx * mx) / (n - 1)
    vy = (syy - n * my * my) / (n - 1)
    cxy = (sxy - n * mx * my) / (n - 1)
    var = max(vx - 2 * r * cxy + r * r * vy, 0.0) / (n * my * my)
    half = Z * math.sqrt(var)
    return r, r - half, r + half
