"""The deal the report cites for each variant: the one whose payouts a rule change moved most,
drawn trick by trick in both variants from the hand records of the run (`kopsim run --log`).

A deal is compared with itself at the same table (the same bots in the same seats), so what
changed is the rule. Its records are found through the chunk that holds its row: a log chunk's
lines are its hand file's rows, in order; a record is cited only if it is the row's (same seed,
dealer and contract), and only from a log file the chunk index vouches for."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from ..records.show import show_hand
from .read import Results



def _lineup(seats: int) -> list[str]:
    return [f"bot_{s}" for s in range(seats)]


def _cited_read(seats: int) -> list[str]:
    """The columns a citation reads."""
    return ["variant", "deal_id", "seed", "dealer", "contract", *_lineup(seats),
            *[f"payout_{s}" for s in range(seats)]]


@dataclass
class CitedDeal:
    variant: str
    baseline: str
    deal_id: int
    lineup: tuple[str, ...]
    change: float  # the sum over seats of |variant payout - baseline payout|
    payouts: tuple[tuple[float, ...], tuple[float, ...]]  # (baseline, variant)
    contracts: tuple[str, str]
    drawn: tuple[str, str] | None = None  # each hand drawn from its record, when logged

    def sentence(self) -> str:
        pay = lambda p: " ".join(f"{x:+g}" for x in p)  # noqa: E731
        bots = (f"{self.lineup[0]} in every seat" if len(set(self.lineup)) == 1
                else "bots " + ", ".join(self.lineup))
        return (f"{self.variant}: deal {self.deal_id} ({bots}) moved "
                f"most: {self.baseline} played it as {self.contracts[0]}, paying "
                f"{pay(self.payouts[0])} by seat; {self.variant} as {self.contracts[1]}, paying "
                f"{pay(self.payouts[1])} ({self.change:g} moved in all).")


def _rows(res: Results, label: str, files: bool = False) -> pl.LazyFrame:
    """The variant's hands, the columns a citation reads (and each row's file, if asked: a
    string a row, so only for the few rows of one deal)."""
    paths = [str(f) for f in res.hand_files if f.parent.name == label]
    lf = (pl.scan_parquet(paths, extra_columns="ignore", missing_columns="insert",
                          include_file_paths="file" if files else None)
          .filter(pl.col("variant").cast(pl.String) == label))
    strings = ("variant", "contract", *_lineup(res.seats))
    return lf.select([pl.col(c).cast(pl.String if c in strings
                                     else pl.Float64 if c.startswith("payout") else pl.Int64)
                      for c in _cited_read(res.seats)] + (["file"] if files else []))


def most_changed(res: Results, base: str, other: str, engine: str = "streaming"
                 ) -> CitedDeal | None:
    """The deal of `other` whose payouts differ most from the baseline's at the same table
    (ties: the lowest deal id), or None when no deal's payouts changed."""
    seats = range(res.seats)
    key = ["deal_id", *_lineup(res.seats)]
    pay = [f"payout_{s}" for s in seats]
    a = _rows(res, base).select(*key, *pay)
    b = _rows(res, other).select(*key, *pay)
    change = pl.sum_horizontal([(pl.col(p) - pl.col(f"{p}_base")).abs() for p in pay])
    top = (b.join(a, on=key, how="inner", suffix="_base")
           .select(*key, change=change).filter(pl.col("change") > 1e-9)
           .top_k(1, by=["change", "deal_id"], reverse=[False, True]).collect(engine=engine))
    if top.is_empty():
        return None
    r = top.row(0, named=True)
    at = pl.all_horizontal([pl.col(c) == r[c] for c in key])
    one = (_rows(res, other, True).filter(at).head(1)
           .join(_rows(res, base, True).filter(at).head(1), on=key, suffix="_base")
           .collect())
    if one.is_empty():
        return None
    r = one.row(0, named=True) | {"change": r["change"]}
    return CitedDeal(
        variant=other, baseline=base, deal_id=r["deal_id"],
        lineup=tuple(r[c] for c in _lineup(res.seats)), change=r["change"],
        payouts=(tuple(r[f"payout_{s}_base"] for s in seats),
                 tuple(r[f"payout_{s}"] for s in seats)),
        contracts=(r["contract_base"], r["contract"]),
        drawn=_drawn(res, r))


def _drawn(res: Results, r: dict) -> tuple[str, str] | None:
    base = _record(res, r["file_base"], r, "_base")
    other = _record(res, r["file"], r, "")
    if base is None or other is None:
        return None
    # without show_hand's first line ("hand 1: ..."): the figure names the variant
    return tuple(show_hand(d, 1).split("\n", 1)[1].strip("\n") for d in (base, other))


def _record(res: Results, hand_file: str, r: dict, suffix: str) -> dict | None:
    """The log record of the row r (columns with `suffix`) of `hand_file`, if the run logged
    it in a log file the chunk index vouches for, and it is that row's hand."""
    hand_file = Path(hand_file)
    log = res.path / "logs" / hand_file.parent.name / (hand_file.stem + ".jsonl")
    if log not in set(res.log_files):
        return None
    rows = (pl.scan_parquet(str(hand_file)).with_row_index("row")
            .filter((pl.col("deal_id") == r["deal_id"])
                    & pl.all_horizontal([pl.col(c).cast(pl.String) == r[c] for c in _lineup(res.seats)]))
            .select("row").collect())
    if rows.is_empty():
        return None
    want = rows["row"][0]
    with open(log, encoding="utf-8") as f:
        for k, line in enumerate(f):
            if k == want:
                try:
                    d = json.loads(line)
                except ValueError:
                    return None
                ok = (d.get("seed") == r[f"seed{suffix}"] and d.get("dealer") == r[f"dealer{suffix}"]
                      and d.get("contract") == r[f"contract{suffix}"])
                return d if ok else None
    return None


def cited_deals(res: Results, base: str, others: list[str], engine: str = "streaming"
                ) -> list[CitedDeal]:
    """For each variant paired with the baseline, the deal it changed most (if any)."""
    out = []
    for v in others:
        c = most_changed(res, base, v, engine)
        if c is not None:
            out.append(c)
    return out
