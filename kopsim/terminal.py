"""Text from files (ruleset names and descriptions, experiment names, log fields) made safe to
print: a hostile string must not move the cursor, rewrite earlier lines or change colours."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: 8-bit CSI and kin).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
# A whole ANSI escape sequence (CSI ... final byte, or OSC ... BEL/ST), so no parameters remain.
_ESCAPE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x9b[0-?]*[ -/]*[@-~]")


def clean(text: object) -> str:
    """`text` without ANSI escape sequences and control characters (tab and newline stay)."""
    return _CONTROL.sub("", _ESCAPE.sub("", str(text)))
