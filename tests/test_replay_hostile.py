"""`kopsim replay` of broken and hostile logs: a located discrepancy (exit 1) or a located
error (exit 2), never a traceback; and a log never makes replay read a file the user did not name."""

import json
import os
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kopsim.records.replay
from kopsim.cli import main
from kopsim.records.format import field_types

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def kop_lines(tmp_path_factory):
    path = tmp_path_factory.mktemp("kop") / "kop.jsonl"
    assert main(["simulate", "kop", "--hands", "40", "--seed", "3", "--log", str(path)]) == 0
    return path.read_text(encoding="utf-8").splitlines()


def write_log(path, lines):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def replay_exit(argv, capsys):
    code = main(["replay", *argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def with_record(lines, index, change):
    d = json.loads(lines[index])
    change(d)
    return lines[:index] + [json.dumps(d)] + lines[index + 1:]


# ----------------------------------------------------------------- a log of the user's own rules


@pytest.fixture
def own_rules_log(tmp_path):
    """A log played under a ruleset file of the user's, outside the package."""
    rules = tmp_path / "rules" / "house.toml"
    rules.parent.mkdir()
    rules.write_text('extends = "kop"\nname = "house"\n'
                     "[contracts.zolo]\npayout = { won = 7, lost = 5 }\n", encoding="utf-8")
    log = tmp_path / "house.jsonl"
    assert main(["simulate", str(rules), "--hands", "200", "--seed", "2", "--log", str(log)]) == 0
    return rules, log


def test_replay_of_own_rules_says_which_rules_file_to_pass(own_rules_log, capsys, monkeypatch):
    rules, log = own_rules_log
    monkeypatch.chdir(HERE)  # the user replays from elsewhere: the path must still be right
    code, _, err = replay_exit([str(log)], capsys)
    assert code == 2
    assert f"--rules {rules.resolve()}" in err and "line 1" in err and "house" in err
    from kopsim.rules.load import BUNDLED_DIR

    assert str(BUNDLED_DIR) not in err  # never a path inside the installed package


@pytest.mark.parametrize("engine", ["kernel", "reference"])
def test_a_run_log_of_own_rules_names_its_file(own_rules_log, tmp_path, capsys, engine):
    rules, _ = own_rules_log
    exp = tmp_path / "exp" / "house-run.toml"
    exp.parent.mkdir()
    exp.write_text(f'deals = 30\nbots = "heuristic"\nengine = "{engine}"\n'
                   f'variants = ["../rules/house.toml", "kop"]\n', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["run", str(exp), "--out", str(out), "--log", "--jobs", "1",
                 "--no-progress"]) == 0
    capsys.readouterr()
    house = str(next((out / "logs" / "house").glob("*.jsonl")))
    code, _, err = replay_exit([house], capsys)
    assert code == 2 and f"--rules {rules.resolve()}" in err
    code, out_text, _ = replay_exit([house, "--rules-from-log"], capsys)
    assert code == 0 and " hands replayed, every call" in out_text
    bundled = next((out / "logs" / "kop").glob("*.jsonl")).read_text(encoding="utf-8")
    assert "ruleset_file" not in bundled  # a bundled ruleset's records stay as they were


def test_replay_of_own_rules_with_rules_or_rules_from_log_is_clean(own_rules_log, capsys):
    rules, log = own_rules_log
    assert replay_exit([str(log), "--rules", str(rules)], capsys)[0] == 0
    code, out, _ = replay_exit([str(log), "--rules-from-log"], capsys)
    assert code == 0 and "200 hands replayed" in out


def test_rules_from_log_checks_the_hash_of_the_file(own_rules_log, capsys):
    rules, log = own_rules_log
    rules.write_text(rules.read_text(encoding="utf-8").replace("won = 7", "won = 8"),
                     encoding="utf-8")
    code, _, err = replay_exit([str(log), "--rules-from-log"], capsys)
    assert code == 2 and "has changed since the log was written" in err


def test_a_bundled_log_records_no_ruleset_file(kop_lines):
    assert all("ruleset_file" not in json.loads(x) for x in kop_lines)


# --------------------------------------------------------------- files a log must not make us read


@pytest.fixture
def loads(monkeypatch):
    """Every ruleset replay loads."""
    seen = []
    real = kopsim.records.replay.load_ruleset

    def spy(name):
        seen.append(str(name))
        return real(name)
    monkeypatch.setattr(kopsim.records.replay, "load_ruleset", spy)
    yield seen  # each replay reads its rulesets afresh, so the spy sees every read


@pytest.mark.parametrize("field,value", [("ruleset", "/dev/zero"), ("ruleset", "../../x.toml"),
                                         ("ruleset_file", "/dev/zero")])
def test_a_path_in_the_log_is_not_read(kop_lines, tmp_path, capsys, loads, field, value):
    def change(d):
        d[field] = value
        d["ruleset_sha256"] = "0" * 64
    log = write_log(tmp_path / "x.jsonl", with_record(kop_lines, 3, change))
    code, _, err = replay_exit([log], capsys)
    assert code == 2 and "line 4" in err and "--rules FILE" in err
    assert value not in loads


def test_rules_from_log_reads_only_regular_files(kop_lines, tmp_path, capsys, loads):
    def change(d):
        d["ruleset_file"] = "/dev/zero"
        d["ruleset_sha256"] = "0" * 64
    log = write_log(tmp_path / "x.jsonl", with_record(kop_lines, 0, change))
    code, _, err = replay_exit([log, "--rules-from-log"], capsys)
    assert code == 2 and "not a regular file" in err and "/dev/zero" not in loads


# ------------------------------------------------------------------------------- broken records

HOSTILE_LINES = {
    "unhashable ruleset": lambda d: d.update(ruleset=["kop"]),
    "ruleset as object": lambda d: d.update(ruleset={"a": 1}),
    "huge seed": lambda d: d.update(seed=10**30),
    "negative seed": lambda d: d.update(seed=-1),
    "infinite payout": lambda d: d.update(payouts=[1e999, 0, 0, 0]),
    "bool dealer": lambda d: d.update(dealer=True),
    "NUL in a card": lambda d: d["hands"][0].__setitem__(0, "A\x00H"),
    "NUL in a call": lambda d: d["auction"].append({"seat": 0, "call": "\x00"}),
    "escape in ruleset": lambda d: d.update(ruleset="\x1b[2Jkop"),
    "trick not an object": lambda d: d["tricks"].__setitem__(0, 5),
    "trick of 3 cards": lambda d: d["tricks"][0]["cards"].pop(),
    "points as text": lambda d: d.update(points="1,2,3,4"),
    "hand_index float": lambda d: d.update(hand_index=1.5),
}


@pytest.mark.parametrize("name", HOSTILE_LINES)
def test_a_broken_record_is_a_located_discrepancy(kop_lines, tmp_path, capsys, name):
    log = write_log(tmp_path / "x.jsonl", with_record(kop_lines, 5, HOSTILE_LINES[name]))
    code, out, err = replay_exit([log], capsys)
    assert code in (1, 2)
    text = out if code == 1 else err
    assert "line 6" in text and "\x1b" not in out + err and "\x00" not in out + err
    if code == 1:
        assert "1 with a discrepancy" in out


def test_a_session_under_rules_without_sessions_is_a_discrepancy(kop_lines, tmp_path, capsys):
    log = write_log(tmp_path / "x.jsonl", with_record(kop_lines, 1, lambda d: d.update(session=0)))
    code, out, _ = replay_exit([log], capsys)
    assert code == 1 and "line 2 " in out and "session: the rules score no sessions" in out


@pytest.mark.parametrize("field", sorted(field_types(4)) + ["hands"])
def test_every_field_of_the_wrong_type_is_named(kop_lines, tmp_path, capsys, field):
    log = write_log(tmp_path / "x.jsonl", with_record(kop_lines, 2, lambda d: d.update({field: {}})))
    code, out, _ = replay_exit([log], capsys)
    assert code == 1 and "line 3 " in out and f"{field}: expected" in out


HOSTILE_FILES = {
    "deep JSON": lambda lines: [lines[0], "[" * 100_000 + "]" * 100_000],
    "deep object": lambda lines: [lines[0], '{"a":' * 50_000 + "1" + "}" * 50_000],
    "5000-digit number": lambda lines: [lines[0], '{"seed": ' + "9" * 5000 + "}"],
    "binary": lambda lines: [lines[0], "\udcff\udcfe".encode("utf-8", "surrogateescape")],
    "raw NUL": lambda lines: [lines[0], "\x00" * 10],
    "huge line": lambda lines: [lines[0], " " * 10 + "x" * (2 << 20)],
}


@pytest.mark.parametrize("name", HOSTILE_FILES)
def test_a_hostile_file_is_a_located_error(kop_lines, tmp_path, capsys, name):
    content = HOSTILE_FILES[name](kop_lines)
    data = b"\n".join(x if isinstance(x, bytes) else x.encode("utf-8") for x in content)
    (tmp_path / "x.jsonl").write_bytes(data + b"\n")
    code, _, err = replay_exit([str(tmp_path / "x.jsonl")], capsys)
    assert code == 2 and "line 2" in err and err.startswith("error: ")


def test_parallel_replay_stops_at_a_bad_line_quietly(kop_lines, tmp_path, capsys):
    log = write_log(tmp_path / "x.jsonl", ["\x00"] + kop_lines * 200)
    with warnings.catch_warnings(record=True) as caught:  # what a terminal would show
        warnings.simplefilter("always")
        code, _, err = replay_exit([log, "--jobs", "2"], capsys)
    assert code == 2 and err.startswith("error: ") and len(err.splitlines()) == 1
    assert [str(w.message) for w in caught] == []


# ------------------------------------------------------------------------------------ fuzzing

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats()
    | st.text(max_size=6) | st.sampled_from(["kop", "AH", "QC", "pass", "old", "schwarz"]),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=4), kids,
                                                               max_size=3),
    max_leaves=8)


