"""Reading a results folder (docs/results.md): the manifest, and lazy scans of the Parquet files.

Nothing is loaded here but the manifest, the chunk index and the Parquet footers: every chunk file
is checked against the chunk index (kopsim run writes it) and left out when it is damaged,
replaced or not in the index; an unfinished run, missing or extra chunks become `warnings`
(printed on stderr, shown at the top of the report). Every file's schema is checked up front so
that a wrong or missing column is reported with its file, and the hands themselves are only ever
read by the lazy queries of `analysis`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl

from ..experiments import results_folder as R
from ..errors import InputError, Problem, dotted
from ..experiments.results_folder import hand_schema, session_schema
from ..rules.model import DEFAULT_SEATS, MAX_SEATS, MIN_SEATS


def _kinds(schema: dict, extra: tuple[str, ...] = ()) -> dict[str, str]:
    """column -> kind of the columns docs/results.md fixes (kopsim.experiments.results_folder writes them); a
    reader accepts any integer width, any number type, and ignores extra columns."""
    def kind(t) -> str:
        if t == pl.String:
            return "str"
        if t == pl.Boolean:
            return "bool"
        return "int" if t.is_integer() else "num"
    return {c: kind(t) for c, t in schema.items() if c not in extra}


def hand_columns(seats: int) -> dict[str, str]:
    """The hands file's required columns at a table of `seats` (nominal_payout_*: added later,
    optional)."""
    return _kinds(hand_schema(seats), extra=tuple(f"nominal_payout_{s}" for s in range(seats)))


def session_columns(seats: int) -> dict[str, str]:
    """The sessions file's required columns (first_deal, tournament, round: added later)."""
    return _kinds(session_schema(seats), extra=("first_deal", "tournament", "round"))


def hand_read(seats: int) -> dict:
    """The hand columns the report reads, with the types it reads them as."""
    ids = range(seats)
    return {"variant": pl.String, "deal_id": pl.Int64, "session": pl.Int64, "dealer": pl.Int8,
            "contract": pl.String, "doubles": pl.Int16, "winner": pl.String, "tier": pl.String,
            **{f"bot_{s}": pl.String for s in ids}, **{f"old_{s}": pl.Boolean for s in ids},
            **{f"points_{s}": pl.Float64 for s in ids},
            **{f"payout_{s}": pl.Float64 for s in ids}}


def session_read(seats: int) -> dict:
    ids = range(seats)
    return {"variant": pl.String, "session": pl.Int64, "hands": pl.Int64,
            "complete": pl.Boolean, **{f"bot_{s}": pl.String for s in ids},
            **{f"total_{s}": pl.Float64 for s in ids},
            **{f"place_points_{s}": pl.Float64 for s in ids},
            **{f"won_{s}": pl.Boolean for s in ids}}


KIND_WORDS = {"str": "a string", "int": "an integer", "num": "a number", "bool": "a boolean"}


def _kind_ok(dtype: pl.DataType, kind: str) -> bool:
    if dtype == pl.Null:
        return True  # a column that is null in every row of a chunk
    if kind == "str":
        return dtype in (pl.String, pl.Categorical) or isinstance(dtype, (pl.Enum, pl.Categorical))
    if kind == "int":
        return dtype.is_integer()
    if kind == "num":
        return dtype.is_numeric()
    return dtype == pl.Boolean


@dataclass
class Variant:
    label: str
    ruleset_name: str = ""
    ruleset_sha256: str = ""
    ruleset: object = None  # kopsim.rules.model.Ruleset, or None when the manifest has none
    description: str = ""
    in_manifest: bool = True
    overrides: dict = field(default_factory=dict)  # the experiment's changes to its ruleset


@dataclass
class Results:
    path: Path
    manifest: dict
    experiment: dict
    variants: list[Variant]
    hand_files: list[Path]
    session_files: list[Path] = field(default_factory=list)
    # the hand records of a run with --log, each vouched for by the chunk index (the report
    # draws the deals it cites from them)
    log_files: list[Path] = field(default_factory=list)
    # what a reader must know before trusting the figures: an unfinished run, chunks missing,
    # left out as damaged, or extra; empty when all is well
    warnings: list[str] = field(default_factory=list)
    seats: int = DEFAULT_SEATS  # the table the experiment played (a column a seat)

    @property
    def name(self) -> str:
        name = self.experiment.get("name")
        return str(name) if name else self.path.resolve().name

    def hands(self) -> pl.LazyFrame:
        """Every hand, lazily: the columns the report reads, typed as it reads them."""
        return _scan(self.hand_files, hand_read(self.seats))

    def sessions(self) -> pl.LazyFrame | None:
        return (_scan(self.session_files, session_read(self.seats)) if self.session_files
                else None)


def _scan(files: list[Path], read: dict) -> pl.LazyFrame:
    lf = pl.scan_parquet([str(f) for f in files], extra_columns="ignore",
                         missing_columns="insert",
                         cast_options=pl.ScanCastOptions(integer_cast="upcast",
                                                         float_cast="upcast"))
    return lf.select([pl.col(c).cast(t, strict=False) for c, t in read.items()])


