"""The quick lane (`python -m pytest -m quick`): every entry of conftest.QUICK names tests that
exist, and together they reach every stage of kopsim."""

import subprocess
import sys
from pathlib import Path

from conftest import QUICK

ROOT = Path(__file__).resolve().parent.parent


def _quick_ids() -> list[str]:
    proc = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o",
                           "addopts=", "-m", "quick", "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::" in line]


def test_every_quick_entry_names_collected_tests_and_every_stage_is_reached():
    ids = _quick_ids()
    names = [i.partition("/")[2] for i in ids]  # node ids, from inside the tests folder
    for entry in QUICK:
        assert any(n.startswith(entry) for n in names), f"{entry} names no test"
    files = {n.split("::")[0] for n in names}
    stages = {"rules": "test_validation.py", "engines": "test_engines_agree.py",
              "bots": "test_bots.py", "ev": "test_ev.py", "experiment": "test_experiment.py",
              "report": "test_report_cli.py", "replay": "test_replay_knobs.py"}
    assert all(f in files for f in stages.values()), files
    assert len(ids) < 60  # a lane, not the suite
