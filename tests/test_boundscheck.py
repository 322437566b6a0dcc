"""The engine cross-checks again under numba's bounds checks (NUMBA_BOUNDSCHECK=1), which turn a
read or write past any compiled array into an IndexError instead of silent corruption.

They run in a child pytest with a numba cache folder of bounds-checked builds only (conftest's
`boundscheck_env`): numba's on-disk cache does not tell bounds-checked builds apart from the
others, so a shared cache would replay unchecked machine code.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CROSS_CHECKS = ["test_engines_agree.py", "test_solver.py", "test_hostile_rulesets.py",
                "test_fuzz_rulesets.py"]


def test_cross_checks_pass_under_numba_boundscheck(tmp_path, boundscheck_env):
    env = boundscheck_env
    probe = subprocess.run([sys.executable, "-c", "import numba; print(numba.config.BOUNDSCHECK)"],
                           env=env, capture_output=True, text=True)
    assert probe.stdout.strip() == "1"  # the child really compiles with bounds checks
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
         *[str(HERE / name) for name in CROSS_CHECKS]],
        env=env, cwd=tmp_path, capture_output=True, text=True, timeout=1800)
    tail = child.stdout[-3000:] + child.stderr[-2000:]
    assert child.returncode == 0, tail
    assert " passed" in child.stdout and " failed" not in child.stdout, tail
