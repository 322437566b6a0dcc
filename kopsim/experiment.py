"""`kopsim run`: experiment files, and playing them in chunks, in parallel, to Parquet.

An experiment is variants (rulesets) x a bot line-up x a number of deals. Every hand is a pure
function of (run seed, deal id): its seed is `hand_seed(seed, deal_id)`, its dealer `deal_id % 4`,
its line-up the experiment's, rotated by a function of the deal id. So every variant plays the
same deals (common random numbers), and the number of jobs, the backend and the chunk size never
change a single value in the results.

Sessions (the ruleset's own scoring over many hands) lay hands out on the deal ids: a session
always starts on a deal id that is a multiple of 4, so its hand i is dealt by seat i % 4 as the
rules say. A series of L hands takes deals [s*L', s*L' + L) where L' is L rounded up to a multiple
of 4. A bankroll (victory-card) session runs from its first deal until a player is out, and the
next session starts at the next multiple of 4; the deals in between are not played by that
variant. Series chunks hold whole sessions; bankroll sessions are found by scanning the finished
chunks in deal order in the main process, and the state at a chunk's end is stored with it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import results as R
from .bots import BotSpec, bot_spec
from .errors import InputError, Problem, dotted
from .rng import hand_seeds_np
from .ruleset import Ruleset, _merge, _read_toml, load_raw, ruleset_from_dict

KERNEL_CHUNK = 65536  # deals per chunk when every bot runs in the batch kernel
REFERENCE_CHUNK = 256  # ... when a plain-Python bot makes every hand go through the reference engine
LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+=-]*$")


ENGINE_FILES = ("batch.py", "compiled.py", "game.py", "scoring.py", "session.py", "rng.py",
                "play.py", "records.py", "ruleset.py", "experiment.py", "results.py", "bots/*.py")


_FINGERPRINT: list[str] = []


def engine_fingerprint() -> str:
    """A hash of the code that decides a hand's outcome: a results folder is only resumed by the
    code that started it, and only filled by workers that run the same code (an edited bot or
    kernel would otherwise mix two engines' hands)."""
    if not _FINGERPRINT:
        root = Path(__file__).resolve().parent
        h = hashlib.sha256()
        for pattern in ENGINE_FILES:
            for p in sorted(root.glob(pattern)):
                h.update(p.name.encode() + b"\0" + p.read_bytes())
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


def kopsim_version() -> str:
    try:
        from importlib.metadata import version

        return version("kopsim")
    except Exception:  # pragma: no cover - running from a source tree without metadata
        return "unknown"


# ------------------------------------------------------------------------------ the file format


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class VariantFile(_Model):
    ruleset: str  # a bundled name or a path (relative to the experiment file)
    label: Optional[str] = None  # default: the resolved ruleset's name
    overrides: dict = {}  # ruleset keys merged over the loaded ruleset, as `extends` does


class ExperimentFile(_Model):
    name: Optional[str] = None  # default: the file's stem
    description: str = ""
    deals: int = Field(ge=1)
    seed: int = Field(0, ge=0, lt=2**63)
    sessions: bool = False  # play each ruleset's own session scoring, where it has one
    rotate: Any = False  # false, true (one seat every 4 deals) or "session"
    engine: Literal["auto", "kernel", "reference"] = "auto"
    chunk: Optional[int] = Field(None, ge=1)  # deals per chunk
    bots: Any  # a bot for every seat, or a list of 4; a bot is a name or a table with `name`
    variants: list[Any] = Field(min_length=1)  # names, paths or VariantFile tables


@dataclass
class Variant:
    label: str
    rules: Ruleset
    source: str  # as written in the experiment
    overrides: dict
    session: str | None = None  # "series" or "bankroll" when the experiment plays sessions
    length: int | None = None  # series: hands per session
    stride: int | None = None  # series: deals per session slot (length rounded up to 4)

    def describe(self) -> dict:
        s = None
        if self.session == "series":
            s = {"kind": "series", "hands": self.length, "deals_per_session": self.stride}
        elif self.session == "bankroll":
            s = {"kind": "bankroll", "start": self.rules.session.start}
        return {"label": self.label, "ruleset": self.rules.name, "source": self.source,
                "overrides": self.overrides, "sha256": self.rules.sha256(), "session": s}


@dataclass
class Experiment:
    name: str
    description: str
    path: Path | None
    deals: int
    seed: int
    sessions: bool
    rotate: str | None  # None, "round" (every 4 deals) or "session"
    period: int | None  # deals between rotations
    engine: str  # "kernel" or "reference"
    chunk: int
    bots: list[BotSpec]  # distinct bots
    lineup: list[int]  # seat -> index in bots, before rotation
    variants: list[Variant]
    overrides: dict = field(default_factory=dict)  # from the command line

    @property
    def chunks(self) -> int:
        return math.ceil(self.deals / self.chunk)

    def labels(self) -> list[str]:
        return [b.label for b in self.bots]

    def seat_bots(self, deal_ids: np.ndarray) -> np.ndarray:
        """[n, 4] indices into `bots`: who sits where at each deal."""
        line = np.asarray(self.lineup, np.int64)
        d = np.asarray(deal_ids, np.int64)
        rot = np.zeros(len(d), np.int64) if self.period is None else (d // self.period) % 4
        return np.stack([line[(s - rot) % 4] for s in range(4)], axis=1)

    def bots_at(self, deal_id: int) -> list[str]:
        row = self.seat_bots(np.array([deal_id]))[0]
        return [self.bots[int(i)].label for i in row]

    def run_key(self, log: bool) -> dict:
        """What must match for a results folder to be resumed: everything that shapes a row."""
        return {
            "kopsim": kopsim_version(), "engine_code": engine_fingerprint(),
            "deals": self.deals, "seed": self.seed,
            "sessions": self.sessions, "rotate": self.rotate, "rotation_period": self.period,
            "engine": self.engine, "chunk": self.chunk, "log": bool(log),
            "bots": [self._bot_json(self.bots[i]) for i in self.lineup],
            "variants": [{"label": v.label, "sha256": v.rules.sha256(),
                          "session": v.describe()["session"]} for v in self.variants],
        }

    @staticmethod
    def _bot_json(b: BotSpec) -> dict:
        return {"label": b.label, "name": b.name, "params": b.params.model_dump(mode="json")}

    def manifest(self, log: bool) -> dict:
        """manifest.json: the experiment, every resolved ruleset and its hash, the seeds."""
        key = self.run_key(log)
        variants = []
        for v in self.variants:
            d = v.describe()
            variants.append({"label": v.label, "ruleset_name": v.rules.name,
                             "ruleset_sha256": v.rules.sha256(), "source": d["source"],
                             "overrides": d["overrides"], "session": d["session"],
                             "ruleset": json.loads(v.rules.canonical_json())})
        return {
            "format": R.FORMAT,
            "kopsim_version": kopsim_version(),
            "experiment": {
                "name": self.name, "description": self.description,
                "file": None if self.path is None else str(self.path),
                "deals": self.deals, "seed": self.seed, "sessions": self.sessions,
                "rotate": self.rotate, "rotation_period": self.period, "engine": self.engine,
                "overrides": self.overrides,
                "bots": [dict(seat=s, **self._bot_json(self.bots[i]))
                         for s, i in enumerate(self.lineup)],
                "variants": [v.label for v in self.variants],
            },
            "variants": variants,
            "deals": self.deals,
            "seed": self.seed,
            "seeds": {"run_seed": self.seed,
                      "hand_seed": "kopsim.rng.hand_seed(run_seed, deal_id): the same deal id "
                                   "has the same seed in every variant",
                      "dealer": "deal_id % 4; a session starts on a deal id divisible by 4",
                      "rotation": None if self.period is None else
                      f"the line-up moves (deal_id // {self.period}) % 4 seats clockwise"},
            "chunks": {"size": self.chunk, "count": self.chunks},
            "log": bool(log),
            "run_key": key,
            "run_key_sha256": hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest(),
            "status": {"complete": False},
        }


def load_experiment(path: str | Path, deals: int | None = None, seed: int | None = None,
                    chunk: int | None = None) -> Experiment:
    """Read and check an experiment file; every problem is located (file, key path)."""
    path = Path(path)
    if not path.exists():
        raise InputError([Problem(str(path), "", "no such experiment file")])
    data = _read_toml(path, str(path))
    return experiment_from_dict(data, path, deals=deals, seed=seed, chunk=chunk)


def experiment_from_dict(data: dict, path: Path | None = None, deals: int | None = None,
                         seed: int | None = None, chunk: int | None = None) -> Experiment:
    src = str(path) if path is not None else "<experiment>"
    overrides = {}
    if deals is not None:
        data = {**data, "deals": deals}
        overrides["deals"] = deals
    if seed is not None:
        data = {**data, "seed": seed}
        overrides["seed"] = seed
    if chunk is not None:
        data = {**data, "chunk": chunk}
        overrides["chunk"] = chunk
    problems: list[Problem] = []
    try:
        f = ExperimentFile.model_validate(data)
    except ValidationError as e:  # report these, and go on checking the keys that were fine
        problems += _problems(src, e.errors())
        bad = {err["loc"][0] for err in e.errors() if err["loc"]}
        fine = {k: v for k, v in data.items() if k in ExperimentFile.model_fields and k not in bad}
        f = ExperimentFile.model_construct(**{"deals": 1, "bots": "random", "variants": [],
                                              **fine})
    base = path.parent if path is not None else Path.cwd()
    if not (isinstance(f.rotate, bool) or f.rotate == "session"):
        problems.append(Problem(src, "rotate", f"expected true, false or \"session\" "
                                f"(got {f.rotate!r})"))

    # --- bots
    if not isinstance(f.bots, (str, dict, list)):
        raise InputError(problems + [Problem(src, "bots", "expected a bot (a name or a table "
                                             f"with `name`) or a list of 4 (got {f.bots!r})")])
    raw_bots = f.bots if isinstance(f.bots, list) else [f.bots] * 4
    if len(raw_bots) != 4:
        problems.append(Problem(src, "bots", f"give one bot per seat (4), or one bot for all "
                                f"seats; got {len(raw_bots)}"))
    specs: list[BotSpec] = []
    for i, b in enumerate(raw_bots[:4]):
        where = f"{src}: bots" if not isinstance(f.bots, list) else f"{src}: bots[{i}]"
        if not isinstance(b, (str, dict)):
            problems.append(Problem(where, "", f"expected a bot name or a table with `name` "
                                    f"(got {b!r})"))
            continue
        try:
            specs.append(bot_spec(b, where=where))
        except InputError as e:
            if not isinstance(f.bots, list) and i > 0:
                continue
            problems += e.problems
    bots: list[BotSpec] = []
    lineup: list[int] = []
    if len(specs) == 4:
        for i, s in enumerate(specs):
            same = [j for j, b in enumerate(bots) if b.label == s.label]
            if same:
                b = bots[same[0]]
                if b.cls is not s.cls or b.params != s.params:
                    problems.append(Problem(src, f"bots[{i}]", f"label {s.label!r} already names "
                                            "a different bot: give each bot its own `label`"))
                lineup.append(same[0])
            else:
                lineup.append(len(bots))
                bots.append(s)
    engine = f.engine
    plain = [b.label for b in bots if b.kernel_kind is None]
    if engine == "auto":
        engine = "reference" if plain else "kernel"
    elif engine == "kernel" and plain:
        problems.append(Problem(src, "engine", "the batch kernel cannot play "
                                f"{', '.join(plain)} (plain-Python bots): use \"reference\""))

    # --- variants
    variants: list[Variant] = []
    index: list[int] = []  # position of each loaded variant in the file
    for i, v in enumerate(f.variants):
        if isinstance(v, str):
            spec = VariantFile(ruleset=v)
        elif isinstance(v, dict):
            try:
                spec = VariantFile.model_validate(v)
            except ValidationError as e:
                problems += _problems(src, e.errors(), prefix=("variants", i))
                continue
        else:
            problems.append(Problem(src, f"variants[{i}]", "expected a ruleset (a bundled name "
                                    f"or a path) or a table with `ruleset` (got {v!r})"))
            continue
        try:
            variants.append(_load_variant(spec, i, src, base, f.sessions))
            index.append(i)
        except InputError as e:
            problems += e.problems
    seen: dict[str, int] = {}
    for i, v in zip(index, variants):
        if not LABEL_RE.match(v.label):
            problems.append(Problem(src, f"variants[{i}].label", f"{v.label!r} cannot name a "
                                    "results folder: use letters, digits, '.', '_', '-', '+'"))
        if v.label in seen:
            problems.append(Problem(src, f"variants[{i}]", f"two variants are labelled "
                                    f"{v.label!r}: give each a distinct `label`"))
        seen[v.label] = i

    # --- rotation and chunks
    rotate: str | None = None
    period: int | None = None
    if f.rotate is True:
        rotate, period = "round", 4
    elif f.rotate == "session":
        rotate = "session"
        kinds = {v.session for v in variants}
        strides = {v.stride for v in variants if v.session == "series"}
        if "bankroll" in kinds:
            problems.append(Problem(src, "rotate", "\"session\" rotation needs sessions of a fixed "
                                    "length; a bankroll session ends in play: use rotate = true"))
        elif not strides:
            problems.append(Problem(src, "rotate", "\"session\" rotation needs sessions = true "
                                    "and a variant whose ruleset has a series"))
        elif len(strides) > 1:
            problems.append(Problem(src, "rotate", "\"session\" rotation needs every series to "
                                    f"have the same length (got {sorted(strides)})"))
        else:
            period = strides.pop()
    if problems:
        raise InputError(problems)
    size = f.chunk or _default_chunk(f.deals, engine)
    unit = 1
    for v in variants:
        if v.stride:
            unit = unit * v.stride // math.gcd(unit, v.stride)
    size = math.ceil(size / unit) * unit  # series chunks hold whole sessions
    name = f.name or (path.stem if path is not None else "experiment")
    return Experiment(name=name, description=f.description, path=path, deals=f.deals,
                      seed=f.seed, sessions=f.sessions, rotate=rotate, period=period,
                      engine=engine, chunk=size, bots=bots, lineup=lineup, variants=variants,
                      overrides=overrides)


def _default_chunk(deals: int, engine: str) -> int:
    """Large chunks for throughput, but at least ~32 of them per variant while they can stay
    above a floor, so that the jobs finish together. A function of the deals alone: a run
    resumed with another --jobs keeps its chunks."""
    size, floor = (KERNEL_CHUNK, 4096) if engine == "kernel" else (REFERENCE_CHUNK, 16)
    while size > floor and deals < 32 * size:
        size //= 2
    return size


def _load_variant(spec: VariantFile, i: int, src: str, base: Path, sessions: bool) -> Variant:
    name = spec.ruleset
    is_path = name.endswith(".toml") or "/" in name or "\\" in name
    target: str | Path = name
    if is_path and not Path(name).is_absolute():
        target = base / name
    try:
        data, rpath = load_raw(target)
    except InputError as e:
        if any("no such ruleset file" in p.message for p in e.problems):
            raise InputError([Problem(src, f"variants[{i}].ruleset", f"no ruleset {name!r}: "
                                      + e.problems[0].message)])
        raise
    data.setdefault("name", rpath.stem)
    if spec.overrides:
        data = _merge(data, spec.overrides)
        rsrc = f"{src}: variants[{i}].overrides (over {name})"
    else:
        rsrc = str(rpath)
    rules = ruleset_from_dict(data, rsrc)
    v = Variant(label=spec.label or rules.name, rules=rules, source=name,
                overrides=spec.overrides)
    if sessions and rules.session is not None:
        v.session = rules.session.kind
        if v.session == "series":
            v.length = rules.session.hands
            v.stride = math.ceil(v.length / 4) * 4
    return v


def _problems(src: str, errors: list[dict], prefix: tuple = ()) -> list[Problem]:
    out = []
    for err in errors:
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        elif err["type"] == "missing":
            msg = "missing required key"
        elif "input" in err and err["type"] != "value_error":
            msg = f"{msg} (got {err['input']!r})"
        out.append(Problem(src, dotted((*prefix, *err["loc"])), msg))
    return out


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

CARRY0 = {"open": False, "session": -1, "next_session": 0, "hands": 0, "balance": None,
          "first_deal": -1}


def _finish_bankroll(exp: Experiment, v: Variant, r: ChunkResult, carry: dict):
    """Complete a bankroll chunk in deal order: session and hand index per hand, the sessions
    that ended in it, its log lines; the carry (open session) is stored with the chunk."""
    import polars as pl

    from .sessionrows import bankroll_scan

    df = r.hands
    keep, sess, hidx, ended, carry = bankroll_scan(v.rules.session, carry,
                                                   df["deal_id"].to_numpy(), r.payouts,
                                                   final=r.stop >= exp.deals)
    df = df[keep].with_columns(pl.Series("session", sess.astype(np.int32)),
                               pl.Series("hand_index", hidx.astype(np.int32)))
    first = ended["first_deal"]
    sessions = R.sessions_frame(v.label, v.rules.name, exp.labels(), ended["session"],
                                ended["hands"], ended["complete"], first,
                                exp.seat_bots(first), ended["balance"], None)
    log = None
    if r.log is not None:
        lines = r.log.decode("utf-8").split("\n")
        out = []
        for i, s, h in zip(keep.tolist(), sess.tolist(), hidx.tolist()):
            line = lines[i].replace('"hand_index":-1,', f'"hand_index":{h},', 1)
            out.append(line[:-1] + f',"session":{s}}}\n')
        log = "".join(out).encode("utf-8")
    return R.parquet_bytes(df), R.parquet_bytes(sessions), log, len(df), carry


def _carry_from_files(out: Path, v: Variant, k: int) -> dict:
    """The bankroll state after chunk k-1, from the hands already written (chunks 0..k-1 are
    whole): the last session's hands are walked again, exactly as the run walked them."""
    import polars as pl

    from .sessionrows import bankroll_scan

    parts = []
    last = None
    for j in range(k - 1, -1, -1):
        df = pl.read_parquet(R.hands_path(out, v.label, j),
                             columns=["deal_id", "session"] + [f"payout_{i}" for i in range(4)])
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
    pay = rows.select([f"payout_{i}" for i in range(4)]).to_numpy()
    *_, carry = bankroll_scan(v.rules.session, start, rows["deal_id"].to_numpy(), pay,
                              final=False)
    return carry


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


# -------------------------------------------------------------------------------- plan text


def plan_text(exp: Experiment, out: Path, log: bool) -> str:
    nv = len(exp.variants)
    lines = [f"experiment {exp.name}: {exp.deals:,} deals x {nv} variant{'s' * (nv != 1)}, "
             f"seed {exp.seed}, {exp.engine} engine, {exp.chunks} chunk{'s' * (exp.chunks != 1)} of "
             f"{exp.chunk:,} deals"]
    if exp.description:
        lines.append(f"  {exp.description}")
    seats = ", ".join(f"{s}: {exp.bots[i].label}" for s, i in enumerate(exp.lineup))
    rot = {None: "fixed", "round": "rotated one seat every 4 deals",
           "session": f"rotated one seat every session ({exp.period} deals)"}[exp.rotate]
    lines.append(f"  seats {seats} ({rot})")
    for v in exp.variants:
        d = v.describe()
        s = d["session"]
        sess = ("" if s is None else f", {s['kind']} sessions"
                + (f" of {s['hands']} hands" if s["kind"] == "series" else ""))
        lines.append(f"  variant {v.label}: ruleset {v.rules.name} (sha256 "
                     f"{v.rules.sha256()[:12]}){sess}")
    lines.append(f"  results: {out}" + (" (with hand logs)" if log else ""))
    return "\n".join(lines)
