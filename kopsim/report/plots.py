"""The report's plots, drawn with matplotlib (Agg, no pyplot state) as PNG bytes.

One colour per variant everywhere (`Analysis.colors`), error bars are the 95% intervals of the
tables, and every plot reads on its own: a title that says what is shown, labelled axes, values
written where bars are too small to see.
"""

from __future__ import annotations

import io
import math

import polars as pl
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from .analysis import Analysis
from .effects import practical_size

GRID = "#e3e6ea"
INK = "#26313b"
MUTED = "#66727e"


def _t(s: object) -> str:
    """A label for matplotlib: '$' would start mathtext, so it is escaped."""
    return str(s).replace("$", r"\$")


def _figure(width: float = 8.6, height: float = 4.6) -> Figure:
    fig = Figure(figsize=(width, height), dpi=110, layout="constrained")
    fig.set_facecolor("white")
    return fig


def _style(ax, value_axis: str = "y") -> None:
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color("#9aa5b1")
    ax.tick_params(colors=INK, labelsize=9)
    ax.grid(axis=value_axis, color=GRID, linewidth=0.8)
    ax.set_axisbelow(True)


def _title(fig: Figure, ax, title: str, subtitle: str = "") -> None:
    # both offsets in points above the axes, so the gap between them does not grow with the
    # height of the plot (an offset in axes fractions put the subtitle over the title)
    ax.set_title(_t(title), loc="left", fontsize=12, color=INK, fontweight="bold",
                 pad=24 if subtitle else 8)
    if subtitle:
        ax.annotate(_t(subtitle), xy=(0, 1), xycoords="axes fraction", xytext=(0, 7),
                    textcoords="offset points", fontsize=9, color=MUTED, va="bottom")


def _legend(ax, an: Analysis, labels: list[str] | None = None) -> None:
    """The colours of the variants drawn (`labels`, all by default), in a row under the plot;
    needed whenever the report has more than one variant, even if this plot shows one."""
    if len(an.variants) > 1:
        n = len(labels if labels is not None else an.variants)
        ax.figure.legend(frameon=False, fontsize=9, loc="outside lower center",
                         ncol=min(n, 4))


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", facecolor="white")
    return buf.getvalue()


def _pct(x: float) -> str:
    return f"{x:.1f}%" if x >= 1 or x == 0 else f"{x:.2f}%"


def _err(lo: list, hi: list, mid: list, scale: float = 1.0):
    """Asymmetric error bars; NaN intervals draw nothing."""
    low = [0 if (m is None or lo_ is None or math.isnan(lo_)) else max(0.0, (m - lo_) * scale)
           for m, lo_ in zip(mid, lo)]
    high = [0 if (m is None or hi_ is None or math.isnan(hi_)) else max(0.0, (hi_ - m) * scale)
            for m, hi_ in zip(mid, hi)]
    return [low, high]


def bar_y(j: int, here: list[str], v: str, height: float) -> float:
    """Where variant v's bar goes in category j, among the variants `here` with a bar in it:
    the bars of a category centred on it, whichever variants have one."""
    return j + (here.index(v) - (len(here) - 1) / 2) * height


