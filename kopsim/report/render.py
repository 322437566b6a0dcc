"""The report as files: index.html (self-contained), report.md, the PNG plots and CSV tables.

Every string that comes from a ruleset or an experiment (names, descriptions, notes, labels,
contract and bot names) reaches the HTML only through `esc` (html.escape), and the page carries a
Content-Security-Policy that allows no script and no image but its own data: URIs, so a shared
ruleset cannot put markup or script into a report. The Markdown escapes the same strings.
"""

from __future__ import annotations

import base64
import html
import math
import re
import struct
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..rules.diff import SECTIONS
from ..rules.model import DEFAULT_SEATS
from .analysis import Analysis, paired_metrics
from .effects import (PRACTICAL_WORDS, effects, practical_size, price_share,
                      win_rate_parts)
from .stats import significant

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~])")  # emphasis, code, links, table cells


def md_esc(x: object, block: bool = False) -> str:
    """Text for Markdown: no markup, link, HTML or table break can come through. A `block`
    (a paragraph of its own) cannot start a heading or a list either."""
    s = str(x).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = _MD_SPECIAL.sub(r"\\\1", s)
    s = " ".join(s.split())  # no line breaks inside a table cell or heading
    if block:
        if s[:1] in ("#", "-", "+", "="):
            s = "\\" + s
        s = re.sub(r"^(\d+)([.)])", r"\1\\\2", s)
    return s


# ------------------------------------------------------------------------------------- numbers