def _mutate(data, record: dict) -> None:
    """Replace or delete one value somewhere inside the record."""
    node = record
    while True:
        keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
        if not keys:
            return
        key = data.draw(st.sampled_from(keys))
        child = node[key]
        if isinstance(child, (dict, list)) and child and data.draw(st.booleans()):
            node = child
            continue
        if data.draw(st.integers(0, 3)) == 0:
            del node[key]
        else:
            node[key] = data.draw(JSON_VALUES)
        return


@settings(max_examples=80, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_fuzz_mutated_logs(kop_lines, tmp_path, capsys, data):
    lines = list(kop_lines[:6])
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        d = json.loads(lines[i])
        _mutate(data, d)
        lines[i] = json.dumps(d)
    code, out, err = replay_exit([write_log(tmp_path / "m.jsonl", lines)], capsys)
    assert code in (0, 1, 2)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(noise=st.binary(max_size=300), at=st.integers(0, 2000))
def test_fuzz_random_bytes(kop_lines, tmp_path, capsys, noise, at):
    good = ("\n".join(kop_lines[:3]) + "\n").encode("utf-8")
    at = min(at, len(good))
    (tmp_path / "b.jsonl").write_bytes(good[:at] + noise + good[at:])
    code, _, _ = replay_exit([str(tmp_path / "b.jsonl")], capsys)
    assert code in (0, 1, 2)
