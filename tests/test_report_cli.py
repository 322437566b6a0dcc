"""`kopsim report`: the files it writes, what it prints, and located errors (exit code 2)."""

import json
import sys
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.cli import main  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return fx.tiny(tmp_path_factory.mktemp("cli") / "tiny",
                   experiment={"name": "tiny", "description": "two variants", "hands": 8})


def test_report_writes_every_file_and_says_where(tiny, tmp_path, capsys):
    out = tmp_path / "rep"
    assert main(["report", str(tiny), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"written to {out}/" in printed and str(out / "index.html") in printed
    assert "16 hands of 2 variants" in printed
    # the answer in short, then the next step
    assert "cheap vs kop: no effect of practical size" in printed  # 8 deals: none is sure
    assert printed.rstrip().endswith(f"next: open {out / 'index.html'} in a browser")
    assert (out / "index.html").stat().st_size > 10_000
    assert (out / "report.md").exists()
    pngs = sorted(p.name for p in out.glob("*.png"))
    assert pngs == ["contract_mix.png", "declarer_win_rate.png", "old_side_points.png",
                    "paired_differences.png", "payout_distribution.png", "seat_advantage.png"]
    for p in out.glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    tables = {p.stem for p in (out / "tables").glob("*.csv")}
    assert {"contracts", "outcomes", "doubling", "old_points", "payout_by_position",
            "payout_by_bot", "stakes", "paired_differences", "rule_differences"} <= tables
    contracts = pl.read_csv(out / "tables" / "contracts.csv")
    normal = contracts.filter((pl.col("variant") == "kop") & (pl.col("contract") == "normal"))
    assert normal["hands"][0] == 4 and normal["share"][0] == 0.5
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "zolo du lost pays 4 instead of 10" in md
    assert "![Contract mix](contract_mix.png)" in md


def test_sessions_folder_adds_the_session_plot(tmp_path, capsys):
    src = fx.sessions(tmp_path / "s")
    assert main(["report", str(src), "-o", str(tmp_path / "out")]) == 0
    assert (tmp_path / "out" / "session_length.png").exists()
    html = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "Placement points per seat" in html and "Sessions won per seat" in html


def test_default_output_is_reports_and_the_results_folders_name(tmp_path, monkeypatch, capsys):
    src = fx.tiny(tmp_path / "x y", experiment={"name": "../../evil/<name>"})
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(src)]) == 0
    made = [p for p in (tmp_path / "reports").iterdir()]
    assert len(made) == 1 and made[0].name == "x-y"  # the folder's name, not the experiment's
    assert (made[0] / "index.html").exists()
    assert not (tmp_path.parent / "evil").exists()


def test_a_quick_run_never_silently_replaces_another_runs_report(tmp_path, monkeypatch, capsys):
    # two results folders of one experiment (the main job, and a quick --deals run)
    main_run = fx.tiny(tmp_path / "main" / "quickstart", experiment={"name": "quickstart"})
    quick = fx.tiny(tmp_path / "quick" / "quickstart-small", experiment={"name": "quickstart"})
    monkeypatch.chdir(tmp_path)
    assert main(["report", str(main_run)]) == 0
    assert main(["report", str(quick)]) == 0
    assert sorted(p.name for p in (tmp_path / "reports").iterdir()) == [
        "quickstart", "quickstart-small"]
    capsys.readouterr()
    # into the main run's report folder: refused, naming the folder it was made from
    assert main(["report", str(quick), "-o", "reports/quickstart"]) == 2
    err = capsys.readouterr().err
    assert "reports/quickstart: holds the report of" in err and str(main_run.resolve()) in err
    assert main(["report", str(main_run)]) == 0  # the same results folder again: replaced
    assert main(["report", str(quick), "-o", "reports/quickstart", "--replace"]) == 0


# ---------------------------------------------------------------------------- located errors


def run_err(args, capsys):
    code = main(args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    return err


def test_missing_folder(tmp_path, capsys):
    err = run_err(["report", str(tmp_path / "nope")], capsys)
    assert f"{tmp_path / 'nope'}: no such results folder" in err


def test_missing_manifest(tmp_path, capsys):
    (tmp_path / "r").mkdir()
    err = run_err(["report", str(tmp_path / "r")], capsys)
    assert "manifest.json: missing" in err


def test_malformed_manifest_is_located(tmp_path, capsys, tiny):
    import shutil

    r = tmp_path / "r"
    shutil.copytree(tiny, r)
    (r / "manifest.json").write_text('{"variants": [\n  {"label": "kop",}\n]}', "utf-8")
    err = run_err(["report", str(r)], capsys)
    assert "manifest.json: line 2, column" in err and "invalid JSON" in err
    (r / "manifest.json").write_text(json.dumps({"variants": [{"ruleset_name": "kop"}]}), "utf-8")
    assert "variants[0].label: missing" in run_err(["report", str(r)], capsys)
    m = json.loads((tiny / "manifest.json").read_text("utf-8"))
    m["variants"][1]["ruleset"]["scoring"]["schneider_max_points"] = "lots"
    (r / "manifest.json").write_text(json.dumps(m), "utf-8")
    err = run_err(["report", str(r)], capsys)
    assert "variants[1].ruleset.scoring.schneider_max_points" in err


def test_missing_hands_and_bad_chunks_are_located(tmp_path, capsys, tiny):
    import shutil

    r = tmp_path / "r"
    shutil.copytree(tiny, r)
    shutil.rmtree(r / "hands")
    assert "no hand files" in run_err(["report", str(r)], capsys)
    shutil.copytree(tiny / "hands", r / "hands")
    chunk = r / "hands" / "kop" / "chunk-000000.parquet"
    pl.read_parquet(chunk).drop("deal_id").write_parquet(chunk)
    err = run_err(["report", str(r)], capsys)
    assert f"{chunk}: column deal_id: missing" in err
    pl.read_parquet(tiny / "hands" / "kop" / "chunk-000000.parquet").with_columns(
        pl.col("dealer").cast(pl.String)).write_parquet(chunk)
    err = run_err(["report", str(r)], capsys)
    assert f"{chunk}: column dealer: expected an integer, found String" in err
    chunk.write_bytes(b"not parquet at all")
    assert f"{chunk}: cannot read as Parquet" in run_err(["report", str(r)], capsys)


def test_temporary_chunk_files_are_ignored(tmp_path, capsys, tiny):
    import shutil

    r = tmp_path / "r"
    shutil.copytree(tiny, r)
    (r / "hands" / "kop" / ".chunk-000009.parquet").write_bytes(b"half written")
    (r / "hands" / "kop" / "chunk-000009.parquet.tmp").write_bytes(b"half written")
    assert main(["report", str(r), "-o", str(tmp_path / "o")]) == 0


def test_variant_missing_from_the_manifest_is_still_reported(tmp_path, capsys, tiny):
    import shutil

    r = tmp_path / "r"
    shutil.copytree(tiny, r)
    m = json.loads((r / "manifest.json").read_text("utf-8"))
    m["variants"] = m["variants"][:1] + [{"label": "ghost"}]
    (r / "manifest.json").write_text(json.dumps(m), "utf-8")
    assert main(["report", str(r), "-o", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    assert "note: variant 'ghost' has no hands" in out
    html = (tmp_path / "o" / "index.html").read_text("utf-8")
    assert "cheap" in html  # on disk, not in the manifest: reported after the others
