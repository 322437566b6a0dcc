"""Where numba keeps kopsim's compiled code: a folder named by a digest of the sources it is
compiled from.

numba's own cache checks only the source file of the function it compiled, not of the helpers
it inlined from other modules: after `git pull` changes `engine/steps.py` but not
`engine/loop.py`, the kernel would load from the cache still playing the old rules, silently.
Keying the whole cache by the compiled sources makes any change to them compile afresh. The
compiled sources are every module that compiles a function (a jit decorator) and every kopsim
module those import, directly or not, anywhere in the file: all a compiled function can reach
(its callees, the constants it freezes). A change elsewhere (the command line, the report, the
experiment files) keeps the cache, and a few minutes of compiling. An explicit NUMBA_CACHE_DIR
is respected (the bounds-check runs of the tests set one).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent

_COMPILES = re.compile(r"@(?:kernel_jit|njit|numba\.njit)\b|=\s*(?:kernel_jit|njit)\(")
# an import of a kopsim module, relative or absolute, at any indentation; a match inside a
# string only adds a file to the digest, which is safe (ast would cost 0.2 s an import)
_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.+[\w.]*|kopsim(?:\.[\w.]+)?)[ \t]+import[ \t]+"
                     r"(\([^)]*\)|[^\n#]*)", re.M)


def _modules(paths) -> dict[tuple[str, ...], Path]:
    """Each source file by its module's dotted name inside kopsim (a package by its folder)."""
    out = {}
    for path in paths:
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out[parts[:-1] if parts[-1] == "__init__" else parts] = path
    return out


def _imported_files(path: Path, text: str, modules: dict) -> set[Path]:
    """The kopsim source files `text` (the file at `path`) imports."""
    package = list(path.relative_to(PACKAGE).parts[:-1])  # of a module and of an __init__
    found: set[Path] = set()
    for source, names in _IMPORT.findall(text):
        if source.startswith("."):
            dots = len(source) - len(source.lstrip("."))
            target = package[:len(package) - (dots - 1)] if dots > 1 else list(package)
            target += [p for p in source.lstrip(".").split(".") if p]
        else:
            target = source.split(".")[1:]
        for words in (n.split() for n in names.strip("()").split(",")):
            # `from .engine import steps`: the module steps; `from .steps import x`: steps
            file = (words and modules.get((*target, words[0]))) or modules.get(tuple(target))
            if file is not None:
                found.add(file)
    return found


def compiled_sources() -> list[Path]:
    """Every module that compiles a function, with all the kopsim modules it imports."""
    texts = {p: p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}
    modules = _modules(texts)
    todo = [p for p, text in texts.items() if _COMPILES.search(text)]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_imported_files(path, texts[path], modules) - seen)
    return sorted(seen)


def source_digest() -> str:
    h = hashlib.sha256()
    for path in compiled_sources():
        h.update(path.relative_to(PACKAGE).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def use_source_keyed_cache() -> None:
    if "NUMBA_CACHE_DIR" in os.environ:
        return
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    folder = base / "kopsim" / "numba" / source_digest()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return  # numba's default (next to the sources), as before
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:  # imported before kopsim: its config was read already
        numba.config.CACHE_DIR = str(folder)
