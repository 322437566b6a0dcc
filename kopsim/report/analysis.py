"""Every number of the report, computed by polars lazily over the Parquet files.

All the queries are built first and collected together (`pl.collect_all`, streaming engine), so a
report reads each needed column of millions of hands a few times in bounded memory, and only
small aggregates (counts, sums, sums of squares per group) ever reach Python. Confidence
intervals are then computed from those aggregates (`stats`).

The result is an `Analysis`: tidy polars DataFrames, one per summary table (also written as
CSV), which `render` and `plots` present.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import polars as pl

from ..rules.diff import Change, diff_rules
from ..rules.model import positions  # counted from the dealer's left
from .cited import cited_deals
from .read import Results
from .stats import mean_ci, moments, significant, wilson
from .wording import Wording, wording

TIER_KEYS = ("schneider", "schwarz", "tie")  # the outcomes table's rows, in order
# Okabe–Ito, which colour-blind readers can tell apart; one colour per variant, everywhere
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000",
           "#F0E442")

# per-hand measures compared deal by deal between a variant and the first: (key, label, unit),
# then the payout of each position of the table; the tie's label ("52:52") comes from the
# rulesets, see paired_metrics
HAND_METRICS = (
    ("old_win", "old side (declarer) wins", "rate"),
    ("schneider_schwarz", "schneider or schwarz", "rate"),
    ("tie", "tie", "rate"),
    ("old_pts", "old-side card points", "points"),
    ("doubles", "counted doubles", "doubles"),
    ("stake", "stake per hand", "payout"),
)


def metric_keys(seats: int) -> tuple[tuple[str, str, str], ...]:
    """HAND_METRICS and the payout of each position at a table of `seats`."""
    return HAND_METRICS + tuple((f"pos_{p}", f"payout, {name}", "payout")
                                for p, name in enumerate(positions(seats)))


def play_columns(seats: int) -> tuple[str, ...]:
    """What decides the play of a hand, compared deal by deal (with pay_columns, what was paid
    for it: when every deal is played the same but paid differently, only the price differs)."""
    return ("contract", "doubles", "winner", "tier", *[f"old_{s}" for s in range(seats)],
            *[f"points_{s}" for s in range(seats)])


def pay_columns(seats: int) -> tuple[str, ...]:
    return tuple(f"payout_{s}" for s in range(seats))


def bot_columns(seats: int) -> list[str]:
    return [f"bot_{s}" for s in range(seats)]


def tier_labels(words: Wording) -> dict[str, str]:
    """Outcome key -> the row label of the outcomes table."""
    return {"schneider": "schneider", "schwarz": "schwarz", "tie": words.tie}


def paired_metrics(words: Wording, seats: int) -> tuple[tuple[str, str, str], ...]:
    """The measures compared deal by deal, with the tie named as these rulesets name it."""
    return tuple((key, words.tie if key == "tie" else label, unit)
                 for key, label, unit in metric_keys(seats))


@dataclass
class Analysis:
    results: Results
    variants: list[str]  # labels that have hands, in manifest order
    colors: dict[str, str]
    overview: pl.DataFrame
    contracts: pl.DataFrame
    tiers: pl.DataFrame
    doubles: pl.DataFrame
    old_points: pl.DataFrame
    old_points_hist: pl.DataFrame
    seats: pl.DataFrame
    bots: pl.DataFrame
    stakes: pl.DataFrame
    payout_hist: pl.DataFrame
    paired: pl.DataFrame
    words: Wording  # what the rulesets call a tie and the old side of the plain game
    sessions: pl.DataFrame | None = None
    session_seats: pl.DataFrame | None = None
    session_bots: pl.DataFrame | None = None
    session_length_hist: pl.DataFrame | None = None
    rule_diffs: dict[str, list[Change] | None] = field(default_factory=dict)

    @property
    def n_seats(self) -> int:
        """The seats of the experiment's table: a column of the hands a seat."""
        return self.results.seats

    def positions(self) -> tuple[str, ...]:
        return positions(self.n_seats)
    notes: list[str] = field(default_factory=list)
    lineups: pl.DataFrame | None = None  # variant, bot_0 .. bot_3, hands, share
    same_play: pl.DataFrame | None = None  # per other variant: deals played and paid the same
    session_rotation: pl.DataFrame | None = None  # variant, sessions, rotating (line-up moves)
    tournaments: pl.DataFrame | None = None  # variant, bot: final standings (report.tournaments)
    gap: pl.DataFrame | None = None  # variant, bot: heuristic -> bound gap closed (report.bound)
    # variant, position, bot: the mean payout of each bot in each seat position
    position_bots: pl.DataFrame | None = None
    cited: list = field(default_factory=list)  # report.cited.CitedDeal: the deal each changed most

    @property
    def baseline(self) -> str:
        return self.variants[0]

    def variant(self, label: str):
        return next(v for v in self.results.variants if v.label == label)

    def contract_order(self, seen: list[str] | None = None) -> list[str]:
        """Contracts in ruleset order (first variant first), then any others seen."""
        order: list[str] = []
        for label in self.variants:
            r = self.variant(label).ruleset
            if r is not None:
                order += [c for c in _play_order(r) if c not in order]
        if seen is None:
            seen = self.contracts["contract"].unique().to_list()
        return order + sorted(c for c in seen if c is not None and c not in order)

    def mean_stake(self, label: str) -> float | None:
        """The variant's mean stake per hand (what a hand is worth: the payouts' yardstick)."""
        st = self.stakes.filter(pl.col("variant") == label)
        return None if st.is_empty() else st["mean"][0]

    def tables(self) -> dict[str, pl.DataFrame]:
        """CSV name -> table."""
        out = {"variants": self.overview, "contracts": self.contracts, "outcomes": self.tiers,
               "doubling": self.doubles, "old_points": self.old_points,
               "old_points_histogram": self.old_points_hist, "payout_by_position": self.seats,
               "payout_by_bot": self.bots, "stakes": self.stakes,
               "payout_histogram": self.payout_hist, "paired_differences": self.paired,
               "rule_differences": self.rule_diff_frame()}
        for name in ("lineups", "same_play", "position_bots", "sessions", "session_seats",
                     "session_bots", "session_length_hist", "tournaments", "gap"):
            df = getattr(self, name)
            if df is not None:
                out[name.replace("_hist", "_histogram")] = df
        return out

    def rule_diff_frame(self) -> pl.DataFrame:
        rows = []
        for label, changes in self.rule_diffs.items():
            for c in changes or []:
                rows.append({"variant": label, "baseline": self.baseline, "section": c.section,
                             "change": c.text})
        return pl.DataFrame(rows, schema={"variant": pl.String, "baseline": pl.String,
                                          "section": pl.String, "change": pl.String})


