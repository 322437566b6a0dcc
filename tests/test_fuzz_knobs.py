"""Fuzz the rule knobs added since the first fuzzing round: `[inherit]`, tournaments, reopening,
add-ons, called-card duties, Laufende, Ramsch and bid classes. The mutants start from the test
rulesets that use each knob (tests/data/knobs, and kop-sportowy's tournament), resolved or as
the child files they are (`extends` and `[inherit]` then mutated too), and a mutation may also
graft one knob, or a whole contract that uses one, onto another ruleset.

The promise is the first round's (tests/test_fuzz_rulesets.py): `kopsim rules validate` exits 0
or 2 with located errors, never a traceback; every accepted ruleset simulates, its log replays
clean, sums to zero where it is zero-sum, and plays the same in both engines. Here also: a
person can play a hand of it at the table (`kopsim play`) whose log replays clean, and, when it
has a tournament, a small tournament run exits 0 or 2, never a traceback.

`python tests/test_fuzz_knobs.py N` tries N random mutants and tallies the outcomes.
"""

from __future__ import annotations

import copy
import io
import json
import random
import sys
import tempfile
import tomllib
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from kopsim.bots import bot_spec
from kopsim.records.replay import replay
from kopsim.rules.load import load_raw, load_ruleset
from kopsim.table.game import Table
from test_fuzz_rulesets import (EXAMPLES, SEAT_TABLES, check_mutant, expect, hypothesis_pick, mutate,
                                outcome_of, parent_of, paths, run_cli)

KNOBS = Path(__file__).parent / "data" / "knobs"
FILES = sorted(KNOBS.glob("*.toml"))
RESOLVED = {p.stem: load_raw(p)[0] for p in FILES}
# kop-sportowy's series as tournaments (as experiments/tournament.toml sets them): drawn seats,
# and seats by a plan
PLAN = [[0, 1, 2, 3], [1, 0, 3, 2], [0, 3, 2, 1], [3, 0, 1, 2], [0, 2, 1, 3]]
for label, tournament in (("drawn", {"rounds": 5, "team_best": 1}),
                          ("planned", {"rounds": 5, "team_best": 1, "seating": "plan",
                                       "plan": PLAN})):
    RESOLVED[f"kop-sportowy-{label}"] = load_raw("kop-sportowy")[0]
    RESOLVED[f"kop-sportowy-{label}"]["session"]["tournament"] = tournament
# tables of three and five: the knobs grafted onto other seat counts
RESOLVED.update({p.stem: load_raw(p)[0] for p in sorted(SEAT_TABLES.glob("*.toml"))})
RAW = {p.stem: tomllib.loads(p.read_text(encoding="utf-8")) for p in FILES}
# the keys of the knobs fuzzed here: a graft copies one of them (or its contract) elsewhere
KNOB_KEYS = {"ramsch", "team", "goal", "no_bid", "laufende", "bid_class", "add_on_to",
             "called_card_rules", "own_side", "first_double_young_only",
             "reopen_after_silent_round", "doubles_after_single_round", "tournament",
             "lone_settlement", "schneider_max_points", "old_side_schneider_max_points", "tie",
             "restrictions", "inherit", "max_doubles", "extends"}


def knob_places() -> list[tuple[tuple, object]]:
    """(path, value) of every knob in the knob rulesets, and of each contract that has one."""
    out = []
    for tree in list(RESOLVED.values()) + list(RAW.values()):
        for path, value in paths(tree):
            if path[-1] in KNOB_KEYS:
                out.append((path, value))
                if len(path) == 3 and path[0] == "contracts":
                    out.append((path[:2], parent_of(tree, path)))
    return out


PLACES = knob_places()
DONE: Counter = Counter()  # the extra checks made: hands at the table, tournament runs


def graft(tree: dict, pick) -> None:
    """Copy one knob (or a whole contract that uses one) to the same place in `tree`, making
    the tables on the way (and replacing whatever is not a table there)."""
    path, value = pick(PLACES)
    node = tree
    for key in path[:-1]:
        if not isinstance(node.get(key), dict):
            node[key] = {}
        node = node[key]
    node[path[-1]] = copy.deepcopy(value)