def _grouped_hbars(an: Analysis, df: pl.DataFrame, cats: list[str], cat_col: str, value: str,
                   title: str, subtitle: str, xlabel: str, skip_zero_n: str | None = None
                   ) -> bytes:
    n_var = len(an.variants)
    fig = _figure(8.6, max(2.6, 0.5 + 0.34 * len(cats) * max(n_var, 1) + 0.25 * len(cats)))
    ax = fig.add_subplot()
    _style(ax, "x")
    height = 0.8 / max(n_var, 1)
    drawn = {}  # category -> variant -> its row: the variants with a bar in it, centred
    for v in an.variants:
        part = df.filter(pl.col("variant") == v)
        for c in cats:
            row = part.filter(pl.col(cat_col) == c)
            if row.is_empty():
                continue
            r = row.row(0, named=True)
            if (skip_zero_n and not r[skip_zero_n]) or r.get("in_rules") is False:
                continue
            drawn.setdefault(c, {})[v] = r
    for v in an.variants:
        vals, lo, hi, ys = [], [], [], []
        for j, c in enumerate(cats):
            here = list(drawn.get(c, {}))
            if v not in here:
                continue
            r = drawn[c][v]
            ys.append(bar_y(j, here, v, height))
            vals.append(100 * r[value])
            lo.append(100 * r[f"{value}_lo"])
            hi.append(100 * r[f"{value}_hi"])
        ax.barh(ys, vals, height=height * 0.92, color=an.colors[v], label=_t(v),
                xerr=_err(lo, hi, vals), error_kw={"ecolor": INK, "elinewidth": 0.9,
                                                    "capsize": 2})
        for y, x, h in zip(ys, vals, hi):
            ax.text((h if not math.isnan(h) else x) + 0.8, y, _pct(x), va="center",
                    fontsize=8, color=INK)
    ax.set_yticks(range(len(cats)), [_t(c) for c in cats])
    ax.invert_yaxis()
    ax.set_xlim(0, 108)
    ax.set_xlabel(xlabel, color=MUTED, fontsize=9)
    _title(fig, ax, title, subtitle)
    _legend(ax, an)
    return _png(fig)


def _played_contracts(an: Analysis) -> list[str]:
    return [c for c in an.contract_order()
            if an.contracts.filter(pl.col("contract") == c)["hands"].sum() > 0]


def contract_mix(an: Analysis) -> bytes | None:
    cats = _played_contracts(an)
    if len(cats) < 2:
        return None  # one contract is 100% of the hands: the table says it
    return _grouped_hbars(an, an.contracts, cats, "contract", "share",
                          "Contract mix", "share of hands in which each contract is played, "
                          "with 95% intervals", "% of hands")


def declarer_wins(an: Analysis) -> bytes | None:
    cats = _played_contracts(an)
    if len(cats) < 2:
        return None
    return _grouped_hbars(an, an.contracts, cats, "contract", "win_rate",
                          "Declarer win rate per contract",
                          "share of each contract's hands won by the old side (the declarer's), "
                          "with 95% intervals", "% won by the old side", skip_zero_n="hands")


def seat_advantage(an: Analysis) -> bytes:
    fig = _figure()
    ax = fig.add_subplot()
    _style(ax)
    n_var = len(an.variants)
    width = 0.8 / max(n_var, 1)
    names = an.positions()
    for i, v in enumerate(an.variants):
        part = an.seats.filter(pl.col("variant") == v)
        xs = [p + (i - (n_var - 1) / 2) * width for p in range(len(names))]
        vals = [part.filter(pl.col("position") == p)["mean"][0] for p in names]
        lo = [part.filter(pl.col("position") == p)["mean_lo"][0] for p in names]
        hi = [part.filter(pl.col("position") == p)["mean_hi"][0] for p in names]
        ax.bar(xs, vals, width=width * 0.92, color=an.colors[v], label=_t(v),
               yerr=_err(lo, hi, vals), error_kw={"ecolor": INK, "elinewidth": 0.9,
                                                   "capsize": 3})
    ax.axhline(0, color="#9aa5b1", linewidth=1)
    ax.set_xticks(range(len(names)), ["forehand\n(dealer's left)", *names[1:]])
    ax.set_ylabel("mean payout per hand", color=MUTED, fontsize=9)
    _title(fig, ax, "Seat advantage", "mean payout per hand by position relative to the "
           "dealer, with 95% intervals")
    _legend(ax, an)
    return _png(fig)