# ------------------------------------------------------------------------------ building blocks


def _play_order(r) -> list[str]:
    """A ruleset's contracts as a player thinks of them: what is played when nobody bids (the
    plain game first), what the deal decides, then the bids from lowest to highest. (Manifests
    may store the ruleset with its keys sorted, so the file's own order is not available.)"""
    unbid = list(reversed(r.auction.no_bid)) + list(r.auction.dealt)
    rest = [c for c in r.contracts if c not in unbid and c not in r.bids()]
    return [c for c in unbid if c in r.contracts] + rest + r.bids()


def _pos_payout(p: int, seats: int) -> pl.Expr:
    """The payout of the seat at position p (0 forehand ... seats - 1 dealer) of each hand."""
    d = pl.col("dealer")
    e = pl.when(d == 0).then(pl.col(f"payout_{(1 + p) % seats}"))
    for dealer in range(1, seats - 1):
        e = e.when(d == dealer).then(pl.col(f"payout_{(dealer + 1 + p) % seats}"))
    return e.otherwise(pl.col(f"payout_{(seats + p) % seats}"))


def _prepared(hands: pl.LazyFrame, seats: int) -> pl.LazyFrame:
    played = ~pl.col("tier").is_in(["instant", "thrown_in"])
    old_pts = pl.sum_horizontal([pl.when(pl.col(f"old_{s}")).then(pl.col(f"points_{s}"))
                                 .otherwise(0.0) for s in range(seats)])
    stake = pl.sum_horizontal([pl.col(f"payout_{s}").clip(lower_bound=0) for s in range(seats)])
    return hands.with_columns(
        played=played,
        old_pts=pl.when(played).then(old_pts),
        stake=stake,
        old_win=(pl.col("winner") == "old").fill_null(False),
    )


def _with_wilson(df: pl.DataFrame, k: str, n: str, prefix: str) -> pl.DataFrame:
    vals = [wilson(a, b) for a, b in zip(df[k].to_list(), df[n].to_list())]
    return df.with_columns(pl.Series(prefix, [v[0] for v in vals], pl.Float64),
                           pl.Series(f"{prefix}_lo", [v[1] for v in vals], pl.Float64),
                           pl.Series(f"{prefix}_hi", [v[2] for v in vals], pl.Float64))


def _with_mean_ci(df: pl.DataFrame, n: str, mean: str, sd: str, prefix: str) -> pl.DataFrame:
    cis = [mean_ci(a, b, c) for a, b, c in zip(df[n].to_list(), df[mean].to_list(),
                                                df[sd].to_list())]
    return df.with_columns(pl.Series(f"{prefix}_lo", [c[0] for c in cis], pl.Float64),
                           pl.Series(f"{prefix}_hi", [c[1] for c in cis], pl.Float64))


def _order_variants(df: pl.DataFrame, labels: list[str], *more: str) -> pl.DataFrame:
    rank = {v: i for i, v in enumerate(labels)}
    return (df.filter(pl.col("variant").is_in(labels))
            .with_columns(pl.col("variant").replace_strict(rank, return_dtype=pl.Int32)
                          .alias("_rank"))
            .sort(["_rank", *more]).drop("_rank"))


# --------------------------------------------------------------------------------------- queries
#
# Few passes, each streaming with bounded memory, run one after the other (running them together
# would add up their memory):
#   cube      one group-by over every small key at once (variant, contract, tier, doubles,
#             dealer, old side won) with counts, sums and sums of squares: contracts, outcomes,
#             doubling, payouts by position, stakes and card-point means all come from it;
#   lineups   (variant, bot in each seat): payouts by bot, and the range of deal ids;
#   histograms of the old side's card points and of the payout tuples (a payout a seat);
#   paired    deal ids in slices of PAIR_SLICE: each slice joins every variant with the baseline
#             on deal_id and sums the per-deal differences, so no join ever holds more than a
#             slice (files are written in deal order, so a slice reads only its own chunks).

PAIR_SLICE = 1 << 18


def _moment_aggs(expr: pl.Expr, name: str) -> list[pl.Expr]:
    return [expr.sum().alias(f"{name}_s1"), (expr * expr).sum().alias(f"{name}_s2")]


def _hand_queries(h: pl.LazyFrame, n_seats: int) -> dict[str, pl.LazyFrame]:
    pts = pl.col("old_pts")
    seats = list(pay_columns(n_seats))
    lineup = bot_columns(n_seats)
    return {
        "cube": h.group_by("variant", "contract", "tier", "doubles", "dealer", "old_win").agg(
            n=pl.len(),
            *_moment_aggs(pl.col("stake"), "stake"),
            stake_max=pl.col("stake").max(), stake_zero=(pl.col("stake") == 0).sum(),
            pts_n=pts.count(), pts_s1=pts.sum(), pts_s2=(pts * pts).sum(),
            *[pl.col(c).sum().alias(f"s1_{s}") for s, c in enumerate(seats)],
            *[(pl.col(c) ** 2).sum().alias(f"s2_{s}") for s, c in enumerate(seats)]),
        "lineups": h.group_by("variant", *lineup).agg(
            n=pl.len(), dmin=pl.col("deal_id").min(), dmax=pl.col("deal_id").max(),
            *[pl.col(c).sum().alias(f"s1_{s}") for s, c in enumerate(seats)],
            *[(pl.col(c) ** 2).sum().alias(f"s2_{s}") for s, c in enumerate(seats)]),
        "seat_bots": h.group_by("variant", "dealer", *lineup).agg(
            n=pl.len(),
            *[pl.col(c).sum().alias(f"s1_{s}") for s, c in enumerate(seats)],
            *[(pl.col(c) ** 2).sum().alias(f"s2_{s}") for s, c in enumerate(seats)]),
        "pts_hist": h.filter(pl.col("played")).group_by("variant", "old_pts").agg(hands=pl.len()),
        "pay_tuples": h.group_by("variant", *seats).agg(n=pl.len()),
    }


