"""Tiny results folders written by hand (docs/results.md layout), for metrics checked by hand.

`tiny(path)` holds two variants, `kop` and `cheap` (kop with a lost zolo du paying 4, and a
description that tries to inject markup), over the same eight deals; `sessions(path)` holds a
victory-card variant and a series variant with hand-picked session rows. The expected values in
tests/test_report_metrics.py are worked out from the rows below.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from kopsim.rules.load import load_ruleset, ruleset_from_dict
from kopsim.rules.model import Ruleset

PAYLOAD = "<script>alert('x')</script><img src=x onerror=alert(1)>"

HAND_SCHEMA = {
    "variant": pl.String, "ruleset": pl.String, "deal_id": pl.Int64, "seed": pl.Int64,
    "session": pl.Int32, "hand_index": pl.Int32, "dealer": pl.Int8,
    **{f"bot_{s}": pl.String for s in range(4)},
    "contract": pl.String, "declarer": pl.Int8,
    **{f"old_{s}": pl.Boolean for s in range(4)},
    "doubles": pl.Int8, "winner": pl.String, "tier": pl.String,
    **{f"points_{s}": pl.Float64 for s in range(4)},
    **{f"tricks_{s}": pl.Int8 for s in range(4)},
    **{f"payout_{s}": pl.Float64 for s in range(4)},
}
SESSION_SCHEMA = {
    "variant": pl.String, "ruleset": pl.String, "session": pl.Int32, "hands": pl.Int32,
    "complete": pl.Boolean, **{f"bot_{s}": pl.String for s in range(4)},
    **{f"total_{s}": pl.Float64 for s in range(4)},
    **{f"place_points_{s}": pl.Float64 for s in range(4)},
    **{f"won_{s}": pl.Boolean for s in range(4)},
}
BOTS = ("alice", "bob", "random", "random")


def hand(variant: str, rules: str, deal: int, contract: str, old: tuple, winner, tier: str,
         points: list, payouts: list, doubles: int = 0, declarer=None, session=None,
         hand_index=None, dealer=None, bots=BOTS) -> dict:
    row = {"variant": variant, "ruleset": rules, "deal_id": deal, "seed": 1000 + deal,
           "session": session, "hand_index": deal if hand_index is None else hand_index,
           "dealer": deal % 4 if dealer is None else dealer,
           "contract": contract, "declarer": declarer, "doubles": doubles, "winner": winner,
           "tier": tier}
    for s in range(4):
        row[f"bot_{s}"] = bots[s]
        row[f"old_{s}"] = s in old
        row[f"points_{s}"] = float(points[s])
        row[f"tricks_{s}"] = 1
        row[f"payout_{s}"] = float(payouts[s])
    return row


def write_folder(path: Path, variants: list[tuple[str, Ruleset]], hands: list[dict],
                 sessions: list[dict] | None = None, experiment: dict | None = None,
                 chunk: int = 5, overrides: dict | None = None) -> Path:
    """Write the rows as chunk files of at most `chunk` hands per variant (overrides: label ->
    the experiment's overrides of that variant's ruleset, recorded in the manifest)."""
    path.mkdir(parents=True, exist_ok=True)
    manifest = {"experiment": experiment or {"name": path.name},
                "variants": [{"label": label, "ruleset_name": r.name,
                              "ruleset_sha256": r.sha256(),
                              "ruleset": r.model_dump(mode="json", by_alias=True),
                              "bots": ["alice", "bob", "random", "random"],
                              "overrides": (overrides or {}).get(label, {})}
                             for label, r in variants],
                "seed": 7, "deals": 8, "kopsim_version": "test", "extra_key": {"ignored": 1}}
    (path / "manifest.json").write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    for label, _ in variants:
        rows = [h for h in hands if h["variant"] == label]
        d = path / "hands" / label
        d.mkdir(parents=True, exist_ok=True)
        for k in range(0, len(rows), chunk):
            df = pl.DataFrame(rows[k:k + chunk], schema=HAND_SCHEMA)
            df.with_columns(pl.lit("extra").alias("an_extra_column")).write_parquet(
                d / f"chunk-{k // chunk:06d}.parquet")
        srows = [s for s in sessions or [] if s["variant"] == label]
        if srows:
            sd = path / "sessions" / label
            sd.mkdir(parents=True, exist_ok=True)
            pl.DataFrame(srows, schema=SESSION_SCHEMA).write_parquet(sd / "chunk-000000.parquet")
    return path


def cheap_rules() -> Ruleset:
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["name"] = "cheap"
    data["description"] = f"Kop with a cheap zolo du {PAYLOAD}"
    data["contracts"]["zolo du"]["payout"]["lost"] = {"flat": 4.0}
    return ruleset_from_dict(data)


def kop_hands(v: str, rules: str) -> list[dict]:
    """Eight deals of classic Kop (dealer = deal % 4)."""
    return [
        hand(v, rules, 0, "normal", (0, 1), "old", "out", [40, 20, 30, 14], [1, 1, -1, -1]),
        hand(v, rules, 1, "zolo", (2,), "young", "lone", [30, 20, 30, 24], [10, 10, -30, 10],
             doubles=1, declarer=2),
        hand(v, rules, 2, "zolo du", (3,), "young", "lone", [50, 30, 24, 0],
             [10, 10, 10, -30], declarer=3),
        hand(v, rules, 3, "normal", (1, 3), "young", "schneider", [50, 10, 34, 10],
             [8, -8, 8, -8], doubles=2),
        hand(v, rules, 4, "cicha", (1,), "old", "lone", [20, 70, 14, 0], [-4, 12, -4, -4],
             declarer=1),
        hand(v, rules, 5, "normal", (0, 2), "young", "tie", [26, 30, 26, 22], [-1, 1, -1, 1]),
        hand(v, rules, 6, "zolo", (0,), "old", "lone", [60, 20, 24, 0], [15, -5, -5, -5],
             declarer=0),
        hand(v, rules, 7, "normal", (2, 3), "old", "schwarz", [0, 0, 60, 44], [-6, -6, 6, 6],
             doubles=1),
    ]


def cheap_hands() -> list[dict]:
    """The same deals under `cheap`: deal 2's lost zolo du pays 4, and deal 4 is a won zolo."""
    rows = kop_hands("cheap", "cheap")
    rows[2] = hand("cheap", "cheap", 2, "zolo du", (3,), "young", "lone", [50, 30, 24, 0],
                   [4, 4, 4, -12], declarer=3)
    rows[4] = hand("cheap", "cheap", 4, "zolo", (1,), "old", "lone", [20, 70, 14, 0],
                   [-5, 15, -5, -5], declarer=1)
    return rows


