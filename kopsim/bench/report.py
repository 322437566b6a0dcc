"""Benchmark of `kopsim report`: time and peak memory of a report over millions of hands.

    python -m kopsim.bench.report --hands 2000000 [--dir /tmp/kopsim-bench] [RULESET ...]

runs (once; the folder is reused when present) an experiment of HANDS random-play deals per
variant (default: kop and kop-trzy-dychy, on the same deals, each with its own sessions) through
`kopsim run`'s own writer, then runs `kopsim report` on it in a fresh process and prints its wall
time and peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path


def write_results(results: Path, rulesets: list[str], hands: int, seed: int) -> None:
    """A random-play results folder, played and written as `kopsim run` plays and writes one."""
    from ..experiments.run import run_experiment
    from ..experiments.spec import experiment_from_dict

    exp = experiment_from_dict({"name": "bench-report", "deals": hands, "seed": seed,
                                "bots": "random", "sessions": True, "variants": rulesets})
    # in this process: worker processes would count in the report's peak memory (RUSAGE_CHILDREN)
    run_experiment(exp, results, jobs=1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kopsim.bench.report")
    p.add_argument("rulesets", nargs="*", default=["kop", "kop-trzy-dychy"])
    p.add_argument("--hands", type=int, default=2_000_000, help="hands per variant")
    p.add_argument("--dir", default=None, help="results folder (default: a temp folder)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args(argv)
    results = Path(a.dir or (Path(os.environ.get("TMPDIR", "/tmp"))
                             / f"kopsim-bench-{'-'.join(a.rulesets)}-{a.hands}"))
    if not (results / "manifest.json").exists():
        t0 = time.perf_counter()
        write_results(results, a.rulesets, a.hands, a.seed)
        print(f"wrote {results} in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    out = results.parent / (results.name + "-report")
    cmd = [sys.executable, "-m", "kopsim.cli", "report", str(results), "-o", str(out)]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0:
        print(proc.stdout + proc.stderr, file=sys.stderr)
        return proc.returncode
    kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    peak_mb = kb / 1024 if sys.platform != "darwin" else kb / 2**20
    size_mb = sum(f.stat().st_size for f in results.rglob("*.parquet")) / 2**20
    print(json.dumps({"variants": a.rulesets, "hands_per_variant": a.hands,
                      "hands_total": a.hands * len(a.rulesets),
                      "parquet_mb": round(size_mb, 1), "report_seconds": round(seconds, 2),
                      "peak_rss_mb": round(peak_mb, 1), "command": " ".join(cmd)}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