def _paired_metrics(h: pl.LazyFrame, seats: int) -> pl.LazyFrame:
    return h.select(
        "variant", "deal_id",
        old_win=pl.col("old_win").cast(pl.Float64),
        schneider_schwarz=pl.col("tier").is_in(["schneider", "schwarz"]).cast(pl.Float64),
        tie=(pl.col("tier") == "tie").cast(pl.Float64),
        old_pts=pl.col("old_pts"),
        doubles=pl.col("doubles").cast(pl.Float64),
        stake=pl.col("stake"),
        **{f"pos_{p}": _pos_payout(p, seats) for p in range(seats)},
        **{f"play_{c}": pl.col(c) for c in play_columns(seats) + pay_columns(seats)},
    )


def _all_equal(columns) -> pl.Expr:
    return pl.all_horizontal([pl.col(f"play_{c}").eq_missing(pl.col(f"play_{c}_base"))
                              for c in columns])


def _paired_slice(m: pl.LazyFrame, base: str, others: list[str], lo: int, hi: int,
                  seats: int) -> list[pl.LazyFrame]:
    """Deals [lo, hi): distinct deal ids per variant, and per other variant the sums of the
    per-deal differences from the baseline."""
    part = m.filter((pl.col("deal_id") >= lo) & (pl.col("deal_id") < hi))
    out = [part.group_by("variant").agg(deals=pl.col("deal_id").n_unique())]
    cross = []
    a = part.filter(pl.col("variant") == base).drop("variant")
    for other in others:
        b = part.filter(pl.col("variant") == other).drop("variant")
        j = b.join(a, on="deal_id", how="inner", suffix="_base")
        same = _all_equal(play_columns(seats))
        aggs = [pl.len().alias("deals"), pl.lit(other).alias("variant"),
                same.sum().alias("same_play"),
                (same & _all_equal(pay_columns(seats))).sum().alias("same_pay")]
        for key, _, _ in metric_keys(seats):
            d = pl.col(key) - pl.col(f"{key}_base")
            ok = d.is_not_null()
            aggs += [d.count().alias(f"{key}__n"), d.sum().alias(f"{key}__s1"),
                     (d * d).sum().alias(f"{key}__s2"),
                     d.filter(same).sum().alias(f"{key}__same"),
                     pl.col(key).filter(ok).sum().alias(f"{key}__var"),
                     pl.col(f"{key}_base").filter(ok).sum().alias(f"{key}__base")]
        out.append(j.select(aggs))
        # which contract each common deal was played as, in both
        cross.append(j.group_by("play_contract", "play_contract_base").agg(
            n=pl.len()).with_columns(variant=pl.lit(other)))
    return out + cross


def _collect(q: pl.LazyFrame | list[pl.LazyFrame], engine: str, res: Results):
    try:
        if isinstance(q, list):
            return pl.collect_all(q, engine=engine)
        return q.collect(engine=engine)
    except pl.exceptions.PolarsError as e:
        from ..errors import InputError, Problem
        raise InputError([Problem(str(res.path), "", "cannot read the results: "
                                  f"{str(e).strip().splitlines()[0][:300]}")])


def _session_queries(s: pl.LazyFrame, seats: int) -> dict[str, pl.LazyFrame]:
    done = s.filter(pl.col("complete"))
    return {
        "s_overview": s.group_by("variant").agg(
            sessions=pl.col("complete").sum(), incomplete=(~pl.col("complete")).sum(),
            len_mean=pl.col("hands").filter(pl.col("complete")).cast(pl.Float64).mean(),
            len_sd=pl.col("hands").filter(pl.col("complete")).cast(pl.Float64).std(),
            len_median=pl.col("hands").filter(pl.col("complete")).median(),
            len_max=pl.col("hands").filter(pl.col("complete")).max(),
            places=pl.col("place_points_0").filter(pl.col("complete")).count()),
        "s_seats": pl.concat([
            done.group_by("variant").agg(
                seat=pl.lit(s_, pl.Int64), n=pl.len(),
                pp_n=pl.col(f"place_points_{s_}").count(),
                pp_mean=pl.col(f"place_points_{s_}").mean(),
                pp_sd=pl.col(f"place_points_{s_}").std(),
                total_mean=pl.col(f"total_{s_}").mean(), total_sd=pl.col(f"total_{s_}").std(),
                wins=pl.col(f"won_{s_}").sum().cast(pl.Int64)) for s_ in range(seats)]),
        "s_bots": pl.concat([
            done.group_by("variant", pl.col(f"bot_{s_}").alias("bot")).agg(
                n=pl.len(), pp_n=pl.col(f"place_points_{s_}").count(),
                pp_s1=pl.col(f"place_points_{s_}").sum(),
                pp_s2=(pl.col(f"place_points_{s_}") ** 2).sum(),
                wins=pl.col(f"won_{s_}").sum().cast(pl.Int64)) for s_ in range(seats)])
        .group_by("variant", "bot").agg(pl.col("n", "pp_n", "pp_s1", "pp_s2", "wins").sum()),
        "s_len": done.group_by("variant", "hands").agg(sessions=pl.len()),
    }


# ---------------------------------------------------------------------------------------- tables