def _chunk_files(folder: Path, ext: str = "parquet") -> list[Path]:
    """The finished chunk files: hidden and temporary names are skipped (docs/results.md)."""
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.glob(f"*/*.{ext}") if p.is_file()
                  and not p.name.startswith(".") and not p.parent.name.startswith("."))


def _check_schema(path: Path, columns: dict[str, str], problems: list[Problem]) -> None:
    try:
        schema = pl.read_parquet_schema(path)
    except Exception as e:  # noqa: BLE001 - polars raises several kinds for a bad file
        problems.append(Problem(str(path), "", f"cannot read as Parquet: {_short(e)}"))
        return
    for col, kind in columns.items():
        if col not in schema:
            problems.append(Problem(str(path), f"column {col}",
                                    "missing (the columns are listed in docs/results.md)"))
        elif not _kind_ok(schema[col], kind):
            problems.append(Problem(str(path), f"column {col}",
                                    f"expected {KIND_WORDS[kind]}, found {schema[col]}"))


def _short(e: Exception) -> str:
    return str(e).strip().splitlines()[0][:300] if str(e).strip() else type(e).__name__


def _manifest(path: Path) -> dict:
    mpath = path / "manifest.json"
    if not mpath.is_file():
        raise InputError([Problem(str(mpath), "", "missing: a results folder holds manifest.json "
                                  "and hands/VARIANT/*.parquet (see docs/results.md)")])
    try:
        text = mpath.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise InputError([Problem(str(mpath), "", f"cannot read: {e}")])
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError([Problem(str(mpath), f"line {e.lineno}, column {e.colno}",
                                  f"invalid JSON: {e.msg}")])
    if not isinstance(data, dict):
        raise InputError([Problem(str(mpath), "", "expected a JSON object")])
    return data


def _variants(mpath: Path, data: dict, problems: list[Problem]) -> list[Variant]:
    from pydantic import ValidationError

    from ..rules.load import pydantic_problem
    from ..rules.model import Ruleset

    raw = data.get("variants")
    if not isinstance(raw, list) or not raw:
        problems.append(Problem(str(mpath), "variants", "expected a non-empty list of variants"))
        return []
    out: list[Variant] = []
    for i, v in enumerate(raw):
        where = f"variants[{i}]"
        if not isinstance(v, dict):
            problems.append(Problem(str(mpath), where, "expected an object"))
            continue
        label = v.get("label")
        if not isinstance(label, str) or not label:
            problems.append(Problem(str(mpath), f"{where}.label", "missing: the variant's label"))
            continue
        if any(x.label == label for x in out):
            problems.append(Problem(str(mpath), f"{where}.label", f"{label!r} is listed twice"))
            continue
        rules = None
        rdata = v.get("ruleset")
        if rdata is not None:
            try:
                rules = Ruleset.model_validate(rdata)
            except ValidationError as e:
                for err in e.errors():
                    p = pydantic_problem(str(mpath), err)
                    problems.append(Problem(str(mpath), dotted(
                        ["variants", i, "ruleset"]) + (f".{p.where}" if p.where else ""),
                        p.message))
                continue
        out.append(Variant(
            label=label,
            ruleset_name=str(v.get("ruleset_name") or (rules.name if rules else "")),
            ruleset_sha256=str(v.get("ruleset_sha256") or (rules.sha256() if rules else "")),
            ruleset=rules,
            description=rules.description if rules else str(v.get("description") or ""),
            overrides=v["overrides"] if isinstance(v.get("overrides"), dict) else {}))
    return out


def load_results(path: str | Path) -> Results:
    """The results folder at `path`, checked: located InputErrors for anything missing or
    malformed (exit code 2 at the command line)."""
    path = Path(path)
    if not path.exists():
        raise InputError([Problem(str(path), "", "no such results folder")])
    if not path.is_dir():
        raise InputError([Problem(str(path), "", "not a folder: give the results folder that "
                                  "`kopsim run` wrote")])
    data = _manifest(path)
    mpath = path / "manifest.json"
    problems: list[Problem] = []
    experiment = data.get("experiment", {})
    if not isinstance(experiment, dict):
        problems.append(Problem(str(mpath), "experiment", "expected an object"))
        experiment = {}
    variants = _variants(mpath, data, problems)
    seats = _seats(mpath, experiment, problems)
    warnings = _run_warnings(data)
    on_disk = _chunk_files(path / "hands")
    logs = _chunk_files(path / "logs", "jsonl")
    trusted = _trusted_files(path, data, on_disk + _chunk_files(path / "sessions") + logs,
                             warnings)
    hand_files = [f for f in on_disk if f in trusted]
    session_files = [f for f in _chunk_files(path / "sessions") if f in trusted]
    # a folder without a chunk index trusts every file; its logs are not cited then
    log_files = [f for f in logs if f in trusted] if R.read_index(path).present else []
    if on_disk and not hand_files:
        raise InputError([Problem(str(path / "hands"), "", "no hand file can be trusted: "
                                  + "; ".join(warnings))])
    if not hand_files:
        problems.append(Problem(str(path / "hands"), "", "no hand files: expected "
                                "hands/VARIANT/chunk-*.parquet (has the run finished a chunk?)"))
    for f in hand_files:
        _check_schema(f, hand_columns(seats), problems)
    for f in session_files:
        _check_schema(f, session_columns(seats), problems)
    if problems:
        raise InputError(problems)
    # variants with hands on disk but not in the manifest are reported too, after the others
    known = {v.label for v in variants}
    try:
        labels = (pl.scan_parquet([str(f) for f in hand_files], extra_columns="ignore",
                                  missing_columns="insert")
                  .select(pl.col("variant").cast(pl.String)).unique().collect())
    except pl.exceptions.PolarsError as e:
        raise InputError([Problem(str(path / "hands"), "", f"cannot read: {_short(e)}")])
    for label in sorted(x for x in labels["variant"].to_list() if x is not None):
        if label not in known:
            variants.append(Variant(label=label, in_manifest=False))
    return Results(path=path, manifest=data, experiment=experiment, variants=variants,
                   hand_files=hand_files, session_files=session_files, log_files=log_files,
                   warnings=warnings, seats=seats)