def _nan(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def pct(p) -> str:
    if _nan(p):
        return "—"
    x = 100 * p
    if x == 0:
        return "0%"
    if abs(x) >= 10:
        return f"{x:.1f}%"
    if abs(x) >= 1:
        return f"{x:.2f}%"
    return f"{x:.3f}%"


def num(x, signed: bool = False) -> str:
    if _nan(x):
        return "—"
    a = abs(x)
    digits = 1 if a >= 100 else 2 if a >= 10 else 3
    s = f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"
    return s.replace("-", "−")


def pts(x) -> str:
    """Card points and other values that are usually whole: 25, 60, 52.5."""
    return "—" if _nan(x) else f"{x:,.6g}"


def count(n) -> str:
    return "—" if _nan(n) else f"{int(n):,}"


# -------------------------------------------------------------------------------- display model


@dataclass
class Cell:
    text: str
    ci: str = ""  # the 95% interval, shown small after the value
    cls: str = ""  # "sig" (significant), "muted", "label"
    title: str = ""  # hover text in HTML
    color: str | None = None  # a colour swatch before the text (a variant's colour)


@dataclass
class DTable:
    headers: list[str]
    rows: list[list[Cell]]
    colors: list[str | None] = field(default_factory=list)  # a swatch per header
    caption: str = ""
    left: int = 1  # leading columns of text, aligned left


def _rate_cell(p, lo, hi, n=None) -> Cell:
    if _nan(p):
        return Cell("—", cls="muted", title="no hands")
    return Cell(pct(p), f"{pct(lo)[:-1]}–{pct(hi)}", title=f"n = {count(n)}" if n else "")


def _mean_cell(m, lo, hi, signed=False, n=None) -> Cell:
    if _nan(m):
        return Cell("—", cls="muted")
    ci = "" if _nan(lo) else f"{num(lo, signed)} … {num(hi, signed)}"
    return Cell(num(m, signed), ci, title=f"n = {count(n)}" if n else "")


def _variant_headers(an: Analysis, first: str, labels: list[str] | None = None):
    labels = an.variants if labels is None else labels
    return [first] + labels, [None] + [an.colors[v] for v in labels]


def _pivot(an: Analysis, df: pl.DataFrame, key: str, keys: list, label, cell,
           first: str, labels: list[str] | None = None, caption: str = "") -> DTable:
    labels = an.variants if labels is None else labels
    headers, colors = _variant_headers(an, first, labels)
    rows = []
    for k in keys:
        row = [Cell(label(k), cls="label")]
        for v in labels:
            part = df.filter((pl.col("variant") == v) & (pl.col(key) == k))
            row.append(cell(part.row(0, named=True)) if len(part) else Cell("—", cls="muted"))
        rows.append(row)
    return DTable(headers, rows, colors, caption)


# ------------------------------------------------------------------------------------- sections


@dataclass
class Section:
    id: str
    title: str
    intro: str = ""
    tables: list[tuple[str, DTable]] = field(default_factory=list)  # (heading, table)
    plots: list[str] = field(default_factory=list)
    html_extra: str = ""  # pre-escaped HTML (rule differences)
    md_extra: str = ""


def _variants_table(an: Analysis) -> DTable:
    rows = []
    for r in an.overview.iter_rows(named=True):
        rows.append([Cell(r["variant"], cls="label", color=an.colors[r["variant"]]),
                     Cell(r["ruleset"] or "—", cls="text"),
                     Cell(r["description"] or "—", cls="desc"),
                     Cell((r["sha256"] or "—")[:12], cls="mono", title=r["sha256"] or ""),
                     Cell(count(r["hands"])), Cell(count(r["deals"])),
                     Cell(count(r["sessions"]) if r["sessions"] else "—")])
    return DTable(["variant", "ruleset", "description", "sha256", "hands", "deals",
                   "sessions"], rows,
                  [None] * 7, caption="The first variant is the baseline of every comparison.",
                  left=4)


MAX_LINEUPS = 8  # rows per variant in the bots table; a rotation of n seats needs n


def _lineups_table(an: Analysis) -> DTable:
    seats = an.n_seats
    rows = []
    for v in an.variants:
        part = an.lineups.filter(pl.col("variant") == v)
        for r in part.head(MAX_LINEUPS).iter_rows(named=True):
            rows.append([Cell(v, cls="label", color=an.colors[v])]
                        + [Cell(r[f"bot_{s}"] or "—", cls="text") for s in range(seats)]
                        + [Cell(pct(r["share"]), title=f"{count(r['hands'])} hands")])
        if len(part) > MAX_LINEUPS:
            rest = part.slice(MAX_LINEUPS)
            rows.append([Cell(v, cls="label", color=an.colors[v]),
                         Cell(f"{len(rest)} more line-ups", cls="text")]
                        + [Cell("", cls="text")] * (seats - 1)
                        + [Cell(pct(rest["share"].sum()))])
    return DTable(["variant", *[f"seat {s}" for s in range(seats)], "share of hands"], rows,
                  [None] * (seats + 2), caption="The bot in each seat, per "
                  "line-up: a line-up that rotates between deals shows one row per position, "
                  "with its share of the hands.", left=seats + 1)


def seat_effect_sentences(an: Analysis) -> list[str]:
    """Per variant, the seat positions whose mean payout differs from 0 by at least the
    practical size (2% of the variant's mean stake), each said to be the rules' when every bot
    of the line-up gains (or loses) there alike, the bots' when only some do; with one bot in
    every seat the two cannot be told apart, and the sentence says so."""
    out = []
    for v in an.variants:
        found = _seat_effects(an, v)
        if not found:
            continue
        bots = an.position_bots.filter(pl.col("variant") == v)["bot"].unique().to_list()
        if len(bots) < 2:
            out.append(f"{v}: " + ", ".join(f"{pos} {num(m, True)}" for pos, m, _ in found)
                       + " a hand; one bot plays every seat, so the seat's rules and the "
                       "bot's play cannot be told apart here.")
            continue
        for pos, m, same in found:
            if len(same) == len(bots):
                out.append(f"{v}, {pos} {num(m, True)} a hand: every bot gains there alike "
                           f"({', '.join(same)}): the seat itself, so the rules.")
            else:
                out.append(f"{v}, {pos} {num(m, True)} a hand: only "
                           f"{', '.join(same) or 'no bot alone'} of {', '.join(bots)}: the "
                           "bots' play, not the seat.")
    return out


def _seat_effects(an: Analysis, v: str) -> list[tuple[str, float, list[str]]]:
    """(position, mean payout, the bots whose mean there is significant the same way) of each
    position of variant v with an effect of practical size."""
    size = practical_size("payout", an.mean_stake(v))
    out = []
    for r in an.seats.filter(pl.col("variant") == v).iter_rows(named=True):
        if (_nan(r["mean_lo"]) or not significant(r["mean_lo"], r["mean_hi"])
                or abs(r["mean"]) < size or an.position_bots is None):
            continue
        bots = an.position_bots.filter((pl.col("variant") == v)
                                       & (pl.col("position") == r["position"])).to_dicts()
        same = [b["bot"] for b in bots if not _nan(b["mean_lo"])
                and significant(b["mean_lo"], b["mean_hi"]) and (b["mean"] > 0) == (r["mean"] > 0)]
        out.append((r["position"], r["mean"], same))
    return out


def _rule_diffs(an: Analysis) -> tuple[str, str]:
    if len(an.variants) < 2:
        msg = "Only one variant: nothing to compare."
        return f"<p class='muted'>{esc(msg)}</p>", msg + "\n"
    h, m = [], []
    base = an.baseline
    for v in an.variants[1:]:
        changes = an.rule_diffs.get(v)
        h.append(f"<h3><span class='sw' style='background:{an.colors[v]}'></span>{esc(v)} "
                 f"<span class='muted'>compared with</span> {esc(base)}</h3>")
        m.append(f"### {md_esc(v)} compared with {md_esc(base)}\n")
        if changes is None:
            text = "The manifest does not record both rulesets: no rule comparison."
            h.append(f"<p class='muted'>{esc(text)}</p>")
            m.append(text + "\n")
            continue
        if not changes:
            text = "No rule differences (only names, descriptions or sources differ)."
            h.append(f"<p class='muted'>{esc(text)}</p>")
            m.append(text + "\n")
            continue
        r = _same_play_row(an, v)
        if r is not None and r["deals"] and r["same_play_and_payouts"] == r["deals"]:
            text = (f"None of these differences changed a hand in this run: every one of the "
                    f"{count(r['deals'])} common deals is played and paid exactly as under "
                    f"{base} (with these bots the rules below never applied).")
            h.append(f"<p class='muted'>{esc(text)}</p>")
            m.append(f"*{md_esc(text)}*\n")
        h.append("<dl class='diff'>")
        # kopsim.rules.diff's sections in its order, then any it adds later: no change is dropped
        others = [c.section for c in changes if c.section not in SECTIONS]
        for section in [*SECTIONS, *dict.fromkeys(others)]:
            items = [c.text for c in changes if c.section == section]
            if not items:
                continue
            h.append(f"<dt>{esc(section)}</dt><dd><ul>"
                     + "".join(f"<li>{esc(t)}</li>" for t in items) + "</ul></dd>")
            m += [f"- **{md_esc(section)}**: {md_esc(t)}" for t in items]
        h.append("</dl>")
        m.append("")
    return "\n".join(h), "\n".join(m) + "\n"


def _contracts_section(an: Analysis) -> Section:
    """How often each contract is played and won."""
    order = [c for c in an.contract_order()
             if an.contracts.filter(pl.col("contract") == c)["hands"].sum() > 0
             or an.contracts.filter((pl.col("contract") == c) & pl.col("in_rules")).height]

    def share(r):
        if not r["in_rules"]:
            return Cell("—", cls="muted", title="not a contract of this ruleset")
        return _rate_cell(r["share"], r["share_lo"], r["share_hi"], r["hands"])

    def wins(r):
        if not r["in_rules"]:
            return Cell("—", cls="muted", title="not a contract of this ruleset")
        if not r["hands"]:
            return Cell("never played", cls="muted")
        c = _rate_cell(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], r["hands"])
        c.title = f"{count(r['old_wins'])} of {count(r['hands'])} hands"
        return c

    team = f"; {an.words.team_game}" if an.words.team_game else ""
    s = Section("contracts", "Contracts", "How often each contract is played, and how often "
                f"its old side (the declarer and any partner{team}) wins it. Intervals are 95% "
                "Wilson intervals.")
    s.tables.append(("Share of hands", _pivot(an, an.contracts, "contract", order, str, share,
                                              "contract")))
    s.tables.append(("Old side (declarer) wins", _pivot(an, an.contracts, "contract", order,
                                                        str, wins, "contract")))
    s.plots = ["contract_mix", "declarer_win_rate"]
    return s


