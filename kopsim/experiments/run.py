"""Playing an experiment: its chunks, in parallel, to Parquet, resumable (`kopsim run`).

A chunk is a range of deal ids of one variant, played by the batch kernel or, when a bot is plain
Python, by the reference engine. Chunks run on joblib (loky processes, or Dask); the main process
writes each finished chunk atomically and indexes it (results_folder.py), completes bankroll
sessions in deal order, and on a rerun plays only the chunks that are missing or fail their
check against the chunk index. One run at a time holds the results folder (a lock). The layout
of hands on deal ids is stated in kopsim/engine/layout.py.
"""

from __future__ import annotations

import dataclasses

import json
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from . import results_folder as R
from ..bots import BotSpec
from ..errors import InputError, Problem
from ..memory import peak_rss_mb
from .spec import Experiment, Variant, engine_fingerprint
from ..engine.layout import DealLayout
from ..engine.session_rows import BankrollCarry
from ..records.format import batch_record


# --------------------------------------------------------------------------------- one chunk


@dataclass
class ChunkTask:
    """Everything a worker needs to play one chunk: no paths, no shared state."""

    variant: Variant
    k: int
    start: int
    stop: int
    deals: int
    engine: str
    bots: list[BotSpec]
    layout: DealLayout  # the variant's deals: seeds, sessions, who sits where
    log: bool
    driver_pid: int | None = None  # loky workers watch it and exit when it is gone

    def name(self) -> str:
        return (f"chunk {self.k} of variant {self.variant.label!r} "
                f"(deals {self.start:,}–{self.stop - 1:,})")


@dataclass
class ChunkResult:
    variant: str
    k: int
    start: int
    stop: int
    rows: int
    hands: bytes | Any  # Parquet bytes; for a bankroll variant a polars DataFrame to complete
    sessions: bytes | None
    log: bytes | None
    payouts: np.ndarray | None  # bankroll variants: every deal's payouts, for the scan
    seconds: float
    rss_mb: float
    pid: int
    host: str = ""
    engine_code: str = ""  # the worker's engine_fingerprint()
    session_rows: int = 0


@dataclass
class ChunkFailure:
    variant: str
    k: int
    start: int
    stop: int
    error: str
    trace: str



def play_chunk(task: ChunkTask) -> ChunkResult | ChunkFailure:
    """Play one chunk and encode its files. Errors come back as a `ChunkFailure` naming it."""
    if task.driver_pid is not None:
        _watch_driver(task.driver_pid)
    try:
        return _play_chunk(task)
    except Exception as e:  # a bot, a plug-in or the engine failed: report, do not hide
        return ChunkFailure(task.variant.label, task.k, task.start, task.stop,
                            f"{type(e).__name__}: {e}", traceback.format_exc())


_WATCHING: list[int] = []


def _watch_driver(pid: int) -> None:
    """In a loky worker: exit when the process that started the run is gone (kill -9), rather
    than linger, blocked on sending a result nobody will read."""
    if _WATCHING or os.getpid() == pid or os.getppid() != pid:
        return
    import threading

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != pid:
                os._exit(1)

    _WATCHING.append(pid)
    threading.Thread(target=watch, name="kopsim-watch-driver", daemon=True).start()


def _logged(record, v: Variant) -> str:
    """A hand record as its log line, naming the user's ruleset file it was played under."""
    record.ruleset_file = v.rules_file
    return record.to_json()


