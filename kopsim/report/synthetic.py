"""Results folders written straight from the batch kernel, for tests and the report benchmark.

`kopsim run` writes the real thing; this writes the same layout (docs/results.md) from random-play
`BatchResult`s, fast enough for millions of hands: `batch_frame` turns one batch into the hand
columns, `write_results` plays every variant on the same deals (common random numbers) and writes
manifest.json, hands/VARIANT/chunk-*.parquet and, for rulesets with sessions, sessions/.

    python -m kopsim.report.synthetic OUT_DIR --hands 2000000 kop kop-trzy-dychy
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import polars as pl

from ..engine.kernel import BatchResult
from ..rules.compile import TIERS, compile_rules
from ..rules.load import load_ruleset
from ..rules.model import Ruleset
from ..engine.layout import iter_run
from ..engine.sessions import BankrollSession, series_points


def batch_frame(res: BatchResult, variant: str, deal_ids: np.ndarray,
                session: np.ndarray | None = None,
                bots: tuple[str, str, str, str] = ("random",) * 4) -> pl.DataFrame:
    """One row per hand of `res`, with the hand columns of docs/results.md."""
    cr = res.compiled
    n = len(res)
    cols: dict[str, pl.Series] = {
        "deal_id": pl.Series(np.asarray(deal_ids, np.int64)),
        "seed": pl.Series(res.seeds.astype(np.int64)),
        "session": (pl.Series(np.asarray(session, np.int32)) if session is not None
                    else pl.repeat(None, n, dtype=pl.Int32, eager=True)),
        "hand_index": pl.Series(res.hand_index.astype(np.int32)),
        "dealer": pl.Series(res.dealers.astype(np.int8)),
        "contract": pl.Series(cr.contract_names, dtype=pl.String).gather(
            res.contract.astype(np.int64)),
        "declarer": pl.Series(res.declarer.astype(np.int8)),
        **{f"old_{s}": pl.Series(((res.old.astype(np.int64) >> s) & 1).astype(bool))
           for s in range(4)},
        "doubles": pl.Series(res.doubles.astype(np.int8)),
        "winner_code": pl.Series(res.winner.astype(np.int8)),
        "tier": pl.Series(list(TIERS), dtype=pl.String).gather(res.tier.astype(np.int64)),
    }
    for s in range(4):
        cols[f"points_{s}"] = pl.Series(res.points[:, s].astype(np.float64))
        cols[f"tricks_{s}"] = pl.Series(res.tricks[:, s].astype(np.int8))
        cols[f"payout_{s}"] = pl.Series(res.payouts[:, s].astype(np.float64))
    df = pl.DataFrame(cols)
    w = pl.col("winner_code")
    return df.select(
        pl.lit(variant, pl.String).alias("variant"),
        pl.lit(cr.rules.name, pl.String).alias("ruleset"),
        "deal_id", "seed", "session", "hand_index", "dealer",
        *[pl.lit(bots[s], pl.String).alias(f"bot_{s}") for s in range(4)],
        "contract",
        pl.when(pl.col("declarer") >= 0).then(pl.col("declarer")).alias("declarer"),
        *[f"old_{s}" for s in range(4)],
        "doubles",
        pl.when(w == 0).then(pl.lit("old")).when(w == 1).then(pl.lit("young")).alias("winner"),
        "tier",
        *[f"points_{s}" for s in range(4)], *[f"tricks_{s}" for s in range(4)],
        *[f"payout_{s}" for s in range(4)],
    )


def _session_rows(rules: Ruleset, variant: str, sess: dict, bots) -> dict:
    spec = rules.session
    totals = sess["totals"]
    if spec.kind == "series":
        complete = sess["hands"] == spec.hands
        places = series_points(list(totals), spec)
        final = list(totals)
    else:
        complete = sess["bank"].over
        places = [None] * 4
        final = list(sess["bank"].balance)
    best = max(final)
    row = {"variant": variant, "ruleset": rules.name, "session": sess["id"],
           "hands": sess["hands"], "complete": complete}
    for s in range(4):
        row[f"bot_{s}"] = bots[s]
    for s in range(4):
        row[f"total_{s}"] = float(final[s])
    for s in range(4):
        row[f"place_points_{s}"] = None if places[s] is None else float(places[s])
    for s in range(4):
        row[f"won_{s}"] = final[s] == best
    return row


SESSION_SCHEMA = {"variant": pl.String, "ruleset": pl.String, "session": pl.Int32,
                  "hands": pl.Int32, "complete": pl.Boolean,
                  **{f"bot_{s}": pl.String for s in range(4)},
                  **{f"total_{s}": pl.Float64 for s in range(4)},
                  **{f"place_points_{s}": pl.Float64 for s in range(4)},
                  **{f"won_{s}": pl.Boolean for s in range(4)}}


def _sessions_of(rules: Ruleset, variant: str, ch, bots, state: dict, rows: list) -> None:
    """Fold one chunk's hands into running sessions; finished ones become rows."""
    spec = rules.session
    sess_ids = ch.session
    pay = ch.result.payouts
    # split the chunk at session boundaries and fold each run at once
    cuts = np.flatnonzero(np.diff(sess_ids)) + 1
    for part in np.split(np.arange(len(sess_ids)), cuts):
        sid = int(sess_ids[part[0]])
        cur = state.get("cur")
        if cur is None or cur["id"] != sid:
            if cur is not None:
                rows.append(_session_rows(rules, variant, cur, bots))
            cur = state["cur"] = {"id": sid, "hands": 0, "totals": np.zeros(4),
                                  "bank": BankrollSession.start(spec)
                                  if spec.kind == "bankroll" else None}
        cur["hands"] += len(part)
        cur["totals"] += pay[part].sum(axis=0)
        if cur["bank"] is not None:
            for i in part:
                cur["bank"].play([float(x) for x in pay[i]])


