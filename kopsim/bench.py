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


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