def _play_chunk(t: ChunkTask) -> ChunkResult:
    if "polars" not in sys.modules:  # one thread per worker: the jobs are the parallelism
        os.environ.setdefault("POLARS_MAX_THREADS", "1")
    t0 = time.perf_counter()
    v = t.variant
    rules = v.rules
    d, seeds, dealers, session, hand_index, seat_bot = t.layout.deals(t.start, t.stop)
    # a bankroll hand's session is known once the main process has scanned its chunk
    sess_list = ([int(x) for x in session] if v.session == "series" else [None] * len(d))
    lines: list[str] = []
    if t.engine == "kernel":
        from ..bots.seated import play_batch
        from ..rules.cache import compiled

        cr = compiled(rules)
        res = play_batch(cr, seeds, dealers, hand_index, bots=t.bots, seat_bot=seat_bot)
        a = R.hand_arrays_from_batch(res)
        names = cr.contract_names
        if t.log:
            lines = [_logged(batch_record(res, i, sess_list[i]), v) for i in range(len(d))]
    else:
        from ..bots.seated import play_hand
        from ..records.format import record_from_state

        sha = rules.sha256()
        recs = []
        for i in range(len(d)):
            seats = [t.bots[int(j)] for j in seat_bot[i]]
            st = play_hand(rules, int(seeds[i]), int(dealers[i]), seats)
            recs.append(record_from_state(st, int(seeds[i]), int(hand_index[i]), sess_list[i],
                                          sha256=sha))
        names = list(rules.contracts)
        a = R.hand_arrays_from_records(recs, names, rules.deck.players)
        if t.log:
            lines = [_logged(r, v) for r in recs]
    labels = [b.label for b in t.bots]
    df = R.hands_frame(v.label, rules.name, names, labels, d, seeds, session, hand_index,
                       seat_bot, a)
    log = ("".join(x + "\n" for x in lines)).encode("utf-8") if t.log else None
    sessions = payouts = None
    session_rows = 0
    if v.session == "bankroll":
        hands: Any = df
        payouts = np.asarray(a["payouts"], np.float64)
    else:
        hands = R.parquet_bytes(df)
        if v.session == "series":
            frame = _series_sessions(t, d, session, a["payouts"], labels, seat_bot)
            sessions, session_rows = R.parquet_bytes(frame), len(frame)
    import socket

    return ChunkResult(v.label, t.k, t.start, t.stop, len(d), hands, sessions, log, payouts,
                       time.perf_counter() - t0, peak_rss_mb(), os.getpid(),
                       socket.gethostname(), engine_fingerprint(), session_rows)


def _series_sessions(t: ChunkTask, d, session, payouts, labels, seat_bot):
    """The sessions frame of a series chunk (it holds whole sessions; the run's last one may be
    cut short by the number of deals: complete = false, no placement points)."""
    from ..engine.session_rows import series_place_points

    v = t.variant
    payouts = np.asarray(payouts, np.float64)
    if len(d):
        cuts = np.flatnonzero(np.diff(session)) + 1
        lo, hi = np.r_[0, cuts], np.r_[cuts, len(d)]
    else:
        lo = hi = np.zeros(0, np.int64)
    totals = np.zeros((len(lo), payouts.shape[1]), np.float64)
    for j, (a, b) in enumerate(zip(lo, hi)):  # one session's rows, in deal order
        totals[j] = payouts[a:b].sum(axis=0)
    hands = hi - lo
    complete = hands == v.length
    place = series_place_points(totals, v.rules.session) if len(lo) else totals.copy()
    place[~complete] = np.nan
    tournament = v.rules.session.tournament
    return R.sessions_frame(v.label, v.rules.name, labels, session[lo], hands, complete, d[lo],
                            seat_bot[lo], totals, place,
                            None if tournament is None else tournament.rounds)


# ------------------------------------------------------------------------ bankroll sessions

CARRY0 = BankrollCarry()  # a run's start: no session yet


