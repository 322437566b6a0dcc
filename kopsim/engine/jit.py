"""How the compiled core is compiled.

`kernel_jit` is numba's `njit` with its reference counting (NRT) turned off, for the kernel and
the kernel bots' decisions. They allocate nothing and every array they touch belongs to the
Python caller for the whole call, so counting references buys no safety; and numba counts one
for every array that reaches an inlined helper or a call, with atomic instructions it cannot
prune across branches: measured on numba 0.68, turning it off made four heuristic bots 60%
faster. A function compiled this way cannot create an array (numba refuses to compile it).
"""

from __future__ import annotations

from numba import njit


def kernel_jit(**options):
    """`njit(cache=True, ...)` without reference counting: for functions that only read and
    write arrays they are given."""
    return njit(cache=True, _nrt=False, **options)