def _points_section(an: Analysis) -> Section:
    """The old side's card points in the hands played out."""
    op = an.old_points
    rows = []
    specs = [
        ("hands played out", lambda r: Cell(count(r["played"]))),
        ("mean card points", lambda r: _mean_cell(r["mean"], r["mean_lo"], r["mean_hi"],
                                                  n=r["played"])),
        ("median", lambda r: Cell(pts(r["median"]))),
        ("10th – 90th percentile", lambda r: Cell(f"{pts(r['p10'])} – {pts(r['p90'])}")),
        ("points needed to win", lambda r: Cell(pts(r["win_points"]))),
    ]
    for label, f in specs:
        row = [Cell(label, cls="label")]
        for v in an.variants:
            part = op.filter(pl.col("variant") == v)
            row.append(f(part.row(0, named=True)) if len(part) else Cell("—", cls="muted"))
        rows.append(row)
    headers, colors = _variant_headers(an, "card points")
    s = Section("points", "Card points of the old side", "Card points taken by the old side "
                "in every hand that was played out (instant wins such as baśka are excluded).")
    s.tables.append(("", DTable(headers, rows, colors)))
    s.plots = ["old_side_points"]
    return s


def _outcomes_section(an: Analysis) -> Section:
    """Schneider, schwarz and ties."""
    tie = an.words.tie
    s = Section("outcomes", f"Schneider, schwarz and {tie}", "Share of all hands in which the "
                "losing side was schneider (few card points but a trick) or schwarz (no trick), "
                f"and of {tie} ties (both sides with half the card points).")
    s.tables.append(("", _pivot(an, an.tiers, "outcome", ["schneider", "schwarz", tie], str,
                                lambda r: _rate_cell(r["rate"], r["rate_lo"], r["rate_hi"],
                                                     r["total"]), "outcome")))
    return s


def sections(an: Analysis) -> list[Section]:
    out: list[Section] = [_summary_section(an)]
    n_var = len(an.variants)

    s = Section("variants", "Variants", "Each variant is one ruleset played on the same deals "
                "(common random numbers): the same deal id means the same seed in every variant.")
    s.tables.append(("", _variants_table(an)))
    s.tables.append(("Bots in each seat", _lineups_table(an)))
    out.append(s)

    s = Section("rules", "Rule differences", "What changes from the baseline, computed from the "
                "resolved rulesets recorded in the manifest.")
    s.html_extra, s.md_extra = _rule_diffs(an)
    out.append(s)

    out += [_contracts_section(an), _points_section(an), _outcomes_section(an)]

    dbl = an.doubles
    levels = sorted(set(dbl["doubles"].to_list()))

    def level_label(k):
        names = []
        for n in dbl.filter(pl.col("doubles") == k)["name"].to_list():
            if n not in names:
                names.append(n)
        return f"{k} — {' / '.join(names)}" if k else "0 — no double"

    s = Section("doubling", "Doubling", "How many counted doubles the hands were played at "
                "(each multiplies the value), and the mean.")
    t = _pivot(an, dbl, "doubles", levels, level_label,
               lambda r: _rate_cell(r["share"], r["share_lo"], r["share_hi"], r["total"]),
               "counted doubles")
    row = [Cell("mean counted doubles", cls="label")]
    for v in an.variants:
        r = an.stakes.filter(pl.col("variant") == v).row(0, named=True)
        row.append(_mean_cell(r["doubles_mean"], r["doubles_mean_lo"], r["doubles_mean_hi"]))
    t.rows.append(row)
    s.tables.append(("", t))
    out.append(s)

    s = Section("payouts", "Payouts", "Mean payout per hand of each seat position (the dealer's "
                "left, forehand, leads the first trick), of each bot, and the stake of a hand "
                "(what the winners receive). Intervals: mean ± 1.96 standard errors.")
    s.tables.append(("By position", _pivot(
        an, an.seats, "position", list(an.positions()), str,
        lambda r: _mean_cell(r["mean"], r["mean_lo"], r["mean_hi"], True, r["hands"]),
        "position")))
    s.intro += "".join(" " + t for t in seat_effect_sentences(an))
    bots = an.bots["bot"].unique(maintain_order=True).to_list()
    s.tables.append(("By bot", _pivot(
        an, an.bots, "bot", bots, str,
        lambda r: _mean_cell(r["mean"], r["mean_lo"], r["mean_hi"], True, r["seat_hands"]),
        "bot", caption="Per seat-hand: a bot in two seats counts twice.")))
    if an.gap is not None:
        bots = an.gap["bot"].unique(maintain_order=True).to_list()
        s.tables.append(("Gap to the bound closed", _pivot(
            an, an.gap, "bot", bots, str,
            lambda r: Cell(pct(r["gap_closed"]), f"{pct(r['gap_closed_lo'])} … "
                           f"{pct(r['gap_closed_hi'])}", title=f"n = {count(r['hands'])}"),
            "bot",
            caption=f"(bot − heuristic) ÷ ({an.gap['bound'][0]} − heuristic), per hand at the "
            "same table: 0% plays like the heuristic, 100% like the bot that sees every card.")))
    rows = []
    for label, f in [
        ("mean stake per hand", lambda r: _mean_cell(r["mean"], r["mean_lo"], r["mean_hi"],
                                                     n=r["hands"])),
        ("standard deviation", lambda r: Cell(num(r["sd"]))),
        ("largest stake", lambda r: Cell(pts(r["max"]))),
        ("hands with nothing paid", lambda r: Cell(pct(r["share_zero"]))),
    ]:
        row = [Cell(label, cls="label")]
        for v in an.variants:
            row.append(f(an.stakes.filter(pl.col("variant") == v).row(0, named=True)))
        rows.append(row)
    headers, colors = _variant_headers(an, "stakes")
    s.tables.append(("Stakes per hand", DTable(headers, rows, colors)))
    s.plots = ["seat_advantage", "payout_distribution"]
    out.append(s)

    if an.sessions is not None:
        out.append(_sessions_section(an))
    if an.tournaments is not None and len(an.tournaments):
        out.append(_tournaments_section(an))

    out.append(_paired_section(an, n_var))
    if an.cited:
        out.append(_cited_section(an))
    return out


