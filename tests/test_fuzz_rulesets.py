"""Fuzz (issue 8, "Done when"): mutate the six bundled rulesets (hostile numbers, deleted,
duplicated and renamed keys, changed types, grown lists, nested predicates, renamed calls) and
require `kopsim rules validate` to exit 0 or 2 with located errors, never a traceback or a signal;
every ruleset it accepts must simulate, log hands that replay clean, and stay zero-sum if it says
so.

KOPSIM_FUZZ_EXAMPLES raises the number of hypothesis examples (CI: 40). For counts over many
files, `python tests/test_fuzz_rulesets.py N` tries N random mutants and tallies the outcomes.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import json
import math
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from kopsim.cli import main
from kopsim.rules.load import bundled_names, load_raw, load_ruleset
from toml_text import toml_text  # tests/toml_text.py

EXAMPLES = int(os.environ.get("KOPSIM_FUZZ_EXAMPLES", "40"))
HANDS = 12  # per accepted mutant: enough for an auction, play and a payout of each kind seen
BASES = {name: load_raw(name)[0] for name in bundled_names()}
HOSTILE_NUMBERS = [math.nan, math.inf, -math.inf, 1e300, -1e300, 2**70, -2**70, 2**63, -1, 0,
                   1, 2, 3, 4, 5, 16, 17, 64, 65, 255, 256, 100_000, 0.5, -0.5, 1e-300]
OTHER_VALUES = ["", "x", "pass", "double", "ask", True, False, [], {}, [1, 2], {"x": 1}]


# ----------------------------------------------------------------------------- writing TOML


# ---------------------------------------------------------------------------------- mutation


def paths(tree, prefix=()):
    """Every (path, value) in a tree of dicts and lists, the root excluded."""
    items = tree.items() if isinstance(tree, dict) else enumerate(tree)
    for k, v in items:
        yield (*prefix, k), v
        if isinstance(v, (dict, list)):
            yield from paths(v, (*prefix, k))


def strings(tree) -> list[str]:
    """Every string in the tree, keys included: contract, order, call and card names."""
    out = []
    for path, v in paths(tree):
        if isinstance(path[-1], str):
            out.append(path[-1])
        if isinstance(v, str):
            out.append(v)
    return sorted(set(out))


def parent_of(tree, path):
    node = tree
    for k in path[:-1]:
        node = node[k]
    return node


PREDICATE_KEYS = {"holds_all", "holds_any", "holds_none", "holds_count", "position", "all_of",
                  "any_of", "not"}


def is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def call_names(tree: dict) -> list[str]:
    """The names the engines tell calls apart by, and the contracts'."""
    def table(key):
        t = tree.get(key)
        return t if isinstance(t, dict) else {}

    names = ["pass", "double", "ask", table("auction").get("ask_call"),
             *(table("doubling").get("names") or []), *table("contracts")]
    return [n for n in names if isinstance(n, str)]


def mutate(tree: dict, pick) -> None:
    """One mutation, with `pick(seq)` making every choice (hypothesis or a random.Random). The
    operation is chosen first, then a place it applies to, so that hostile numbers land on
    numbers, nesting on predicates and call names on names."""
    every = list(paths(tree))
    where = {
        "number": [p for p, v in every if is_number(v)],
        "delete": [p for p, _ in every],
        "duplicate": [p for p, _ in every],
        "rename": [p for p, _ in every if isinstance(p[-1], str)],
        "type": [p for p, _ in every],
        "grow": [p for p, v in every if isinstance(v, list) and v],
        "nest": [p for p, v in every if isinstance(v, dict) and PREDICATE_KEYS & set(v)],
        "call": [p for p, v in every if isinstance(v, str) or (isinstance(v, list) and v
                                                               and isinstance(v[0], str))],
    }
    op = pick([op for op, places in where.items() if places])
    path = pick(where[op])
    parent, key = parent_of(tree, path), path[-1]
    value = parent[key]
    if op == "number":
        parent[key] = pick(HOSTILE_NUMBERS)
    elif op == "delete":
        del parent[key]
    elif op == "duplicate":
        if isinstance(parent, dict):
            parent[pick([f"{key}-copy", *call_names(tree)])] = copy.deepcopy(value)
        else:
            parent.append(copy.deepcopy(value))
    elif op == "rename":
        parent[pick(call_names(tree) + strings(tree) + [""])] = parent.pop(key)
    elif op == "type":
        parent[key] = copy.deepcopy(pick(OTHER_VALUES + HOSTILE_NUMBERS[:4]))
    elif op == "grow":
        times = pick([2, 5, 20])
        parent[key] = value * times if pick([True, False]) else \
            [f"{x}{i}" if isinstance(x, str) else x for i in range(times) for x in value]
    elif op == "nest":
        for _ in range(pick([1, 2, 10, 40])):
            # one nested operand and one leaf: the tree grows with the depth, not 2 ** depth
            leaf = {"holds_any": ["QC"]}
            value = pick([{"not": value}, {"all_of": [value, leaf]}, {"any_of": [leaf, value]}])
        parent[key] = value
    elif isinstance(value, list):
        value[pick(range(len(value)))] = pick(call_names(tree))
    else:
        parent[key] = pick(call_names(tree) + strings(tree))


# --------------------------------------------------------------------------------- checking


SERIAL = itertools.count()


