"""A results folder that was tampered with is never trusted: `kopsim run` replays what is damaged,
missing, swapped or unindexed (and says so), and `kopsim report` leaves it out or refuses.
Two runs into one folder: the second is refused, naming the first."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kopsim.cli import main
from kopsim.errors import InputError
from kopsim.experiments.spec import experiment_from_dict
from kopsim.experiments.results_folder import INDEX, LOCK, read_hands
from kopsim.experiments.run import run_experiment
from results_files import files  # tests/results_files.py

VARIANTS = ["kop", "kop-sportowy", "kop-victory-cards"]  # none, series, bankroll sessions
BASE = {"name": "tamper", "deals": 640, "seed": 11, "sessions": True, "chunk": 128,
        "bots": "random", "variants": VARIANTS}
CHUNKS = 5


def experiment(**changes):
    return experiment_from_dict({**BASE, **changes})


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "out"
    run_experiment(experiment(), out, jobs=1, log=True)
    return out


@pytest.fixture
def copy(reference, tmp_path) -> Path:
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    return out


def chunk(out: Path, variant: str, k: int, table: str = "hands") -> Path:
    ext = "jsonl" if table == "logs" else "parquet"
    return out / table / variant / f"chunk-{k:06d}.{ext}"


def flip(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))


def resume(out: Path, capsys) -> tuple[object, str]:
    s = run_experiment(experiment(), out, jobs=1, log=True)
    return s, capsys.readouterr().err


def drop_index_line(out: Path, variant: str, k: int) -> None:
    lines = (out / INDEX).read_text("utf-8").splitlines(keepends=True)
    keep = [x for x in lines if not (json.loads(x)["variant"] == variant
                                     and json.loads(x)["chunk"] == k)]
    assert len(keep) == len(lines) - 1
    (out / INDEX).write_text("".join(keep), "utf-8")


def test_the_index_lists_every_chunk_with_rows_and_hashes(reference):
    import hashlib

    lines = [json.loads(x) for x in (reference / INDEX).read_text("utf-8").splitlines()]
    assert sorted((x["variant"], x["chunk"]) for x in lines) == sorted(
        (v, k) for v in VARIANTS for k in range(CHUNKS))
    hands = read_hands(reference)
    for line in lines:
        for rec in line["files"]:
            data = (reference / rec["file"]).read_bytes()
            assert rec["bytes"] == len(data) and rec["sha256"] == hashlib.sha256(data).hexdigest()
            if rec["file"].startswith("hands/"):
                assert rec["rows"] == len(hands.filter(
                    (hands["variant"] == line["variant"])
                    & (hands["deal_id"] // 128 == line["chunk"])))


TAMPERING = {
    "flipped bytes": (lambda out: flip(chunk(out, "kop", 1)), [("kop", 1)], "sha256"),
    "truncated": (lambda out: chunk(out, "kop", 2).write_bytes(
        chunk(out, "kop", 2).read_bytes()[:100]), [("kop", 2)], "truncated"),
    "emptied": (lambda out: chunk(out, "kop", 0).write_bytes(b""), [("kop", 0)], "0 bytes"),
    "swapped": (lambda out: (chunk(out, "kop-sportowy", 1).rename(out / "x"),
                             chunk(out, "kop-sportowy", 2).rename(chunk(out, "kop-sportowy", 1)),
                             (out / "x").rename(chunk(out, "kop-sportowy", 2))),
                [("kop-sportowy", 1), ("kop-sportowy", 2)], "replaced"),
    "sessions deleted": (lambda out: chunk(out, "kop-sportowy", 3, "sessions").unlink(),
                         [("kop-sportowy", 3)], "missing"),
    "sessions flipped": (lambda out: flip(chunk(out, "kop-sportowy", 0, "sessions")),
                         [("kop-sportowy", 0)], "sessions/kop-sportowy/chunk-000000.parquet"),
    "hands deleted": (lambda out: chunk(out, "kop", 4).unlink(), [("kop", 4)], "missing"),
    "log edited": (lambda out: flip(chunk(out, "kop", 3, "logs")), [("kop", 3)], "logs/kop"),
    "not in the index": (lambda out: drop_index_line(out, "kop", 3), [("kop", 3)],
                         "not in the chunk index"),
    "bankroll chunk flipped": (lambda out: flip(chunk(out, "kop-victory-cards", 2)),
                               [("kop-victory-cards", k) for k in (2, 3, 4)], "bankroll"),
}


@pytest.mark.parametrize("case", TAMPERING)
def test_resume_replays_every_chunk_it_cannot_trust(reference, copy, capsys, case):
    tamper, replayed, why = TAMPERING[case]
    tamper(copy)
    s, err = resume(copy, capsys)
    assert s.chunks_played == len(replayed)
    for variant, k in replayed:
        assert f"replaying chunk {k} of variant {variant!r}" in err
    assert why in err
    assert files(copy) == files(reference)
    s, err = resume(copy, capsys)  # and now it is whole again
    assert s.chunks_played == 0 and "replaying" not in err


def test_a_damaged_index_line_is_not_trusted(reference, copy, capsys):
    lines = (copy / INDEX).read_text("utf-8").splitlines(keepends=True)
    entry = json.loads(lines[0])
    lines[0] = lines[0].replace('"rows":', '"rows":1', 1)  # still JSON, no longer its hash
    (copy / INDEX).write_text("".join(lines), "utf-8")
    s, err = resume(copy, capsys)
    assert f"{INDEX} line 1: its hash does not match" in err
    assert f"replaying chunk {entry['chunk']} of variant {entry['variant']!r}" in err
    assert s.chunks_played == 1 and files(copy) == files(reference)


def test_a_torn_last_index_line_costs_one_chunk(reference, copy, capsys):
    text = (copy / INDEX).read_bytes()
    (copy / INDEX).write_bytes(text[:-40])
    s, err = resume(copy, capsys)
    assert "not a JSON line" in err and s.chunks_played == 1
    assert files(copy) == files(reference)


def test_without_an_index_everything_is_replayed(reference, copy, capsys):
    (copy / INDEX).unlink()
    s, err = resume(copy, capsys)
    assert s.chunks_played == CHUNKS * len(VARIANTS) and "not in the chunk index" in err
    assert files(copy) == files(reference)


def test_extra_files_are_removed_and_named(reference, copy, capsys):
    shutil.copy(chunk(copy, "kop", 0), chunk(copy, "kop", 99))
    (copy / "hands" / "ghost").mkdir()
    shutil.copy(chunk(copy, "kop", 0), chunk(copy, "ghost", 0))
    s, err = resume(copy, capsys)
    assert s.chunks_played == 0
    assert f"removing {chunk(copy, 'kop', 99)}: not a file of this run" in err
    assert f"removing {chunk(copy, 'ghost', 0)}" in err
    assert files(copy) == files(reference)


@pytest.mark.parametrize("damage", [b"{\"format\": 1, \"experi", b"[1, 2]", b"\xff\xfe"])
def test_a_damaged_manifest_is_refused(copy, capsys, damage):
    (copy / "manifest.json").write_bytes(damage)
    with pytest.raises(InputError) as e:
        run_experiment(experiment(), copy, jobs=1, log=True)
    assert "manifest.json: damaged" in str(e.value)


# ------------------------------------------------------------------------------ the lock


def test_a_second_run_into_the_same_folder_is_refused_naming_the_first(tmp_path, capsys):
    path = tmp_path / "slow.toml"  # the reference engine plays slowly enough to be caught
    path.write_text('name = "slow"\ndeals = 100_000\nseed = 3\nengine = "reference"\n'
                    'bots = "random"\nvariants = ["kop"]\n')
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "kopsim.cli", "run", str(path), "--out",
                              str(out), "--jobs", "1", "--no-progress"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and not (out / LOCK).is_file() or not (
                out / LOCK).read_text():
            time.sleep(0.05)
        assert main(["run", str(path), "--out", str(out), "--seed", "99", "--jobs", "1",
                     "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert f"error: {out}: another kopsim run is writing into this folder" in err
        assert f"pid {first.pid} on {os.uname().nodename}" in err and "seed 3" in err
        assert "started 20" in err and "Traceback" not in err
        assert json.loads((out / "manifest.json").read_text())["seed"] == 3
    finally:
        first.kill()
        first.wait()


# ---------------------------------------------------------------------------- the report


def report_of(out: Path):
    from kopsim.report.read import load_results

    return load_results(out)


def test_a_whole_run_reports_without_warnings(reference, tmp_path, capsys):
    assert report_of(reference).warnings == []
    assert main(["report", str(reference), "-o", str(tmp_path / "rep")]) == 0
    assert "warning" not in capsys.readouterr().err


def test_a_hand_written_folder_has_no_index_and_no_warnings(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent / "data"))
    import results_fixtures as fx

    assert report_of(fx.tiny(tmp_path / "tiny")).warnings == []


REPORT_TAMPERING = {
    "flipped bytes": (lambda out: flip(chunk(out, "kop", 1)), ("kop", 1), "sha256"),
    "truncated": (lambda out: chunk(out, "kop", 2).write_bytes(
        chunk(out, "kop", 2).read_bytes()[:100]), ("kop", 2), "truncated"),
    "emptied": (lambda out: chunk(out, "kop-sportowy", 0).write_bytes(b""), ("kop-sportowy", 0),
                "0 bytes"),
    "sessions flipped": (lambda out: flip(chunk(out, "kop-sportowy", 3, "sessions")),
                         ("kop-sportowy", 3), "sessions/kop-sportowy/chunk-000003.parquet"),
    "hands deleted": (lambda out: chunk(out, "kop", 4).unlink(), ("kop", 4), "missing"),
}


@pytest.mark.parametrize("case", REPORT_TAMPERING)
def test_the_report_leaves_out_a_chunk_it_cannot_trust_and_says_so(reference, copy, tmp_path,
                                                                   capsys, case):
    tamper, (variant, k), why = REPORT_TAMPERING[case]
    tamper(copy)
    res = report_of(copy)
    assert chunk(copy, variant, k) not in res.hand_files
    assert chunk(copy, variant, k, "sessions") not in res.session_files
    assert len(res.hand_files) == CHUNKS * len(VARIANTS) - 1
    assert any(w.startswith(f"chunk {k} of variant {variant!r} is left out") and why in w
               for w in res.warnings), res.warnings
    assert f"variant {variant!r}: 1 of {CHUNKS} chunks are missing or left out (chunk {k})" in (
        res.warnings)
    assert main(["report", str(copy), "-o", str(tmp_path / "rep")]) == 0
    err = capsys.readouterr().err
    assert f"warning: chunk {k} of variant {variant!r} is left out" in err
    assert "Traceback" not in err
    whole = read_hands(reference)
    shown = res.hands().select("variant", "deal_id").collect()
    assert len(shown) == len(whole) - len(whole.filter(
        (whole["variant"] == variant) & (whole["deal_id"] // 128 == k)))


def test_the_report_names_extra_files_and_damaged_index_lines(copy):
    shutil.copy(chunk(copy, "kop", 0), chunk(copy, "kop", 7))
    lines = (copy / INDEX).read_text("utf-8").splitlines(keepends=True)
    entry = json.loads(lines[-1])
    lines[-1] = lines[-1].replace('"rows":', '"rows":9', 1)
    (copy / INDEX).write_text("".join(lines), "utf-8")
    res = report_of(copy)
    assert f"{chunk(copy, 'kop', 7)} is left out: it is not in the chunk index (an extra file)" in (
        res.warnings)
    assert any(w.startswith(f"{INDEX} line {len(lines)}: its hash does not match")
               for w in res.warnings)
    gone = chunk(copy, entry["variant"], entry["chunk"])
    assert gone not in res.hand_files and chunk(copy, "kop", 7) not in res.hand_files


def test_an_indexed_chunk_outside_the_manifest_is_left_out(copy):
    from kopsim.experiments.results_folder import append_index, file_record, index_line

    ghost = chunk(copy, "ghost", 0)
    ghost.parent.mkdir()
    shutil.copy(chunk(copy, "kop", 0), ghost)
    beyond = chunk(copy, "kop", CHUNKS)
    shutil.copy(chunk(copy, "kop", 0), beyond)
    for label, k, path in (("ghost", 0, ghost), ("kop", CHUNKS, beyond)):
        append_index(copy, index_line(label, k, [file_record(copy, path, path.read_bytes(), 1)]))
    res = report_of(copy)
    assert ghost not in res.hand_files and beyond not in res.hand_files
    for label, k in (("ghost", 0), ("kop", CHUNKS)):
        assert (f"chunk {k} of variant {label!r} is left out: it is not a chunk of the run in "
                "the manifest (an extra chunk)") in res.warnings


def test_a_folder_without_index_is_reported_with_a_warning(copy):
    (copy / INDEX).unlink()
    assert any("no chunk index" in w for w in report_of(copy).warnings)


def test_a_folder_of_nothing_but_damaged_chunks_is_refused(copy, capsys):
    for p in copy.glob("hands/*/*.parquet"):
        p.write_bytes(b"")
    assert main(["report", str(copy), "-o", str(copy / "rep")]) == 2
    err = capsys.readouterr().err
    assert f"error: {copy / 'hands'}: no hand file can be trusted" in err
    assert "Traceback" not in err


def test_an_interrupted_run_is_reported_with_warnings(tmp_path, capsys):
    def stop_after_four(r, seen=[]):
        seen.append(r)
        if len(seen) == 4:
            raise KeyboardInterrupt

    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment(), out, jobs=1, on_chunk=stop_after_four)
    res = report_of(out)
    assert res.warnings[0].startswith("the run is not finished")
    missing = [w for w in res.warnings if "chunks are missing or left out" in w]
    assert len(missing) == len(VARIANTS)  # 4 of 15 chunks written, chunk 0 and 1 first
    assert main(["report", str(out), "-o", str(tmp_path / "rep")]) == 0
    err = capsys.readouterr().err
    assert "warning: the run is not finished" in err
    assert f"warning: variant 'kop-victory-cards': {CHUNKS - 1} of {CHUNKS} chunks" in err


# -------------------------------------------------------------------------------- Ctrl-C


def _lines(path) -> int:
    """The lines of a file being written (0 before it exists)."""
    try:
        return len(path.read_text().splitlines())
    except FileNotFoundError:
        return 0


def test_ctrl_c_under_dask_is_one_clean_line_and_keeps_finished_chunks(tmp_path):
    """SIGINT to the whole process group, as a terminal's Ctrl-C sends it."""
    import signal

    path = tmp_path / "exp.toml"
    path.write_text('deals = 400_000\nseed = 3\nchunk = 4096\nbots = "random"\n'
                    'variants = ["kop"]\n')
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "kopsim.cli", "run", str(path), "--out",
                             str(out), "--backend", "dask", "--jobs", "2", "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        # the dask workers compile the kernel first: on a fresh machine, beside the other
        # test worker's compiles, that alone can take minutes
        # (counted by the index's lines: a chunk's file is written before its line)
        deadline = time.time() + 600
        while time.time() < deadline and _lines(out / INDEX) < 3:
            time.sleep(0.05)
        assert _lines(out / INDEX) >= 3, "three chunks not finished in 600 s"
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130
    after_plan = [x for x in err.splitlines() if x.strip() and not x.startswith(
        ("experiment ", "  "))]
    assert after_plan == [f"interrupted: finished chunks are kept in {out}; run the same "
                          "command again to resume"], err
    written = len(list(out.glob("hands/*/*.parquet")))
    finished = len((out / INDEX).read_text().splitlines())  # a chunk cut before its line is
    assert finished >= 3 and written - 1 <= finished <= written  # replayed on resume