def _overview(res: Results, o: pl.DataFrame, s_over: pl.DataFrame | None,
              labels: list[str]) -> pl.DataFrame:
    rows = []
    for v in res.variants:
        if v.label not in labels:
            continue
        r = o.filter(pl.col("variant") == v.label).row(0, named=True)
        sess = 0
        if s_over is not None and v.label in s_over["variant"].to_list():
            sess = s_over.filter(pl.col("variant") == v.label)["sessions"][0]
        rows.append({"variant": v.label, "ruleset": v.ruleset_name, "sha256": v.ruleset_sha256,
                     "description": described(v), "hands": r["hands"], "deals": r["deals"],
                     "played": r["played"], "sessions": int(sess),
                     "in_manifest": v.in_manifest})
    return pl.DataFrame(rows, schema={"variant": pl.String, "ruleset": pl.String,
                                      "sha256": pl.String, "description": pl.String,
                                      "hands": pl.Int64, "deals": pl.Int64, "played": pl.Int64,
                                      "sessions": pl.Int64, "in_manifest": pl.Boolean})


def _contracts(c: pl.DataFrame, o: pl.DataFrame, an_variants, labels, order) -> pl.DataFrame:
    # every (variant, contract) pair, zeros included, so the tables line up
    grid = pl.DataFrame({"variant": [v for v in labels for _ in order],
                         "contract": [c_ for _ in labels for c_ in order]})
    df = (grid.join(c, on=["variant", "contract"], how="left")
          .with_columns(pl.col("hands", "old_wins").fill_null(0).cast(pl.Int64))
          .join(o.select("variant", pl.col("hands").cast(pl.Int64).alias("total")),
                on="variant"))
    df = _with_wilson(df, "hands", "total", "share")
    df = _with_wilson(df, "old_wins", "hands", "win_rate")
    # does the variant's ruleset have the contract at all? (unknown without a ruleset: yes)
    defined = {(v, c_): (an_variants[v].ruleset is None or c_ in an_variants[v].ruleset.contracts)
               for v in labels for c_ in order}
    df = df.with_columns(pl.Series("in_rules", [defined[(v, c_)] for v, c_ in
                                                zip(df["variant"], df["contract"])], pl.Boolean))
    rank = {c_: i for i, c_ in enumerate(order)}
    df = df.with_columns(pl.col("contract").replace_strict(rank, return_dtype=pl.Int32)
                         .alias("_c"))
    return _order_variants(df, labels, "_c").drop("_c")


def _tiers(t: pl.DataFrame, o: pl.DataFrame, labels, words: Wording) -> pl.DataFrame:
    grid = pl.DataFrame({"variant": [v for v in labels for _ in TIER_KEYS],
                         "outcome": [k for _ in labels for k in TIER_KEYS]})
    df = (grid.join(t.rename({"tier": "outcome"}), on=["variant", "outcome"], how="left")
          .with_columns(pl.col("hands").fill_null(0).cast(pl.Int64))
          .join(o.select("variant", pl.col("hands").cast(pl.Int64).alias("total")),
                on="variant"))
    df = _with_wilson(df, "hands", "total", "rate")
    rank = {k: i for i, k in enumerate(TIER_KEYS)}
    df = df.with_columns(pl.col("outcome").replace_strict(rank, return_dtype=pl.Int32)
                         .alias("_k"), pl.col("outcome").replace_strict(tier_labels(words))
                         .alias("outcome"))
    return _order_variants(df, labels, "_k").drop("_k")


def _doubles(d: pl.DataFrame, o: pl.DataFrame, an_variants, labels) -> pl.DataFrame:
    top = max(int(d["doubles"].max() or 0), 0)
    rows = []
    for v in labels:
        rules = an_variants[v].ruleset
        names = rules.doubling.names if rules is not None else []
        total = o.filter(pl.col("variant") == v)["hands"][0]
        for k in range(top + 1):
            n = d.filter((pl.col("variant") == v) & (pl.col("doubles") == k))["hands"].sum()
            if rules is not None and k > len(names) and not n:
                continue  # beyond this variant's doubling chain
            name = "none" if k == 0 else (names[k - 1] if k - 1 < len(names) else f"{k} doubles")
            rows.append({"variant": v, "doubles": k, "name": name, "hands": int(n),
                         "total": int(total)})
    df = pl.DataFrame(rows, schema={"variant": pl.String, "doubles": pl.Int64,
                                    "name": pl.String, "hands": pl.Int64, "total": pl.Int64})
    return _with_wilson(df, "hands", "total", "share")


def _old_points(o: pl.DataFrame, an_variants, labels) -> pl.DataFrame:
    df = o.select("variant", pl.col("pts_n").cast(pl.Int64).alias("played"),
                  pl.col("pts_mean").alias("mean"), pl.col("pts_sd").alias("sd"),
                  pl.col("pts_p10").alias("p10"), pl.col("pts_p50").alias("median"),
                  pl.col("pts_p90").alias("p90"))
    df = _with_mean_ci(df, "played", "mean", "sd", "mean")
    wp = {v: (an_variants[v].ruleset.win_points() if an_variants[v].ruleset else None)
          for v in labels}
    df = df.with_columns(pl.col("variant").replace_strict(wp, default=None,
                                                         return_dtype=pl.Float64)
                         .alias("win_points"))
    return _order_variants(df, labels)


def _seats(dl: pl.DataFrame, labels, seats: int) -> pl.DataFrame:
    rows = []
    for v in labels:
        part = dl.filter(pl.col("variant") == v)
        for p, name in enumerate(positions(seats)):
            n = s1 = s2 = 0.0
            for r in part.iter_rows(named=True):
                seat = (r["dealer"] + 1 + p) % seats
                n += r["n"]
                s1 += r[f"s1_{seat}"]
                s2 += r[f"s2_{seat}"]
            mean, sd = moments(n, s1, s2)
            lo, hi = mean_ci(n, mean, sd)
            rows.append({"variant": v, "position": name, "hands": int(n), "mean": mean,
                         "sd": sd, "mean_lo": lo, "mean_hi": hi})
    return pl.DataFrame(rows, schema={"variant": pl.String, "position": pl.String,
                                      "hands": pl.Int64, "mean": pl.Float64, "sd": pl.Float64,
                                      "mean_lo": pl.Float64, "mean_hi": pl.Float64})