def _finish_bankroll(exp: Experiment, v: Variant, r: ChunkResult, carry: BankrollCarry):
    """Complete a bankroll chunk in deal order: session and hand index per hand, the sessions
    that ended in it, its log lines, and the carry the next chunk starts from (on a resume it
    is walked again from the hands written: _carry_from_files).
    Returns (hands, sessions, session rows, log, hand rows, carry)."""
    import polars as pl

    from ..engine.session_rows import bankroll_scan

    df = r.hands
    scan = bankroll_scan(v.rules.session, carry, df["deal_id"].to_numpy(), r.payouts,
                         final=r.stop >= exp.deals)
    keep, ended = scan.keep, scan.ended
    paid = [pl.Series(f"payout_{s}", column) for s, column in enumerate(scan.paid.T)]
    df = df[keep].with_columns(pl.Series("session", scan.session.astype(np.int32)),
                               pl.Series("hand_index", scan.hand_index.astype(np.int32)), *paid)
    first = ended["first_deal"]
    sessions = R.sessions_frame(v.label, v.rules.name, exp.labels(), ended["session"],
                                ended["hands"], ended["complete"], first,
                                exp.seat_bots(first), ended["balance"], None)
    log = None
    if r.log is not None:
        from ..records.format import HandRecord

        lines = r.log.decode("utf-8").split("\n")
        out = []
        for j, i in enumerate(keep.tolist()):
            d = json.loads(lines[i])
            d.update(session=int(scan.session[j]), hand_index=int(scan.hand_index[j]),
                     nominal_payouts=d["payouts"], payouts=scan.paid[j].tolist(),
                     bankroll=scan.held[j].tolist())
            out.append(HandRecord.from_dict(d).to_json() + "\n")
        log = "".join(out).encode("utf-8")
    return (R.parquet_bytes(df), R.parquet_bytes(sessions), len(sessions), log, len(df),
            scan.carry)


def _carry_from_files(out: Path, v: Variant, k: int) -> BankrollCarry:
    """The bankroll state after chunk k-1, from the hands already written (chunks 0..k-1 are
    whole): the last session's hands are walked again, exactly as the run walked them."""
    import polars as pl

    from ..engine.session_rows import bankroll_scan

    nominal = [f"nominal_payout_{s}" for s in range(v.rules.deck.players)]
    parts = []
    last = None
    for j in range(k - 1, -1, -1):
        df = pl.read_parquet(R.hands_path(out, v.label, j),
                             columns=["deal_id", "session"] + nominal)
        if not len(df):
            continue
        if last is None:
            last = df["session"][-1]
        part = df.filter(pl.col("session") == last)
        parts.append(part)
        if len(part) < len(df):
            break  # the chunk also holds the session before: the last session starts here
    if last is None:
        return CARRY0
    rows = pl.concat(parts).sort("deal_id")
    start = BankrollCarry(next_session=int(last))
    pay = rows.select(nominal).to_numpy()  # the walk prices hands as the run did: nominally
    return bankroll_scan(v.rules.session, start, rows["deal_id"].to_numpy(), pay,
                         final=False).carry


# ---------------------------------------------------------------------------------- the run


class ExperimentFailed(Exception):
    """A chunk or a worker failed; the message names it. Finished chunks are kept."""


@dataclass
class RunSummary:
    out: Path
    chunks_total: int
    chunks_before: int  # already finished when the run started (resumed)
    chunks_played: int
    deals_played: int
    hands_written: int
    seconds: float
    jobs: int
    backend: str
    worker_peak_rss_mb: float = 0.0
    workers: int = 0

    @property
    def hands_per_s(self) -> float:
        return self.deals_played / max(self.seconds, 1e-9)


def default_out(exp: Experiment) -> Path:
    name = exp.name
    for k in ("deals", "seed", "chunk"):
        if k in exp.overrides:
            name += f"-{k}{exp.overrides[k]}"
    return Path("results") / name


def run_experiment(exp: Experiment, out: str | Path | None = None, jobs: int | None = 1,
                   backend: str = "loky", scheduler: str | None = None, log: bool = False,
                   progress: bool | None = False,
                   on_chunk: Callable[[ChunkResult], None] | None = None) -> RunSummary:
    """Play every chunk not yet in `out`, write each atomically, and finish the manifest.

    `on_chunk` is called after each chunk is written (tests use it to interrupt a run)."""
    out = Path(out) if out is not None else default_out(exp)
    make_out_folder(out)
    holder = {"started": _now(), "experiment": exp.name, "seed": exp.seed, "deals": exp.deals}
    with R.folder_lock(out, holder):
        return _run_locked(exp, out, jobs, backend, scheduler, log, progress, on_chunk)


def check_out_folder(out: Path) -> None:
    """A path that exists and is not a folder cannot be the results folder: refused, located."""
    if out.exists() and not out.is_dir():
        raise InputError([Problem(str(out), "", "is a file, not a folder: --out takes the "
                                  "results folder")])


