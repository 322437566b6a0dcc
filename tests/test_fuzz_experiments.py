"""Fuzz: the shipped experiment files (experiments/*.toml), mutated, through
`kopsim run --check` in this process. Every outcome is exit 0 or a located rejection (exit 2,
`error: ...` lines), never a traceback; and a mutation that breaks a documented limit (an unsafe
name, deals, seed or chunk out of range) is never accepted.

KOPSIM_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz_experiments.py -s counts every
outcome instead of stopping at the first bad one, and prints the counts.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import shutil
import tomllib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kopsim.cli import main
from kopsim.experiments.spec import MAX_CHUNK, MAX_DEALS, safe_name
from toml_text import toml_text  # tests/toml_text.py

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = sorted((ROOT / "experiments").glob("*.toml"))
EXAMPLES = int(os.environ.get("KOPSIM_FUZZ_EXAMPLES", "0"))
COUNTING = EXAMPLES > 0
COUNTS: Counter = Counter()

KEYS = ["name", "description", "deals", "seed", "sessions", "rotate", "engine", "chunk", "bots",
        "variants", "label", "overrides", "ruleset", "params", "nonsense"]
ODD = ["../../x", "/abs", "..", ".", "", "x" * 300, "a\x00b", "kop", "baska", "heuristic",
       "random", "pimc", "session", "kernel", "reference", "auto", "kop-victory-cards",
       "no-such.toml", "sub/dir.toml", "\u202e", 0, -1, 1, 2**63, 2**64, 2**70, MAX_DEALS + 1,
       MAX_CHUNK + 1, 1e300, math.nan, math.inf, True, False]

scalars = (st.sampled_from(ODD) | st.integers(-2**80, 2**80) | st.booleans()
           | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=20))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=5)
                      | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=8), inner,
                                        max_size=4), max_leaves=12)


@st.composite
def structural(draw) -> tuple[str, dict]:
    """A shipped file's keys with one to three of them set, deleted or reached into."""
    data = tomllib.loads(draw(st.sampled_from(SHIPPED)).read_text("utf-8"))
    for _ in range(draw(st.integers(1, 3))):
        key = draw(st.sampled_from(KEYS))
        op = draw(st.sampled_from(["set", "delete", "inside"]))
        if op == "delete":
            data.pop(key, None)
        elif op == "inside" and isinstance(data.get(key), list) and data[key]:
            i = draw(st.integers(0, len(data[key]) - 1))
            data[key][i] = draw(values)
        else:
            data[key] = draw(values)
    return toml_text(data), data


@st.composite
def textual(draw) -> tuple[bytes, None]:
    """A shipped file's bytes with a slice deleted, replaced, duplicated or a byte flipped."""
    text = draw(st.sampled_from(SHIPPED)).read_bytes()
    for _ in range(draw(st.integers(1, 3))):
        a = draw(st.integers(0, len(text)))
        b = draw(st.integers(a, min(len(text), a + 40)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "flip"]))
        if op == "delete":
            text = text[:a] + text[b:]
        elif op == "insert":
            text = text[:a] + draw(st.binary(max_size=12) | st.sampled_from(
                [b"[", b"]", b"=", b'"', b"\n", b"{", b"x = 1\n", b"deals = ", b"\xff"])) + text[a:]
        elif op == "duplicate":
            text = text[:b] + text[a:b] + text[b:]
        elif a < len(text):
            text = text[:a] + bytes([text[a] ^ draw(st.integers(1, 255))]) + text[a + 1:]
    return text, None


def must_reject(content: bytes | str, data: dict | None) -> str:
    """The documented limit a mutated file breaks ("" when it breaks none that is known)."""
    if data is None:  # mutated bytes: judged by what they parse to, if they parse
        try:
            text = content.decode("utf-8") if isinstance(content, bytes) else content
            data = tomllib.loads(text)
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            return ""
    name = data.get("name")
    checks = {
        "name": isinstance(name, str) and not safe_name(name),
        "deals": type(data.get("deals")) is int and not 1 <= data["deals"] <= MAX_DEALS,
        "seed": type(data.get("seed")) is int and not 0 <= data["seed"] < 2**63,
        "chunk": type(data.get("chunk")) is int and not 1 <= data["chunk"] <= MAX_CHUNK,
    }
    return next((k for k, broken in checks.items() if broken), "")


def outcome(path: Path, content: bytes | str, data: dict | None) -> tuple[str, str]:
    """("accepted" | "rejected well" | "crashed" | "wrongly accepted", what was seen)."""
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["run", str(path), "--check"])
    except Exception as e:  # noqa: BLE001 - what the fuzz is here to find
        return "crashed", f"{type(e).__name__}: {e}"
    lines = err.getvalue().splitlines()
    if code == 0:
        limit = must_reject(content, data)
        return ("wrongly accepted", f"broke {limit}") if limit else ("accepted", "")
    if code == 2 and lines and all(x.startswith("error: ") for x in lines):
        return "rejected well", ""
    return "crashed", f"exit {code}: {err.getvalue()[:500]}"


def check(tmp: Path, case) -> None:
    content, data = case
    result, seen = outcome(tmp / "exp.toml", content, data)
    COUNTS["tried"] += 1
    COUNTS[result] += 1
    if not COUNTING:
        assert result in ("accepted", "rejected well"), (seen, content)


FUZZ = settings(max_examples=EXAMPLES or 60, deadline=None, derandomize=True,
                database=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module", autouse=True)
def report_counts():
    yield
    if COUNTING:
        print("\nexperiment fuzz:", dict(COUNTS))


@FUZZ
@given(case=structural())
def test_mutated_keys_are_accepted_or_rejected_with_located_errors(tmp_path_factory, case):
    check(tmp_path_factory.mktemp("s", numbered=True), case)


@FUZZ
@given(case=textual())
def test_mutated_bytes_are_accepted_or_rejected_with_located_errors(tmp_path_factory, case):
    check(tmp_path_factory.mktemp("t", numbered=True), case)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_file_is_accepted(tmp_path, path):
    # the rulesets a shipped experiment names by a relative path, beside it as shipped
    shutil.copytree(path.parent / "rulesets", tmp_path / "rulesets")
    assert outcome(tmp_path / path.name, path.read_text("utf-8"),
                   tomllib.loads(path.read_text("utf-8"))) == ("accepted", "")
