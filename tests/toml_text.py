"""Writing TOML from Python values, for the fuzz tests (tomllib reads, but does not write).

NaN and the infinities are written as TOML's `nan` / `inf` / `-inf`, so a fuzzer can hand a
hostile float to the parser exactly as a user could type it.
"""

from __future__ import annotations

import json
import math


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        return ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # JSON string escapes are valid in a TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    assert isinstance(v, dict)
    return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml_text(data: dict) -> str:
    return "".join(f"{json.dumps(str(k))} = {toml_value(v)}\n" for k, v in data.items())