def _cited_section(an: Analysis) -> Section:
    """The deal each variant changed most, drawn in both variants from the run's hand records."""
    s = Section("cited", "The deal each variant changed most",
                f"For each variant, the deal whose payouts moved most from {an.baseline}'s at "
                "the same table (the same bots in the same seats): the same cards, played under "
                "both rules.")
    html, md = [], []
    for c in an.cited:
        html.append(f"<h3>{esc(c.variant)}</h3><p>{esc(c.sentence())}</p>")
        md += [f"### {md_esc(c.variant)}", "", md_esc(c.sentence()), ""]
        if c.drawn is None:
            why = ("The run kept no record of this hand: `kopsim run --log` keeps every hand "
                   "record, and the report then draws the deal trick by trick.")
            html.append(f"<p class='muted'>{esc(why)}</p>")
            md += [md_esc(why), ""]
            continue
        html.append("<div class='cited'>")
        for label, text in ((c.baseline, c.drawn[0]), (c.variant, c.drawn[1])):
            html.append(f"<figure><figcaption>{esc(label)}</figcaption>"
                        f"<pre>{esc(text)}</pre></figure>")
            md += [f"{md_esc(label)}:", "", "~~~", text.replace("~~~", "~ ~ ~"), "~~~", ""]
        html.append("</div>")
    s.html_extra = "\n".join(html)
    s.md_extra = "\n".join(md)
    return s


def _paired_section(an: Analysis, n_var: int) -> Section:
    """Each variant minus the baseline, deal by deal: every measure and contract share, with
    the forest plot."""
    s = Section("paired", "Paired differences", "Each variant minus the baseline "
                f"({an.baseline}), deal by deal over the deals both played: the mean of the "
                "per-deal differences with its 95% interval. ★ marks a difference whose interval "
                "excludes 0.")
    if n_var > 1:
        labels = an.variants[1:]
        headers, colors = _variant_headers(an, f"variant − {an.baseline}", labels)
        rows = []
        contracts = an.paired.filter(pl.col("kind") == "contract")["metric"].unique(
            maintain_order=True).to_list()
        measures = [(metric, unit) for _, metric, unit in paired_metrics(an.words, an.n_seats)]
        for metric, unit in measures + [(c, "rate") for c in contracts]:
            row = [Cell(metric, cls="label")]
            for v in labels:
                part = an.paired.filter((pl.col("variant") == v) & (pl.col("metric") == metric))
                if part.is_empty() or _nan(part["diff"][0]):
                    row.append(Cell("—", cls="muted"))
                    continue
                r = part.row(0, named=True)
                text, ci, base = _diff_texts(r, unit)
                sig = bool(r["significant"])
                row.append(Cell(("★ " if sig else "") + text, ci, "sig" if sig else "",
                                title=f"{base} over {count(r['deals'])} deals"))
            rows.append(row)
        deals = ", ".join(f"{v}: {count(an.paired.filter(pl.col('variant') == v)['deals'].max())}"
                          for v in labels)
        s.tables.append(("", DTable(headers, rows, colors,
                                    caption=f"Deals paired — {deals}. Rates in percentage "
                                    "points (pp).")))
        for v in labels:
            if _price_table_only(an, v):
                s.intro += f" {v}: {PRICE_ONLY}"
        s.plots = ["paired_differences"]
    else:
        s.intro = "Only one variant: nothing to pair."
    return s


def _diff_texts(r: dict, unit: str) -> tuple[str, str, str]:
    """A paired difference as (the difference, its 95% interval, baseline → variant)."""
    if unit == "rate":
        text = f"{'+' if r['diff'] >= 0 else '−'}{pct(abs(r['diff']))[:-1]} pp"
        ci = f"{num(100 * r['diff_lo'], True)} … {num(100 * r['diff_hi'], True)}"
        return text, ci, f"{pct(r['baseline_mean'])} → {pct(r['variant_mean'])}"
    ci = "" if _nan(r["diff_lo"]) else f"{num(r['diff_lo'], True)} … {num(r['diff_hi'], True)}"
    return num(r["diff"], True), ci, f"{num(r['baseline_mean'])} → {num(r['variant_mean'])}"


# ------------------------------------------------------------------------------- the answer first

PRICE_ONLY = ("every deal is played the same (the same contracts, sides, doubles and card "
              "points) but paid differently: the differences are pure arithmetic of the price "
              "table, not a change of play.")


def _same_play_row(an: Analysis, v: str) -> dict | None:
    sp = an.same_play
    if sp is None or v not in sp["variant"].to_list():
        return None
    return sp.filter(pl.col("variant") == v).row(0, named=True)


def _price_table_only(an: Analysis, v: str) -> bool:
    r = _same_play_row(an, v)
    return (r is not None and r["deals"] > 0 and r["same_play"] == r["deals"]
            and r["same_play_and_payouts"] < r["deals"])


def _play_sentence(an: Analysis, v: str) -> str:
    r = _same_play_row(an, v)
    if r is None or not r["deals"]:
        return ""
    if _price_table_only(an, v):
        return PRICE_ONLY[0].upper() + PRICE_ONLY[1:]
    if r["same_play_and_payouts"] == r["deals"]:
        return "Every deal is played and paid exactly the same."
    return (f"The play differs on {count(r['deals'] - r['same_play'])} of "
            f"{count(r['deals'])} deals (contract, sides, doubles or card points).")


