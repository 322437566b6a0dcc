"""Issue 31 (silent surprises): a run grows. The same experiment with more deals, over the folder of a smaller
run, keeps the folder's chunks (their size too), replays the one that ended the smaller run, and
plays the rest: the folder then holds exactly what a fresh run of the larger size writes, bankroll
sessions included (docs/experiments.md, "Growing a run")."""

import json
from pathlib import Path

import polars as pl
import pytest

from kopsim.cli import main
from kopsim.experiments.spec import load_experiment
from kopsim.experiments.run import run_experiment


def experiment(tmp_path, deals, extra=""):
    p = tmp_path / f"e{deals}.toml"
    p.write_text(f'name = "grow"\ndeals = {deals}\nseed = 5\nbots = ["heuristic", "random", '
                 f'"heuristic", "random"]\n{extra}variants = ["kop", "kop-victory-cards"]\n'
                 'sessions = true\n')
    return p


def frames(folder: Path, kind: str) -> pl.DataFrame:
    files = sorted((folder / kind).glob("*/chunk-*.parquet"))
    return pl.concat([pl.read_parquet(f) for f in files], how="diagonal_relaxed").sort(
        [c for c in ("variant", "deal_id", "session") if c in pl.read_parquet(files[0]).columns])


@pytest.mark.parametrize("extra", ["chunk = 700\n", ""])
def test_a_finished_run_grows_into_what_a_fresh_larger_run_writes(tmp_path, extra, capsys):
    out = tmp_path / "grown"
    run_experiment(load_experiment(experiment(tmp_path, 2000, extra)), out)
    chunk = json.loads((out / "manifest.json").read_text())["run_key"]["chunk"]
    s = run_experiment(load_experiment(experiment(tmp_path, 5000, extra)), out)
    err = capsys.readouterr().err
    assert f"from 2,000 to 5,000 deals, in its chunks of {chunk:,}" in err
    kept = 2 * (-(-2000 // chunk) - 1)  # both variants' chunks, but the one that ended the run
    assert s.chunks_before == kept and s.deals_played == 2 * 5000 - kept * chunk
    fresh = tmp_path / "fresh"
    run_experiment(load_experiment(experiment(tmp_path, 5000, extra)), fresh)
    for kind in ("hands", "sessions"):
        a, b = frames(out, kind), frames(fresh, kind)
        assert a.height > 0 and a.equals(b), kind
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["deals"] == 5000 and manifest["status"]["complete"]
    assert main(["report", str(out), "-o", str(tmp_path / "report")]) == 0


def test_fewer_deals_stay_another_run_and_another_chunk_size_grows_in_the_folders(tmp_path,
                                                                                   capsys):
    out = tmp_path / "r"
    assert main(["run", str(experiment(tmp_path, 2000, "chunk = 700\n")), "--out", str(out),
                 "--no-progress"]) == 0
    assert main(["run", str(experiment(tmp_path, 1000, "chunk = 700\n")), "--out", str(out),
                 "--no-progress"]) == 2
    assert "the number of deals: 2,000 in the folder, 1,000 now" in capsys.readouterr().err
    assert main(["run", str(experiment(tmp_path, 4000, "chunk = 800\n")), "--out", str(out),
                 "--no-progress"]) == 0
    assert "in its chunks of 700 (not 800: no chunk size changes a result)" in \
        capsys.readouterr().err
    assert json.loads((out / "manifest.json").read_text())["chunks"] == {"size": 700, "count": 6}