def _position_bots(sb: pl.DataFrame, labels, seats: int) -> pl.DataFrame:
    """Each bot's mean payout in each seat position (a bot in two seats of a line-up counts
    in both), from the per-dealer, per-line-up sums."""
    acc: dict[tuple, list[float]] = {}
    names = positions(seats)
    for r in sb.iter_rows(named=True):
        for seat in range(seats):
            p = (seat - r["dealer"] - 1) % seats
            key = (r["variant"], names[p], r[f"bot_{seat}"] or "?")
            a = acc.setdefault(key, [0.0, 0.0, 0.0])
            a[0] += r["n"]
            a[1] += r[f"s1_{seat}"]
            a[2] += r[f"s2_{seat}"]
    rows = []
    for (v, position, bot), (n, s1, s2) in acc.items():
        mean, sd = moments(n, s1, s2)
        lo, hi = mean_ci(n, mean, sd)
        rows.append({"variant": v, "position": position, "bot": bot, "seat_hands": int(n),
                     "mean": mean, "mean_lo": lo, "mean_hi": hi,
                     "_p": names.index(position)})
    df = pl.DataFrame(rows, schema={"variant": pl.String, "position": pl.String,
                                    "bot": pl.String, "seat_hands": pl.Int64,
                                    "mean": pl.Float64, "mean_lo": pl.Float64,
                                    "mean_hi": pl.Float64, "_p": pl.Int64})
    return _order_variants(df, labels, "_p", "bot").drop("_p")


def _from_moments(df: pl.DataFrame, n: str, s1: str, s2: str, prefix: str) -> pl.DataFrame:
    ms = [moments(a, b, c) for a, b, c in zip(df[n].to_list(), df[s1].to_list(),
                                               df[s2].to_list())]
    cis = [mean_ci(a, m[0], m[1]) for a, m in zip(df[n].to_list(), ms)]
    return df.with_columns(pl.Series(prefix, [m[0] for m in ms], pl.Float64),
                           pl.Series(f"{prefix}_sd", [m[1] for m in ms], pl.Float64),
                           pl.Series(f"{prefix}_lo", [c[0] for c in cis], pl.Float64),
                           pl.Series(f"{prefix}_hi", [c[1] for c in cis], pl.Float64))


def _bots(b: pl.DataFrame, labels) -> pl.DataFrame:
    df = _from_moments(b, "n", "s1", "s2", "mean")
    df = df.select("variant", "bot", pl.col("n").cast(pl.Int64).alias("seat_hands"),
                   "mean", pl.col("mean_sd").alias("sd"), "mean_lo", "mean_hi")
    return _order_variants(df, labels, "bot")


def _stakes(o: pl.DataFrame, labels) -> pl.DataFrame:
    df = o.select("variant", pl.col("hands").cast(pl.Int64), pl.col("stake_mean").alias("mean"),
                  pl.col("stake_sd").alias("sd"), pl.col("stake_max").alias("max"),
                  (pl.col("stake_zero") / pl.col("hands")).alias("share_zero"),
                  pl.col("dbl_mean").alias("doubles_mean"), pl.col("dbl_sd").alias("doubles_sd"))
    df = _with_mean_ci(df, "hands", "mean", "sd", "mean")
    df = _with_mean_ci(df, "hands", "doubles_mean", "doubles_sd", "doubles_mean")
    return _order_variants(df, labels)


# the paired differences: one row per variant and measure (kind "measure") or contract (kind
# "contract": the share of hands played as it); same_play_diff is the part of the mean
# difference made on deals played the same in both (contract, sides, doubles, card points):
# what the price table alone changed
PAIRED_SCHEMA = {"variant": pl.String, "baseline": pl.String, "metric": pl.String,
                 "unit": pl.String, "kind": pl.String, "contract": pl.String, "deals": pl.Int64,
                 "baseline_mean": pl.Float64, "variant_mean": pl.Float64, "diff": pl.Float64,
                 "diff_lo": pl.Float64, "diff_hi": pl.Float64, "significant": pl.Boolean,
                 "same_play_diff": pl.Float64}


def _paired_row(v: str, base: str, metric: str, unit: str, n: int, s1: float, s2: float,
                base_sum: float, var_sum: float, **more) -> dict:
    diff, sd = moments(n, s1, s2)
    lo, hi = mean_ci(n, diff, sd)
    if n >= 2 and sd < 1e-12:  # every deal the same difference
        lo = hi = diff
    return {"variant": v, "baseline": base, "metric": metric, "unit": unit, "deals": int(n),
            "baseline_mean": (base_sum / n) if n else None,
            "variant_mean": (var_sum / n) if n else None,
            "diff": diff if n else None, "diff_lo": lo, "diff_hi": hi,
            "significant": bool(n) and significant(lo, hi), **more}


def _paired(frames: list[tuple[str, pl.DataFrame]], base: str, words: Wording, seats: int
            ) -> pl.DataFrame:
    rows = []
    for v, f in frames:
        r = f.row(0, named=True)
        for key, label, unit in paired_metrics(words, seats):
            n = r[f"{key}__n"] or 0
            rows.append(_paired_row(
                v, base, label, unit, n, r[f"{key}__s1"] or 0.0, r[f"{key}__s2"] or 0.0,
                r[f"{key}__base"] or 0.0, r[f"{key}__var"] or 0.0, kind="measure",
                contract=None, same_play_diff=((r[f"{key}__same"] or 0.0) / n) if n else None))
    return pl.DataFrame(rows, schema=PAIRED_SCHEMA)


def contract_metric(contract: str) -> str:
    return f"hands played as {contract}"


