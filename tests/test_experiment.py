"""`kopsim run`: experiment files, identical results whatever the jobs, backend or chunk size,
common random numbers, sessions, logs, resuming after an interruption or kill -9, failing bots."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from pydantic import BaseModel, ConfigDict

from kopsim.bots import REGISTRY, register
from kopsim.bots.random import RandomBot, RandomParams
from kopsim.cli import main
from kopsim.errors import InputError
from kopsim.experiments.spec import experiment_from_dict, load_experiment
from kopsim.experiments.run import ExperimentFailed, run_experiment
from kopsim.experiments.results_folder import read_hands, read_sessions
from kopsim.engine.rng import hand_seed
from kopsim.rules.load import BUNDLED_DIR, load_ruleset
from kopsim.engine.sessions import BankrollSession, series_points
from results_files import files  # tests/results_files.py

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ["kop", "kop-sportowy", "kop-victory-cards"]
BASE = {"deals": 1200, "seed": 5, "sessions": True, "chunk": 256, "rotate": True,
        "bots": ["random", "heuristic", "random", "heuristic"], "variants": VARIANTS}


def experiment(**changes):
    return experiment_from_dict({**BASE, **changes})


@pytest.fixture(scope="module")
def base_run(tmp_path_factory) -> Path:
    """The reference: one job in this process, chunks of 256 deals, with hand logs."""
    out = tmp_path_factory.mktemp("base")
    run_experiment(experiment(), out, jobs=1, log=True)
    return out


# ------------------------------------------------------------------ same results, every way


def test_same_bits_with_two_loky_jobs_and_a_dask_cluster(base_run, tmp_path):
    from dask.distributed import LocalCluster

    run_experiment(experiment(), tmp_path / "loky", jobs=2, backend="loky", log=True)
    assert files(tmp_path / "loky") == files(base_run)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                      dashboard_address=None) as cluster:
        run_experiment(experiment(), tmp_path / "dask", jobs=2, backend="dask",
                       scheduler=cluster.scheduler_address, log=True)
    assert files(tmp_path / "dask") == files(base_run)


def test_same_rows_with_another_chunk_size(base_run, tmp_path):
    exp = experiment(chunk=96)
    assert exp.chunk == 96 and exp.chunks == 13
    run_experiment(exp, tmp_path, jobs=2, log=True)
    assert read_hands(tmp_path).equals(read_hands(base_run))
    assert read_sessions(tmp_path).equals(read_sessions(base_run))
    for v in VARIANTS:
        logs = [b"".join(p.read_bytes() for p in sorted((out / "logs" / v).glob("*.jsonl")))
                for out in (tmp_path, base_run)]
        assert logs[0] == logs[1]


def test_dask_backend_starts_a_local_cluster_without_scheduler(base_run, tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text("\n".join([
        "deals = 1200", "seed = 5", "sessions = true", "chunk = 256", "rotate = true",
        'bots = ["random", "heuristic", "random", "heuristic"]',
        'variants = ["kop", "kop-sportowy", "kop-victory-cards"]']))
    rc = main(["run", str(path), "--backend", "dask", "--jobs", "2", "--out",
               str(tmp_path / "out"), "--log", "--no-progress"])
    assert rc == 0, capsys.readouterr().err
    assert files(tmp_path / "out") == files(base_run)
    assert "(dask)" in capsys.readouterr().out


# ------------------------------------------------------------ what the rows hold and mean


def test_columns_follow_docs_results_md(base_run):
    hands = pl.read_parquet(base_run / "hands" / "kop" / "chunk-000000.parquet")
    assert hands.columns[:11] == ["variant", "ruleset", "deal_id", "seed", "session",
                                  "hand_index", "dealer", "bot_0", "bot_1", "bot_2", "bot_3"]
    assert hands.schema["deal_id"] == pl.Int64 and hands.schema["session"] == pl.Int32
    assert hands.schema["dealer"] == pl.Int8 and hands.schema["declarer"] == pl.Int8
    assert hands.schema["old_3"] == pl.Boolean and hands.schema["payout_0"] == pl.Float64
    assert hands.schema["tricks_2"] == pl.Int8 and hands.schema["tier"] == pl.String
    assert hands["session"].null_count() == len(hands)  # kop has no session scoring
    sess = pl.read_parquet(base_run / "sessions" / "kop-sportowy" / "chunk-000000.parquet")
    for c in ("variant", "ruleset", "session", "hands", "complete", "bot_0", "total_3",
              "place_points_2", "won_1"):
        assert c in sess.columns
    assert not (base_run / "sessions" / "kop").exists()


def test_every_variant_plays_the_same_deals(base_run):
    from kopsim.bots.seated import play_batch
    from kopsim.bots import bot_spec
    from kopsim.rules.compile import compile_rules
    from kopsim.engine.layout import hand_seeds

    h = read_hands(base_run)
    kop = h.filter(pl.col("variant") == "kop")
    assert kop["deal_id"].to_list() == list(range(1200))
    seeds = hand_seeds(5, 0, 1200)
    assert kop["seed"].to_list() == seeds.tolist()
    for v in VARIANTS[1:]:
        other = h.filter(pl.col("variant") == v).join(kop, on="deal_id", suffix="_kop")
        assert len(other) > 800
        assert (other["seed"] == other["seed_kop"]).all()
        assert (other["dealer"] == other["dealer_kop"]).all()
        assert (other["bot_0"] == other["bot_0_kop"]).all()
    # the rows are the batch kernel's hands for those seeds, dealers and rotated line-ups
    bots = [bot_spec("random"), bot_spec("heuristic")]
    d = np.arange(1200)
    rot = (d // 4) % 4
    seat_bot = np.stack([np.array([0, 1, 0, 1])[(s - rot) % 4] for s in range(4)], axis=1)
    res = play_batch(compile_rules(load_ruleset("kop")), seeds, d % 4, d, bots, seat_bot)
    names = compile_rules(load_ruleset("kop")).contract_names
    assert kop["contract"].to_list() == [names[k] for k in res.contract]
    assert np.array_equal(kop.select([f"payout_{s}" for s in range(4)]).to_numpy(), res.payouts)
    labels = np.array(["random", "heuristic"])
    assert kop.select([f"bot_{s}" for s in range(4)]).to_numpy().tolist() == \
        labels[seat_bot].tolist()


def test_rotation_seats_each_bot_everywhere_equally(base_run):
    kop = read_hands(base_run, "kop")
    for s in range(4):
        counts = kop[f"bot_{s}"].value_counts()
        assert dict(zip(counts["bot_" + str(s)], counts["count"])) == {"random": 600,
                                                                        "heuristic": 600}


def test_series_sessions(base_run):
    spec = load_ruleset("kop-sportowy").session
    h = read_hands(base_run, "kop-sportowy")
    s = read_sessions(base_run, "kop-sportowy")
    assert (h["dealer"] == h["hand_index"] % 4).all()
    assert (h["session"] == h["deal_id"] // 32).all()
    assert s["session"].to_list() == list(range(38))  # 1200 deals: 37 series and 16 hands
    assert s["complete"].to_list() == [True] * 37 + [False]
    assert s["hands"].to_list() == [32] * 37 + [16]
    assert s["place_points_0"].null_count() == 1  # no places in a series cut short
    for row in s.iter_rows(named=True):
        part = h.filter(pl.col("session") == row["session"])
        totals = [float(part[f"payout_{i}"].sum()) for i in range(4)]
        assert [row[f"total_{i}"] for i in range(4)] == pytest.approx(totals)
        assert [row[f"won_{i}"] for i in range(4)] == [t == max(totals) for t in totals]
        if row["complete"]:
            assert [row[f"place_points_{i}"] for i in range(4)] == \
                series_points([row[f"total_{i}"] for i in range(4)], spec)
        assert [row[f"bot_{i}"] for i in range(4)] == \
            [part.row(0, named=True)[f"bot_{i}"] for i in range(4)]


def test_bankroll_sessions(base_run):
    spec = load_ruleset("kop-victory-cards").session
    h = read_hands(base_run, "kop-victory-cards")
    s = read_sessions(base_run, "kop-victory-cards")
    assert (h["dealer"] == h["hand_index"] % 4).all()
    assert s["session"].to_list() == list(range(len(s)))
    assert sorted(h["session"].unique().to_list()) == list(range(len(s)))
    prev_end = -1
    for row in s.iter_rows(named=True):
        part = h.filter(pl.col("session") == row["session"])
        ids = part["deal_id"].to_list()
        assert ids == list(range(ids[0], ids[0] + len(ids)))  # consecutive deals
        assert ids[0] % 4 == 0 and ids[0] > prev_end and ids[0] - prev_end <= 4
        assert ids[0] == row["first_deal"] and part["hand_index"].to_list() == list(range(len(ids)))
        prev_end = ids[-1]
        bank = BankrollSession.start(spec, 4)
        paid = part.select([f"payout_{i}" for i in range(4)]).rows()
        for pay, nominal in zip(paid, part.select([f"nominal_payout_{i}" for i in range(4)])
                                .iter_rows()):
            assert not bank.over
            assert bank.play(list(nominal)) == list(pay)  # payout_*: what moved
        assert row["hands"] == len(ids) and row["complete"] == bank.over
        assert [row[f"total_{i}"] for i in range(4)] == bank.balance
        assert [row[f"won_{i}"] for i in range(4)] == [i in bank.winners() for i in range(4)]
        assert row["place_points_0"] is None
        assert [row[f"bot_{i}"] for i in range(4)] == \
            [part.row(0, named=True)[f"bot_{i}"] for i in range(4)]
    assert s["complete"][:-1].all()  # only the run's last session can be cut short


def test_logs_replay_and_match_the_rows(base_run, capsys):
    for v in VARIANTS:
        rows = read_hands(base_run, v)
        recs = [json.loads(line) for p in sorted((base_run / "logs" / v).glob("*.jsonl"))
                for line in p.read_text().splitlines()]
        assert len(recs) == len(rows)
        assert [r["seed"] for r in recs] == rows["seed"].to_list()
        assert [r["hand_index"] for r in recs] == rows["hand_index"].to_list()
        assert [r.get("session") for r in recs] == rows["session"].to_list()
        assert [r["payouts"][2] for r in recs] == rows["payout_2"].to_list()
        for p in sorted((base_run / "logs" / v).glob("*.jsonl"))[:2]:
            assert main(["replay", str(p)]) == 0, capsys.readouterr().out


def test_the_reference_engine_writes_the_same_files(tmp_path):
    kernel = experiment(deals=240, chunk=64)
    ref = experiment(deals=240, chunk=64, engine="reference")
    assert kernel.engine == "kernel" and ref.engine == "reference"
    run_experiment(kernel, tmp_path / "k", jobs=1, log=True)
    run_experiment(ref, tmp_path / "r", jobs=2, log=True)
    assert files(tmp_path / "r") == files(tmp_path / "k")


def test_manifest(base_run):
    m = json.loads((base_run / "manifest.json").read_text())
    assert m["status"]["complete"] is True
    assert m["status"]["hands"]["kop"] == 1200
    assert m["seed"] == 5 and m["deals"] == 1200 and m["kopsim_version"]
    assert [v["label"] for v in m["variants"]] == VARIANTS
    for v in m["variants"]:
        rules = load_ruleset(v["label"])
        assert v["ruleset_sha256"] == rules.sha256()
        assert json.loads(rules.canonical_json()) == v["ruleset"]
    assert m["experiment"]["bots"][1]["name"] == "heuristic"
    assert m["chunks"] == {"size": 256, "count": 5}


# ---------------------------------------------------------------------- nothing lost


def test_resume_after_an_interruption(base_run, tmp_path):
    seen = []

    def stop_after_four(r):
        seen.append((r.variant, r.k))
        if len(seen) == 4:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment(), tmp_path, jobs=2, log=True, on_chunk=stop_after_four)
    assert len(list((tmp_path / "hands").glob("*/*.parquet"))) == 4
    assert not json.loads((tmp_path / "manifest.json").read_text())["status"]["complete"]
    s = run_experiment(experiment(), tmp_path, jobs=2, log=True)
    assert s.chunks_before == 4 and s.chunks_played == 11
    assert files(tmp_path) == files(base_run)
    h = read_hands(tmp_path)
    assert not h.select(["variant", "deal_id"]).is_duplicated().any()
    assert json.loads((tmp_path / "manifest.json").read_text())["status"]["complete"]


def test_resume_after_kill_9(tmp_path):
    """A real run killed with SIGKILL mid-way, then the same command again."""
    path = tmp_path / "exp.toml"
    path.write_text('deals = 160_000\nseed = 3\nsessions = true\nchunk = 4096\nbots = "random"\n'
                    'variants = ["kop", "kop-victory-cards"]\n')
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "kopsim.cli", "run", str(path), "--out", str(out),
           "--jobs", "2", "--no-progress"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    deadline = time.time() + 600  # (its workers compile the kernel first: minutes, at worst)
    while time.time() < deadline and len(list(out.glob("hands/*/*.parquet"))) < 6:
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the run and its workers, as a crash would
    proc.wait()
    done = len(list(out.glob("hands/*/*.parquet")))
    assert 6 <= done < 2 * 40, "the run finished before it could be killed"
    assert main(["run", str(path), "--out", str(out), "--jobs", "2", "--no-progress"]) == 0
    assert not list(out.glob("*/*/*.tmp*"))
    whole = experiment_from_dict({"deals": 160_000, "seed": 3, "sessions": True,
                                  "chunk": 4096, "bots": "random",
                                  "variants": ["kop", "kop-victory-cards"]})
    run_experiment(whole, tmp_path / "whole", jobs=1)
    assert files(out) == files(tmp_path / "whole")
    h = read_hands(out, "kop")
    assert h["deal_id"].to_list() == list(range(160_000))


class BoomParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    deal: int = 700  # raises on the hand of this deal (run seed 5)


@register
class BoomBot:
    """A plug-in bot (plain Python, so the reference engine plays) that fails on one deal."""

    name = "boom-test"
    Params = BoomParams
    kernel_kind = None

    def __init__(self, params, hand_seed_, seat, rules=None):
        self.bad = hand_seed_ == hand_seed(5, params.deal)
        self.inner = RandomBot(RandomParams(), hand_seed_, seat, rules)

    def act(self, obs):
        if self.bad:
            raise RuntimeError("the boom-test bot gives up")
        return self.inner.act(obs)


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failing_bot_stops_the_run_naming_the_chunk(tmp_path, jobs):
    assert "boom-test" in REGISTRY
    exp = experiment(deals=1000, chunk=64, sessions=False, variants=["kop"],
                     bots=["random", "random", "boom-test", "random"])
    assert exp.engine == "reference"
    with pytest.raises(ExperimentFailed) as e:
        run_experiment(exp, tmp_path, jobs=jobs)
    msg = str(e.value)
    assert "chunk 10 of variant 'kop' (deals 640–703)" in msg
    assert "RuntimeError: the boom-test bot gives up" in msg and "resume" in msg
    kept = sorted(int(p.stem[-6:]) for p in (tmp_path / "hands" / "kop").glob("*.parquet"))
    assert 10 not in kept and len(kept) >= 9 - jobs
    if jobs == 1:
        assert kept == list(range(10))
    h = read_hands(tmp_path)
    assert len(h) == 64 * len(kept)
    # a fixed bot (here: the failing deal is moved past the end) resumes and finishes
    fixed = experiment(deals=1000, chunk=64, sessions=False, variants=["kop"],
                       bots=["random", "random", {"name": "boom-test", "deal": 5000,
                                                  "label": "boom-test"}, "random"])
    with pytest.raises(InputError):  # different bot parameters: a different run
        run_experiment(fixed, tmp_path, jobs=jobs)


class DieParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    main_pid: int  # never in the test process itself


@register
class DieBot:
    """A plug-in bot whose worker process dies on deal 700 (as a segfault or the OOM killer)."""

    name = "die-test"
    Params = DieParams
    kernel_kind = None

    def __init__(self, params, hand_seed_, seat, rules=None):
        self.die = hand_seed_ == hand_seed(5, 700) and os.getpid() != params.main_pid
        self.inner = RandomBot(RandomParams(), hand_seed_, seat, rules)

    def act(self, obs):
        if self.die:
            os._exit(3)
        return self.inner.act(obs)


def test_a_dying_worker_stops_the_run_naming_the_chunks_in_flight(tmp_path):
    exp = experiment(deals=1000, chunk=64, sessions=False, variants=["kop"],
                     bots=["random", {"name": "die-test", "main_pid": os.getpid()}, "random",
                           "random"])
    with pytest.raises(ExperimentFailed) as e:
        run_experiment(exp, tmp_path, jobs=2)
    msg = str(e.value)
    assert "a worker died" in msg and "chunk 10 of variant 'kop' (deals 640–703)" in msg
    assert "resume" in msg
    kept = sorted(int(p.stem[-6:]) for p in (tmp_path / "hands" / "kop").glob("*.parquet"))
    assert 10 not in kept and len(kept) >= 7


def test_failing_bot_at_the_command_line(tmp_path, capsys):
    path = tmp_path / "exp.toml"
    path.write_text('deals = 1000\nseed = 5\nchunk = 64\nvariants = ["kop"]\n'
                    'bots = ["random", "random", "boom-test", "random"]\n')
    assert main(["run", str(path), "--out", str(tmp_path / "o"), "--jobs", "1",
                 "--no-progress"]) == 1
    err = capsys.readouterr().err
    assert "\nerror: chunk 10 of variant 'kop' (deals 640–703) failed" in err
    assert "Traceback" not in err


def test_a_different_run_is_not_mixed_into_a_folder(base_run, tmp_path, capsys):
    with pytest.raises(InputError) as e:
        run_experiment(experiment(seed=6), base_run, jobs=1, log=True)
    assert "seed: 5 in the folder, 6 now" in str(e.value)
    with pytest.raises(InputError) as e:
        run_experiment(experiment(), base_run, jobs=1, log=False)
    assert "log" in str(e.value)
    (tmp_path / "stranger.txt").write_text("x")
    with pytest.raises(InputError) as e:
        run_experiment(experiment(), tmp_path, jobs=1)
    assert "not empty" in str(e.value)


# ----------------------------------------------------------------------- experiment files


def test_shipped_experiments_are_valid():
    names = sorted(p.stem for p in (ROOT / "experiments").glob("*.toml"))
    assert {"quickstart", "kop-variants", "baska-vs-kop", "bot-ladder"} <= set(names)
    for name in names:
        exp = load_experiment(ROOT / "experiments" / f"{name}.toml")
        assert exp.name == name
    kv = load_experiment(ROOT / "experiments" / "kop-variants.toml")
    assert [v.label for v in kv.variants] == ["kop", "kop-trzy-dychy", "kop-catsatcards",
                                              "kop-sportowy"]
    assert {b.name for b in kv.bots} == {"ev"}  # issue 10: "good players" are ev bots
    assert kv.variants[3].session == "series"


def test_every_shipped_experiment_is_in_the_docs_table():
    table = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8").split(
        "## Shipped experiments")[1]
    for p in sorted((ROOT / "experiments").glob("*.toml")):
        assert f"| `experiments/{p.name}` |" in table, p.name


def _quickstart_with_small_ev_tables(folder: Path) -> Path:
    """The shipped quickstart, its ev bots calibrated on 2,000 deals instead of 100,000 a round
    and its learnt bots trained on 40 deals rolled out by that ev, for each of its three
    rulesets (minutes of the suite; the file as shipped is validated by
    test_shipped_experiments_are_valid, and played with heuristic bots by test_golden_play)."""
    text = (ROOT / "experiments" / "quickstart.toml").read_text(encoding="utf-8")
    bots = next(line for line in text.splitlines() if line.startswith("bots = "))
    assert '"ev"' in bots and '"learnt"' in bots
    ev = '{ name = "ev", deals = 2000, rounds = 2 }'
    learnt = (f'{{ name = "learnt", deals = 40, worlds = 2, hidden = 8, epochs = 2, '
              f'rollout_bot = {ev} }}')
    small = bots.replace('"ev"', ev).replace('"learnt"', learnt)
    path = folder / "quickstart.toml"
    path.write_text(text.replace(bots, small), encoding="utf-8")
    return path


def test_quickstart_at_the_command_line(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    quickstart = _quickstart_with_small_ev_tables(tmp_path)
    rc = main(["run", str(quickstart), "--deals", "3000",
               "--seed", "9", "--jobs", "1", "--no-progress"])
    assert rc == 0
    out = tmp_path / "results" / "quickstart-deals3000-seed9"
    m = json.loads((out / "manifest.json").read_text())
    assert m["deals"] == 3000 and m["seed"] == 9 and m["experiment"]["overrides"] == \
        {"deals": 3000, "seed": 9}
    assert sorted(p.name for p in (out / "hands").iterdir()) == ["baska", "kop", "kop-sportowy"]
    said = capsys.readouterr().out
    assert "9,000 deals played" in said
    assert f"next: kopsim report {out.relative_to(tmp_path)}" in said  # the next step, named
    # the same command again: nothing left to play, and it says so, not "0 deals played"
    assert main(["run", str(quickstart), "--deals", "3000",
                 "--seed", "9", "--jobs", "1", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "already complete" in said and "next: kopsim report" in said
    assert "0 deals played" not in said


def test_a_ruleset_given_to_run_is_named_as_one(capsys):
    assert main(["run", str(BUNDLED_DIR / "kop.toml")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err  # one line, not a list of unknown keys
    assert "a ruleset file, not an experiment" in err and "kopsim simulate" in err


def test_python_dash_m_kopsim_is_the_kopsim_command():
    proc = subprocess.run([sys.executable, "-m", "kopsim", "rules", "list"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "schafkopf" in proc.stdout, proc.stderr


def test_variants_from_paths_with_overrides(tmp_path):
    (tmp_path / "rules").mkdir()
    (tmp_path / "rules" / "mine.toml").write_text('extends = "kop"\nname = "mine"\n'
                                                  "[scoring]\nschneider_max_points = 24\n")
    path = tmp_path / "exp.toml"
    path.write_text("\n".join([
        "deals = 100", 'bots = "random"',
        "[[variants]]", 'ruleset = "rules/mine.toml"',
        "[[variants]]", 'ruleset = "rules/mine.toml"', 'label = "mine-cheap-du"',
        '[variants.overrides.contracts."zolo du".payout]', "lost = 4"]))
    exp = load_experiment(path)
    a, b = exp.variants
    assert a.label == "mine" and a.rules.scoring.schneider_max_points == 24
    assert b.label == "mine-cheap-du" and b.rules.name == "mine"
    assert b.rules.contracts["zolo du"].payout.lost.flat == 4
    assert a.rules.sha256() != b.rules.sha256()


@pytest.mark.parametrize("text, where, message", [
    ('deals = 0\nbots = "random"\nvariants = ["kop"]', "deals", "expected a number at least 1"),
    ('deals = 10\nbots = "random"\nvariants = ["kop"]\nsead = 1', "sead", "unknown key"),
    ('deals = 10\nbots = ["random", "random"]\nvariants = ["kop"]', "bots",
     "one bot per seat"),
    ('deals = 10\nbots = ["random", "nobody", "random", "random"]\nvariants = ["kop"]',
     "name", "no bot named 'nobody'"),
    ('deals = 10\nbots = [{name = "heuristic", solo = "high"}, "random", "random", "random"]\n'
     'variants = ["kop"]', "solo", "expected a number"),
    ('deals = 10\nbots = "random"\nvariants = ["kop", "no-such-rules"]', "variants[1].ruleset",
     "no ruleset 'no-such-rules'"),
    ('deals = 10\nbots = "random"\nvariants = ["kop", "kop"]', "variants[1]",
     "two variants are labelled 'kop'"),
    ('deals = 10\nbots = "random"\nvariants = [{ruleset = "kop", label = "k", overrides = '
     '{scoring = {style = "both"}}}]', "scoring.style",
     "'zero_sum', 'winners_only' or 'old_side_only'"),
    ('deals = 10\nbots = "random"\nvariants = [{ruleset = "kop", colour = 1}]',
     "variants[0].colour", "unknown key"),
    ('deals = 10\nbots = "random"\nrotate = "session"\nsessions = true\n'
     'variants = ["kop-victory-cards"]', "rotate", "bankroll session ends in play"),
    ('deals = 10\nbots = "random"\nrotate = "often"\nvariants = ["kop"]', "rotate",
     'expected true, false or "session"'),
    ('deals = 10\nbots = ["random", "random", "boom-test", "random"]\nengine = "kernel"\n'
     'variants = ["kop"]', "engine", "cannot play boom-test"),
    ('deals = 10\nbots = "random"\nvariants = ["kop"]\n[x\n', "line 4", "TOML syntax error"),
])
def test_experiment_errors_are_located(tmp_path, capsys, text, where, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as e:
        load_experiment(path)
    assert any(where in f"{p.source} {p.where}" and message in p.message
               for p in e.value.problems), e.value.problems
    assert main(["run", str(path), "--check"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}") and "Traceback" not in err


def test_every_problem_is_reported_at_once(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('deals = "many"\nbots = ["random", "nobody"]\n'
                    'variants = ["kop", "nope", 7]\n')
    with pytest.raises(InputError) as e:
        load_experiment(path)
    wheres = [p.where for p in e.value.problems]
    assert "deals" in wheres and "bots" in wheres and "variants[1].ruleset" in wheres
    assert "variants[2]" in wheres and "name" in wheres


def test_session_rotation_follows_the_series(tmp_path):
    exp = experiment(rotate="session", variants=["kop", "kop-sportowy"], deals=256, chunk=128)
    assert exp.period == 32
    run_experiment(exp, tmp_path, jobs=1)
    s = read_sessions(tmp_path, "kop-sportowy")
    assert s["bot_1"].to_list() == ["heuristic", "random"] * 4
    h = read_hands(tmp_path)
    assert h.group_by("variant", "session").agg(pl.col("bot_0").n_unique()).filter(
        pl.col("session").is_not_null())["bot_0"].max() == 1


# -------------------------------------------------------------------------- progress, bench


def test_progress_bar_shows_rate_and_eta(tmp_path, capsys):
    run_experiment(experiment(deals=256, variants=["kop"]), tmp_path, jobs=1, progress=True)
    err = capsys.readouterr().err
    assert "hands/s" in err and "256/256" in err and "<00:00" in err


def test_bench_times_kopsim_run(capsys):
    from kopsim.bench.engine import measure_run

    r = measure_run("kop", "random", 1, 20_000)
    assert r["engine"] == "run" and r["jobs"] == 1 and r["hands"] == 20_000
    assert r["hands_per_s"] > 0 and r["peak_rss_mb"] > 0
    for key in ("ruleset", "engine", "hands_per_s", "peak_rss_mb"):
        assert key in r


def test_bench_command_line_takes_job_counts():
    from kopsim.cli import build_parser

    args = build_parser().parse_args(["bench", "kop", "--jobs", "1,2", "--run-deals", "1000",
                                      "--lineups", "random"])
    assert args.jobs == [1, 2] and args.run_deals == 1000 and args.lineups == "random"
    assert build_parser().parse_args(["bench"]).jobs is None  # the plain bench is unchanged