NOT_PAIRED = ("another deck, so other deals: not paired with the baseline (compare its "
              "intervals in the tables)")


def _effect_sentence(r: dict) -> str:
    """An effect in words: a contract's share ("zolo: 49.1% of hands instead of 27.0% ...")
    or a measure's move, with where a payout's move came from when the prices made most of
    it."""
    text, ci, base = _diff_texts(r, r["unit"])
    if r["kind"] == "contract":
        return (f"{r['contract']}: {pct(r['variant_mean'])} of hands instead of "
                f"{pct(r['baseline_mean'])} ({text}; 95% interval {ci} pp)")
    way = "higher" if r["diff"] > 0 else "lower"
    ci += " pp" if r["unit"] == "rate" else ""
    out = f"{r['metric']}: {way}, {text} ({base}; 95% interval {ci})"
    share = price_share(r)
    if share is not None and share >= 0.5:
        out += (f"; {num(r['same_play_diff'], True)} of it on deals played the same in both: "
                "the price table, not the play")
    return out


def _effect_sentences(an: Analysis, v: str) -> tuple[list[str], int]:
    found, small = effects(an.paired, v, an.mean_stake(an.baseline))
    return [_effect_sentence(r) + _mix_words(an, v, r) for r in found], small


def _mix_words(an: Analysis, v: str, r: dict) -> str:
    """For the declarers' win rate: how much of its move the contract mix made."""
    if r["metric"] != paired_metrics(an.words, an.n_seats)[0][1]:
        return ""
    mix, within = win_rate_parts(an.contracts, an.baseline, v)
    return (f"; {num(100 * mix, True)} pp of it from the contract mix (each contract won as "
            f"often as under {an.baseline}), {num(100 * within, True)} pp within the contracts")


def headlines(an: Analysis, most: int = 3) -> list[str]:
    """The report's answer in a few lines for the terminal: per variant, its largest effect
    and how many it has (the "In short" section says them all)."""
    out = []
    paired = set(an.paired["variant"].to_list())
    for v in an.variants[1:most + 1]:
        if v not in paired:
            out.append(f"{v} vs {an.baseline}: {NOT_PAIRED}")
            continue
        found, _ = _effect_sentences(an, v)
        out.append(f"{v} vs {an.baseline}: " + (
            f"{found[0]} (the largest of {len(found)} effect{'s' * (len(found) != 1)})"
            if found else "no effect of practical size"))
    if len(an.variants) > most + 1:
        out.append(f"... and {len(an.variants) - most - 1} more variants")
    return out


def _summary_section(an: Analysis) -> Section:
    """What the comparison found, before the details: first each variant's largest effect,
    one line each; then per variant its effects ranked (contract mix first), whether the play
    or only the prices changed, and how many smaller differences were left to the table."""
    s = Section("summary", "In short")
    if len(an.variants) < 2:
        s.intro = (f"One variant only ({an.variants[0]}, {count(an.overview['hands'].sum())} "
                   "hands): nothing to compare." if an.variants else "No hands.")
        return s
    leads, h, m = [], [], []
    paired = set(an.paired["variant"].to_list())
    for v in an.variants[1:]:
        if v not in paired:
            leads.append(f"{v}: {NOT_PAIRED}")
            continue
        found, small = _effect_sentences(an, v)
        leads.append(f"{v}: {found[0] if found else 'no effect of practical size'}")
        deals = an.paired.filter(pl.col("variant") == v)["deals"].max()
        head = f"{v} compared with {an.baseline}, over {count(deals)} common deals"
        play = _play_sentence(an, v)
        items = ([play] if play else []) + (found or ["no difference of practical size is "
                                                      "significant at the 95% level."])
        if small:
            items.append(f"{small} smaller significant difference{'s' * (small != 1)}, under "
                         "the practical size: in Paired differences.")
        h.append(f"<h3><span class='sw' style='background:{an.colors[v]}'></span>{esc(head)}"
                 "</h3><ul>" + "".join(f"<li>{esc(t)}</li>" for t in items) + "</ul>")
        m += [f"**{md_esc(head)}**", ""] + [f"- {md_esc(t)}" for t in items] + [""]
    why = (f"Above, the largest effect of each variant against the baseline {an.baseline}; "
           "below, each variant's effects ranked, the contract mix first. An effect is a paired "
           "difference (each variant plays the same deals) whose 95% interval excludes 0 and "
           f"that reaches the practical size: {PRACTICAL_WORDS}.")
    lead_html = ("<ul class='leads'>" + "".join(f"<li>{esc(t)}</li>" for t in leads)
                 + f"</ul><p class='muted'>{esc(why)}</p>")
    lead_md = "\n".join(f"- {md_esc(t)}" for t in leads) + "\n\n" + md_esc(why, block=True) + "\n"
    s.html_extra, s.md_extra = lead_html + "\n" + "\n".join(h), lead_md + "\n" + "\n".join(m)
    return s


def _tournaments_section(an: Analysis) -> Section:
    t = an.tournaments
    labels = [v for v in an.variants if v in t["variant"].to_list()]
    s = Section("tournaments", "Tournaments", "Series played as the rounds of tournaments, the "
                "players re-seated between rounds and ranked over all of them as the ruleset "
                "says. Each bot's final rank (1 = first; tied players share the better rank), "
                "how often it won the tournament (a first place shared by k players counts 1/k "
                "to each, so the players' shares add up to 100%), and its placement points "
                "per tournament. "
                "Only tournaments whose every round is complete count.")
    bots = t["bot"].unique(maintain_order=True).to_list()
    for title, cell in [
        ("Final rank", lambda r: _mean_cell(r["rank_mean"], r["rank_lo"], r["rank_hi"],
                                            n=r["tournaments"])),
        ("Tournaments won", lambda r: _rate_cell(r["first"], r["first_lo"], r["first_hi"],
                                                 r["tournaments"])),
        ("Placement points per tournament", lambda r: _mean_cell(
            r["place_points_mean"], r["place_points_lo"], r["place_points_hi"],
            n=r["tournaments"])),
    ]:
        s.tables.append((title, _pivot(an, t, "bot", bots, str, cell, "bot", labels)))
    if "team_first" in t.columns and t["team_first"].is_not_null().any():
        best = int(t["team_best"].drop_nulls()[0])
        s.tables.append((f"Tournaments won as a team (best {best} of a bot's players)", _pivot(
            an, t, "bot", bots, str,
            lambda r: (_rate_cell(r["team_first"], r["team_first_lo"], r["team_first_hi"],
                                  r["tournaments"]) if r.get("team_first") is not None
                       else Cell("—", cls="muted")), "bot", labels,
            caption="The players of one bot label form a team (one bot under two labels is "
                    "two teams); a team's total is the placement points of its best players; k "
                    "teams tied in the lead each count 1/k of the tournament.")))
    return s


