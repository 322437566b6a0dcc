"""`kopsim bench`: hands per second and peak memory, each measurement in a fresh process.

A fresh process per measurement keeps the peak-RSS figure honest: it is that run's own peak,
not the high-water mark of everything measured before it. Rows: the batch kernel with random,
heuristic and ev line-ups (and learnt, when asked) and the reference engine, per ruleset; with --bots the solver and pimc
decision medians (kopsim.bench.bots); with --jobs, `kopsim run` at each job count.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np

from ..memory import peak_rss_mb


LEARNING = ("ev", "learnt")  # line-ups that learn from the ruleset before they play


def lineup_bot(lineup: str, deals: dict | None = None) -> dict:
    """The bot of a line-up of four alike: ev calibrated on, or learnt trained from,
    `deals[lineup]` deals where given, learnt's rollouts played by that same smaller ev (how
    much a bot learns from does not change the kernel timed, only how long the learning
    takes)."""
    deals = deals or {}
    spec = {"name": lineup}
    if lineup in LEARNING and deals.get(lineup):
        spec["deals"] = deals[lineup]
    if lineup == "learnt" and deals.get("ev"):
        spec["rollout_bot"] = {"name": "ev", "deals": deals["ev"]}
    return spec


def measure(ruleset: str, engine: str, hands: int, seed: int = 1, lineup: str = "random",
            bot: dict | None = None) -> dict:
    from ..rules.load import load_ruleset

    rules = load_ruleset(ruleset)
    if engine == "batch":
        from ..bots.seated import play_batch
        from ..bots import bot_spec
        from ..rules.compile import compile_rules
        from ..engine.layout import hand_seeds

        cr = compile_rules(rules)
        bots = [bot_spec(bot or lineup_bot(lineup))]
        seats = cr.tables.n_seats
        play_batch(cr, hand_seeds(seed, 0, 8), np.arange(8) % seats, bots=bots)  # compile / cache
        chunk = 65536
        t0 = time.perf_counter()
        for start in range(0, hands, chunk):
            count = min(chunk, hands - start)
            idx = np.arange(start, start + count)
            play_batch(cr, hand_seeds(seed, start, count), idx % seats, idx, bots=bots)
        dt = time.perf_counter() - t0
    else:
        from ..bots.seated import play_random_hand
        from ..engine.rng import hand_seed

        t0 = time.perf_counter()
        for i in range(hands):
            play_random_hand(rules, hand_seed(seed, i), i % rules.deck.players)
        dt = time.perf_counter() - t0
    return {"ruleset": ruleset, "engine": engine, "lineup": lineup, "hands": hands,
            "hands_per_s": round(hands / dt, 1), "peak_rss_mb": round(peak_rss_mb(), 1)}


def _fresh(*argv: str) -> dict:
    """One measurement in a fresh interpreter (see the module docstring)."""
    cmd = [sys.executable, "-m", "kopsim.bench.engine", *argv]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
    if proc.returncode != 0:
        raise RuntimeError(f"bench {' '.join(argv)} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_bench(rulesets: list[str], batch_hands: int, reference_hands: int,
              heuristic_hands: int | None = None, ev_deals: int | None = None,
              learnt: bool = False, learnt_deals: int | None = None) -> list[dict]:
    """Batch kernel (random, then four heuristic bots, four ev bots and, with `learnt`, four
    learnt bots) and reference engine, per ruleset; ev calibrated on `ev_deals` deals a round and
    learnt trained on `learnt_deals` teacher deals where given."""
    from ..engine.kernel import _play_batch
    from ..terminal import compile_notice, progress_bar

    heuristic_hands = heuristic_hands or max(batch_hands // 4, 1)
    compile_notice(_play_batch)  # the first measurement's process compiles, in silence
    kinds = [("batch", batch_hands, "random"), ("batch", heuristic_hands, "heuristic"),
             ("batch", heuristic_hands, "ev")]
    kinds += [("batch", heuristic_hands, "learnt")] if learnt else []
    kinds += [("reference", reference_hands, "random")]
    deals = {"ev": ev_deals, "learnt": learnt_deals}
    runs = [(r, engine, str(hands), lineup, json.dumps(lineup_bot(lineup, deals)))
            for r in rulesets for engine, hands, lineup in kinds if _plays(lineup, r)]
    for r in rulesets:
        _prepare_learning(r, {run[3] for run in runs if run[0] == r} & set(LEARNING), deals)
    out = []
    with progress_bar(len(runs), "bench", unit=" measurements") as bar:
        for run in runs:
            out.append(_fresh(*run))
            bar.update(1)
    return out


def _plays(lineup: str, ruleset: str) -> bool:
    """Whether four of the line-up's bot can play the ruleset (learnt cannot play Ramsch, as
    its teacher cannot): a row it cannot fill is left out, not failed."""
    from ..bots import bot_spec
    from ..rules.load import load_ruleset

    return bot_spec(lineup_bot(lineup)).cannot_play(load_ruleset(ruleset)) is None


def _prepare_learning(ruleset: str, lineups: set[str], deals: dict) -> None:
    """What the ruleset's learning line-ups learn (ev's tables, learnt's networks), before any
    timing: a measurement reads it cached."""
    from ..bots import bot_spec, prepare_bots
    from ..experiments.parallel import default_jobs
    from ..rules.cache import compiled
    from ..rules.load import load_ruleset

    bots = [bot_spec(lineup_bot(lineup, deals)) for lineup in sorted(lineups)]
    prepare_bots(compiled(load_ruleset(ruleset)), bots, default_jobs(),
                 lambda m: print(m, file=sys.stderr), ruleset)


def bots_bench(ruleset: str = "kop") -> list[dict]:
    """The solver on full positions and pimc per card decision (medians)."""
    return [_fresh("--bots", "solver", ruleset), _fresh("--bots", "pimc", ruleset)]


def measure_run(ruleset: str, lineup: str, jobs: int, deals: int, seed: int = 1) -> dict:
    """Time `kopsim run` of a one-variant experiment, Parquet files included. The worker pool
    is started (and has imported the engine) before the clock starts: a one-off cost of a few
    seconds that a large run pays once."""
    import tempfile

    from ..experiments.spec import experiment_from_dict
    from ..experiments.run import ChunkTask, play_chunk, run_experiment
    from ..experiments.parallel import run_tasks

    exp = experiment_from_dict({"deals": deals, "seed": seed, "bots": lineup,
                                "variants": [ruleset], "name": f"bench-{lineup}"})
    warm = experiment_from_dict({"deals": 64 * jobs, "seed": seed, "bots": lineup,
                                 "variants": [ruleset], "chunk": 64})
    v = warm.variants[0]
    tasks = [ChunkTask(v, k, 64 * k, 64 * (k + 1), warm.deals, warm.engine, warm.bots,
                       warm.layout(v), False) for k in range(jobs)]
    for _ in run_tasks(play_chunk, tasks, jobs=jobs):  # start the workers, load the kernel
        pass
    with tempfile.TemporaryDirectory(prefix="kopsim-bench-") as tmp:
        t0 = time.perf_counter()
        s = run_experiment(exp, tmp, jobs=jobs)
        dt = time.perf_counter() - t0
    return {"ruleset": ruleset, "engine": "run", "hands": deals,
            "hands_per_s": round(deals / dt, 1), "peak_rss_mb": round(peak_rss_mb(), 1),
            "lineup": lineup, "jobs": jobs, "worker_peak_rss_mb": round(s.worker_peak_rss_mb, 1)}


def run_jobs_bench(ruleset: str, lineups: list[str], jobs: list[int], deals: int) -> list[dict]:
    """`kopsim run` hands/s per line-up (every seat the same bot) and job count, each in a fresh
    process; `speedup` is against the first job count given (normally 1)."""
    out = []
    for lineup in lineups:
        base = None
        for j in jobs:
            cmd = [sys.executable, "-m", "kopsim.bench.engine", "--run", ruleset, lineup, str(j),
                   str(deals)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
            if proc.returncode != 0:
                raise RuntimeError(f"bench of kopsim run {lineup} --jobs {j} failed:\n"
                                   f"{proc.stderr}")
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            base = base or r["hands_per_s"]
            r["speedup"] = round(r["hands_per_s"] / base, 3)
            out.append(r)
    return out


if __name__ == "__main__":
    if sys.argv[1] == "--run":
        print(json.dumps(measure_run(sys.argv[2], sys.argv[3], int(sys.argv[4]),
                                     int(sys.argv[5]))))
    elif sys.argv[1] == "--bots":
        from . import bots as bench_bots

        fn = {"solver": bench_bots.solver_full_positions,
              "pimc": bench_bots.pimc_card_decisions}[sys.argv[2]]
        row = fn(sys.argv[3])
        row["peak_rss_mb"] = round(peak_rss_mb(), 1)
        print(json.dumps(row))
    else:
        bot = json.loads(sys.argv[5]) if len(sys.argv) > 5 else None
        row = measure(sys.argv[1], sys.argv[2], int(sys.argv[3]), lineup=sys.argv[4], bot=bot)
        print(json.dumps(row))
