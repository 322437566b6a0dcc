"""The results folder of `kopsim run`: Parquet columns, atomic chunk files, the chunk index, the
manifest, the lock.

The layout and the columns are the contract of docs/results.md (read by `kopsim report`, notebooks
and scripts): columns may be added, never renamed or dropped. Each chunk file is written under a
temporary name and renamed when complete. A chunk is finished when its line is in the chunk index
(chunks.jsonl: every file's byte count, sha256 and rows, and a hash of the line itself), appended
after its files are written; a file that is missing, damaged, replaced or not in the index is
never trusted: `kopsim run` replays its chunk and `kopsim report` leaves it out, saying so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import socket
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..rules.compile import TIERS
from ..rules.model import DEFAULT_SEATS
from ..errors import InputError, Problem

MANIFEST = "manifest.json"
INDEX = "chunks.jsonl"
LOCK = "run.lock"
FORMAT = 1

WINNER_NAMES = ["old", "young"]  # kernel codes 0, 1; -1 is null


# ------------------------------------------------------------------------------------ schemas


def hand_schema(seats: int = DEFAULT_SEATS) -> dict:
    """The hands file's columns at a table of `seats`: a column a seat where docs/results.md
    writes `_i` (seat i)."""
    import polars as pl

    seat_ids = range(seats)
    s = {"variant": pl.String, "ruleset": pl.String, "deal_id": pl.Int64, "seed": pl.Int64,
         "session": pl.Int32, "hand_index": pl.Int32, "dealer": pl.Int8}
    s.update({f"bot_{i}": pl.String for i in seat_ids})
    s.update({"contract": pl.String, "declarer": pl.Int8})
    s.update({f"old_{i}": pl.Boolean for i in seat_ids})
    s.update({"doubles": pl.Int8, "winner": pl.String, "tier": pl.String})
    s.update({f"points_{i}": pl.Float64 for i in seat_ids})
    s.update({f"tricks_{i}": pl.Int8 for i in seat_ids})
    s.update({f"payout_{i}": pl.Float64 for i in seat_ids})
    # added columns: the rules' price of the hand, which a bankroll session may cut short
    s.update({f"nominal_payout_{i}": pl.Float64 for i in seat_ids})
    return s


def session_schema(seats: int = DEFAULT_SEATS) -> dict:
    import polars as pl

    seat_ids = range(seats)
    s = {"variant": pl.String, "ruleset": pl.String, "session": pl.Int32, "hands": pl.Int32,
         "complete": pl.Boolean}
    s.update({f"bot_{i}": pl.String for i in seat_ids})
    s.update({f"total_{i}": pl.Float64 for i in seat_ids})
    s.update({f"place_points_{i}": pl.Float64 for i in seat_ids})
    s.update({f"won_{i}": pl.Boolean for i in seat_ids})
    s["first_deal"] = pl.Int64  # extra column: deal id of the session's first hand
    # added columns: the tournament a series belongs to and its round in it (null: no
    # tournament); older folders lack them
    s["tournament"] = pl.Int32
    s["round"] = pl.Int32
    return s


# ------------------------------------------------------------------------- columns from play


def hand_arrays_from_batch(res) -> dict:
    """The outcome columns of a `BatchResult` (kernel codes, numpy)."""
    return {"contract": res.contract.astype(np.int64), "declarer": res.declarer,
            "old": res.old.astype(np.int64), "doubles": res.doubles, "winner": res.winner,
            "tier": res.tier, "points": res.points, "tricks": res.tricks,
            "payouts": res.payouts}


def hand_arrays_from_records(records, contract_names: list[str], seats: int) -> dict:
    """The same columns from reference-engine `HandRecord`s, coded as the kernel codes them."""
    n = len(records)
    kidx = {c: i for i, c in enumerate(contract_names)}
    tidx = {t: i for i, t in enumerate(TIERS)}
    widx = {"old": 0, "young": 1, None: -1}
    out = {"contract": np.empty(n, np.int64), "declarer": np.empty(n, np.int8),
           "old": np.zeros(n, np.int64), "doubles": np.empty(n, np.int8),
           "winner": np.empty(n, np.int8), "tier": np.empty(n, np.int8),
           "points": np.empty((n, seats), np.float64),
           "tricks": np.empty((n, seats), np.int8), "payouts": np.empty((n, seats), np.float64)}
    for i, r in enumerate(records):
        out["contract"][i] = kidx[r.contract]
        out["declarer"][i] = -1 if r.declarer is None else r.declarer
        out["old"][i] = sum(1 << s for s in r.old_side)
        out["doubles"][i] = r.doubles
        out["winner"][i] = widx[r.winner]
        out["tier"][i] = tidx[r.tier]
        out["points"][i] = r.points
        out["tricks"][i] = r.tricks_won
        out["payouts"][i] = r.payouts
    return out


def _strings(names: list[str], codes: np.ndarray, null_below_zero: bool = False):
    import polars as pl

    codes = np.asarray(codes, np.int64)
    if not null_below_zero:
        return pl.Series(names, dtype=pl.String).gather(codes)
    neg = codes < 0
    s = pl.Series(names, dtype=pl.String).gather(np.where(neg, 0, codes))
    return s.scatter(np.flatnonzero(neg), None) if neg.any() else s


def _nullable_int(values: np.ndarray, dtype):
    import polars as pl

    s = pl.Series(values, dtype=dtype)
    neg = np.flatnonzero(np.asarray(values) < 0)
    return s.scatter(neg, None) if len(neg) else s


def hands_frame(variant: str, ruleset: str, contract_names: list[str], bot_labels: list[str],
                deal_id: np.ndarray, seed: np.ndarray, session: np.ndarray | None,
                hand_index: np.ndarray, seat_bot: np.ndarray, a: dict):
    """One row per hand, in the column order of docs/results.md. `session` holds -1 for null
    (or is None: no sessions); `seat_bot[i, s]` indexes `bot_labels`. `nominal_payout_*` start
    equal to `payout_*`; a bankroll session then sets `payout_*` to what moved (run.py)."""
    import polars as pl

    n, seats = len(deal_id), seat_bot.shape[1]
    seat_ids = range(seats)
    cols = {"variant": pl.repeat(variant, n, dtype=pl.String, eager=True),
            "ruleset": pl.repeat(ruleset, n, dtype=pl.String, eager=True),
            "deal_id": pl.Series(np.asarray(deal_id, np.int64)),
            "seed": pl.Series(np.asarray(seed, np.int64))}
    if session is None:
        cols["session"] = pl.repeat(None, n, dtype=pl.Int32, eager=True)
    else:
        cols["session"] = _nullable_int(np.asarray(session, np.int32), pl.Int32)
    cols["hand_index"] = pl.Series(np.asarray(hand_index, np.int32))
    cols["dealer"] = pl.Series((np.asarray(deal_id) % seats).astype(np.int8))
    for s in seat_ids:
        col = seat_bot[:, s]
        if len(bot_labels) == 1 or (n and (col == col[0]).all()):
            label = bot_labels[int(col[0])] if n else bot_labels[0]
            cols[f"bot_{s}"] = pl.repeat(label, n, dtype=pl.String, eager=True)
        else:
            cols[f"bot_{s}"] = _strings(bot_labels, col)
    cols["contract"] = _strings(contract_names, a["contract"])
    cols["declarer"] = _nullable_int(np.asarray(a["declarer"], np.int8), pl.Int8)
    old = np.asarray(a["old"], np.int64)
    for s in seat_ids:
        cols[f"old_{s}"] = pl.Series(((old >> s) & 1).astype(bool))
    cols["doubles"] = pl.Series(np.asarray(a["doubles"], np.int8))
    cols["winner"] = _strings(WINNER_NAMES, a["winner"], null_below_zero=True)
    cols["tier"] = _strings(list(TIERS), a["tier"])
    for key, name, dt in (("points", "points", np.float64), ("tricks", "tricks", np.int8),
                          ("payouts", "payout", np.float64),
                          ("payouts", "nominal_payout", np.float64)):
        m = np.asarray(a[key], dt)
        for s in seat_ids:
            cols[f"{name}_{s}"] = pl.Series(np.ascontiguousarray(m[:, s]))
    return pl.DataFrame(cols, schema=hand_schema(seats))


def sessions_frame(variant: str, ruleset: str, bot_labels: list[str], session: np.ndarray,
                   hands: np.ndarray, complete: np.ndarray, first_deal: np.ndarray,
                   seat_bot: np.ndarray, totals: np.ndarray, place_points: np.ndarray | None,
                   rounds: int | None = None):
    """One row per session. `place_points` [m, seats] is null where it is NaN (or None: bankroll);
    `won` is having the most at the end, ties standing; with `rounds` (a tournament's) session
    k is round k % rounds of tournament k // rounds."""
    import polars as pl

    m = len(session)
    seats = np.asarray(seat_bot).shape[-1]
    seat_ids = range(seats)
    totals = np.asarray(totals, np.float64).reshape(m, seats)
    cols = {"variant": pl.repeat(variant, m, dtype=pl.String, eager=True),
            "ruleset": pl.repeat(ruleset, m, dtype=pl.String, eager=True),
            "session": pl.Series(np.asarray(session, np.int32)),
            "hands": pl.Series(np.asarray(hands, np.int32)),
            "complete": pl.Series(np.asarray(complete, bool))}
    for s in seat_ids:
        cols[f"bot_{s}"] = _strings(bot_labels, np.asarray(seat_bot, np.int64).reshape(m, seats)[:, s])
    for s in seat_ids:
        cols[f"total_{s}"] = pl.Series(np.ascontiguousarray(totals[:, s]))
    for s in seat_ids:
        if place_points is None:
            cols[f"place_points_{s}"] = pl.repeat(None, m, dtype=pl.Float64, eager=True)
        else:
            col = np.ascontiguousarray(np.asarray(place_points, np.float64)[:, s])
            cols[f"place_points_{s}"] = pl.Series(col).scatter(np.flatnonzero(np.isnan(col)),
                                                               None) if m else pl.Series(col)
    best = totals.max(axis=1, initial=-np.inf)
    for s in seat_ids:
        cols[f"won_{s}"] = pl.Series(totals[:, s] == best)
    cols["first_deal"] = pl.Series(np.asarray(first_deal, np.int64))
    index = np.asarray(session, np.int64)
    for name, value in (("tournament", None if rounds is None else index // rounds),
                        ("round", None if rounds is None else index % rounds)):
        cols[name] = (pl.repeat(None, m, dtype=pl.Int32, eager=True) if value is None
                      else pl.Series(value.astype(np.int32)))
    return pl.DataFrame(cols, schema=session_schema(seats))


def parquet_bytes(df) -> bytes:
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd")
    return buf.getvalue()


# -------------------------------------------------------------------------------------- files


def chunk_name(k: int, ext: str) -> str:
    return f"chunk-{k:06d}.{ext}"


def hands_path(out: Path, variant: str, k: int) -> Path:
    return out / "hands" / variant / chunk_name(k, "parquet")


def sessions_path(out: Path, variant: str, k: int) -> Path:
    return out / "sessions" / variant / chunk_name(k, "parquet")


def log_path(out: Path, variant: str, k: int) -> Path:
    return out / "logs" / variant / chunk_name(k, "jsonl")


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name in the same folder, flush to disk, rename over `path`, and
    flush the folder too, so that the rename itself survives a power cut."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    _sync_folder(path.parent)


def _sync_folder(folder: Path) -> None:
    if hasattr(os, "O_DIRECTORY"):  # POSIX: a directory can be opened and synced
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_temporaries(out: Path) -> int:
    n = 0
    for sub in ("hands", "sessions", "logs"):
        for p in (out / sub).glob("*/*.tmp*"):
            p.unlink(missing_ok=True)
            n += 1
    if (out / f"{MANIFEST}.tmp{os.getpid()}").exists():
        (out / f"{MANIFEST}.tmp{os.getpid()}").unlink()
    return n


def read_manifest(out: Path) -> dict | None:
    """The manifest, None when there is none; a damaged one is refused, located."""
    p = out / MANIFEST
    if not p.exists():
        return None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise InputError([Problem(str(p), "", f"damaged, cannot be read ({e}): this folder "
                                  "cannot be resumed; choose another --out, or delete it")])
    if not isinstance(data, dict):
        raise InputError([Problem(str(p), "", "damaged: expected a JSON object; this folder "
                                  "cannot be resumed; choose another --out, or delete it")])
    return data


def write_manifest(out: Path, manifest: dict) -> None:
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    write_atomic(out / MANIFEST, text.encode("utf-8"))


# -------------------------------------------------------------------------------- chunk index

CHUNK_FILE_RE = re.compile(r"^(hands|sessions|logs)/([A-Za-z0-9][A-Za-z0-9._+=-]*)/"
                           r"chunk-(\d{6,})\.(parquet|jsonl)$")


def file_record(out: Path, path: Path, data: bytes, rows: int) -> dict:
    """What the index keeps of one written file: enough to tell it from any other."""
    return {"file": path.relative_to(out).as_posix(), "rows": int(rows), "bytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest()}


def index_line(variant: str, k: int, files: list[dict]) -> dict:
    line = {"variant": variant, "chunk": k, "files": files}
    line["sha256"] = _line_hash(line)
    return line


def _line_hash(line: dict) -> str:
    body = {key: v for key, v in line.items() if key != "sha256"}
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":"))
                          .encode()).hexdigest()


