"""Experiment files: variants, bots, deals and seed, validated (kopsim/experiments/run.py plays
them).

An experiment is variants (rulesets) x a bot line-up x a number of deals. Every hand is a pure
function of (run seed, deal id), laid out by kopsim/engine/layout.py: its seed is
`hand_seed(seed, deal_id)`, its dealer `deal_id % n` at n seats, its line-up the experiment's, rotated by a
function of the deal id, and its session (the ruleset's own scoring over many hands, when the
experiment plays sessions) follows from the deal id too, except for bankroll sessions, which end
in play. So every variant plays the same deals (common random numbers), and the number of jobs,
the backend and the chunk size never change a single value in the results.

Series chunks hold whole sessions; bankroll sessions are found by scanning the finished chunks
in deal order in the main process, each chunk's scan starting from where the previous one left
off (a `BankrollCarry`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Optional

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from . import results_folder as R
from ..bots import BotSpec, bot_spec
from ..engine.layout import DealLayout, series_stride
from ..errors import InputError, Problem, did_you_mean, dotted, plain_message
from ..rules.inherit import inherit
from ..rules.load import NoSuchRuleset, echo, load_raw, read_toml, ruleset_from_dict
from ..rules.model import DEFAULT_SEATS, Ruleset

KERNEL_CHUNK = 65536  # deals per chunk when every bot runs in the batch kernel
REFERENCE_CHUNK = 256  # ... when a plain-Python bot makes every hand go through the reference engine
LABEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+=-]*$")  # names a folder: no path, no '..'
MAX_NAME = 100  # characters in an experiment name or a variant label
MAX_DEALS = 10**12  # deal ids, seeds and row counts stay far inside int64
MAX_CHUNK = 2**20  # deals per chunk: one chunk's arrays stay well inside a worker's memory


# Paths under kopsim/: the rules and their tables (not show.py or diff.py, which only describe
# them), both engines and the layout of deals, the bots and solver, the hand records, and what
# plays chunks and writes them.
ENGINE_FILES = ("rules/model.py", "rules/load.py", "rules/validate.py", "rules/compile.py",
                "rules/codes.py", "rules/tables.py",
                "engine/*.py", "bots/*.py", "records/format.py", "experiments/spec.py",
                "experiments/run.py", "experiments/results_folder.py")


_FINGERPRINT: list[str] = []


def engine_fingerprint() -> str:
    """A hash of the code that decides a hand's outcome: a results folder is only resumed by the
    code that started it, and only filled by workers that run the same code (an edited bot or
    kernel would otherwise mix two engines' hands)."""
    if not _FINGERPRINT:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for pattern in ENGINE_FILES:
            for p in sorted(root.glob(pattern)):
                h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
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
    deals: int = Field(ge=1, le=MAX_DEALS)
    seed: int = Field(0, ge=0, lt=2**63)
    sessions: bool = False  # play each ruleset's own session scoring, where it has one
    tournaments: bool = False  # play series as the rounds of each ruleset's tournament
    rotate: Any = False  # false, true (one seat every n deals at n seats) or "session"
    engine: Literal["auto", "kernel", "reference"] = "auto"
    chunk: Optional[int] = Field(None, ge=1, le=MAX_CHUNK)  # deals per chunk
    bots: Any  # a bot for every seat, or one a seat; a bot is a name or a table with `name`
    variants: list[Any] = Field(min_length=1)  # names, paths or VariantFile tables


@dataclass
class Variant:
    label: str
    rules: Ruleset
    source: str  # as written in the experiment
    overrides: dict
    session: str | None = None  # "series" or "bankroll" when the experiment plays sessions
    length: int | None = None  # series: hands per session
    stride: int | None = None  # series: deals per session slot (length rounded up to n seats)
    rounds: int | None = None  # tournaments: series per tournament
    plan: tuple[tuple[int, ...], ...] | None = None  # tournaments: seating plan (None: drawn)
    # the user's ruleset file, absolute, when the variant plays it as it is (no overrides): what
    # its hand records name, so that `kopsim replay` can say which --rules to pass
    rules_file: str | None = None

    def describe(self) -> dict:
        s = None
        if self.session == "series":
            s = {"kind": "series", "hands": self.length, "deals_per_session": self.stride}
            if self.rounds is not None:
                s["tournament"] = {"rounds": self.rounds,
                                   "plan": None if self.plan is None else list(self.plan)}
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
    rotate: str | None  # None, "round" (every n deals at n seats) or "session"
    period: int | None  # deals between rotations
    engine: str  # "kernel" or "reference"
    chunk: int
    bots: list[BotSpec]  # distinct bots
    lineup: list[int]  # seat -> index in bots, before rotation
    variants: list[Variant]
    overrides: dict = field(default_factory=dict)  # from the command line

    @property
    def seats(self) -> int:
        """The table every variant is played at: one bot a seat."""
        return len(self.lineup)

    @property
    def chunks(self) -> int:
        return -(-self.deals // self.chunk)

    def labels(self) -> list[str]:
        return [b.label for b in self.bots]

    def layout(self, v: Variant | None = None) -> DealLayout:
        """How variant v's hands lie on deal ids (None: seeds and seats alone, the same in
        every variant)."""
        if v is None:
            return DealLayout(self.seed, None, None, tuple(self.lineup), self.period)
        return DealLayout(self.seed, v.session, v.length, tuple(self.lineup), self.period,
                          v.rounds, v.plan)

    def seat_bots(self, deal_ids: np.ndarray) -> np.ndarray:
        """[deals, seats] indices into `bots`: who sits where at each deal."""
        return self.layout().seat_bots(deal_ids)

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
                "seats": self.seats, "deals": self.deals, "seed": self.seed, "sessions": self.sessions,
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
                      "hand_seed": "kopsim.engine.rng.hand_seed(run_seed, deal_id): the same deal id "
                                   "has the same seed in every variant",
                      "dealer": f"deal_id % {self.seats}; a session starts on a deal id "
                                f"divisible by {self.seats}",
                      "rotation": None if self.period is None else
                      f"the line-up moves (deal_id // {self.period}) % {self.seats} seats "
                      "clockwise",
                      **({"seating": "tournaments: kopsim.engine.layout.tournament_seating("
                          "run_seed, session, rounds, plan) seats the line-up's players"}
                         if any(v.rounds for v in self.variants) else {})},
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
    data = read_toml(path, str(path))
    if "variants" not in data and (RULESET_KEYS & set(data)):
        raise InputError([Problem(str(path), "", "a ruleset file, not an experiment (it has "
                                  f"{', '.join(sorted(RULESET_KEYS & set(data)))}): play it with "
                                  f"kopsim simulate {path}, or name it in an experiment's "
                                  "[[variants]] (docs/experiments.md)")])
    return experiment_from_dict(data, path, deals=deals, seed=seed, chunk=chunk)


# keys only a ruleset has: a file with them and no variants is a ruleset given to `kopsim run`
RULESET_KEYS = {"extends", "deck", "orders", "contracts", "auction", "doubling", "scoring"}


def experiment_from_dict(data: dict, path: Path | None = None, deals: int | None = None,
                         seed: int | None = None, chunk: int | None = None) -> Experiment:
    """An experiment from the table an experiment file would hold (docs/experiments.md),
    checked as the file is; `path` locates errors and anchors relative ruleset paths, and
    `deals`, `seed`, `chunk` override the table's as the command-line options do."""
    src = str(path) if path is not None else "<experiment>"
    data, overrides = _with_overrides(data, deals, seed, chunk)
    problems: list[Problem] = []
    f = _read_file(data, src, problems)
    base = path.parent if path is not None else Path.cwd()
    if not (isinstance(f.rotate, bool) or f.rotate == "session"):
        problems.append(Problem(src, "rotate", f"expected true, false or \"session\" "
                                f"(got {f.rotate!r})"))
    variants = _variants(f, src, base, problems)
    seats = _table_size(variants, src, problems)
    bots, lineup = _lineup(_bot_specs(f, seats, src, problems), seats, src, problems)
    engine = _engine(f.engine, bots, src, problems)
    _playable(bots, variants, src, problems)
    rotate, period = _rotation(f.rotate, variants, seats, src, problems)
    if f.tournaments:
        _tournaments(variants, f, src, problems)
    name = _experiment_name(f, path, src, problems)
    if problems:
        raise InputError(problems)
    return Experiment(name=name, description=f.description, path=path, deals=f.deals,
                      seed=f.seed, sessions=f.sessions, rotate=rotate, period=period,
                      engine=engine, chunk=_chunk_size(f, engine, variants), bots=bots,
                      lineup=lineup, variants=variants, overrides=overrides)


def _with_overrides(data: dict, deals: int | None, seed: int | None,
                    chunk: int | None) -> tuple[dict, dict]:
    """The file's table with the command line's deals, seed and chunk put in, and those given."""
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
    return data, overrides


def _read_file(data: dict, src: str, problems: list[Problem]) -> ExperimentFile:
    """The experiment table, validated; on errors, reported into problems, the keys that were
    fine (so the checks after can go on)."""
    try:
        return ExperimentFile.model_validate(data)
    except ValidationError as e:  # report these, and go on checking the keys that were fine
        problems += _problems(src, e.errors())
        bad = {err["loc"][0] for err in e.errors() if err["loc"]}
        fine = {k: v for k, v in data.items() if k in ExperimentFile.model_fields and k not in bad}
        return ExperimentFile.model_construct(**{"deals": 1, "bots": "random", "variants": [],
                                                 **fine})


def _table_size(variants: list[Variant], src: str, problems: list[Problem]) -> int:
    """The seats of the variants' table (deck.players): one for the whole experiment, whose
    line-up, rotation and results columns are a seat each (four when no variant loaded)."""
    sizes = {v.rules.deck.players for v in variants}
    if len(sizes) > 1:
        said = ", ".join(f"{v.label} {v.rules.deck.players}" for v in variants)
        problems.append(Problem(src, "variants", "the variants seat different tables "
                                f"({said}): an experiment compares variants of one table "
                                "size; run each size as its own experiment"))
    return variants[0].rules.deck.players if variants else DEFAULT_SEATS


def _bot_specs(f: ExperimentFile, seats: int, src: str,
               problems: list[Problem]) -> list[BotSpec]:
    """The bot of each seat as given (one for all seats, or a list of one a seat)."""
    if not isinstance(f.bots, (str, dict, list)):
        raise InputError(problems + [Problem(src, "bots", "expected a bot (a name or a table "
                                             f"with `name`) or a list of {seats} (got "
                                             f"{f.bots!r})")])
    raw_bots = f.bots if isinstance(f.bots, list) else [f.bots] * seats
    if len(raw_bots) != seats:
        problems.append(Problem(src, "bots", f"give one bot per seat ({seats}, the variants' "
                                f"table), or one bot for all seats; got {len(raw_bots)}"))
    specs: list[BotSpec] = []
    for i, b in enumerate(raw_bots[:seats]):
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
    return specs


def _lineup(specs: list[BotSpec], seats: int, src: str,
            problems: list[Problem]) -> tuple[list[BotSpec], list[int]]:
    """The distinct bots (by label) and which of them sits in each seat; none unless every
    seat has a bot."""
    bots: list[BotSpec] = []
    lineup: list[int] = []
    if len(specs) == seats:
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
    return bots, lineup


def _playable(bots: list[BotSpec], variants: list[Variant], src: str,
              problems: list[Problem]) -> None:
    for v in variants:
        for b in bots:
            why = b.cannot_play(v.rules)
            if why:
                problems.append(Problem(src, "bots", f"{b.label} cannot play {v.label}: {why}"))


def _engine(engine: str, bots: list[BotSpec], src: str, problems: list[Problem]) -> str:
    """The engine asked for, with "auto" resolved: the kernel unless a bot is plain Python."""
    plain = [b.label for b in bots if b.kernel_kind is None]
    if engine == "auto":
        engine = "reference" if plain else "kernel"
    elif engine == "kernel" and plain:
        problems.append(Problem(src, "engine", "the batch kernel cannot play "
                                f"{', '.join(plain)} (plain-Python bots): use \"reference\""))
    return engine


def _variants(f: ExperimentFile, src: str, base: Path, problems: list[Problem]) -> list[Variant]:
    """The variants that load, each with a label that can name a results folder and that no
    other variant has."""
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
        if not safe_name(v.label):
            problems.append(Problem(src, f"variants[{i}].label", f"{v.label!r} cannot name a "
                                    f"results folder: {NAME_RULE}"))
        if v.label in seen:
            problems.append(Problem(src, f"variants[{i}]", f"two variants are labelled "
                                    f"{v.label!r}: give each a distinct `label`"))
        seen[v.label] = i
    return variants


def _rotation(given: Any, variants: list[Variant], seats: int, src: str,
              problems: list[Problem]) -> tuple[str | None, int | None]:
    """The seat rotation ("round": one seat every round of deals, "session" or None) and its
    period in deals."""
    rotate: str | None = None
    period: int | None = None
    if given is True:
        rotate, period = "round", seats
    elif given == "session":
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
    return rotate, period


def _tournaments(variants: list[Variant], f: ExperimentFile, src: str,
                 problems: list[Problem]) -> None:
    """Each variant whose ruleset has a tournament plays its series as the rounds of one."""
    if not f.sessions:
        problems.append(Problem(src, "tournaments", "a tournament's rounds are series: it "
                                "needs sessions = true"))
    if f.rotate is not False:
        problems.append(Problem(src, "rotate", "the players of a tournament are re-seated "
                                "between rounds: set rotate = false"))
    playing = [v for v in variants if v.session == "series" and v.rules.session.tournament]
    if f.sessions and not playing:
        problems.append(Problem(src, "tournaments", "no variant's ruleset has a "
                                "[session.tournament]"))
    for v in playing:
        t = v.rules.session.tournament
        v.rounds = t.rounds
        v.plan = tuple(tuple(row) for row in t.plan) if t.seating == "plan" else None


def _experiment_name(f: ExperimentFile, path: Path | None, src: str,
                     problems: list[Problem]) -> Any:
    """The experiment's name: `name`, else the file's name; it must name a results folder."""
    name = f.name if f.name is not None else (path.stem if path is not None else "experiment")
    if not isinstance(name, str) or not safe_name(name):
        given = "" if f.name is not None else " (the file's name, as no `name` is given)"
        problems.append(Problem(src, "name", f"{name!r}{given} cannot name a results folder: "
                                f"{NAME_RULE}"))
    return name


def _chunk_size(f: ExperimentFile, engine: str, variants: list[Variant]) -> int:
    """Deals per chunk: as given or the engine's default, rounded up to hold whole series."""
    size = f.chunk or _default_chunk(f.deals, engine)
    unit = 1
    for v in variants:
        if v.stride:
            unit = unit * v.stride // math.gcd(unit, v.stride)
    return math.ceil(size / unit) * unit  # series chunks hold whole sessions


NAME_RULE = (f"use up to {MAX_NAME} letters, digits, '.', '_', '-', '+', '=', starting with a "
             "letter or digit")


def safe_name(name: str) -> bool:
    """A name that can only ever be one file name inside the results folder."""
    return len(name) <= MAX_NAME and LABEL_RE.fullmatch(name) is not None


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
    is_path = name.endswith(".toml") or "/" in name or "\\" in name or name in (".", "..")
    target: str | Path = name
    if is_path and not Path(name).is_absolute():
        target = base / name
    try:
        data, rpath = load_raw(target)
    except NoSuchRuleset as e:  # a missing file, or a bare name that is not bundled
        raise InputError([Problem(src, f"variants[{i}].ruleset", f"no ruleset {name!r}: "
                                  + e.problems[0].message)])
    data.setdefault("name", rpath.stem)
    if spec.overrides:
        rsrc = f"{src}: variants[{i}].overrides (over {name})"
        data, _ = inherit(data, spec.overrides, rsrc)
    else:
        rsrc = str(rpath)
    rules = ruleset_from_dict(data, rsrc)
    v = variant_of(spec.label or rules.name, rules, name, spec.overrides, sessions)
    if is_path and not spec.overrides:
        v.rules_file = str(rpath.resolve())
    return v


def variant_of(label: str, rules: Ruleset, source: str, overrides: dict, sessions: bool
               ) -> Variant:
    """The variant that plays `rules` (and, with `sessions`, the ruleset's own sessions)."""
    v = Variant(label=label, rules=rules, source=source, overrides=overrides)
    if sessions and rules.session is not None:
        v.session = rules.session.kind
        if v.session == "series":
            v.length = rules.session.hands
            v.stride = series_stride(v.length, v.rules.deck.players)
    return v


def _keys_beside(prefix: tuple, loc: tuple) -> list[str]:
    """The keys allowed in the table where `loc`'s last key was found: the experiment's own,
    or a variant's."""
    model = VariantFile if prefix[:1] == ("variants",) else ExperimentFile
    return list(model.model_fields) if len(loc) == 1 else []


def _problems(src: str, errors: list[dict], prefix: tuple = ()) -> list[Problem]:
    out = []
    for err in errors:
        if err["type"] == "extra_forbidden":
            msg = "unknown key" + did_you_mean(err["loc"][-1], _keys_beside(prefix, err["loc"]))
        elif err["type"] == "missing":
            msg = "missing required key"
        else:
            msg = plain_message(err, echo=echo)
        out.append(Problem(src, dotted((*prefix, *err["loc"])), msg))
    return out


# -------------------------------------------------------------------------------- plan text


def plan_text(exp: Experiment, out: Path, log: bool) -> str:
    nv = len(exp.variants)
    lines = [f"experiment {exp.name}: {exp.deals:,} deals x {nv} variant{'s' * (nv != 1)}, "
             f"seed {exp.seed}, {exp.engine} engine, {exp.chunks} chunk{'s' * (exp.chunks != 1)} of "
             f"{exp.chunk:,} deals"]
    if exp.description:
        lines.append(f"  {exp.description}")
    seats = ", ".join(f"{s}: {exp.bots[i].label}" for s, i in enumerate(exp.lineup))
    rot = {None: "fixed", "round": f"rotated one seat every {exp.seats} deals",
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