def run_cli(argv: list[str], stdout: bool = False) -> tuple[int, str]:
    """(exit code, stderr, or stdout and stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        rc = main(argv)  # an exception escaping main is a failure of the test
    return rc, (out.getvalue() if stdout else "") + err.getvalue()


class Misbehaved(AssertionError):
    def __init__(self, kind: str, detail: str):
        super().__init__(f"{kind}: {detail}")
        self.kind = kind


def expect(ok: bool, kind: str, detail) -> None:
    if not ok:
        raise Misbehaved(kind, str(detail)[-1500:])


def check_mutant(data: dict, folder: Path, seed: int) -> str:
    """'accepted' or 'rejected well'; raises Misbehaved ('badly rejected': an exit code other
    than 0 or 2, or an error without its file; 'wrongly accepted': simulate, replay or the zero
    sum fails), or whatever escapes `main` (a crash)."""
    # a new name each time: replay keeps the rulesets it loaded by path for the process's life
    path = folder / f"mutant-{next(SERIAL)}.toml"
    path.write_text(toml_text(data), encoding="utf-8")
    rc, err = run_cli(["rules", "validate", str(path)])
    expect(rc in (0, 2), "badly rejected", f"validate exited {rc}: {err}")
    if rc == 2:
        lines = err.strip().splitlines()
        expect(lines and all(line.startswith(f"error: {path}") for line in lines),
               "badly rejected", err)
        return "rejected well"
    log = folder / "hands.jsonl"
    rc, err = run_cli(["simulate", str(path), "--hands", str(HANDS), "--seed", str(seed),
                       "--log", str(log)])
    expect(rc == 0, "wrongly accepted", f"simulate exited {rc}: {err}")
    rc, out = run_cli(["replay", str(log), "--rules", str(path)], stdout=True)
    expect(rc == 0, "wrongly accepted", f"its log does not replay clean: {out}")
    if load_ruleset(str(path)).scoring.style == "zero_sum":
        for line in log.read_text(encoding="utf-8").splitlines():
            pay = json.loads(line)["payouts"]
            expect(all(math.isfinite(p) for p in pay) and abs(sum(pay)) < 1e-9,
                   "wrongly accepted", f"payouts {pay} of a zero_sum ruleset")
    return "accepted"


def hypothesis_pick(data):
    return lambda seq: data.draw(st.sampled_from(seq))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_bundled_rulesets_validate_or_are_refused_and_what_is_accepted_plays(data):
    pick = hypothesis_pick(data)
    tree = copy.deepcopy(BASES[pick(sorted(BASES))])
    for _ in range(pick([1, 1, 2, 3])):
        if tree:
            mutate(tree, pick)
    with tempfile.TemporaryDirectory() as folder:
        check_mutant(tree, Path(folder), seed=data.draw(st.integers(0, 2**32)))


def _mutants_of_both_kinds(folder: Path, each: int = 3) -> tuple[list[Path], list[Path]]:
    """`each` mutants that validate in this process and `each` that do not, drawn in order from
    a fixed seed (whatever the bundled rulesets are)."""
    rng = random.Random(10)
    kinds: tuple[list[Path], list[Path]] = ([], [])
    for i in itertools.count():
        assert i < 400, "no mix of accepted and refused mutants found"
        tree = copy.deepcopy(BASES[rng.choice(sorted(BASES))])
        for _ in range(2):
            mutate(tree, rng.choice)
        path = folder / f"m{i}.toml"
        path.write_text(toml_text(tree), encoding="utf-8")
        rc, _ = run_cli(["rules", "validate", str(path)])
        if len(kinds[rc != 0]) < each:
            kinds[rc != 0].append(path)
        if min(map(len, kinds)) == each:
            return kinds


def test_a_few_mutants_in_a_real_process_end_without_a_signal(tmp_path):
    """In-process runs cannot see a segfault or an abort; a few subprocesses can."""
    accepted, refused = _mutants_of_both_kinds(tmp_path)
    cmd = [sys.executable, "-m", "kopsim.cli"]
    proc = subprocess.run([*cmd, "rules", "validate", *map(str, accepted + refused)],
                          capture_output=True, text=True, cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert all(f"error: {f}:" in proc.stderr for f in refused), proc.stderr
    assert not any(f"error: {f}:" in proc.stderr for f in accepted), proc.stderr
    for f in accepted:
        sim = subprocess.run([*cmd, "simulate", str(f), "--hands", "200"],
                             capture_output=True, text=True, cwd=tmp_path)
        assert sim.returncode == 0, (f, sim.returncode, sim.stderr[-2000:])


# ------------------------------------------------------------------------------- tallying


def tally(n: int, seed: int = 0) -> dict[str, int]:
    """Outcomes of n random mutants: accepted / rejected well, or how kopsim failed."""
    rng = random.Random(seed)
    counts = {"tried": 0, "accepted": 0, "rejected well": 0, "crashed": 0,
              "wrongly accepted": 0, "badly rejected": 0}
    with tempfile.TemporaryDirectory() as folder:
        for i in range(n):
            tree = copy.deepcopy(BASES[rng.choice(sorted(BASES))])
            for _ in range(rng.choice([1, 1, 2, 3])):
                if tree:
                    mutate(tree, rng.choice)
            counts["tried"] += 1
            try:
                counts[check_mutant(tree, Path(folder), seed=i)] += 1
                continue
            except Misbehaved as e:
                counts[e.kind] += 1
                kind, detail = e.kind, str(e)
            except Exception as e:  # a traceback escaping main
                counts["crashed"] += 1
                kind, detail = "crashed", f"{type(e).__name__}: {e}"
            print(f"mutant {i}: {detail[:300]}", file=sys.stderr)
            newest = max(Path(folder).glob("mutant-*.toml"), key=os.path.getmtime)
            newest.replace(f"fuzz-{kind.replace(' ', '-')}-{i}.toml")
    return counts


if __name__ == "__main__":
    print(json.dumps(tally(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
                           int(sys.argv[2]) if len(sys.argv) > 2 else 0), indent=1))
