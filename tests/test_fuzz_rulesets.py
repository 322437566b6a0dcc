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
from kopsim.records.format import batch_record

SEAT_TABLES = Path(__file__).parent / "data" / "seats"
# tables of three and five (issue 36) and a talon (issue 37)
TEST_TABLES = sorted(SEAT_TABLES.glob("*.toml")) + sorted(
    (Path(__file__).parent / "data" / "talon").glob("*.toml"))
EXAMPLES = int(os.environ.get("KOPSIM_FUZZ_EXAMPLES", "40"))
HANDS = 12  # per accepted mutant: enough for an auction, play and a payout of each kind seen
BASES = {name: load_raw(name)[0] for name in bundled_names()}
# mutants of the test tables put other seat counts, and a talon, to the test
BASES.update({p.stem: load_raw(p)[0] for p in TEST_TABLES})
# what a child file's `extends` names for each base: a bundled name, or the test table's path
EXTENDS = {name: name for name in bundled_names()}
EXTENDS.update({p.stem: str(p) for p in TEST_TABLES})
HOSTILE_NUMBERS = [math.nan, math.inf, -math.inf, 1e300, -1e300, 2**70, -2**70, 2**63, -1, 0,
                   1, 2, 3, 4, 5, 16, 17, 64, 65, 255, 256, 100_000, 0.5, -0.5, 1e-300]
# non-integer numbers where a factor, a price or card points go: rounding must come out the
# same in both engines, sums of card points exact, payouts exactly zero-sum
FRACTIONS = [0.1, 0.2, 0.3, 1.1, 1.3, 2.5, 1 / 3, 1.0000001, 3.9999999999999996, 0.7]
EMPTY_NAMES = ["", " ", "\t"]
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
        "fraction": [p for p, v in every if is_number(v)],
        "empty": [p for p, v in every if isinstance(p[-1], str) or isinstance(v, str)],
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
    elif op == "fraction":
        parent[key] = pick(FRACTIONS)
    elif op == "empty":  # an empty or blank name where a name is a key, or is referred to
        if isinstance(key, str) and (not isinstance(value, str) or pick([True, False])):
            parent[pick(EMPTY_NAMES)] = parent.pop(key)
        else:
            parent[key] = pick(EMPTY_NAMES)
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
    rules = load_ruleset(str(path))
    if rules.scoring.style == "zero_sum":  # exactly: the amounts' real sum is 0
        for line in log.read_text(encoding="utf-8").splitlines():
            pay = json.loads(line)["payouts"]
            expect(all(math.isfinite(p) for p in pay) and math.fsum(pay) == 0,
                   "wrongly accepted", f"payouts {pay} of a zero_sum ruleset")
    differs = engines_differ(rules, seed)
    expect(differs is None, "wrongly accepted", f"the engines play it differently: {differs}")
    return "accepted"


def engines_differ(rules, seed: int, hands: int = 6) -> str | None:
    """The first hand the batch kernel and the reference engine record differently (random
    bots, seeded deals), or None."""
    import numpy as np

    from kopsim.bots import bot_spec
    from kopsim.bots.seated import play_batch
    from kopsim.engine.layout import hand_seeds
    from kopsim.bots.seated import play_hand
    from kopsim.records.format import record_from_state
    from kopsim.rules.compile import compile_rules

    n = rules.deck.players
    bots = [bot_spec("random")] * n
    seeds, dealers = hand_seeds(seed, 0, hands), np.arange(hands) % n
    batch = play_batch(compile_rules(rules), seeds, dealers, bots=bots)
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i).to_dict()
        if batch_record(batch, i).to_dict() != ref:
            return f"hand {i}: kernel {batch_record(batch, i).to_dict()}, reference {ref}"
    return None


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


def outcome_of(check) -> tuple[str, str]:
    """(outcome, detail) of one mutant's check(): what it returned ('accepted', 'rejected
    well'), or how kopsim failed (a Misbehaved kind, or 'crashed': a traceback escaping main)."""
    try:
        return check(), ""
    except Misbehaved as e:
        return e.kind, str(e)
    except Exception as e:  # noqa: BLE001
        return "crashed", f"{type(e).__name__}: {e}"


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
            kind, detail = outcome_of(lambda: check_mutant(tree, Path(folder), seed=i))
            counts[kind] += 1
            if not detail:
                continue
            print(f"mutant {i}: {detail[:300]}", file=sys.stderr)
            newest = max(Path(folder).glob("mutant-*.toml"), key=os.path.getmtime)
            newest.replace(f"fuzz-{kind.replace(' ', '-')}-{i}.toml")
    return counts