def write_results(out: str | Path, variants: list[tuple[str, Ruleset]], hands: int,
                  seed: int = 1, chunk: int = 262144, bots=("random",) * 4,
                  experiment: dict | None = None) -> Path:
    """Play `hands` random-play hands of every variant (same seeds) into a results folder."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    manifest = {
        "experiment": experiment or {"name": out.name,
                                     "description": "synthetic random-play results"},
        "variants": [{"label": label, "ruleset_name": r.name, "ruleset_sha256": r.sha256(),
                      "ruleset": r.model_dump(mode="json", by_alias=True)}
                     for label, r in variants],
        "seed": seed, "deals": hands, "kopsim_version": "synthetic",
    }
    for label, rules in variants:
        cr = compile_rules(rules)
        hdir = out / "hands" / label
        hdir.mkdir(parents=True, exist_ok=True)
        state: dict = {}
        srows: list[dict] = []
        pending: list[pl.DataFrame] = []
        files = 0

        def flush() -> None:
            nonlocal files
            if pending:
                pl.concat(pending).write_parquet(hdir / f"chunk-{files:06d}.parquet")
                files += 1
                pending.clear()

        for ch in iter_run(cr, seed, hands, chunk):
            pending.append(batch_frame(ch.result, label, ch.deal_id, ch.session, bots))
            if ch.session is not None:
                _sessions_of(rules, label, ch, bots, state, srows)
            if sum(len(p) for p in pending) >= chunk:
                flush()
        flush()
        if state.get("cur") is not None:
            srows.append(_session_rows(rules, label, state["cur"], bots))
        if srows:
            sdir = out / "sessions" / label
            sdir.mkdir(parents=True, exist_ok=True)
            pl.DataFrame(srows, schema=SESSION_SCHEMA).write_parquet(sdir / "chunk-000000.parquet")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False),
                                       encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kopsim.report.synthetic")
    p.add_argument("out")
    p.add_argument("rulesets", nargs="+")
    p.add_argument("--hands", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    write_results(a.out, [(name, load_ruleset(name)) for name in a.rulesets], a.hands, a.seed)
    print(f"wrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
