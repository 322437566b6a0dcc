"""The summary's effects: the paired differences that matter, ranked by size.

A difference is an effect when its 95% interval excludes 0 and it is at least the practical
size of its unit: with millions of deals a difference of 0.002 doubles a hand is significant
and still too small to change anyone's game. The contract mix comes first (what people play
is what a rule change does first), each contract by the size of its move; then the other
measures, by how many practical sizes they moved. The Paired differences table keeps every
difference, effects or not.
"""

from __future__ import annotations

import math

import polars as pl

# the smallest difference the summary reports, per unit; payouts as a share of the baseline's
# mean stake per hand (a payout's size means something only against what a hand is worth)
PRACTICAL = {"rate": 0.01, "points": 1.0, "doubles": 0.05}
STAKE_SHARE = 0.02
PRACTICAL_WORDS = ("1 percentage point for shares and rates, 1 card point, 0.05 doubles a "
                   "hand, and for payouts 2% of the baseline's mean stake")


def practical_size(unit: str, baseline_stake: float | None) -> float:
    if unit in PRACTICAL:
        return PRACTICAL[unit]
    stake = abs(baseline_stake or 0.0)
    return STAKE_SHARE * stake if stake > 0 and not math.isnan(stake) else 0.0


def effects(paired: pl.DataFrame, variant: str, baseline_stake: float | None
            ) -> tuple[list[dict], int]:
    """(the variant's effects, contracts first and each group largest first; how many
    significant differences fell short of the practical size)."""
    rows = paired.filter((pl.col("variant") == variant) & pl.col("significant")
                         & pl.col("diff").is_not_null()).to_dicts()
    kept, small = [], 0
    for r in rows:
        size = practical_size(r["unit"], baseline_stake)
        if abs(r["diff"]) < size:
            small += 1
            continue
        r["sizes"] = abs(r["diff"]) / size if size else math.inf
        kept.append(r)
    kept.sort(key=lambda r: (r["kind"] != "contract",
                             -abs(r["diff"]) if r["kind"] == "contract" else -r["sizes"]))
    return kept, small


def price_share(r: dict) -> float | None:
    """The part of a payout difference made on deals played the same in both variants (the
    price table, not the play), as a share of the difference; None where not a payout."""
    same, diff = r.get("same_play_diff"), r["diff"]
    if r["unit"] != "payout" or same is None or not diff:
        return None
    return same / diff


def win_rate_parts(contracts: pl.DataFrame, base: str, variant: str) -> tuple[float, float]:
    """(the contract mix's part, the part within contracts) of the declarers' win rate's move
    from base to variant: the mix's part is what the base's win rate of each contract gives
    at the variant's shares, the rest is each contract won more or less often. A contract only
    the variant plays counts wholly to the mix."""
    def shares(v: str) -> dict[str, tuple[float, float]]:
        rows = contracts.filter((pl.col("variant") == v) & (pl.col("hands") > 0))
        return {r["contract"]: (r["share"], r["win_rate"]) for r in rows.iter_rows(named=True)}
    b, v = shares(base), shares(variant)
    mix = within = 0.0
    for c in set(b) | set(v):
        sb, wb = b.get(c, (0.0, None))
        sv, wv = v.get(c, (0.0, None))
        wb = wv if wb is None else wb
        wv = wb if wv is None else wv
        mix += (sv - sb) * wb
        within += sv * (wv - wb)
    return mix, within