def _paired_contracts(frames: list[pl.DataFrame], base: str, order: list[str]) -> pl.DataFrame:
    """Each contract's share of hands, variant against baseline deal by deal: per deal the
    difference of two indicators (-1, 0 or 1), from the table of (variant's contract,
    baseline's contract) counts over the common deals."""
    if not frames:
        return pl.DataFrame([], schema=PAIRED_SCHEMA)
    cross = pl.concat(frames).group_by("variant", "play_contract", "play_contract_base").agg(
        pl.col("n").sum())
    rows = []
    for v in cross["variant"].unique(maintain_order=True).sort().to_list():
        t = cross.filter(pl.col("variant") == v)
        n = int(t["n"].sum())
        seen = set(t["play_contract"].to_list()) | set(t["play_contract_base"].to_list())
        for c in [c for c in order if c in seen] + sorted(seen - set(order), key=str):
            in_v = int(t.filter(pl.col("play_contract") == c)["n"].sum())
            in_b = int(t.filter(pl.col("play_contract_base") == c)["n"].sum())
            both = int(t.filter((pl.col("play_contract") == c)
                                & (pl.col("play_contract_base") == c))["n"].sum())
            rows.append(_paired_row(v, base, contract_metric(c), "rate", n, in_v - in_b,
                                    in_v + in_b - 2 * both, in_b, in_v, kind="contract",
                                    contract=c, same_play_diff=None))
    return pl.DataFrame(rows, schema=PAIRED_SCHEMA)


def _same_play(sums: dict[str, pl.DataFrame], base: str) -> pl.DataFrame:
    rows = [{"variant": v, "baseline": base, "deals": int(f["deals"][0]),
             "same_play": int(f["same_play"][0]), "same_play_and_payouts": int(f["same_pay"][0])}
            for v, f in sums.items()]
    return pl.DataFrame(rows, schema={"variant": pl.String, "baseline": pl.String,
                                      "deals": pl.Int64, "same_play": pl.Int64,
                                      "same_play_and_payouts": pl.Int64})


def _lineups(lu: pl.DataFrame, labels: list[str], seats: int) -> pl.DataFrame:
    """The bots of the seats, per variant, most played line-up first."""
    rank = {v: i for i, v in enumerate(labels)}
    lineup = bot_columns(seats)
    df = (lu.filter(pl.col("variant").is_in(labels))
          .group_by("variant", *lineup).agg(hands=pl.col("n").sum().cast(pl.Int64)))
    return (df.with_columns(share=pl.col("hands") / pl.col("hands").sum().over("variant"),
                            _rank=pl.col("variant").replace_strict(rank, return_dtype=pl.Int32))
            .sort(["_rank", "hands", *lineup], descending=[False, True] + [False] * seats)
            .drop("_rank"))


def _session_rotation(h: pl.LazyFrame, seats: int) -> pl.LazyFrame:
    """Per variant: sessions, and how many of them change line-up between their hands (the
    bots rotating seats every few deals); a session row's bots are those of its first hand."""
    return (h.filter(pl.col("session").is_not_null())
            .group_by("variant", "session")
            .agg(lineups=pl.concat_str(bot_columns(seats), separator="\x1f", ignore_nulls=True)
                 .n_unique())
            .group_by("variant")
            .agg(sessions=pl.len(), rotating=(pl.col("lineups") > 1).sum().cast(pl.Int64)))


def _share(df: pl.DataFrame, count: str) -> pl.DataFrame:
    return df.with_columns((pl.col(count) / pl.col(count).sum().over("variant")).alias("share"))


# ----------------------------------------------------------------------------------------- main


def _derive(cube: pl.DataFrame, lineups: pl.DataFrame, pts_hist: pl.DataFrame,
            pay_tuples: pl.DataFrame, deals: dict[str, int], seats: int
            ) -> dict[str, pl.DataFrame]:
    """The per-table aggregates, from the few passes over the hands."""
    n = pl.col("n")
    ov = cube.group_by("variant").agg(
        hands=n.sum(), played=pl.col("pts_n").sum(),
        pts_s1=pl.col("pts_s1").sum(), pts_s2=pl.col("pts_s2").sum(),
        stake_s1=pl.col("stake_s1").sum(), stake_s2=pl.col("stake_s2").sum(),
        stake_max=pl.col("stake_max").max(), stake_zero=pl.col("stake_zero").sum(),
        dbl_s1=(n * pl.col("doubles")).sum(), dbl_s2=(n * pl.col("doubles") ** 2).sum())
    rows = []
    for r in ov.iter_rows(named=True):
        v = r["variant"]
        pm, psd = moments(r["played"], r["pts_s1"], r["pts_s2"])
        sm, ssd = moments(r["hands"], r["stake_s1"], r["stake_s2"])
        dm, dsd = moments(r["hands"], float(r["dbl_s1"]), float(r["dbl_s2"]))
        hist = pts_hist.filter(pl.col("variant") == v).sort("old_pts")
        q = _quantiles(hist["old_pts"].to_list(), hist["hands"].to_list(), (0.1, 0.5, 0.9))
        rows.append({"variant": v, "hands": r["hands"], "deals": deals.get(v, 0),
                     "played": r["played"], "pts_n": r["played"], "pts_mean": pm,
                     "pts_sd": psd, "pts_p10": q[0], "pts_p50": q[1], "pts_p90": q[2],
                     "stake_mean": sm, "stake_sd": ssd, "stake_max": r["stake_max"],
                     "stake_zero": r["stake_zero"], "dbl_mean": dm, "dbl_sd": dsd})
    o = pl.DataFrame(rows, schema={
        "variant": pl.String, "hands": pl.Int64, "deals": pl.Int64, "played": pl.Int64,
        "pts_n": pl.Int64, "pts_mean": pl.Float64, "pts_sd": pl.Float64, "pts_p10": pl.Float64,
        "pts_p50": pl.Float64, "pts_p90": pl.Float64, "stake_mean": pl.Float64,
        "stake_sd": pl.Float64, "stake_max": pl.Float64, "stake_zero": pl.Int64,
        "dbl_mean": pl.Float64, "dbl_sd": pl.Float64})
    sums = [f"s{k}_{s}" for k in (1, 2) for s in range(seats)]
    bots = pl.concat([
        lineups.group_by("variant", pl.col(f"bot_{s}").alias("bot")).agg(
            n=n.sum(), s1=pl.col(f"s1_{s}").sum(), s2=pl.col(f"s2_{s}").sum())
        for s in range(seats)]).group_by("variant", "bot").agg(pl.col("n", "s1", "s2").sum())
    pay = pl.concat([
        pay_tuples.group_by("variant", pl.col(f"payout_{s}").alias("payout")).agg(n=n.sum())
        for s in range(seats)]).group_by("variant", "payout").agg(n.sum())
    return {
        "overview": o,
        "contracts": cube.group_by("variant", "contract").agg(
            hands=n.sum(), old_wins=n.filter(pl.col("old_win")).sum()),
        "tiers": cube.group_by("variant", "tier").agg(hands=n.sum()),
        "doubles": cube.group_by("variant", "doubles").agg(hands=n.sum()),
        "dealer": cube.group_by("variant", "dealer").agg(n.sum(), *[pl.col(c).sum()
                                                                     for c in sums]),
        "bots": bots, "pts_hist": pts_hist, "pay_hist": pay,
    }


