"""Where numba keeps kopsim's compiled code: a folder named by a digest of kopsim's sources.

numba's own cache checks only the source file of the function it compiled, not of the helpers
it inlined from other modules: after `git pull` changes `engine/steps.py` but not
`engine/loop.py`, the kernel would load from the cache still playing the old rules, silently.
Keying the whole cache by every source file makes any change compile afresh. An explicit
NUMBA_CACHE_DIR is respected (the bounds-check runs of the tests set one).
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def source_digest() -> str:
    h = hashlib.sha256()
    for path in sorted(PACKAGE.rglob("*.py")):
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
