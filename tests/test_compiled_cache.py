"""The compiled code's cache is keyed by every kopsim source file: numba alone checks only the
file of the function it compiled, so a change to an inlined helper in another module would
leave a stale kernel playing the old rules."""

import os
import shutil
import subprocess
import sys

from kopsim import _compiled_cache as cc


def test_a_change_to_any_source_file_moves_the_cache(tmp_path, monkeypatch):
    copy = tmp_path / "kopsim"
    shutil.copytree(cc.PACKAGE / "engine", copy / "engine")
    monkeypatch.setattr(cc, "PACKAGE", copy)
    before = cc.source_digest()
    steps = copy / "engine" / "steps.py"
    steps.write_text(steps.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")
    assert cc.source_digest() != before


def test_importing_kopsim_points_numba_at_the_keyed_cache(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")  # not tmp_path: `import kopsim` would
    # find the cache's own kopsim/ folder in the working directory
    code = "import kopsim, numba; print(numba.config.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=tmp_path, check=True).stdout.strip()
    assert out == str(tmp_path / "cache" / "kopsim" / "numba" / cc.source_digest())
    # numba imported first: its config is set all the same
    code = "import numba, kopsim; print(numba.config.CACHE_DIR)"
    again = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                           text=True, cwd=tmp_path, check=True).stdout.strip()
    assert again == out


def test_an_explicit_numba_cache_dir_is_kept(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "mine"))
    code = "import kopsim, numba; print(numba.config.CACHE_DIR)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=tmp_path, check=True).stdout.strip()
    assert out == str(tmp_path / "mine")