def mutant(pick) -> tuple[dict, str]:
    """A mutated knob ruleset: resolved, or a child file as written (its extends and inherit)."""
    raw = pick([False, True])
    bases = RAW if raw else RESOLVED
    name = pick(sorted(bases))
    tree = copy.deepcopy(bases[name])
    for _ in range(pick([1, 1, 2, 3])):
        if pick([True, False, False]):
            graft(tree, pick)
        elif tree:
            mutate(tree, pick)
    return tree, name


def check_table(path: Path, folder: Path, seed: int) -> None:
    """A person (always the first legal choice) plays a hand of the accepted ruleset at the
    table; its log must replay clean."""
    rules = load_ruleset(str(path))
    log = folder / "table.jsonl"
    said = io.StringIO()
    with open(log, "w", encoding="utf-8") as f:
        bots = [None] + [bot_spec("random")] * (rules.deck.players - 1)
        Table(rules, 0, bots, seed, lambda p: "1", lambda s: said.write(s + "\n"), f).play(1)
    n, found = replay(log, str(path))
    expect(n == 1 and not found, "wrongly accepted", f"a hand at the table: {found}")
    DONE["hands at the table"] += 1


def check_tournament(path: Path, folder: Path) -> None:
    """A small tournament run of an accepted ruleset with a tournament: exit 0 or 2, located."""
    rules = load_ruleset(str(path))
    if rules.session is None or rules.session.tournament is None:
        return
    exp = folder / f"{path.stem}-tournament.toml"  # a folder of results of its own
    exp.write_text(f'deals = 64\nsessions = true\ntournaments = true\nbots = "random"\n'
                   f'variants = [{json.dumps(str(path))}]\n', encoding="utf-8")
    rc, err = run_cli(["run", str(exp), "--out", str(folder / f"{path.stem}-out"), "--jobs",
                       "1", "--no-progress"])
    expect(rc in (0, 2), "badly rejected", f"a tournament run exited {rc}: {err}")
    DONE["tournament runs" if rc == 0 else "tournament runs refused"] += 1
    if rc == 2:  # the run's plan goes to stderr too: the refusal is its error lines
        expect(any(line.startswith("error: ") for line in err.splitlines())
               and "Traceback" not in err, "badly rejected", err)


def check_knob_mutant(tree: dict, folder: Path, seed: int) -> str:
    # a child file keeps its parent by name: every knob file extends a bundled ruleset
    outcome = check_mutant(tree, folder, seed)
    if outcome == "accepted":
        newest = max(folder.glob("mutant-*.toml"), key=lambda p: int(p.stem.split("-")[1]))
        check_table(newest, folder, seed)
        check_tournament(newest, folder)
    return outcome


# three times the first round's examples: a mutant of a knob file is cheap (most are refused)
@settings(max_examples=3 * EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_mutated_knob_rulesets_validate_or_are_refused_and_what_is_accepted_plays(data):
    tree, _ = mutant(hypothesis_pick(data))
    with tempfile.TemporaryDirectory() as folder:
        check_knob_mutant(tree, Path(folder), seed=data.draw(st.integers(0, 2**32)))


def test_every_knob_has_a_place_to_graft_from():
    keys = {path[-1] for path, _ in PLACES}
    for knob in ("ramsch", "laufende", "bid_class", "add_on_to", "called_card_rules",
                 "reopen_after_silent_round", "tournament", "inherit"):
        assert knob in keys, knob


def tally(n: int, seed: int = 0) -> dict[str, int]:
    """Outcomes of n random mutants: accepted / rejected well, or how kopsim failed."""
    rng = random.Random(seed)
    counts = {"tried": 0, "accepted": 0, "rejected well": 0, "crashed": 0,
              "wrongly accepted": 0, "badly rejected": 0}
    by_base: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        for i in range(n):
            tree, name = mutant(rng.choice)
            by_base[name] = by_base.get(name, 0) + 1
            counts["tried"] += 1
            kind, detail = outcome_of(lambda: check_knob_mutant(tree, Path(folder), seed=i))
            counts[kind] += 1
            if not detail:
                continue
            print(f"mutant {i} ({name}): {detail[:300]}", file=sys.stderr)
            Path(f"fuzz-knob-{i}.json").write_text(json.dumps(tree), encoding="utf-8")
    return counts | dict(DONE) | {"bases": by_base}


if __name__ == "__main__":
    print(json.dumps(tally(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
                           int(sys.argv[2]) if len(sys.argv) > 2 else 0), indent=1))