def _sessions_section(an: Analysis) -> Section:
    so = an.sessions
    labels = [v for v in an.variants if v in so["variant"].to_list()]
    s = Section("sessions", "Sessions", "Where the rules score sessions: a series of hands with "
                "placement points, or a victory-card bankroll played until a player runs out. "
                "Only complete sessions are counted.")
    rows = []
    for label, f in [
        ("kind", lambda r: Cell(r["kind"] or "—")),
        ("complete sessions", lambda r: Cell(count(r["sessions"]))),
        ("cut short by the end of the run", lambda r: Cell(count(r["incomplete"]))),
        ("mean length (hands)", lambda r: _mean_cell(r["len_mean"], r["len_mean_lo"],
                                                     r["len_mean_hi"], n=r["sessions"])),
        ("median length", lambda r: Cell(pts(r["len_median"]))),
        ("longest", lambda r: Cell(count(r["len_max"]))),
    ]:
        row = [Cell(label, cls="label")]
        for v in labels:
            row.append(f(so.filter(pl.col("variant") == v).row(0, named=True)))
        rows.append(row)
    headers, colors = _variant_headers(an, "sessions", labels)
    s.tables.append(("", DTable(headers, rows, colors)))

    ss = an.session_seats
    has_pp = ss["pp_n"].sum() > 0
    if has_pp:
        s.tables.append(("Placement points per seat", _pivot(
            an, ss, "seat", list(range(an.n_seats)), lambda k: f"seat {k}",
            lambda r: (_mean_cell(r["pp_mean"], r["pp_mean_lo"], r["pp_mean_hi"], n=r["pp_n"])
                       if r["pp_n"] else Cell("—", cls="muted")), "seat", labels,
            caption="Seat 0 deals the first hand of each session.")))
    s.tables.append(("Sessions won per seat (ties stand)", _pivot(
        an, ss, "seat", list(range(an.n_seats)), lambda k: f"seat {k}",
        lambda r: _rate_cell(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"], r["sessions"]),
        "seat", labels)))
    sb = an.session_bots
    fixed = [v for v in labels if v in sb["variant"].to_list()]
    if fixed:
        bots = sb["bot"].unique(maintain_order=True).to_list()
        s.tables.append(("By bot", _pivot(
            an, sb, "bot", bots, str,
            lambda r: Cell(_rate_cell(r["win_rate"], r["win_rate_lo"], r["win_rate_hi"]).text
                           + (f" won · {num(r['pp_mean'])} pts" if r["pp_n"] else " won"),
                           title=f"{count(r['seat_sessions'])} seat-sessions"),
            "bot", fixed, caption="Each session credited to the bot of each seat (the line-up "
            "stays the same through every session of these variants).")))
    rotating = [v for v in labels if v not in fixed]
    if rotating:
        s.intro += (" Sessions are not credited to bots in " + ", ".join(rotating) + ": the "
                    "line-up changes seats inside a session, so a session is won by a seat, not "
                    "by one bot. Payouts → By bot credits every hand to the bot that played it.")
    s.plots = ["session_length"]
    return s


# ----------------------------------------------------------------------------------------- HTML

STYLE = """
:root { --ink:#1f2a35; --muted:#66727e; --line:#e3e6ea; --soft:#f6f8fa; --accent:#0072B2;
        --sig:#fff4d6; }
* { box-sizing: border-box; }
body { margin:0; background:#eef1f4; color:var(--ink);
       font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
main { max-width: 1080px; margin: 0 auto; padding: 28px 28px 60px; background:#fff;
       min-height:100vh; box-shadow: 0 0 0 1px var(--line); }
header { border-bottom: 3px solid var(--accent); padding-bottom: 14px; margin-bottom: 8px; }
.kicker { text-transform: uppercase; letter-spacing: .08em; font-size: 12px; color: var(--muted);
          margin: 0; }
h1 { font-size: 28px; margin: 4px 0 6px; overflow-wrap:anywhere; }
h2 { font-size: 21px; margin: 36px 0 6px; padding-top: 8px; border-top: 1px solid var(--line); }
h3 { font-size: 16px; margin: 20px 0 6px; }
p { margin: 6px 0 10px; }
.lede { font-size: 16px; color: #34424f; margin: 0 0 8px; overflow-wrap:anywhere; }
.muted { color: var(--muted); }
.cited { display:flex; flex-wrap:wrap; gap: 0 18px; }
.cited figure { margin: 6px 0; min-width: 0; }
.cited pre { font-size: 12.5px; background: var(--soft); border: 1px solid var(--line);
             padding: 8px 10px; overflow-x:auto; margin: 4px 0; }
.meta { display:flex; flex-wrap:wrap; gap: 6px 22px; margin: 10px 0 0; font-size: 13px; }
.meta div { display:flex; gap:6px; } .meta dt { color: var(--muted); } .meta dd { margin:0;
  font-weight:600; overflow-wrap:anywhere; }
nav { margin: 14px 0 4px; font-size: 13px; display:flex; flex-wrap:wrap; gap: 4px 6px; }
nav a { color: var(--accent); text-decoration:none; padding: 2px 9px; border-radius: 12px;
        background: var(--soft); border: 1px solid var(--line); }
.table-wrap { overflow-x:auto; margin: 8px 0 6px; }
table { border-collapse: collapse; font-size: 13.5px; min-width: 50%; }
th, td { padding: 6px 12px; border-bottom: 1px solid var(--line); text-align: right;
         vertical-align: top; font-variant-numeric: tabular-nums; }
th { background: var(--soft); font-weight: 600; white-space: nowrap; }
th:first-child, th.l, td.label, td.text, td.mono { text-align: left; }
td.label { font-weight: 600; white-space: nowrap; }
td.desc { text-align:left; max-width: 340px; color:#34424f; overflow-wrap:anywhere; }
td.mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12.5px; }
td.muted { color: #9aa5b1; }
td.sig { background: var(--sig); font-weight: 600; }
tbody tr:hover td { background: #f9fbfc; } tbody tr:hover td.sig { background: var(--sig); }
.ci { display:block; color: var(--muted); font-size: 11.5px; font-weight: 400; }
.sw { display:inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px;
      vertical-align: -1px; }
caption { caption-side: bottom; text-align:left; color: var(--muted); font-size: 12px;
          padding-top: 6px; }
figure { margin: 18px 0; }
figure img { display:block; max-width: 100%; height: auto; border: 1px solid var(--line);
             border-radius: 6px; }
figcaption { color: var(--muted); font-size: 12px; margin-top: 4px; }
.diff dt { font-weight: 600; text-transform: capitalize; margin-top: 8px; }
.diff dd { margin: 2px 0 0 0; } .diff ul { margin: 2px 0; padding-left: 22px; }
.diff li { overflow-wrap:anywhere; }
.warn { background:#fdecea; border:2px solid #b42318; border-radius: 6px; color:#7a1a12;
        padding: 10px 16px; margin: 0 0 16px; font-size: 14px; overflow-wrap:anywhere; }
.warn .warn-head { font-weight: 700; margin: 0 0 4px; } .warn ul { margin: 0; padding-left: 20px; }
.notes { background: var(--soft); border:1px solid var(--line); border-radius: 6px;
         padding: 10px 16px; font-size: 13px; color: #34424f; }
footer { margin-top: 36px; font-size: 12.5px; color: var(--muted); border-top:1px solid var(--line);
         padding-top: 10px; }
"""


def _png_size(png: bytes) -> tuple[int, int]:
    w, h = struct.unpack(">II", png[16:24])
    return w, h


def _html_table(t: DTable) -> str:
    out = ["<div class='table-wrap'><table>"]
    if t.caption:
        out.append(f"<caption>{esc(t.caption)}</caption>")
    out.append("<thead><tr>")
    for i, h in enumerate(t.headers):
        color = t.colors[i] if i < len(t.colors) else None
        sw = f"<span class='sw' style='background:{color}'></span>" if color else ""
        align = " class='l'" if i < t.left else ""
        out.append(f"<th{align}>{sw}{esc(h)}</th>")
    out.append("</tr></thead><tbody>")
    for row in t.rows:
        out.append("<tr>")
        for c in row:
            cls = f" class='{c.cls}'" if c.cls else ""
            title = f" title='{esc(c.title)}'" if c.title else ""
            ci = f"<span class='ci'>{esc(c.ci)}</span>" if c.ci else ""
            sw = (f"<span class='sw' style='background:{esc(c.color)}'></span>"
                  if c.color else "")
            out.append(f"<td{cls}{title}>{sw}{esc(c.text)}{ci}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


def _meta(an: Analysis) -> list[tuple[str, str]]:
    m = an.results.manifest
    items = []
    for key, label in (("seed", "seed"), ("deals", "deals"), ("kopsim_version", "kopsim")):
        if key in m and not isinstance(m[key], (dict, list)):
            v = m[key]
            items.append((label, f"{v:,}" if isinstance(v, int) and key == "deals" else str(v)))
    hands = int(an.overview["hands"].sum()) if len(an.overview) else 0
    items.append(("hands analysed", f"{hands:,}"))
    for k, v in an.results.experiment.items():
        if (k in ("name", "description", "notes") or (k in m and k in ("seed", "deals"))
                or isinstance(v, (dict, list)) or v is None):
            continue
        said = _setting_words(k, v, an.n_seats)
        if said is not None:
            items.append(said)
    return items


# the experiment's settings said in words, not as the values the manifest keeps them in
ROTATE_WORDS = {"round": "the line-up moves one seat every round of {n} deals",
                "session": "the line-up moves one seat every session"}
NUMBER_WORDS = {3: "three", 4: "four", 5: "five", 6: "six"}
ENGINE_WORDS = {"kernel": "batch kernel", "reference": "reference engine"}


def _setting_words(key: str, value, seats: int) -> tuple[str, str] | None:
    """(label, words) of an experiment setting for the report's header, at a table of `seats`;
    None for a setting that says nothing worth a line (sessions not scored, no rotation, its
    period, the table of four every bundled ruleset seats)."""
    n = NUMBER_WORDS.get(seats, str(seats))
    if key == "sessions":
        return ("sessions", "scored as each ruleset says") if value is True else None
    if key == "seats":
        return None if value == DEFAULT_SEATS else ("table", f"{n} seats")
    if key == "rotate":
        words = ROTATE_WORDS.get(str(value), str(value)).format(n=n)
        return ("seats", words) if value else None
    if key == "rotation_period":
        return None
    if key == "engine":
        return ("engine", ENGINE_WORDS.get(str(value), str(value)))
    return (str(key), str(value))


def warnings(an: Analysis) -> list[str]:
    """What the reader of the results folder found wrong with it (an incomplete run, missing,
    extra or damaged chunks): shown first, because every number below depends on it."""
    return [str(w) for w in getattr(an.results, "warnings", None) or []]


def _notes(an: Analysis) -> list[str]:
    exp = an.results.experiment
    notes = exp.get("notes")
    out = []
    if isinstance(notes, str) and notes.strip():
        out.append(notes)
    elif isinstance(notes, list):
        out += [str(n) for n in notes]
    return out


def html_report(an: Analysis, plots: dict[str, tuple[str, bytes]]) -> str:
    name = an.results.name
    desc = an.results.experiment.get("description")
    secs = sections(an)
    out = ["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
           f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">",
           "<meta name='viewport' content='width=device-width, initial-scale=1'>",
           f"<title>{esc(name)} — kopsim report</title><style>{STYLE}</style></head><body><main>"]
    if warnings(an):
        out.append("<div class='warn' role='alert'><p class='warn-head'>Warning: these results "
                   "may be incomplete or damaged</p><ul>"
                   + "".join(f"<li>{esc(w)}</li>" for w in warnings(an)) + "</ul></div>")
    out += ["<header><p class='kicker'>kopsim comparison report</p>",
           f"<h1>{esc(name)}</h1>"]
    if desc:
        out.append(f"<p class='lede'>{esc(desc)}</p>")
    out.append("<dl class='meta'>" + "".join(f"<div><dt>{esc(k)}</dt><dd>{esc(v)}</dd></div>"
                                              for k, v in _meta(an)) + "</dl></header>")
    notes = _notes(an)
    if notes:
        out.append("<div class='notes'>" + "".join(f"<p>{esc(n)}</p>" for n in notes)
                   + "</div>")
    out.append("<nav>" + "".join(f"<a href='#{s.id}'>{esc(s.title)}</a>" for s in secs)
               + "</nav>")
    for s in secs:
        out.append(f"<section id='{s.id}'><h2>{esc(s.title)}</h2>")
        if s.intro:
            out.append(f"<p class='muted'>{esc(s.intro)}</p>")
        out.append(s.html_extra)
        for heading, t in s.tables:
            if heading:
                out.append(f"<h3>{esc(heading)}</h3>")
            out.append(_html_table(t))
        for p in s.plots:
            if p not in plots:
                continue
            title, png = plots[p]
            w, h = _png_size(png)
            data = base64.b64encode(png).decode("ascii")
            out.append(f"<figure><img src='data:image/png;base64,{data}' width='{w}' "
                       f"height='{h}' alt='{esc(title)}'><figcaption>{esc(title)} "
                       f"({esc(p)}.png)</figcaption></figure>")
        out.append("</section>")
    out.append("<footer><p>")
    out.append(esc("95% intervals: Wilson for proportions, normal approximation (mean ± 1.96 "
                   "standard errors) for means; paired differences are computed per deal id "
                   "across variants. Tables are in tables/*.csv, plots in *.png next to this "
                   "page."))
    out.append("</p>")
    for n in an.notes:
        out.append(f"<p>{esc(n)}</p>")
    out.append("</footer></main></body></html>")
    return "\n".join(out)


# ------------------------------------------------------------------------------------- Markdown


def _md_table(t: DTable) -> str:
    def cell(c: Cell) -> str:
        s = md_esc(c.text)
        if c.cls == "sig":
            s = f"**{s}**"
        if c.ci:
            s += f" ({md_esc(c.ci)})"
        return s

    lines = ["| " + " | ".join(md_esc(h) for h in t.headers) + " |",
             "| " + " | ".join(["---"] * t.left + ["---:"] * (len(t.headers) - t.left)) + " |"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in t.rows]
    if t.caption:
        lines += ["", f"*{md_esc(t.caption)}*"]
    return "\n".join(lines)


def markdown_report(an: Analysis, plots: dict[str, tuple[str, bytes]]) -> str:
    out = [f"# {md_esc(an.results.name)}", ""]
    for w in warnings(an):
        out += [f"> **Warning:** {md_esc(w)}", ""]
    desc = an.results.experiment.get("description")
    if desc:
        out += [md_esc(desc, block=True), ""]
    out += [" · ".join(f"{md_esc(k)}: **{md_esc(v)}**" for k, v in _meta(an)), ""]
    for n in _notes(an):
        out += [f"> {md_esc(n)}", ""]
    for s in sections(an):
        out += [f"## {md_esc(s.title)}", ""]
        if s.intro:
            out += [md_esc(s.intro, block=True), ""]
        if s.md_extra:
            out += [s.md_extra]
        for heading, t in s.tables:
            if heading:
                out += [f"### {md_esc(heading)}", ""]
            out += [_md_table(t), ""]
        for p in s.plots:
            if p in plots:
                out += [f"![{md_esc(plots[p][0])}]({p}.png)", ""]
    out += ["---", "", md_esc("95% intervals: Wilson for proportions, normal approximation for "
                              "means; paired differences per deal id.")]
    for n in an.notes:
        out += ["", md_esc(n, block=True)]
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------- files

# a spreadsheet reads a cell starting with one of these as a formula (OWASP "CSV injection")
_FORMULA_START = r"^[=+\-@\t\r]"


def csv_safe(df: pl.DataFrame) -> pl.DataFrame:
    """String cells that a spreadsheet would run as a formula, prefixed with a single quote.
    Only string columns: numbers (negative ones too) stay numbers."""
    return df.with_columns(
        pl.when(pl.col(c).str.contains(_FORMULA_START)).then(pl.lit("'") + pl.col(c))
        .otherwise(pl.col(c)).alias(c)
        for c, t in df.schema.items() if t == pl.String)



def write_report(an: Analysis, plots: dict[str, tuple[str, bytes]], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    (out / "tables").mkdir(exist_ok=True)
    written = []
    p = out / "index.html"
    p.write_text(html_report(an, plots), encoding="utf-8")
    written.append(p)
    p = out / "report.md"
    p.write_text(markdown_report(an, plots), encoding="utf-8")
    written.append(p)
    for name, (_, png) in plots.items():
        p = out / f"{name}.png"
        p.write_bytes(png)
        written.append(p)
    for name, df in an.tables().items():
        p = out / "tables" / f"{name}.csv"
        csv_safe(df).write_csv(p)
        written.append(p)
    return written