if __name__ == "__main__":
    print(json.dumps(tally(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
                           int(sys.argv[2]) if len(sys.argv) > 2 else 0), indent=1))


# ------------------------------------------------------------------ inherit removals, fuzzed


def _key_path(keys) -> str:
    """A TOML dotted key path; an int last key becomes an index."""
    *names, last = keys
    index = isinstance(last, int)
    names = names if index else [*names, last]
    text = ".".join(k if k and all(c.isascii() and (c.isalnum() or c in "_-") for c in k)
                    else json.dumps(k, ensure_ascii=False)
                    for k in names)
    return f"{text}[{last}]" if index else text


def removable(tree) -> list[tuple]:
    """Key paths an [inherit] remove can name: tables' keys, and an index of a list, the
    index last."""
    return [p for p, _ in paths(tree)
            if all(isinstance(k, str) for k in p[:-1]) and len(p) <= 4]


def removed(parent: dict, chosen: list[tuple]) -> dict:
    """The parent without the chosen keys and items, every index counting the parent's items:
    the rule of docs/rulesets.md, written again here from it."""
    out = copy.deepcopy(parent)
    lists: dict[tuple, set] = {}
    for p in chosen:
        if isinstance(p[-1], int):
            lists.setdefault(p[:-1], set()).add(p[-1])
    for p in chosen:
        if isinstance(p[-1], str):
            del parent_of(out, p)[p[-1]]
    for p, gone in lists.items():
        holder = parent_of(out, p)
        holder[p[-1]] = [x for i, x in enumerate(holder[p[-1]]) if i not in gone]
    return out


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(st.data())
def test_inherit_removals_count_the_parents_items_and_a_repeat_is_refused(data):
    name = data.draw(st.sampled_from(sorted(BASES)))
    parent = BASES[name]
    chosen = data.draw(st.lists(st.sampled_from(removable(parent)), min_size=1, max_size=4))
    if data.draw(st.booleans()):  # a path listed twice, as the fuzzing round wrote them
        chosen.insert(data.draw(st.integers(0, len(chosen))), chosen[0])
    child = {"extends": EXTENDS[name], "name": "child", "inherit": {
        "remove": [_key_path(p) for p in chosen]}}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "child.toml"
        path.write_text(toml_text(child), encoding="utf-8")
        try:
            merged, _ = load_raw(path)
        except Exception as e:  # noqa: BLE001 (only an InputError may say no)
            from kopsim.errors import InputError
            assert isinstance(e, InputError), e
            nested = any(a != b and b[:len(a)] == a for a in chosen for b in chosen)
            twice = len(set(chosen)) < len(chosen)
            assert twice or nested, [str(p) for p in e.problems]
            if twice:
                assert any("listed twice" in p.message for p in e.problems)
            return
    assert len(set(chosen)) == len(chosen)
    expected = removed(parent, chosen)
    expected["name"] = "child"
    assert merged == expected


# ------------------------------------------------------- folders where a file should be, fuzzed

FOLDER_FORMS = ["/", ".", "..", "sub", "sub/", "sub.toml", "sub.toml/", "./sub.toml"]


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(place=st.sampled_from(["ruleset", "extends", "variant", "experiment"]),
       form=st.sampled_from(FOLDER_FORMS))
def test_a_folder_where_a_file_goes_is_refused_with_its_place(place, form):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "sub").mkdir()
        (folder / "sub.toml").mkdir()
        target = form if form in ("/", ".", "..") else str(folder / form)
        experiment = ('name = "e"\ndeals = 40\nseed = 1\nbots = ["random", "random", "random", '
                      f'"random"]\n[[variants]]\nruleset = {json.dumps(target)}\n')
        if place == "ruleset":
            argv = ["rules", "validate", target]
        elif place == "extends":
            child = folder / "child.toml"
            child.write_text(f'extends = {json.dumps(target)}\nname = "x"\n', encoding="utf-8")
            argv = ["rules", "validate", str(child)]
        elif place == "variant":
            (folder / "e.toml").write_text(experiment, encoding="utf-8")
            argv = ["run", str(folder / "e.toml"), "--check"]
        else:
            argv = ["run", target, "--check"]
        rc, err = run_cli(argv)
    assert rc == 2 and err.startswith("error: "), err
    # a folder says so; a bare word that names no bundled ruleset says that
    assert "a folder" in err or ("no bundled ruleset" in err and "/" not in form), err
