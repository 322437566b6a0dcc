"""The suite can never hang (issue 31): every test has a time limit (pytest-timeout, set in
pyproject.toml), so a test waiting on input, a lock or a child fails with its name."""

import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent


def test_every_test_has_a_time_limit_from_the_project_settings():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert any(d.startswith("pytest-timeout") for d in project["project"]
               ["optional-dependencies"]["test"])
    limit = project["tool"]["pytest"]["ini_options"]["timeout"]
    assert 60 <= limit <= 900  # generous, yet far inside CI's 90 minutes


def test_a_test_that_waits_forever_fails_with_its_name(tmp_path):
    (tmp_path / "test_waits.py").write_text(
        "import threading\n\n"
        "def test_waits_on_a_lock_nobody_releases():\n"
        "    lock = threading.Lock()\n    lock.acquire()\n    lock.acquire()\n",
        encoding="utf-8")
    # the project's settings, with a short limit for this check only
    proc = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                           "-p", "no:xdist", "-c", str(ROOT / "pyproject.toml"),
                           "--rootdir", str(tmp_path), "-o", "timeout=3",
                           str(tmp_path / "test_waits.py")],
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out[-2000:]
    assert "Timeout" in out and "test_waits_on_a_lock_nobody_releases" in out, out[-2000:]
