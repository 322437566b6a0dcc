"""`kopsim bench`: hands per second and peak memory, each measurement in a fresh process.

A fresh process per (ruleset, engine) keeps the peak-RSS figure honest: it is that run's own
peak, not the high-water mark of everything measured before it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import numpy as np


def _peak_rss_mb() -> float:
    import resource

    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 1024 if sys.platform != "darwin" else kb / 2**20


def measure(ruleset: str, engine: str, hands: int, seed: int = 1) -> dict:
    from .ruleset import load_ruleset

    rules = load_ruleset(ruleset)
    if engine == "batch":
        from .batch import play_batch
        from .compiled import compile_rules
        from .runner import hand_seeds

        cr = compile_rules(rules)
        play_batch(cr, hand_seeds(seed, 0, 8), np.arange(8) % 4)  # compile or load the cache
        chunk = 65536
        t0 = time.perf_counter()
        for start in range(0, hands, chunk):
            count = min(chunk, hands - start)
            idx = np.arange(start, start + count)
            play_batch(cr, hand_seeds(seed, start, count), idx % 4, idx)
        dt = time.perf_counter() - t0
    else:
        from .play import play_random_hand
        from .rng import hand_seed

        t0 = time.perf_counter()
        for i in range(hands):
            play_random_hand(rules, hand_seed(seed, i), i % 4)
        dt = time.perf_counter() - t0
    return {"ruleset": ruleset, "engine": engine, "hands": hands,
            "hands_per_s": round(hands / dt, 1), "peak_rss_mb": round(_peak_rss_mb(), 1)}


def run_bench(rulesets: list[str], batch_hands: int, reference_hands: int) -> list[dict]:
    out = []
    for r in rulesets:
        for engine, n in (("batch", batch_hands), ("reference", reference_hands)):
            cmd = [sys.executable, "-m", "kopsim.bench", r, engine, str(n)]
            proc = subprocess.run(cmd, capture_output=True, text=True, env=os.environ.copy())
            if proc.returncode != 0:
                raise RuntimeError(f"bench of {r}/{engine} failed:\n{proc.stderr}")
            out.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return out


def measure_run(ruleset: str, lineup: str, jobs: int, deals: int, seed: int = 1) -> dict:
    """Time `kopsim run` of a one-variant experiment, Parquet files included. The worker pool
    is started (and has imported the engine) before the clock starts: a one-off cost of a few
    seconds that a large run pays once."""
    import tempfile

    from .experiment import ChunkTask, experiment_from_dict, play_chunk, run_experiment
    from .parallel import run_tasks

    exp = experiment_from_dict({"deals": deals, "seed": seed, "bots": lineup,
                                "variants": [ruleset], "name": f"bench-{lineup}"})
    warm = experiment_from_dict({"deals": 64 * jobs, "seed": seed, "bots": lineup,
                                 "variants": [ruleset], "chunk": 64})
    v = warm.variants[0]
    tasks = [ChunkTask(v, k, 64 * k, 64 * (k + 1), warm.deals, seed, warm.engine, warm.bots,
                       warm.lineup, None, False) for k in range(jobs)]
    for _ in run_tasks(play_chunk, tasks, jobs=jobs):  # start the workers, load the kernel
        pass
    with tempfile.TemporaryDirectory(prefix="kopsim-bench-") as tmp:
        t0 = time.perf_counter()
        s = run_experiment(exp, tmp, jobs=jobs)
        dt = time.perf_counter() - t0
    return {"ruleset": ruleset, "engine": "run", "hands": deals,
            "hands_per_s": round(deals / dt, 1), "peak_rss_mb": round(_peak_rss_mb(), 1),
            "lineup": lineup, "jobs": jobs, "worker_peak_rss_mb": round(s.worker_peak_rss_mb, 1)}


def run_jobs_bench(ruleset: str, lineups: list[str], jobs: list[int], deals: int) -> list[dict]:
    """`kopsim run` hands/s per line-up (every seat the same bot) and job count, each in a fresh
    process; `speedup` is against the first job count given (normally 1)."""
    out = []
    for lineup in lineups:
        base = None
        for j in jobs:
            cmd = [sys.executable, "-m", "kopsim.bench", "--run", ruleset, lineup, str(j),
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
    else:
        print(json.dumps(measure(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