def _quantiles(values: list, counts: list, qs) -> list:
    """The smallest value whose cumulative count reaches q of the total, for each q."""
    total = sum(counts)
    out = []
    for q in qs:
        if not total:
            out.append(None)
            continue
        need, acc = q * total, 0
        for v, c in zip(values, counts):
            acc += c
            if acc >= need:
                out.append(v)
                break
    return out


MOST_CHANGES = 6  # overrides listed in a variant's description; the rule differences say all


def described(v) -> str:
    """A variant's description: its ruleset's, and what the experiment overrides in it (an
    override that gives its own description has said it)."""
    changes = [] if "description" in v.overrides else _flat(v.overrides)
    if not changes:
        return v.description
    shown = ", ".join(f"{k} = {val}" for k, val in changes[:MOST_CHANGES])
    more = f" and {len(changes) - MOST_CHANGES} more" if len(changes) > MOST_CHANGES else ""
    return f"{v.description}; changed: {shown}{more}"


def _flat(d: dict, prefix: str = "") -> list[tuple[str, object]]:
    out = []
    for k, val in d.items():
        key = f"{prefix}{k}" if " " not in str(k) else f'{prefix}"{k}"'
        if isinstance(val, dict) and val:
            out += _flat(val, key + ".")
        else:
            out.append((key, val))
    return out


def _same_deck(a, b) -> bool:
    """Whether two variants deal the same cards from the same seeds (the same deck, card for
    card); unknown rules (no ruleset in the manifest) are taken to."""
    return a.ruleset is None or b.ruleset is None or a.ruleset.cards() == b.ruleset.cards()


def _paired_sums(frames: list[pl.DataFrame]) -> dict[str, pl.DataFrame]:
    """Per-slice sums added up: variant -> one row of totals."""
    if not frames:
        return {}
    total = pl.concat(frames).group_by("variant").agg(pl.all().sum())
    return {r["variant"]: pl.DataFrame([r]) for r in total.iter_rows(named=True)}


