"""`compile_once`: a process about to build a function another process is building waits for it
and loads the build from numba's cache instead of compiling it a second time."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import time
from pathlib import Path

from kopsim.engine.jit import LOCK_NAME

MODULE = """
from numba import njit

@njit(cache=True)
def plus_one(x):
    return x + 1
"""

WAITER = """
import sys
from pathlib import Path
import mod
from kopsim.engine.jit import compile_once
Path(sys.argv[1]).touch()  # imported: what is left is the build
compile_once(mod.plus_one, (1,))
stats = mod.plus_one.stats
print(sum(stats.cache_hits.values()), sum(stats.cache_misses.values()), mod.plus_one(1))
"""


def test_a_second_process_waits_for_the_build_and_loads_it(tmp_path: Path):
    (tmp_path / "mod.py").write_text(MODULE)
    cache = tmp_path / "cache"
    cache.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(tmp_path))
    with open(cache / LOCK_NAME, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # as a process compiling it would
        ready = tmp_path / "ready"
        waiter = subprocess.Popen([sys.executable, "-c", WAITER, str(ready)], env=env,
                                  cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        deadline = time.monotonic() + 120
        while not ready.exists() and waiter.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(3)  # (the build alone takes well under a second)
        assert waiter.poll() is None  # it waits for the lock
        subprocess.run([sys.executable, "-c", "import mod; mod.plus_one(1)"], env=env,
                       cwd=tmp_path, check=True)  # the build, written to the cache
    out, err = waiter.communicate(timeout=120)
    assert waiter.returncode == 0, err
    hits, misses, value = out.split()
    assert (hits, misses, value) == ("1", "0", "2")  # loaded, not compiled again