# ------------------------------------------------------------------- tampering, at random

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

OPS = ["flip", "truncate", "empty", "delete", "swap", "extra", "index-line", "index-tear"]


def tamper_at_random(out: Path, data) -> None:
    chunk_files = sorted(p for p in out.glob("*/*/chunk-*") if p.is_file())
    for _ in range(data.draw(st.integers(1, 4))):
        op = data.draw(st.sampled_from(OPS))
        p = data.draw(st.sampled_from(chunk_files))
        if not p.exists() and op not in ("index-line", "index-tear"):
            continue
        if op == "flip":
            raw = bytearray(p.read_bytes())
            if raw:
                raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
            p.write_bytes(bytes(raw))
        elif op == "truncate":
            p.write_bytes(p.read_bytes()[:data.draw(st.integers(0, max(0, p.stat().st_size - 1)))])
        elif op == "empty":
            p.write_bytes(b"")
        elif op == "delete":
            p.unlink()
        elif op == "swap":
            q = data.draw(st.sampled_from([x for x in chunk_files if x.parent == p.parent]))
            if q.exists() and q != p:
                a, b = p.read_bytes(), q.read_bytes()
                p.write_bytes(b)
                q.write_bytes(a)
        elif op == "extra":
            (p.parent / "chunk-000777.parquet").write_bytes(p.read_bytes())
        else:
            lines = (out / INDEX).read_bytes().splitlines(keepends=True)
            if lines:
                i = data.draw(st.integers(0, len(lines) - 1))
                cut = data.draw(st.integers(0, len(lines[i]) - 1))
                lines[i] = lines[i][:cut] + (b"" if op == "index-tear" else b"x" + lines[i][cut:])
                (out / INDEX).write_bytes(b"".join(lines))


@settings(max_examples=int(os.environ.get("KOPSIM_TAMPER_EXAMPLES", "12")), deadline=None,
          derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_random_tampering_is_never_used_and_resume_restores_the_run(reference, tmp_path_factory,
                                                                     data):
    out = tmp_path_factory.mktemp("fuzz") / "out"
    shutil.copytree(reference, out)
    tamper_at_random(out, data)
    whole = files(reference)
    try:
        res = report_of(out)
    except InputError:
        pass  # refused: nothing used
    else:  # every file the report reads is the run's own, byte for byte
        for f in res.hand_files + res.session_files:
            assert f.read_bytes() == whole[str(f.relative_to(out))]
    run_experiment(experiment(), out, jobs=1, log=True)
    assert files(out) == whole
    assert report_of(out).warnings == []