def analyse(res: Results, engine: str = "streaming") -> Analysis:
    n_seats = res.seats
    h = _prepared(res.hands(), n_seats)
    q = _hand_queries(h, n_seats)
    raw = {k: _collect(lf, engine, res) for k, lf in q.items()}
    labels_all = [v.label for v in res.variants]
    have = set(raw["cube"]["variant"].to_list())
    labels = [v for v in labels_all if v in have]
    base = labels_all[0]

    # paired differences and distinct deals, slice by slice of deal ids
    lu = raw["lineups"]
    deals: dict[str, int] = {}
    pair_frames: list[pl.DataFrame] = []
    cross_frames: list[pl.DataFrame] = []
    by_label = {v.label: v for v in res.variants}
    others = [v for v in labels if v != base and _same_deck(by_label[base], by_label[v])
              ] if base in have else []
    unpaired = [v for v in labels if v != base and v not in others] if base in have else []
    if len(lu):
        m = _paired_metrics(h, n_seats)
        lo, hi = int(lu["dmin"].min()), int(lu["dmax"].max()) + 1
        step = max(PAIR_SLICE, -(-(hi - lo) // 4096))  # at most 4096 slices
        for start in range(lo, hi, step):
            got = _collect(_paired_slice(m, base, others, start, min(start + step, hi),
                                         n_seats), engine, res)
            for r in got[0].iter_rows(named=True):
                deals[r["variant"]] = deals.get(r["variant"], 0) + r["deals"]
            pair_frames += got[1:1 + len(others)]
            cross_frames += got[1 + len(others):]
    paired = _paired_sums(pair_frames)

    out = _derive(raw["cube"], lu, raw["pts_hist"], raw["pay_tuples"], deals, n_seats)
    sess = res.sessions()
    if sess is not None:
        out.update({k: _collect(lf, engine, res)
                    for k, lf in _session_queries(sess, n_seats).items()})
        out["s_rotation"] = _collect(_session_rotation(h, n_seats), engine, res)

    o = out["overview"]
    notes = []
    for v in labels_all:
        if v not in have:
            notes.append(f"variant {v!r} has no hands in this results folder yet")
    if unpaired:
        notes.append(f"{', '.join(unpaired)} deal{'s' * (len(unpaired) == 1)} other cards than "
                     f"{base} (another deck), so the same deal ids are other deals: not paired "
                     "with it; compare them by their intervals")
    colors = {v: PALETTE[i % len(PALETTE)] for i, v in enumerate(labels)}
    s_over = out.get("s_overview")
    words = wording([v.ruleset for v in res.variants])

    an = Analysis(
        results=res, variants=labels, colors=colors,
        overview=_overview(res, o, s_over, labels),
        contracts=pl.DataFrame(), tiers=_tiers(out["tiers"], o, labels, words),
        doubles=_doubles(out["doubles"], o, by_label, labels),
        old_points=_old_points(o, by_label, labels),
        old_points_hist=_order_variants(
            _share(out["pts_hist"].rename({"old_pts": "points"})
                   .with_columns(pl.col("hands").cast(pl.Int64)), "hands"), labels, "points"),
        seats=_seats(out["dealer"], labels, n_seats), bots=_bots(out["bots"], labels),
        stakes=_stakes(o, labels),
        payout_hist=_order_variants(
            _share(out["pay_hist"].rename({"n": "seat_hands"})
                   .with_columns(pl.col("seat_hands").cast(pl.Int64)), "seat_hands"),
            labels, "payout"),
        paired=pl.DataFrame(), words=words, notes=notes,
        lineups=_lineups(lu, labels, n_seats))
    order = an.contract_order(out["contracts"]["contract"].unique().to_list())
    an.contracts = _contracts(out["contracts"], o, by_label, labels, order)
    if labels and labels[0] == base:
        an.paired = pl.concat([
            _paired([(v, paired[v]) for v in others if v in paired], base, words, n_seats),
            _paired_contracts(cross_frames, base, order)])
        an.same_play = _same_play({v: paired[v] for v in others if v in paired}, base)
        an.cited = cited_deals(res, base, [v for v in others if v in paired], engine)
        dup = o.filter(pl.col("deals") < pl.col("hands"))["variant"].to_list()
        if dup:
            notes.append("deal ids repeat within " + ", ".join(dup) + ": paired differences "
                         "pair every hand of a deal with every hand of the same deal")
    else:
        an.paired = _paired([], base, words, n_seats)
        an.same_play = _same_play({}, base)
        if len(labels) > 1:
            notes.append(f"the first variant {base!r} has no hands: no paired differences")
    an.gap = _gap(h, lu, engine, res, labels)
    an.position_bots = _position_bots(raw["seat_bots"], labels, n_seats)
    if s_over is not None and len(s_over):
        _sessions(an, out, by_label, labels)
        an.tournaments = _tournaments(res, sess, engine, labels)
    for v in labels[1:]:
        a, b = by_label[labels[0]].ruleset, by_label[v].ruleset
        an.rule_diffs[v] = None if a is None or b is None else diff_rules(a, b)
    return an


def _gap(h: pl.LazyFrame, lu: pl.DataFrame, engine, res, labels) -> pl.DataFrame | None:
    """The share of the heuristic -> bound gap each fair bot closes, where a bound plays."""
    from .bound import gap_closed, gap_queries

    rows = []
    played = lu.filter(pl.col("variant").is_in(labels))
    for v, (q, bound, fair) in gap_queries(h, played, res.seats).items():
        rows += gap_closed(_collect(q, engine, res), v, bound, fair)
    return _order_variants(pl.DataFrame(rows), labels, "bot") if rows else None


def _tournaments(res, sess: pl.LazyFrame, engine, labels) -> pl.DataFrame | None:
    """Each bot's final standings in the variants the run played as tournaments."""
    from .tournaments import standings, tournament_settings

    played = [v for v in tournament_settings(res.manifest, res.seats) if v in labels]
    if not played:
        return None
    cols = ["variant", "session", "complete", *[f"total_{k}" for k in range(res.seats)],
            *[f"place_points_{k}" for k in range(res.seats)]]
    rows = _collect(sess.filter(pl.col("variant").is_in(played)).select(cols), engine, res)
    bots = res.experiment.get("bots") if isinstance(res.experiment, dict) else None
    lineup = [b.get("label") for b in bots if isinstance(b, dict)] if isinstance(bots, list) \
        else []
    if len(lineup) != res.seats:
        return None
    df = standings(rows, res.manifest, [str(x) for x in lineup])
    return None if df is None else _order_variants(df, labels, "rank_mean")


def _sessions(an: Analysis, out: dict, by_label, labels) -> None:
    so = out["s_overview"]
    slabels = [v for v in labels if v in so["variant"].to_list()]

    def kind(v: str) -> str:
        r = by_label[v].ruleset
        if r is not None and r.session is not None:
            return r.session.kind
        row = so.filter(pl.col("variant") == v)
        return "series" if row["places"][0] else "bankroll"

    df = so.with_columns(pl.col("variant").replace_strict({v: kind(v) for v in slabels},
                                                          default=None).alias("kind"))
    df = df.select("variant", "kind", pl.col("sessions").cast(pl.Int64),
                   pl.col("incomplete").cast(pl.Int64), "len_mean", "len_sd",
                   pl.col("len_median").cast(pl.Float64), pl.col("len_max").cast(pl.Int64))
    an.sessions = _order_variants(_with_mean_ci(df, "sessions", "len_mean", "len_sd", "len_mean"),
                                  slabels)
    seats = out["s_seats"].with_columns(pl.col("n", "pp_n", "wins").cast(pl.Int64))
    seats = _with_mean_ci(seats, "pp_n", "pp_mean", "pp_sd", "pp_mean")
    seats = _with_mean_ci(seats, "n", "total_mean", "total_sd", "total_mean")
    seats = _with_wilson(seats, "wins", "n", "win_rate")
    an.session_seats = _order_variants(seats.rename({"n": "sessions"}), slabels, "seat")
    bots = _from_moments(out["s_bots"], "pp_n", "pp_s1", "pp_s2", "pp_mean")
    bots = _with_wilson(bots.with_columns(pl.col("n", "pp_n", "wins").cast(pl.Int64)),
                        "wins", "n", "win_rate")
    an.session_rotation = _order_variants(out["s_rotation"], slabels)
    # a session played while the bots change seats is won by a seat, not by a bot (a session
    # row names the bots of its first hand): bots are credited only where no session rotates
    rotating = an.session_rotation.filter(pl.col("rotating") > 0)["variant"].to_list()
    an.session_bots = _order_variants(
        bots.drop("pp_s1", "pp_s2").rename({"n": "seat_sessions"}),
        [v for v in slabels if v not in rotating], "bot")
    an.session_length_hist = _order_variants(
        _share(out["s_len"].with_columns(pl.col("hands").cast(pl.Int64),
                                         pl.col("sessions").cast(pl.Int64)), "sessions"),
        slabels, "hands")