def _line_text(line: dict) -> bytes:
    return (json.dumps(line, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def append_index(out: Path, line: dict) -> None:
    """Append one chunk's line and flush it to disk: from here on the chunk is finished. A line
    torn by a crash fails its own hash, and its chunk is replayed."""
    path = out / INDEX
    new = not path.exists()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, _line_text(line))
        os.fsync(fd)
    finally:
        os.close(fd)
    if new:
        _sync_folder(out)


def write_index(out: Path, lines: list[dict]) -> None:
    """Replace the whole index (atomically) by these lines: on resume, the verified ones."""
    write_atomic(out / INDEX, b"".join(_line_text(x) for x in lines))


@dataclass
class Index:
    lines: dict[tuple[str, int], dict] = field(default_factory=dict)  # the last valid line
    damaged: list[str] = field(default_factory=list)  # "line N: why", for the user
    present: bool = False


def read_index(out: Path) -> Index:
    """The valid lines of the chunk index; a line that is torn, edited or malformed is listed in
    `damaged` and trusted for nothing."""
    path = out / INDEX
    if not path.is_file():
        return Index()
    index = Index(present=True)
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if not raw.strip():
                continue
            line, why = _parse_line(raw)
            if why:
                index.damaged.append(f"line {n}: {why}")
            else:
                index.lines[(line["variant"], line["chunk"])] = line
    return index


def _parse_line(raw: bytes) -> tuple[dict | None, str]:
    try:
        line = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None, "not a JSON line (torn or damaged)"
    if not isinstance(line, dict) or line.get("sha256") != _line_hash(line):
        return None, "its hash does not match its content (damaged or edited)"
    files = line.get("files")
    k = line.get("chunk")
    if not (isinstance(line.get("variant"), str) and type(k) is int and k >= 0
            and isinstance(files, list) and files and all(_file_ok(r) for r in files)):
        return None, "not a chunk entry of docs/results.md"
    return line, ""


def _file_ok(rec) -> bool:
    return (isinstance(rec, dict) and isinstance(rec.get("file"), str)
            and CHUNK_FILE_RE.fullmatch(rec["file"]) is not None
            and all(type(rec.get(key)) is int and rec[key] >= 0 for key in ("rows", "bytes"))
            and isinstance(rec.get("sha256"), str) and len(rec["sha256"]) == 64)


def file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def damage(out: Path, line: dict) -> str:
    """Why the files of an indexed chunk cannot be trusted ("" when each matches its record)."""
    for rec in line["files"]:
        p = out / rec["file"]
        if not p.is_file():
            return f"{rec['file']} is missing"
        size = p.stat().st_size
        if size != rec["bytes"]:
            return (f"{rec['file']} has {size:,} bytes, the chunk index says {rec['bytes']:,} "
                    "(truncated, damaged or replaced)")
        if file_sha256(p) != rec["sha256"]:
            return (f"{rec['file']} does not match its sha256 in the chunk index "
                    "(damaged or replaced)")
    return ""


def chunk_files_on_disk(out: Path) -> list[Path]:
    """Every file under hands/, sessions/ and logs/ but temporaries, relative to `out`."""
    found = []
    for sub in ("hands", "sessions", "logs"):
        folder = out / sub
        if folder.is_dir():
            found += [p.relative_to(out) for p in folder.glob("*/*")
                      if p.is_file() and ".tmp" not in p.name]
    return sorted(found)


# ------------------------------------------------------------------------------------- lock


@contextmanager
def folder_lock(out: Path, holder: dict):
    """An exclusive lock on the results folder for the whole run: flock on run.lock, which the
    system releases when the process ends, however it ends. A second run is refused, naming the
    first from what it wrote into the file (pid, host, start time, seed)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no flock (Windows): unlocked
        yield
        return
    path = out / LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise InputError([Problem(str(path), "", f"cannot create the run's lock file: {e}")])
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise InputError([Problem(str(out), "", "another kopsim run is writing into this "
                                      f"folder ({_holder_text(path)}): wait for it to end, or "
                                      "choose another --out")]) from None
        os.ftruncate(fd, 0)
        os.write(fd, (json.dumps({**holder, "pid": os.getpid(), "host": socket.gethostname()})
                      + "\n").encode())
        os.fsync(fd)
        yield
    finally:
        os.close(fd)


def _holder_text(path: Path) -> str:
    import time

    for _ in range(20):  # the holder writes its details just after taking the lock
        try:
            h = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            h = None
        if isinstance(h, dict) and "pid" in h:
            return (f"pid {h.get('pid')} on {h.get('host')}, started {h.get('started')}, "
                    f"experiment {h.get('experiment')!r}, seed {h.get('seed')}")
        time.sleep(0.05)
    return f"its details in {path} are unreadable"


# ---------------------------------------------------------------------------------- reading


def _read(out: str | Path, table: str, variant: str | None, schema: dict, key: str):
    import polars as pl

    files = sorted(Path(out).glob(f"{table}/{variant or '*'}/chunk-*.parquet"))
    if not files:
        return pl.DataFrame(schema=schema)
    return pl.concat([pl.read_parquet(f) for f in files]).sort(["variant", key])


def read_hands(out: str | Path, variant: str | None = None, seats: int = DEFAULT_SEATS):
    """Every hand row of a results folder (or of one variant), sorted by variant and deal id;
    `seats` shapes the empty frame of a folder without hands."""
    return _read(out, "hands", variant, hand_schema(seats), "deal_id")


def read_sessions(out: str | Path, variant: str | None = None, seats: int = DEFAULT_SEATS):
    """Every session row (or one variant's), sorted by variant and session."""
    return _read(out, "sessions", variant, session_schema(seats), "session")
