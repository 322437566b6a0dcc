"""What kopsim writes to a terminal besides its results.

Text from files (ruleset names and descriptions, experiment names, log fields) is made safe to
print: a hostile string must not move the cursor, rewrite earlier lines or change colours. Long
work shows progress on stderr, only when stderr is a terminal, never on stdout."""

from __future__ import annotations

import os
import re
import sys

# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: 8-bit CSI and kin).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A whole ANSI escape sequence (CSI ... final byte, or OSC ... BEL/ST), so no parameters remain.
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]")


def clean(text: object) -> str:
    """`text` without ANSI escape sequences and control characters (tab and newline stay)."""
    return _CONTROL.sub("", _ESCAPE.sub("", str(text)))


def shows_progress(force: bool | None = None) -> bool:
    """Progress goes to stderr, and only when it is a terminal (unless forced either way):
    piped output and logs stay free of bars."""
    return sys.stderr.isatty() if force is None else force


def progress_bar(total: float | None, desc: str, unit: str = " hands",
                 force: bool | None = None):
    """A tqdm bar on stderr (rate and ETA); a silent stand-in when progress is not shown."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr,
                leave=False, disable=not shows_progress(force))


def compile_notice(*kernels, force: bool | None = None) -> None:
    """Say so on stderr, in one line and on any output (a log file too: the time it takes is
    no play), before numba compiles `kernels` (cache=True dispatchers) for the first time:
    about 30 s to minutes of silence otherwise, once per install (and after the kernel's source
    changes). A kernel counts as compiled when numba's cache index for it exists. force=False:
    quiet."""
    if force is False:
        return
    try:
        missing = [k for k in kernels if not os.path.exists(k._cache._cache_file._index_path)]
    except AttributeError:  # a numba whose cache is laid out otherwise: stay quiet
        return
    if missing:
        print("compiling the game kernels (once; later runs load them from numba's cache) ...",
              file=sys.stderr, flush=True)
