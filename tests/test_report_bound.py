"""The report's share of the heuristic -> bound gap each fair bot closes (issue 12, item 4):
mean(pay(B) - pay(heuristic)) / mean(pay(bound) - pay(heuristic)) per hand at one table."""

import math

import numpy as np
import polars as pl

from kopsim.report.bound import gap_closed, gap_queries

BOUND = "cheat-dd [sees all hands]"


def _hands(pays):
    """One row per hand: seats 0..3 hold bound, heuristic, fair, heuristic."""
    bots = [BOUND, "heuristic", "fair", "heuristic"]
    rows = [{"variant": "v", **{f"bot_{s}": bots[s] for s in range(4)},
             **{f"payout_{s}": float(p[s]) for s in range(4)}} for p in pays]
    return pl.DataFrame(rows)


def test_the_fraction_is_the_ratio_of_mean_gains_over_the_heuristic():
    rng = np.random.default_rng(3)
    pays = []
    for _ in range(4000):
        h1, h2 = rng.normal(0, 3, 2)
        bound = (h1 + h2) / 2 + 2.0 + rng.normal(0, 1)  # 2 above the heuristic's mean
        fair = (h1 + h2) / 2 + 0.5 + rng.normal(0, 1)  # 0.5 above: a quarter of the gap
        pays.append((bound, h1, fair, h2))
    df = _hands(pays)
    lineups = df.select("variant", *[f"bot_{s}" for s in range(4)]).unique()
    (q, bound, fair), = gap_queries(df.lazy(), lineups, 4).values()
    row, = gap_closed(q.collect(), "v", bound, fair)
    assert bound == BOUND and fair == ["fair"] and row["hands"] == 4000
    x = np.array([p[2] - (p[1] + p[3]) / 2 for p in pays])
    y = np.array([p[0] - (p[1] + p[3]) / 2 for p in pays])
    assert math.isclose(row["gap_closed"], x.mean() / y.mean(), rel_tol=1e-9)
    assert row["gap_closed_lo"] < 0.25 < row["gap_closed_hi"]
    assert row["gap_closed_hi"] - row["gap_closed_lo"] < 0.1


def test_no_fraction_without_a_bound_a_heuristic_and_a_fair_bot_at_every_hand():
    df = _hands([(1, 0, 0, -1)] * 3)
    for bots in ([BOUND, "heuristic", "heuristic", "heuristic"],
                 ["random", "heuristic", "fair", "heuristic"]):
        d = df.with_columns(*[pl.lit(bots[s]).alias(f"bot_{s}") for s in range(4)])
        lineups = d.select("variant", *[f"bot_{s}" for s in range(4)]).unique()
        assert gap_queries(d.lazy(), lineups, 4) == {}
