"""The engine cross-checks again under numba's bounds checks (NUMBA_BOUNDSCHECK=1), which turn a
read or write past any compiled array into an IndexError instead of silent corruption.

They run in a child pytest with a numba cache folder of bounds-checked builds only (conftest's
`boundscheck_env`): numba's on-disk cache does not tell bounds-checked builds apart from the
others, so a shared cache would replay unchecked machine code.

The child takes minutes (it compiles the kernel afresh with the checks), so the first test starts
it and the last one waits for it: in between, the session's own tests run beside it instead of
a worker waiting for it from the start. Under `pytest -n 2` the two tests may run in different
workers; the child's log and exit code lie in a folder of the run that both see.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
# test_hostile_rulesets plays rulesets at every limit of the kernel's arrays: here, checked
CROSS_CHECKS = ["test_engines_agree.py", "test_solver.py", "test_hostile_rulesets.py",
                "test_fuzz_rulesets.py",
                "test_rules_talon_pick_up.py::test_both_engines_pick_up_and_lay_away_identically",
                "test_rules_value_bidding.py::test_both_engines_bid_by_value_identically",
                "test_seat_counts.py::test_a_table_of_n_seats_plays_the_same_hands_in_both_engines",
                "test_pimc_kernel.py::test_the_kernel_plays_pimc_as_the_reference_engine",
                "test_learnt.py::test_both_engines_play_the_learnt_bot_alike"]
WAIT_S = 1800

# runs the child pytest, then writes its exit code where the waiting test looks for it (atomically:
# a reader never sees half a number)
RUNNER = """
import os, subprocess, sys
log, rc = sys.argv[1], sys.argv[2]
with open(log, "w") as out:
    code = subprocess.run(sys.argv[3:], stdout=out, stderr=subprocess.STDOUT).returncode
with open(rc + ".tmp", "w") as f:
    f.write(str(code))
os.replace(rc + ".tmp", rc)
"""


def _start_child(folder: Path, env: dict) -> None:
    """Starts the child pytest unless this run has already (mkdir: one process wins)."""
    try:
        (folder / "started").mkdir()
    except FileExistsError:
        return
    work = folder / "cwd"
    work.mkdir()
    # a test of the child may build the checked kernel: its limit is the child's own
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist",
            "-o", f"timeout={WAIT_S}",
            *[str(HERE / name) for name in CROSS_CHECKS]]
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(folder / "child.log"),
                             str(folder / "rc"), *args], env=env, cwd=work,
                            start_new_session=True)
    atexit.register(_stop, proc)


def _stop(proc: subprocess.Popen) -> None:
    """A session cut short leaves no child behind (the runner and its pytest: one group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture(scope="session")
def child_folder(run_tmp) -> Path:
    folder = run_tmp / "boundscheck-child"
    folder.mkdir(exist_ok=True)
    return folder


def test_the_child_compiles_with_bounds_checks(boundscheck_env, child_folder):
    probe = subprocess.run([sys.executable, "-c", "import numba; print(numba.config.BOUNDSCHECK)"],
                           env=boundscheck_env, capture_output=True, text=True)
    assert probe.stdout.strip() == "1"  # the child really compiles with bounds checks
    _start_child(child_folder, boundscheck_env)


@pytest.mark.last
@pytest.mark.timeout(WAIT_S + 120)  # it waits for the child, which has WAIT_S
def test_cross_checks_pass_under_numba_boundscheck(boundscheck_env, child_folder):
    _start_child(child_folder, boundscheck_env)  # (if this test runs alone)
    rc = child_folder / "rc"
    deadline = time.monotonic() + WAIT_S
    while not rc.exists():
        assert time.monotonic() < deadline, f"the bounds-checked child took over {WAIT_S} s"
        time.sleep(1)
    log = (child_folder / "child.log").read_text()
    tail = log[-5000:]
    assert rc.read_text() == "0", tail
    assert " passed" in log and " failed" not in log, tail