def make_out_folder(out: Path) -> None:
    """The results folder, made if need be."""
    check_out_folder(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InputError([Problem(str(out), "", f"cannot make the results folder: "
                                  f"{e.strerror or e}")])


def pending_calibrations(exp: Experiment, jobs: int) -> list[str]:
    """What `run` will learn before it plays (the ev tables and learnt models not in the
    cache), each with its time on this machine: at most, for ev; about, for learnt."""
    from ..bots import LearntBot, split_lineup
    from ..bots import calibrate as ev
    from ..bots import learnt
    from ..engine.codes import BOT_EV
    from ..rules.cache import compiled

    lines = []
    bots = [b for b in split_lineup(exp.bots)[0] if b.kernel_kind == BOT_EV or b.cls is LearntBot]
    jobs_text = f"{jobs} job{'s' * (jobs != 1)} (once; then cached)"
    for v in exp.variants:
        cr = compiled(v.rules)
        for b in bots:
            if b.kernel_kind == BOT_EV and not ev.is_cached(cr, b.params):
                lines.append(f"  calibration pending: {b.label} on variant {v.label}, about "
                             f"{ev.estimated_seconds(cr, b.params, jobs):,.0f} s at most with "
                             + jobs_text)
            elif b.cls is LearntBot and not learnt.is_cached(cr, b.params):
                lines.append(f"  training pending: {b.label} on variant {v.label}, about "
                             f"{learnt.estimated_seconds(cr, b.params, jobs):,.0f} s with "
                             + jobs_text)
    return lines or ["  calibrations: none pending (every ev table and learnt model is "
                     "cached)"] if bots else []


def _ev_tables(exp: Experiment, jobs: int) -> dict:
    """{variant: {bot: sha256}} of what the experiment's bots learn from each ruleset (ev's
    tables, learnt's networks), learnt first where the cache lacks it (said on stderr): what
    the chunks will play with, in either engine."""
    import sys

    from ..bots import LearntBot, prepare_bots, split_lineup
    from ..engine.codes import BOT_EV
    from ..rules.cache import compiled

    if not any(b.kernel_kind == BOT_EV or b.cls is LearntBot for b in split_lineup(exp.bots)[0]):
        return {}
    return {v.label: prepare_bots(compiled(v.rules), exp.bots, jobs,
                                  lambda m: print(m, file=sys.stderr), v.label)
            for v in exp.variants}


def _open_manifest(exp: Experiment, out: Path, log: bool, ev_tables: dict) -> dict:
    """This run's manifest: the folder's, when it holds the same run (else refused), or a new
    one written to an empty folder. The ev bots' tables are part of the run's key: results
    played with other tables are never mixed in."""
    manifest = _with_ev_tables(exp.manifest(log), ev_tables)
    old = R.read_manifest(out)
    if old is not None:
        _check_resumable(old, manifest, out)
        manifest["created"] = old.get("created")
        return manifest
    if any(p.name != R.LOCK for p in out.iterdir()):
        raise InputError([Problem(str(out), "", "the folder is not empty and holds no "
                                  f"{R.MANIFEST}: choose another --out")])
    manifest["created"] = _now()
    R.write_manifest(out, manifest)
    return manifest


def _open_run(exp: Experiment, out: Path, log: bool, jobs: int | None) -> tuple:
    """(the run, grown to the folder's chunks if it grows the run there, its manifest)."""
    ev_tables = _ev_tables(exp, jobs or 1)
    exp = grown(exp, out, log, ev_tables)
    return exp, _open_manifest(exp, out, log, ev_tables)


def _with_ev_tables(manifest: dict, ev_tables: dict) -> dict:
    if ev_tables:
        manifest["ev_tables"] = ev_tables
        manifest["run_key"]["ev_tables"] = ev_tables
    return manifest


def grown(exp: Experiment, out: Path, log: bool, ev_tables: dict) -> Experiment:
    """`exp` as it grows the finished (or unfinished) run in `out` that it equals but for fewer
    deals: with the folder's chunk size, so that every chunk played stays a chunk of the larger
    run, and without the folder's last chunk, which is replayed (its deals, and a bankroll's
    open sessions, ended with the run). Any other run: `exp` as it is."""
    old = R.read_manifest(out)
    a = old.get("run_key") if isinstance(old, dict) else None
    if not isinstance(a, dict) or type(a.get("deals")) is not int or type(a.get("chunk")) is not int:
        return exp
    if not 0 < a["deals"] < exp.deals:
        return exp
    bigger = dataclasses.replace(exp, chunk=a["chunk"])
    manifest = _with_ev_tables(bigger.manifest(log), ev_tables)
    b = manifest["run_key"]
    if {k: v for k, v in a.items() if k != "deals"} != {k: v for k, v in b.items() if k != "deals"}:
        return exp  # another run: refused as one by _check_resumable
    last = -(-a["deals"] // a["chunk"]) - 1
    index = R.read_index(out)
    R.write_index(out, [line for key, line in sorted(index.lines.items()) if key[1] != last])
    for v in bigger.variants:
        for path in _chunk_paths(out, v, last, log):
            path.unlink(missing_ok=True)
    # only then the larger run's manifest: a growth cut short before it is simply done again
    manifest["created"] = old.get("created")
    R.write_manifest(out, manifest)
    other = "" if exp.chunk == a["chunk"] else f" (not {exp.chunk:,}: no chunk size changes a result)"
    _say(f"growing the run in {out} from {a['deals']:,} to {bigger.deals:,} deals, in its "
         f"chunks of {a['chunk']:,}{other}: chunk {last}, which ended the smaller run, is "
         "replayed")
    return bigger


def _bankroll_resume(exp: Experiment, out: Path, done: dict[str, set[int]]
                     ) -> tuple[dict[str, BankrollCarry], dict[str, int]]:
    """For each bankroll variant: the carry after its finished chunks, and the next chunk to
    write (its sessions run on across chunks, so they are written in order)."""
    carry: dict[str, BankrollCarry] = {}
    next_k: dict[str, int] = {}
    for v in exp.variants:
        if v.session == "bankroll":
            next_k[v.label] = len(done[v.label])  # _verified_chunks keeps a prefix
            carry[v.label] = _carry_from_files(out, v, next_k[v.label])
    return carry, next_k


def _run_locked(exp: Experiment, out: Path, jobs: int | None, backend: str,
                scheduler: str | None, log: bool, progress: bool | None,
                on_chunk: Callable[[ChunkResult], None] | None) -> RunSummary:
    from .parallel import run_tasks

    exp, manifest = _open_run(exp, out, log, jobs)
    R.remove_temporaries(out)

    K = exp.chunks
    by_label = {v.label: v for v in exp.variants}
    done = _verified_chunks(exp, out, log)
    carry, next_k = _bankroll_resume(exp, out, done)
    before = sum(len(s) for s in done.values())
    deals_before = sum(_chunk_deals(exp, k) for s in done.values() for k in s)
    total = exp.deals * len(exp.variants)
    deals_todo = total - deals_before

    def todo():  # lazily: a run of 10**12 deals plans as little as one of 10**3
        for k in range(K):
            for v in exp.variants:
                if k not in done[v.label]:
                    yield k, v

    def tasks():
        for k, v in todo():
            yield ChunkTask(v, k, k * exp.chunk, min(exp.deals, (k + 1) * exp.chunk), exp.deals,
                            exp.engine, exp.bots, exp.layout(v), log,
                            os.getpid() if backend == "loky" else None)

    bar = _progress_bar(progress, total, total - deals_todo, exp.name)
    buffered: dict[str, dict[int, ChunkResult]] = {v.label: {} for v in exp.variants}
    played = deals = written = 0
    worker_rss = 0.0
    pids = set()
    in_flight: dict[tuple[str, int], ChunkTask] = {}
    t0 = time.perf_counter()
    code = engine_fingerprint()

    def tracked():
        for t in tasks():
            in_flight[(t.variant.label, t.k)] = t
            yield t

    def write(v: Variant, r: ChunkResult) -> None:
        nonlocal played, deals, written
        if v.session == "bankroll":
            hands, sessions, session_rows, logb, rows, carry[v.label] = _finish_bankroll(
                exp, v, r, carry[v.label])
        else:
            hands, sessions, session_rows, logb, rows = (r.hands, r.sessions, r.session_rows,
                                                         r.log, r.rows)
        _write_chunk_files(out, v.label, r.k, [(R.log_path, logb, None),
                                                (R.sessions_path, sessions, session_rows),
                                                (R.hands_path, hands, rows)])
        played += 1
        deals += r.stop - r.start
        written += rows
        if bar is not None:
            bar.update(r.stop - r.start)
        if on_chunk is not None:
            on_chunk(r)

    def broken(e: Exception) -> ExperimentFailed:
        names = "; ".join(t.name() for t in list(in_flight.values())) or "no chunk in flight"
        text = [x.strip() for x in str(e).splitlines() if x.strip()]
        short = "; ".join(text[:1] + [x for x in text[1:] if "exit code" in x])
        return ExperimentFailed(
            f"a worker died or the {backend} backend failed ({type(e).__name__}: {short}) "
            f"while playing {names}. {played + before} finished chunks are kept in {out}; run "
            "the same command again to resume.")

    results = run_tasks(play_chunk, tracked(), backend=backend, jobs=jobs,
                        scheduler=scheduler) if deals_todo else iter(())
    try:
        while True:
            try:
                r = next(results)
            except StopIteration:
                break
            except (KeyboardInterrupt, ExperimentFailed, InputError):
                raise
            except Exception as e:  # the pool broke: a worker died, the scheduler went away
                raise broken(e) from e
            in_flight.pop((r.variant, r.k), None)
            if isinstance(r, ChunkFailure):
                raise ExperimentFailed(_failure_message(exp, r, played + before, out))
            if r.engine_code != code:
                raise ExperimentFailed(
                    f"chunk {r.k} of variant {r.variant!r} was played on {r.host} (pid "
                    f"{r.pid}) by other kopsim code (engine fingerprint {r.engine_code}, here "
                    f"{code}): install the same kopsim everywhere. {played + before} finished "
                    f"chunks are kept in {out}.")
            worker_rss = max(worker_rss, r.rss_mb)
            pids.add(r.pid)
            v = by_label[r.variant]
            try:
                if v.session != "bankroll":
                    write(v, r)
                    continue
                buffered[v.label][r.k] = r
                while next_k[v.label] in buffered[v.label]:
                    write(v, buffered[v.label].pop(next_k[v.label]))
                    next_k[v.label] += 1
            except OSError as e:
                raise ExperimentFailed(f"cannot write chunk {r.k} of variant {r.variant!r} in "
                                       f"{out}: {e}. {played + before} finished chunks are kept; "
                                       "run the same command again to resume.") from e
    finally:
        if bar is not None:
            bar.close()
        close = getattr(results, "close", None)
        if close is not None:
            close()  # on an error: cancel the chunks still queued, stop the workers' cluster
    seconds = time.perf_counter() - t0
    summary = RunSummary(out, K * len(exp.variants), before, played, deals, written, seconds,
                         jobs or 0, backend, worker_rss, len(pids))
    manifest["status"] = _status(exp, out, summary)
    manifest["updated"] = _now()
    R.write_manifest(out, manifest)
    return summary


def _write_chunk_files(out: Path, label: str, k: int, files: list) -> None:
    """Write a chunk's files [(path of, data or None, rows or None: lines)] atomically, then
    its line in the chunk index: only then is the chunk done."""
    records = []
    for path_of, data, n in files:
        if data is not None:
            path = path_of(out, label, k)
            R.write_atomic(path, data)
            records.append(R.file_record(out, path, data, data.count(b"\n") if n is None else n))
    R.append_index(out, R.index_line(label, k, records))


def _chunk_deals(exp: Experiment, k: int) -> int:
    return min(exp.deals, (k + 1) * exp.chunk) - k * exp.chunk


def _verified_chunks(exp: Experiment, out: Path, log: bool) -> dict[str, set[int]]:
    """The chunks of this run whose files all match their line in the chunk index. Every other
    file under hands/, sessions/ and logs/ is removed, so its chunk is replayed, and stderr says
    which and why; the index is rewritten with the lines kept."""
    index = R.read_index(out)
    for why in index.damaged:
        _say(f"{out / R.INDEX} {why}: the chunk it described is not trusted")
    by_label = {v.label: v for v in exp.variants}
    kept: dict[tuple[str, int], dict] = {}
    replay: dict[tuple[str, int], str] = {}
    for key, line in index.lines.items():
        v = by_label.get(key[0])
        if v is None or key[1] >= exp.chunks:
            continue  # not a chunk of this run: its files are removed below
        expected = {p.relative_to(out).as_posix() for p in _chunk_paths(out, v, key[1], log)}
        listed = {rec["file"] for rec in line["files"]}
        why = ("the chunk index lists other files than this run writes" if listed != expected
               else R.damage(out, line))
        if why:
            replay[key] = why
        else:
            kept[key] = line
    done = {v.label: {k for (label, k) in kept if label == v.label} for v in exp.variants}
    for v in exp.variants:
        if v.session == "bankroll":  # its sessions run on across chunks: keep the first ones
            first_gap = next(k for k in range(len(done[v.label]) + 1) if k not in done[v.label])
            later = sorted(k for k in done[v.label] if k > first_gap)
            for k in later:
                replay[(v.label, k)] = (f"its bankroll sessions run on from chunk {first_gap}, "
                                        "which is replayed")
                del kept[(v.label, k)]
            done[v.label] -= set(later)
    files_kept = {rec["file"] for line in kept.values() for rec in line["files"]}
    for rel in R.chunk_files_on_disk(out):
        name = rel.as_posix()
        if name in files_kept:
            continue
        m = R.CHUNK_FILE_RE.fullmatch(name)
        v = by_label.get(m.group(2)) if m else None
        key = (m.group(2), int(m.group(3))) if m else None
        if v is not None and key[1] < exp.chunks and name in {
                p.relative_to(out).as_posix() for p in _chunk_paths(out, v, key[1], log)}:
            replay.setdefault(key, f"{name} is not in the chunk index")
        else:
            _say(f"removing {out / rel}: not a file of this run")
        (out / rel).unlink()
    for (label, k), why in sorted(replay.items(), key=lambda x: (x[0][1], x[0][0])):
        _say(f"replaying chunk {k} of variant {label!r}: {why}")
    if index.present or kept:
        R.write_index(out, [kept[key] for key in sorted(kept)])
    return done


def _chunk_paths(out: Path, v: Variant, k: int, log: bool) -> list[Path]:
    """The files a chunk of this run writes."""
    paths = [R.hands_path(out, v.label, k)]
    if v.session:
        paths.append(R.sessions_path(out, v.label, k))
    if log:
        paths.append(R.log_path(out, v.label, k))
    return paths


def _say(message: str) -> None:
    print(f"resume: {message}", file=sys.stderr)


def _status(exp: Experiment, out: Path, s: RunSummary) -> dict:
    hands, sessions = {}, {}
    for v in exp.variants:
        hands[v.label] = _rows(sorted((out / "hands" / v.label).glob("chunk-*.parquet")))
        if v.session:
            sessions[v.label] = _rows(sorted((out / "sessions" / v.label).glob("chunk-*.parquet")))
    return {"complete": True, "hands": hands, "sessions": sessions,
            "last_run": {"jobs": s.jobs, "backend": s.backend, "seconds": round(s.seconds, 3),
                         "deals_played": s.deals_played, "chunks_played": s.chunks_played,
                         "chunks_resumed": s.chunks_before,
                         "hands_per_s": round(s.hands_per_s, 1),
                         "main_peak_rss_mb": round(peak_rss_mb(), 1),
                         "worker_peak_rss_mb": round(s.worker_peak_rss_mb, 1)}}


def _rows(files: list[Path]) -> int:
    import polars as pl

    return pl.scan_parquet(files).select(pl.len()).collect().item() if files else 0


def _failure_message(exp: Experiment, f: ChunkFailure, kept: int, out: Path) -> str:
    where = ""
    for line in reversed(f.trace.strip().splitlines()):
        m = re.match(r'\s*File "(.*)", line (\d+), in (.*)', line)
        if m:
            where = f" (raised in {m.group(3)}, {m.group(1)}:{m.group(2)})"
            break
    return (f"chunk {f.k} of variant {f.variant!r} (deals {f.start:,}–{f.stop - 1:,}) failed: "
            f"{f.error}{where}. {kept} finished chunks are kept in {out}; fix the cause and "
            "run the same command again to resume.")


def _check_resumable(old: dict, new: dict, out: Path) -> None:
    a, b = old.get("run_key"), new["run_key"]
    if a == b:
        return
    if not isinstance(a, dict):
        detail = "its manifest has no run key"
    else:
        detail = "; ".join(_differences(a, b))
    raise InputError([Problem(str(out), R.MANIFEST, "holds results of a different run "
                              f"({detail}); choose another --out, or delete the folder to "
                              "start again")])


def _differences(a: dict, b: dict) -> list[str]:
    """What differs between the run key in a folder (a) and this run's (b), in plain words."""
    def both(key: str, show=lambda x: f"{x:,}" if type(x) is int else str(x)) -> str:
        return f"{show(a.get(key))} in the folder, {show(b.get(key))} now"

    def labels(x) -> str:
        if not isinstance(x, list):
            return "?"
        return ", ".join(str(e.get("label")) if isinstance(e, dict) else "?" for e in x)

    words = []
    if a.get("kopsim") != b.get("kopsim") or a.get("engine_code") != b.get("engine_code"):
        words.append("kopsim's engine or bots changed since the folder was started")
    if a.get("seed") != b.get("seed"):
        words.append(f"the seed: {both('seed')}")
    if a.get("deals") != b.get("deals"):
        words.append(f"the number of deals: {both('deals')}")
    if a.get("chunk") != b.get("chunk"):
        words.append(f"the chunk size: {both('chunk', lambda x: f'{x} deals')}")
    if a.get("variants") != b.get("variants"):
        if labels(a.get("variants")) != labels(b.get("variants")):
            words.append(f"the variants: {both('variants', labels)}")
        else:
            changed = [str(x.get("label")) for x, y in zip(a["variants"], b["variants"])
                       if x != y]
            words.append("the ruleset or session scoring of variant"
                         f"{'s' * (len(changed) != 1)} {', '.join(changed)}")
    if a.get("bots") != b.get("bots"):
        if labels(a.get("bots")) != labels(b.get("bots")):
            words.append(f"the bots: {both('bots', labels)}")
        else:
            words.append("the bots behind the same labels (their kind or parameters)")
    if a.get("sessions") != b.get("sessions"):
        words.append(f"session scoring: {both('sessions', lambda x: 'on' if x else 'off')}")
    if (a.get("rotate"), a.get("rotation_period")) != (b.get("rotate"), b.get("rotation_period")):
        words.append(f"the seat rotation: {both('rotate', lambda x: x or 'fixed')}")
    if a.get("engine") != b.get("engine"):
        words.append(f"the engine: {both('engine')}")
    if a.get("log") != b.get("log"):
        words.append("hand logs: " + both("log", lambda x: "kept (--log)" if x else "not kept"))
    known = {"kopsim", "engine_code", "seed", "deals", "chunk", "variants", "bots", "sessions",
             "rotate", "rotation_period", "engine", "log"}
    other = sorted(k for k in set(a) | set(b) if k not in known and a.get(k) != b.get(k))
    if other:
        words.append(f"also {', '.join(map(str, other))}")
    return words or ["its run key differs"]


def _now() -> str:
    from datetime import datetime, timezone

    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _progress_bar(progress: bool | None, total: int, initial: int, name: str):
    """tqdm: a rate (hands/s) and an ETA out of the box, no dependencies, and it steps aside
    when stderr is not a terminal (progress=None)."""
    if progress is False:
        return None
    from tqdm import tqdm

    return tqdm(total=total, initial=initial, unit=" hands", unit_scale=True, desc=name,
                smoothing=0.1, mininterval=0.5, dynamic_ncols=True, file=sys.stderr,
                disable=None if progress is None else False)
