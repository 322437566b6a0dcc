"""The compiled code's cache is keyed by every source file compiled code can reach: numba alone
checks only the file of the function it compiled, so a change to an inlined helper in another
module would leave a stale kernel playing the old rules. Files compiled code cannot reach (the
command line, the report) keep the cache: a change to them costs no compiling."""

import os
import shutil
import subprocess
import sys

from kopsim import _compiled_cache as cc


def _package_copy(tmp_path, monkeypatch):
    copy = tmp_path / "kopsim"
    shutil.copytree(cc.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__", "*.toml"))
    monkeypatch.setattr(cc, "PACKAGE", copy)
    return copy


def _touch(path):
    path.write_text(path.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")


def test_a_change_to_a_helper_compiled_code_reaches_moves_the_cache(tmp_path, monkeypatch):
    copy = _package_copy(tmp_path, monkeypatch)
    # steps.py compiles; layout.py only holds constants the kernel freezes; model.py is
    # reached through the compiled tables' imports
    for helper in ("engine/steps.py", "engine/layout.py", "engine/codes.py", "rules/codes.py",
                   "rules/model.py"):
        before = cc.source_digest()
        _touch(copy / helper)
        assert cc.source_digest() != before, helper


def test_a_change_compiled_code_cannot_reach_keeps_the_cache(tmp_path, monkeypatch):
    copy = _package_copy(tmp_path, monkeypatch)
    before = cc.source_digest()
    for folder, name in (("cli", "report.py"), ("report", "render.py"), ("experiments", "spec.py")):
        _touch(copy / folder / name)
    assert cc.source_digest() == before


def test_the_compiled_sources_are_closed_under_import():
    """Whatever a module in the digest imports from kopsim is in the digest too, checked with
    Python's own parser against the quick scan."""
    import ast

    sources = set(cc.compiled_sources())
    modules = cc._modules(cc.PACKAGE.rglob("*.py"))
    assert cc.PACKAGE / "engine" / "loop.py" in sources
    for path in sources:
        package = path.relative_to(cc.PACKAGE).parts[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or not (node.level or (
                    node.module or "").startswith("kopsim")):
                continue
            base = package[:len(package) - node.level + 1] if node.level else ()
            target = (*base, *(node.module or "").split(".")) if node.level else tuple(
                node.module.split(".")[1:])
            target = tuple(t for t in target if t)
            for alias in node.names:
                file = modules.get((*target, alias.name)) or modules.get(target)
                assert file is None or file in sources, (path, node.module, alias.name)


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