def _seats(mpath: Path, experiment: dict, problems: list[Problem]) -> int:
    """The seats of the experiment's table: `experiment.seats` (folders written before it was
    recorded, or by hand without it, hold tables of four)."""
    seats = experiment.get("seats", DEFAULT_SEATS)
    if isinstance(seats, bool) or not isinstance(seats, int) \
            or not MIN_SEATS <= seats <= MAX_SEATS:
        problems.append(Problem(str(mpath), "experiment.seats", f"expected a whole number of "
                                f"seats from {MIN_SEATS} to {MAX_SEATS} (got {seats!r})"))
        return DEFAULT_SEATS
    return seats


REPLAY = "run the same `kopsim run` command again to replay it"


def _written_by_run(data: dict) -> bool:
    """A folder of `kopsim run` (its manifest has a run key), not one written by hand."""
    return isinstance(data.get("run_key"), dict)


def _run_warnings(data: dict) -> list[str]:
    if not _written_by_run(data):
        return []
    status = data.get("status")
    if isinstance(status, dict) and status.get("complete") is True:
        return []
    return ["the run is not finished (interrupted, or still running): its manifest is not "
            "complete, so the figures cover only the chunks written so far"]


def _trusted_files(path: Path, data: dict, files: list[Path], warnings: list[str]) -> set[Path]:
    """The chunk files that match their line in the chunk index; the others are left out, and
    `warnings` says which and why, and which chunks the manifest expects but are not there."""
    index = R.read_index(path)
    if not index.present:
        if _written_by_run(data):
            warnings.append(f"the folder has no chunk index ({R.INDEX}): its chunk files cannot "
                            "be verified")
        return set(files)
    for why in index.damaged:
        warnings.append(f"{R.INDEX} {why}: the chunk it described is left out")
    planned = _planned(data)
    good: set[str] = set()
    done: dict[str, set[int]] = {}
    for (label, k), line in sorted(index.lines.items()):
        why = R.damage(path, line)
        if planned is not None and (label not in planned[0] or k >= planned[1]):
            why = "it is not a chunk of the run in the manifest (an extra chunk)"
        if why:
            warnings.append(f"chunk {k} of variant {label!r} is left out: {why}"
                            + ("" if "extra" in why else f"; {REPLAY}"))
            continue
        good.update(rec["file"] for rec in line["files"])
        done.setdefault(label, set()).add(k)
    bad_lines = {rec["file"] for line in index.lines.values() for rec in line["files"]} - good
    trusted = set()
    for f in files:
        name = f.relative_to(path).as_posix()
        if name in good:
            trusted.add(f)
        elif name not in bad_lines:
            warnings.append(f"{f} is left out: it is not in the chunk index (an extra file)")
    if planned is not None:
        warnings += _missing_chunks(planned, done)
    return trusted


def _planned(data: dict) -> tuple[list[str], int] | None:
    """The variant labels and the chunk count per variant the manifest promises, if it says."""
    chunks = data.get("chunks")
    count = chunks.get("count") if isinstance(chunks, dict) else None
    raw = data.get("variants")
    if type(count) is not int or count < 0 or not isinstance(raw, list):
        return None
    labels = [v["label"] for v in raw if isinstance(v, dict) and isinstance(v.get("label"), str)]
    return labels, count


def _missing_chunks(planned: tuple[list[str], int], done: dict[str, set[int]]) -> list[str]:
    labels, count = planned
    out = []
    for label in labels:
        have = done.get(label, set())
        if len(have) == count:
            continue
        first = []
        k = 0
        while len(first) < 5 and k < count:  # a few names, without walking every chunk id
            if k not in have:
                first.append(k)
            k += 1
        more = ", ..." if count - len(have) > len(first) else ""
        out.append(f"variant {label!r}: {count - len(have):,} of {count:,} chunks are missing "
                   f"or left out (chunk {', '.join(map(str, first))}{more})")
    return out
