"""Random-play results folders from the batch kernel, and the report over them end to end."""

import json
import sys
from pathlib import Path

import polars as pl
import pytest

from kopsim.report.analysis import analyse
from kopsim.report.read import hand_columns, load_results, session_columns
from kopsim.rules.load import load_ruleset
from kopsim.experiments.simulate import simulate

sys.path.insert(0, str(Path(__file__).parent / "data"))
from synthetic import write_results  # noqa: E402

DOC_TYPES = {"str": pl.String, "bool": pl.Boolean, "num": pl.Float64}


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    rules = [("kop", load_ruleset("kop")), ("again", load_ruleset("kop")),
             ("sportowy", load_ruleset("kop-sportowy"))]
    return write_results(tmp_path_factory.mktemp("syn") / "r", rules, hands=3000, seed=5,
                         chunk=1024)


@pytest.fixture(scope="module")
def an(folder):
    return analyse(load_results(folder))


def test_layout_and_columns_follow_docs_results_md(folder):
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert [v["label"] for v in manifest["variants"]] == ["kop", "again", "sportowy"]
    assert manifest["variants"][0]["ruleset_sha256"] == load_ruleset("kop").sha256()
    files = sorted((folder / "hands" / "kop").glob("chunk-*.parquet"))
    assert [f.name for f in files] == ["chunk-000000.parquet", "chunk-000001.parquet",
                                       "chunk-000002.parquet"]
    df = pl.read_parquet(files[0])
    assert set(hand_columns(4)) <= set(df.columns)
    assert df.schema["deal_id"] == pl.Int64 and df.schema["session"] == pl.Int32
    assert df.schema["dealer"] == pl.Int8 and df.schema["declarer"] == pl.Int8
    assert df.schema["tricks_0"] == pl.Int8
    for col, kind in hand_columns(4).items():
        if kind in DOC_TYPES:
            assert df.schema[col] == DOC_TYPES[kind], col
    assert set(df["winner"].drop_nulls().unique()) <= {"old", "young"}
    assert df.filter(pl.col("contract") == "normal")["declarer"].null_count() == \
        df.filter(pl.col("contract") == "normal").height
    sp = pl.read_parquet(folder / "hands" / "sportowy")
    assert sp["session"].to_list()[:33] == [0] * 32 + [1]
    s = pl.read_parquet(folder / "sessions" / "sportowy")
    assert set(session_columns(4)) <= set(s.columns)
    assert s["complete"].to_list() == [True] * 93 + [False]  # 3000 = 93 × 32 + 24
    assert s["hands"].to_list()[-1] == 24


def test_report_agrees_with_kopsim_simulate(an):
    """Same ruleset, seed and count: the kernel summary and the Parquet analysis agree."""
    summary = simulate(load_ruleset("kop"), 3000, 5)
    got = an.contracts.filter(pl.col("variant") == "kop")
    for r in got.iter_rows(named=True):
        assert r["hands"] == summary.contract_counts.get(r["contract"], 0)
        assert r["old_wins"] == summary.old_wins.get(r["contract"], 0)
    seats = an.seats.filter(pl.col("variant") == "kop")["mean"].sum()
    assert seats == pytest.approx(0, abs=1e-9)  # zero-sum: the positions' means add up to 0
    assert an.overview["hands"].to_list() == [3000, 3000, 3000]
    assert an.overview["deals"].to_list() == [3000, 3000, 3000]


def test_same_rules_same_deals_means_no_paired_difference(an):
    p = an.paired.filter(pl.col("variant") == "again")
    assert p["deals"].to_list() == [3000] * len(p)
    assert p["diff"].to_list() == [0.0] * len(p)
    assert not p["significant"].any()
    assert an.rule_diffs["again"] == []


def test_a_real_difference_is_significant(an):
    # sportowy caps doubles and pays less: the stake per hand drops on the same deals
    r = an.paired.filter((pl.col("variant") == "sportowy")
                         & (pl.col("metric") == "stake per hand")).row(0, named=True)
    assert r["diff"] < 0 and r["diff_hi"] < 0 and r["significant"]
    assert r["diff"] == pytest.approx(r["variant_mean"] - r["baseline_mean"])


def test_paired_slices_add_up(folder, monkeypatch):
    """Slicing the deal ids for the join changes nothing but memory."""
    import kopsim.report.analysis as A

    whole = analyse(load_results(folder)).paired
    monkeypatch.setattr(A, "PAIR_SLICE", 700)
    sliced = analyse(load_results(folder)).paired
    for col in ("deals", "significant"):
        assert whole[col].to_list() == sliced[col].to_list()
    for col in ("diff", "diff_lo", "diff_hi", "baseline_mean"):
        assert whole[col].to_list() == pytest.approx(sliced[col].to_list(), nan_ok=True)
