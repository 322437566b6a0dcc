"""How the compiled core is compiled.

`kernel_jit` is numba's `njit` with its reference counting (NRT) turned off, for the kernel and
the kernel bots' decisions. They allocate nothing and every array they touch belongs to the
Python caller for the whole call, so counting references buys no safety; and numba counts one
for every array that reaches an inlined helper or a call, with atomic instructions it cannot
prune across branches: measured on numba 0.68, turning it off made four heuristic bots 60%
faster. A function compiled this way cannot create an array (numba refuses to compile it).

`compile_once` builds a function for its arguments' types one process at a time: on a fresh
install, the workers of a parallel run (and the tests' processes) would otherwise each compile
the same kernel at once, 40 s and 2 GB apiece, before any of them had written it to the cache.
"""

from __future__ import annotations

import os
import tempfile

from numba import config, njit

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: each process compiles for itself
    fcntl = None

LOCK_NAME = "kopsim-compile.lock"  # in numba's cache folder


def kernel_jit(**options):
    """`njit(cache=True, ...)` without reference counting: for functions that only read and
    write arrays they are given."""
    return njit(cache=True, _nrt=False, **options)


def compile_once(dispatcher, args: tuple) -> None:
    """Ready `dispatcher` (a cache=True numba function) for a call with `args`: load its build
    for their types from numba's cache, or compile and cache it, holding the cache folder's
    lock meanwhile, so that another process about to build it waits and then loads what this
    one wrote."""
    sig = tuple(dispatcher.typeof_pyval(a) for a in args)
    if sig in dispatcher.overloads or fcntl is None:
        return
    folder = config.CACHE_DIR or tempfile.gettempdir()
    try:  # one lock for every such build: they share the helpers they compile on the way
        lock = open(os.path.join(folder, LOCK_NAME), "a")
    except OSError:  # no writable cache folder: compile unlocked, as numba would
        dispatcher.compile(sig)
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        dispatcher.compile(sig)  # (numba looks in its cache first)


def built_call(dispatcher, *args):
    """dispatcher(*args), its first build in this process made by `compile_once` (the Python
    faces of compiled decisions and searches: each build takes from seconds to a minute and
    more, and parallel workers would each make it at once)."""
    if not getattr(dispatcher, "overloads", True):  # (NUMBA_DISABLE_JIT: a plain function)
        compile_once(dispatcher, args)
    return dispatcher(*args)
