"""Playing an experiment: its chunks, in parallel, to Parquet, resumable (`kopsim run`).

A chunk is a range of deal ids of one variant, played by the batch kernel or, when a bot is plain
Python, by the reference engine. Chunks run on joblib (loky processes, or Dask); the main process
writes each finished chunk atomically (results.py), completes bankroll sessions in deal order,
and on a rerun plays only the chunks that are missing. The layout of hands on deal ids is
explained in kopsim/experiment.py.
"""

from __future__ import annotations

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

from . import results as R
from .bots import BotSpec
from .errors import InputError, Problem
from .experiment import Experiment, Variant, engine_fingerprint
from .rng import hand_seeds_np


# --------------------------------------------------------------------------------- one chunk


@dataclass
class ChunkTask:
    """Everything a worker needs to play one chunk: no paths, no shared state."""

    variant: Variant
    k: int
    start: int
    stop: int
    deals: int
    seed: int
    engine: str
    bots: list[BotSpec]
    lineup: list[int]
    period: int | None
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


@dataclass
class ChunkFailure:
    variant: str
    k: int
    start: int
    stop: int
    error: str
    trace: str


_COMPILED: dict[str, Any] = {}


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


def _play_chunk(t: ChunkTask) -> ChunkResult:
    if "polars" not in sys.modules:  # one thread per worker: the jobs are the parallelism
        os.environ.setdefault("POLARS_MAX_THREADS", "1")
    t0 = time.perf_counter()
    v = t.variant
    rules = v.rules
    d = np.arange(t.start, t.stop, dtype=np.int64)
    session = None
    if v.session == "series":
        d = d[(d % v.stride) < v.length]  # deals past a short series' end are not played
        session = d // v.stride
        hand_index = d % v.stride
    elif v.session == "bankroll":
        hand_index = np.full(len(d), -1, np.int64)  # the scan in the main process fills these
    else:
        hand_index = d
    seeds = hand_seeds_np(np.full(len(d), t.seed, np.uint64), d)
    dealers = d % 4
    line = np.asarray(t.lineup, np.int64)
    rot = np.zeros(len(d), np.int64) if t.period is None else (d // t.period) % 4
    seat_bot = np.stack([line[(s - rot) % 4] for s in range(4)], axis=1)
    sess_list = [None] * len(d) if session is None else [int(x) for x in session]
    lines: list[str] = []
    if t.engine == "kernel":
        from .batch import play_batch
        from .compiled import compile_rules

        key = rules.sha256()
        cr = _COMPILED.get(key)
        if cr is None:
            cr = _COMPILED[key] = compile_rules(rules)
        res = play_batch(cr, seeds, dealers, hand_index, bots=t.bots, seat_bot=seat_bot)
        a = R.hand_arrays_from_batch(res)
        names = cr.contract_names
        if t.log:
            lines = [res.record(i, sess_list[i]).to_json() for i in range(len(d))]
    else:
        from .play import play_hand
        from .records import record_from_state

        sha = rules.sha256()
        recs = []
        for i in range(len(d)):
            seats = [t.bots[int(j)] for j in seat_bot[i]]
            st = play_hand(rules, int(seeds[i]), int(dealers[i]), seats)
            recs.append(record_from_state(st, int(seeds[i]), int(hand_index[i]), sess_list[i],
                                          sha256=sha))
        names = list(rules.contracts)
        a = R.hand_arrays_from_records(recs, names)
        if t.log:
            lines = [r.to_json() for r in recs]
    labels = [b.label for b in t.bots]
    df = R.hands_frame(v.label, rules.name, names, labels, d, seeds,
                       None if v.session is None else (session if session is not None
                                                       else np.full(len(d), -1)),
                       hand_index, seat_bot, a)
    log = ("".join(x + "\n" for x in lines)).encode("utf-8") if t.log else None
    sessions = payouts = None
    if v.session == "bankroll":
        hands: Any = df
        payouts = np.asarray(a["payouts"], np.float64)
    else:
        hands = R.parquet_bytes(df)
        if v.session == "series":
            sessions = R.parquet_bytes(_series_sessions(t, d, session, a["payouts"], labels,
                                                        seat_bot))
    import socket

    return ChunkResult(v.label, t.k, t.start, t.stop, len(d), hands, sessions, log, payouts,
                       time.perf_counter() - t0, _peak_rss_mb(), os.getpid(),
                       socket.gethostname(), engine_fingerprint())


def _series_sessions(t: ChunkTask, d, session, payouts, labels, seat_bot):
    """The sessions frame of a series chunk (it holds whole sessions; the run's last one may be
    cut short by the number of deals: complete = false, no placement points)."""
    from .sessionrows import series_place_points

    v = t.variant
    payouts = np.asarray(payouts, np.float64)
    if len(d):
        cuts = np.flatnonzero(np.diff(session)) + 1
        lo, hi = np.r_[0, cuts], np.r_[cuts, len(d)]
    else:
        lo = hi = np.zeros(0, np.int64)
    totals = np.zeros((len(lo), 4), np.float64)
    for j, (a, b) in enumerate(zip(lo, hi)):  # one session's rows, in deal order
        totals[j] = payouts[a:b].sum(axis=0)
    hands = hi - lo
    complete = hands == v.length
    place = series_place_points(totals, v.rules.session) if len(lo) else np.zeros((0, 4))
    place[~complete] = np.nan
    return R.sessions_frame(v.label, v.rules.name, labels, session[lo], hands, complete, d[lo],
                            seat_bot[lo], totals, place)


def _peak_rss_mb() -> float:
    try:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return kb / 1024 if sys.platform != "darwin" else kb / 2**20
    except Exception:  # pragma: no cover - Windows
        import psutil

        return psutil.Process().memory_info().rss / 2**20


# ------------------------------------------------------------------------ bankroll sessions

NOMINAL = [f"nominal_payout_{i}" for i in range(4)]
CARRY0 = {"open": False, "session": -1, "next_session": 0, "hands": 0, "balance": None,
          "first_deal": -1}


def _finish_bankroll(exp: Experiment, v: Variant, r: ChunkResult, carry: dict):
    """Complete a bankroll chunk in deal order: session and hand index per hand, the sessions
    that ended in it, its log lines; the carry (open session) is stored with the chunk."""
    import polars as pl

    from .sessionrows import bankroll_scan

    df = r.hands
    scan = bankroll_scan(v.rules.session, carry, df["deal_id"].to_numpy(), r.payouts,
                         final=r.stop >= exp.deals)
    keep, ended = scan.keep, scan.ended
    df = df[keep].with_columns(pl.Series("session", scan.session.astype(np.int32)),
                               pl.Series("hand_index", scan.hand_index.astype(np.int32)),
                               *[pl.Series(f"payout_{s}", scan.paid[:, s]) for s in range(4)])
    first = ended["first_deal"]
    sessions = R.sessions_frame(v.label, v.rules.name, exp.labels(), ended["session"],
                                ended["hands"], ended["complete"], first,
                                exp.seat_bots(first), ended["balance"], None)
    log = None
    if r.log is not None:
        from .records import HandRecord

        lines = r.log.decode("utf-8").split("\n")
        out = []
        for j, i in enumerate(keep.tolist()):
            d = json.loads(lines[i])
            d.update(session=int(scan.session[j]), hand_index=int(scan.hand_index[j]),
                     nominal_payouts=d["payouts"], payouts=scan.paid[j].tolist(),
                     bankroll=scan.held[j].tolist())
            out.append(HandRecord.from_dict(d).to_json() + "\n")
        log = "".join(out).encode("utf-8")
    return R.parquet_bytes(df), R.parquet_bytes(sessions), log, len(df), scan.carry


def _carry_from_files(out: Path, v: Variant, k: int) -> dict:
    """The bankroll state after chunk k-1, from the hands already written (chunks 0..k-1 are
    whole): the last session's hands are walked again, exactly as the run walked them."""
    import polars as pl

    from .sessionrows import bankroll_scan

    parts = []
    last = None
    for j in range(k - 1, -1, -1):
        df = pl.read_parquet(R.hands_path(out, v.label, j),
                             columns=["deal_id", "session"] + NOMINAL)
        if not len(df):
            continue
        if last is None:
            last = df["session"][-1]
        part = df.filter(pl.col("session") == last)
        parts.append(part)
        if len(part) < len(df):
            break  # the chunk also holds the session before: the last session starts here
    if last is None:
        return dict(CARRY0)
    rows = pl.concat(parts).sort("deal_id")
    start = {**CARRY0, "next_session": int(last)}
    pay = rows.select(NOMINAL).to_numpy()  # the walk prices hands as the run did: nominally
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
    from .parallel import run_tasks

    out = Path(out) if out is not None else default_out(exp)
    out.mkdir(parents=True, exist_ok=True)
    manifest = exp.manifest(log)
    old = R.read_manifest(out)
    if old is not None:
        _check_resumable(old, manifest, out)
        manifest["created"] = old.get("created")
    else:
        if any(out.iterdir()):
            raise InputError([Problem(str(out), "", "the folder is not empty and holds no "
                                      f"{R.MANIFEST}: choose another --out")])
        manifest["created"] = _now()
        R.write_manifest(out, manifest)
    R.remove_temporaries(out)

    K = exp.chunks
    by_label = {v.label: v for v in exp.variants}
    done = {v.label: R.finished_chunks(out, v.label) & set(range(K)) for v in exp.variants}
    carry: dict[str, dict] = {}
    next_k: dict[str, int] = {}
    for v in exp.variants:
        if v.session == "bankroll":  # chunks are written in order: resume after the first gap
            k = 0
            while k in done[v.label]:
                k += 1
            done[v.label] = set(range(k))
            next_k[v.label] = k
            carry[v.label] = _carry_from_files(out, v, k)
    before = sum(len(s) for s in done.values())
    todo = [(k, v) for k in range(K) for v in exp.variants if k not in done[v.label]]
    deals_todo = sum(min(exp.deals, (k + 1) * exp.chunk) - k * exp.chunk for k, _ in todo)
    total = exp.deals * len(exp.variants)

    def tasks():
        for k, v in todo:
            yield ChunkTask(v, k, k * exp.chunk, min(exp.deals, (k + 1) * exp.chunk), exp.deals,
                            exp.seed, exp.engine, exp.bots, exp.lineup, exp.period, log,
                            os.getpid() if backend == "loky" else None)

    bar = _progress_bar(progress, total, total - deals_todo, exp.name)
    buffered: dict[str, dict[int, ChunkResult]] = {v.label: {} for v in exp.variants}
    played = deals = 0
    written = 0
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
            hands, sessions, logb, rows, carry[v.label] = _finish_bankroll(exp, v, r,
                                                                          carry[v.label])
        else:
            hands, sessions, logb, rows = r.hands, r.sessions, r.log, r.rows
        if logb is not None:
            R.write_atomic(R.log_path(out, v.label, r.k), logb)
        if sessions is not None:
            R.write_atomic(R.sessions_path(out, v.label, r.k), sessions)
        R.write_atomic(R.hands_path(out, v.label, r.k), hands)  # last: marks the chunk done
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
                        scheduler=scheduler) if todo else iter(())
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
                         "main_peak_rss_mb": round(_peak_rss_mb(), 1),
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
    a, b = old.get("run_key", {}), new["run_key"]
    if a == b:
        return
    diffs = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    parts = []
    for k in diffs[:4]:
        if k in ("engine_code", "kopsim"):
            parts.append("kopsim's engine or bots changed since it was started")
        else:
            parts.append(f"{k}: {json.dumps(a.get(k))[:60]} in the folder, "
                         f"{json.dumps(b.get(k))[:60]} now")
    detail = "; ".join(parts)
    raise InputError([Problem(str(out), R.MANIFEST, "holds results of a different run "
                              f"({detail}); choose another --out, or delete the folder to "
                              "start again")])


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