def tiny(path: Path, experiment: dict | None = None) -> Path:
    return write_folder(path, [("kop", load_ruleset("kop")), ("cheap", cheap_rules())],
                        kop_hands("kop", "kop") + cheap_hands(), experiment=experiment)


def _session(v, rules, i, hands, complete, totals, won, pp=(None,) * 4, bots=BOTS) -> dict:
    row = {"variant": v, "ruleset": rules, "session": i, "hands": hands, "complete": complete}
    for s in range(4):
        row[f"bot_{s}"] = bots[s]
        row[f"total_{s}"] = float(totals[s])
        row[f"place_points_{s}"] = pp[s]
        row[f"won_{s}"] = won[s]
    return row


def sessions(path: Path) -> Path:
    """`vc` (victory cards, bankroll) and `sp` (kop-sportowy, series) with session rows."""
    vc, sp = "kop-victory-cards", "kop-sportowy"
    hands = [
        hand("vc", vc, 0, "normal", (0, 1), "old", "out", [60, 20, 14, 10], [2, 2, -2, -2],
             session=0, hand_index=0),
        hand("vc", vc, 1, "solo", (1,), "young", "lone", [20, 30, 30, 24], [2, -6, 2, 2],
             session=0, hand_index=1, declarer=1),
        hand("sp", sp, 0, "kop", (2,), "old", "instant", [0, 0, 0, 0], [-10, -10, 30, -10],
             session=0, hand_index=0, declarer=2),
        hand("sp", sp, 1, "normal", (0, 3), "old", "out", [30, 20, 4, 50], [10, -10, -10, 10],
             session=0, hand_index=1),
        hand("sp", sp, 2, "zolo", (1,), "young", "lone", [40, 12, 30, 22], [5, -15, 5, 5],
             session=0, hand_index=2, declarer=1),
    ]
    rows = [
        _session("vc", vc, 0, 3, True, [8, 0, 7, 5], [True, False, False, False]),
        _session("vc", vc, 1, 5, True, [0, 6, 6, 8], [False, False, False, True]),
        _session("vc", vc, 2, 10, True, [10, 10, 0, 0], [True, True, False, False]),
        _session("vc", vc, 3, 2, False, [5, 5, 5, 5], [True, True, True, True]),
        _session("sp", sp, 0, 32, True, [40, 10, -20, -30], [True, False, False, False],
                 pp=(6.5, 4.5, 1.0, 0.0)),
        _session("sp", sp, 1, 32, True, [-5, -15, 0, 20], [False, False, False, True],
                 pp=(3.0, 1.0, 3.0, 8.0)),
    ]
    return write_folder(path, [("vc", load_ruleset(vc)), ("sp", load_ruleset(sp))], hands, rows,
                        experiment={"name": "sessions"})