def old_points(an: Analysis, width: int = 4) -> bytes | None:
    hist = an.old_points_hist
    if hist.select((pl.col("points") // width).n_unique()).item() < 2:
        return None  # every played hand in one bin (or none played)
    fig = _figure()
    ax = fig.add_subplot()
    _style(ax)
    top = int(hist["points"].max() or 0)
    edges = list(range(0, top + width + 1, width))
    for v in an.variants:
        part = hist.filter(pl.col("variant") == v)
        if part.is_empty():
            continue
        binned = (part.with_columns((pl.col("points") // width * width).alias("bin"))
                  .group_by("bin").agg(pl.col("share").sum()))
        shares = dict(zip(binned["bin"].to_list(), binned["share"].to_list()))
        ys = [100 * shares.get(float(e), 0.0) for e in edges[:-1]]
        ax.stairs(ys, edges, color=an.colors[v], linewidth=1.8, label=_t(v),
                  fill=len(an.variants) == 1, alpha=0.9)
    wp = an.old_points["win_points"].drop_nulls()
    if len(wp):
        w = float(wp[0])
        ax.axvline(w, color=INK, linestyle="--", linewidth=1)
        ax.text(w + 0.8, 0.97, f"{w:g}: old side wins", transform=ax.get_xaxis_transform(),
                fontsize=8, color=INK, va="top")
    ax.set_xlim(0, max(edges[-1], 1))
    ax.set_xlabel(f"card points taken by the old side ({width}-point bins)", color=MUTED,
                  fontsize=9)
    ax.set_ylabel("% of played hands", color=MUTED, fontsize=9)
    _title(fig, ax, "Card points of the old side", "distribution over the hands played out "
           "(instant wins excluded)")
    _legend(ax, an)
    return _png(fig)


def payouts(an: Analysis) -> bytes | None:
    """Each variant's distribution of what a seat gains on a hand, as the share of seat-hands
    paid at most x: on the payouts' own numeric axis (a common scale for values as far apart
    as a point and a doubled solo), one step line per variant."""
    hist = an.payout_hist
    if hist["payout"].n_unique() < 2:
        return None  # every seat-hand paid the same
    fig = _figure()
    ax = fig.add_subplot()
    _style(ax)
    for v in an.variants:
        part = hist.filter(pl.col("variant") == v).sort("payout")
        xs, shares = part["payout"].to_list(), part["share"].to_list()
        if not xs:
            continue
        total, cum = 0.0, []
        for sh in shares:
            total += sh
            cum.append(100 * total)
        ax.step([xs[0]] + xs, [0.0] + cum, where="post", color=an.colors[v], label=_t(v),
                linewidth=1.6)
    lo, hi = hist["payout"].min(), hist["payout"].max()
    if max(abs(lo), abs(hi)) > 60:  # a few large payouts would squeeze the common ones
        ax.set_xscale("symlog", linthresh=10)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:+,.0f}".replace("-", "−")
                                                   if x else "0"))
    ax.set_ylim(0, 101)
    ax.set_xlabel("what one seat gains on one hand", color=MUTED, fontsize=9)
    ax.set_ylabel("% of seat-hands paid at most this", color=MUTED, fontsize=9)
    _title(fig, ax, "Payout distribution", "share of seat-hands whose payout is at most the "
           "value on the axis (a step at each payout paid)")
    _legend(ax, an)
    return _png(fig)


def session_length(an: Analysis) -> bytes | None:
    # a variant whose sessions all have one length (a series) would be a single bar: the
    # sessions table gives that length
    hist = an.session_length_hist
    hist_all = set(hist["variant"].to_list())
    varied = set(hist.group_by("variant").agg(pl.len())
                 .filter(pl.col("len") > 1)["variant"].to_list())
    labels = [v for v in an.variants if v in varied]
    if not labels:
        return None
    hist = hist.filter(pl.col("variant").is_in(labels))
    fig = _figure()
    ax = fig.add_subplot()
    _style(ax)
    n_var = len(labels)
    width = 0.8 / max(n_var, 1)
    for i, v in enumerate(labels):
        part = hist.filter(pl.col("variant") == v)
        xs = [x + (i - (n_var - 1) / 2) * width for x in part["hands"].to_list()]
        ax.bar(xs, [100 * s for s in part["share"].to_list()], width=width * 0.92,
               color=an.colors[v], label=_t(v))
    lengths = hist["hands"].to_list()
    if lengths:
        lo, hi = min(lengths), max(lengths)
        pad = max(1.0, (10 - (hi - lo)) / 2)  # a narrow range still shows bars, not slabs
        ax.set_xlim(lo - pad, hi + pad)
    ax.set_xlabel("hands in the session", color=MUTED, fontsize=9)
    ax.set_ylabel("% of complete sessions", color=MUTED, fontsize=9)
    ax.xaxis.get_major_locator().set_params(integer=True)
    fixed = [v for v in an.variants if v in hist_all and v not in varied]
    _title(fig, ax, "Session length", "hands per complete session (a victory-card game "
           "ends when a player runs out)" + (f"; not shown, one length each: {', '.join(fixed)}"
                                             if fixed else ""))
    _legend(ax, an, labels)
    return _png(fig)


FOREST_ROWS = 40  # the forest plot's largest differences; the table has every one


def forest_rows(an: Analysis) -> list[dict]:
    stake = an.mean_stake(an.baseline)
    rows = []
    for r in an.paired.filter(pl.col("diff").is_not_null()).iter_rows(named=True):
        size = practical_size(r["unit"], stake)
        lo, hi = r["diff_lo"], r["diff_hi"]
        if not size or any(x is None or math.isnan(x) for x in (lo, hi)):
            continue
        rows.append({**r, "x": r["diff"] / size, "lo": lo / size, "hi": hi / size})
    rows.sort(key=lambda r: -abs(r["x"]))
    return rows


def _label(r: dict, several: bool) -> str:
    d = r["diff"]
    value = (f"{100 * d:+.1f} pp" if r["unit"] == "rate"
             else f"{d:+.3g}").replace("-", "−")
    return (f"{r['variant']}: " if several else "") + f"{r['metric']}  {value}"


def forest(an: Analysis) -> bytes | None:
    """Every paired difference of every variant from the baseline on one scale, largest first,
    or None with nothing paired. Differences come in several units (percentage points, card
    points, doubles, payouts), so each is measured in its unit's practical size
    (`effects.practical_size`): 1 on the axis is the smallest difference the summary
    reports, and the shaded band holds those too small to matter."""
    rows = forest_rows(an)
    if not rows:
        return None
    shown = rows[:FOREST_ROWS]
    several = len({r["variant"] for r in shown}) > 1
    fig = _figure(9.6, 1.3 + 0.26 * len(shown))
    ax = fig.add_subplot()
    _style(ax, "x")
    ys = list(range(len(shown)))[::-1]
    ax.axvspan(-1, 1, color="#eef1f4", zorder=0)
    ax.axvline(0, color=MUTED, linewidth=0.8, zorder=1)
    for y, r in zip(ys, shown):
        colour = an.colors.get(r["variant"], INK)
        ax.errorbar([r["x"]], [y], xerr=[[r["x"] - r["lo"]], [r["hi"] - r["x"]]], fmt="o",
                    color=colour, markersize=4, capsize=2, linewidth=1.2,
                    alpha=1.0 if r["significant"] else 0.45)
    ax.set_yticks(ys, [_t(_label(r, several)) for r in shown], fontsize=8)
    span = max(max(abs(r["lo"]), abs(r["hi"])) for r in shown)
    if span > 50:  # a few huge moves would squeeze the rest onto the band
        ax.set_xscale("symlog", linthresh=1)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}".replace("-", "−")))
    ax.margins(x=0.06)
    ax.set_xlabel("difference in practical sizes (1: the smallest the summary reports; the "
                  "band: smaller)", fontsize=9, color=INK)
    more = f" (the largest {len(shown)} of {len(rows)})" if len(rows) > len(shown) else ""
    _title(fig, ax, f"Paired differences from {an.baseline}, largest first{more}",
           "each with its 95% interval, in practical sizes; faded: the interval holds 0")
    return _png(fig)


PLOTS = (
    ("contract_mix", "Contract mix", contract_mix),
    ("declarer_win_rate", "Declarer win rate per contract", declarer_wins),
    ("seat_advantage", "Seat advantage", seat_advantage),
    ("old_side_points", "Card points of the old side", old_points),
    ("payout_distribution", "Payout distribution", payouts),
    ("session_length", "Session length", session_length),
    ("paired_differences", "Paired differences", forest),
)


def draw_all(an: Analysis) -> dict[str, tuple[str, bytes]]:
    """name -> (title, PNG bytes); the session plot only when sessions were played, and no plot
    that would show a single bar or category."""
    out = {}
    for name, title, draw in PLOTS:
        if name == "session_length" and an.session_length_hist is None:
            continue
        png = draw(an)
        if png is not None:
            out[name] = (title, png)
    return out
