"""Reading a ruleset: a bundled name or a TOML file, `extends` resolved, file size and nesting
capped, then the models (`model`) and the semantic checks (`validate`)."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..errors import InputError, Problem, did_you_mean, dotted, plain_message
from .model import MAX_EXTENDS_CHAIN, MAX_EXTENDS_CHARS, MAX_FILE_BYTES, MAX_NESTING, Ruleset
from .inherit import INHERIT_KEY, inherit
from .validate import check_semantics

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "rulesets"


# --------------------------------------------------------------------------------------- loading


def bundled_names() -> list[str]:
    return sorted(p.stem for p in BUNDLED_DIR.glob("*.toml"))


def resolve_path(name_or_path: str | Path, relative_to: Path | None = None) -> Path:
    """A bare name ("kop") is a bundled ruleset; anything ending in .toml or holding a path
    separator is a file, relative to the extending file's folder when given from `extends`."""
    s = str(name_or_path)
    p = Path(s)
    if p.suffix != ".toml" and "/" not in s and "\\" not in s and s not in (".", ".."):
        return BUNDLED_DIR / f"{s}.toml"
    if relative_to is not None and not p.is_absolute():
        return relative_to / p
    return p


class NoSuchRuleset(InputError):
    """The ruleset named does not exist (as opposed to existing and being wrong), so a caller
    that named it can say where it was named."""


def _read_text(path: Path, label: str) -> str:
    """The text of a ruleset file: a regular file of at most MAX_FILE_BYTES, in UTF-8. Opened
    without blocking and checked before reading, so a FIFO or a device is refused, not read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        if path.parent == BUNDLED_DIR:  # a bare name: say so, not where bundled files live
            raise NoSuchRuleset([Problem(path.stem, "", "no bundled ruleset of that name"
                                         f"{did_you_mean(path.stem, bundled_names())} (bundled: {', '.join(bundled_names())}; or give a "
                                         ".toml path)")])
        raise NoSuchRuleset([Problem(label, "", "no such ruleset file "
                                     f"(bundled rulesets: {', '.join(bundled_names())})")])
    except (OSError, ValueError) as e:
        raise InputError([Problem(label, "", f"cannot read: {e}")])
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # a folder, a FIFO, a device: checked before any read
            what = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
            raise InputError([Problem(label, "", f"{what}: expected a TOML file")])
        data = _read_up_to(fd, MAX_FILE_BYTES + 1)
    except OSError as e:
        raise InputError([Problem(label, "", f"cannot read: {e.strerror or e}")])
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise InputError([Problem(label, "", f"larger than {MAX_FILE_BYTES:,} bytes: "
                                  "not a ruleset file")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError([Problem(label, "", f"cannot read: not UTF-8 text ({e.reason} at byte "
                                  f"{e.start})")])


def _read_up_to(fd: int, limit: int) -> bytes:
    parts, size = [], 0
    while size < limit:
        part = os.read(fd, limit - size)
        if not part:
            break
        parts.append(part)
        size += len(part)
    return b"".join(parts)


def read_toml(path: Path, label: str) -> dict:
    text = _read_text(path, label)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        line = _deep_line(text)
        raise InputError([Problem(str(path), f"line {line}" if line else "",
                                  "TOML nested too deeply: at most "
                                  f"{MAX_NESTING} tables and arrays inside one another")])
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        where = ""
        lineno = getattr(e, "lineno", None)
        if lineno is not None:
            where = f"line {lineno}, column {e.colno}"
            msg = e.msg
        elif "(at line" in msg:
            msg, _, rest = msg.partition(" (at ")
            where = rest.rstrip(")")
        raise InputError([Problem(str(path), where, f"TOML syntax error: {msg}")])
    _check_nesting(data, str(path))
    return data


def _deep_line(text: str) -> int | None:
    """The line on which brackets and braces, outside strings and comments, first open more than
    MAX_NESTING deep: a rough scan of TOML, only to locate what the parser cannot nest into."""
    depth, line, i = 0, 1, 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            quote = text[i:i + 3] if text[i:i + 3] in ('"""', "'''") else ch
            end = i + len(quote)
            while end < len(text) and not text.startswith(quote, end):
                end += 2 if text[end] == "\\" and quote[0] == '"' else 1
            line += text.count("\n", i, end)
            i = end + len(quote)
            continue
        if ch == "#":
            i = text.find("\n", i)
            if i < 0:
                break
            continue
        if ch == "\n":
            line += 1
        elif ch in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return line
        elif ch in "]}":
            depth -= 1
        i += 1
    return None


def _check_nesting(data: dict, source: str) -> None:
    """Refuse tables and arrays nested deeper than MAX_NESTING (walked without recursion, so the
    check itself cannot overflow the stack), naming the first path that goes too deep."""
    todo: list[tuple[object, tuple]] = [(data, ())]
    while todo:
        value, loc = todo.pop()
        if len(loc) > MAX_NESTING:
            raise InputError([Problem(source, dotted(loc[:MAX_NESTING]) + "...",
                                      f"nested more than {MAX_NESTING} deep: at most "
                                      f"{MAX_NESTING} tables and arrays inside one another")])
        if isinstance(value, dict):
            todo += [(v, (*loc, k)) for k, v in value.items()]
        elif isinstance(value, list):
            todo += [(v, (*loc, i)) for i, v in enumerate(value)]


def _check_extends_name(name: object, source: str) -> str:
    if not isinstance(name, str) or not name:
        raise InputError([Problem(source, "extends", "expected the name or path of a ruleset")])
    if len(name) > MAX_EXTENDS_CHARS:
        raise InputError([Problem(source, "extends", f"a name or path of {len(name):,} "
                                  f"characters: at most {MAX_EXTENDS_CHARS}")])
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise InputError([Problem(source, "extends", "a name or path with a control character "
                                  "(such as NUL)")])
    return name


def load_raw(name_or_path: str | Path, _chain: tuple[Path, ...] = (),
             notes: list[str] | None = None) -> tuple[dict, Path]:
    """The merged TOML data of a ruleset, `extends` resolved (parents first, each file's
    `[inherit]` followed: `kopsim.rules.inherit`); what a child silently replaces is added
    to `notes`."""
    path = resolve_path(name_or_path, _chain[-1].parent if _chain else None)
    label = str(path) if not _chain or _exists(path) else str(name_or_path)
    resolved = _resolved(path, label)
    if resolved in _chain:
        cycle = " -> ".join(p.name for p in (*_chain, resolved))
        raise InputError([Problem(str(_chain[-1]), "extends", f"extends cycle: {cycle}")])
    if len(_chain) >= MAX_EXTENDS_CHAIN:
        raise InputError([Problem(str(_chain[-1]), "extends", "a chain of more than "
                                  f"{MAX_EXTENDS_CHAIN} rulesets extending one another, from "
                                  f"{_chain[0]}")])
    data = read_toml(path, label)
    parent_name = data.pop("extends", None)
    if parent_name is None:
        if INHERIT_KEY in data:
            raise InputError([Problem(str(path), INHERIT_KEY, "[inherit] says how to combine "
                                      "with a parent: it needs `extends`")])
        return data, path
    parent_name = _check_extends_name(parent_name, str(path))
    try:
        parent, _ = load_raw(parent_name, (*_chain, resolved), notes)
    except InputError as e:
        if any(p.where == "extends" for p in e.problems) or _chain:
            raise
        raise InputError([Problem(str(path), "extends",
                                  f"cannot load parent ruleset {parent_name!r}: "
                                  + "; ".join(str(p) for p in e.problems))])
    data.setdefault("name", path.stem)
    merged, replaced = inherit(parent, data, str(path))
    if notes is not None:
        notes += replaced
    return merged, path


def _resolved(path: Path, label: str) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError) as e:  # RuntimeError: a symlink loop
        raise InputError([Problem(label, "", f"cannot read: {e}")])


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def load_ruleset(name_or_path: str | Path, notes: list[str] | None = None) -> Ruleset:
    """The validated ruleset; notes on what its `extends` chain replaces, and on what it does
    that its author may not expect (rules/notes.py), go into `notes`."""
    data, path = load_raw(name_or_path, notes=notes)
    data.setdefault("name", path.stem)
    rules = ruleset_from_dict(data, str(path))
    if notes is not None:
        from .notes import notes as surprises
        notes += surprises(rules)
    return rules


def ruleset_from_dict(data: dict, source: str = "<ruleset>") -> Ruleset:
    try:
        rules = Ruleset.model_validate(data)
    except ValidationError as e:
        raise InputError([pydantic_problem(source, err) for err in e.errors()])
    problems = check_semantics(rules, source)
    if problems:
        raise InputError(problems)
    return rules


def pydantic_problem(source: str, err: dict) -> Problem:
    loc = [p for p in err["loc"] if not (isinstance(p, str) and p.startswith("function-"))]
    loc = ["not" if p == "not_" else p for p in loc if p != "[key]"]  # a key: its own path
    if loc[-2:-1] in (["won"], ["lost"]) and loc[-1] == "flat":
        loc = loc[:-1]  # a price written as a plain number: the user wrote no `flat` key
    if err["type"] == "extra_forbidden":
        msg = "unknown key" + (did_you_mean(loc[-1], known_keys(loc[:-1])) if loc else "")
    elif err["type"] == "missing":
        msg = "missing required key"
    else:
        msg = plain_message(err, _table_hint(loc), echo)
    return Problem(source, dotted(loc), msg)


def _table_hint(loc: list) -> str | None:
    """What the table at `loc` holds, in words: the model's own (`expected`), else its keys."""
    model = _model_at(loc)
    if model is None:
        return None
    own = getattr(model, "expected", None)
    if isinstance(own, str):
        return own
    keys = [f.alias or name for name, f in model.model_fields.items()]
    return "a table of " + ", ".join(keys[:6]) + (", …" if len(keys) > 6 else "")


ECHO_CHARS = 80


def echo(value) -> str:
    """A value as an error message quotes it: cut short, so a 5,000-entry list is no 40 KB
    line."""
    text = repr(value)
    return text if len(text) <= ECHO_CHARS else f"{text[:ECHO_CHARS - 20]}… ({len(text):,} characters)"


def validate_files(paths: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    for p in paths:
        try:
            load_ruleset(p)
        except InputError as e:
            problems += e.problems
    return problems



def _model_at(loc: list):
    """The pydantic model whose table the key path `loc` is, or None; types are followed
    through Optional, lists (an index) and tables of named entries (a name)."""
    model, entry_name_next = Ruleset, False
    for part in loc:
        if entry_name_next or isinstance(part, int):
            entry_name_next = False
            continue
        fields = {f.alias or name: f for name, f in model.model_fields.items()}
        if part not in fields:
            return None
        model, entry_name_next = _inner_model(fields[part].annotation)
        if model is None:
            return None
    return None if entry_name_next else model


def _inner_model(annotation) -> tuple:
    """(the model inside Optional[M], list[M], dict[str, M] or M, whether it is a table of
    named entries), or (None, False)."""
    import typing

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    for a in reversed(typing.get_args(annotation)):  # dict[str, M]: M is the last argument
        inner, _ = _inner_model(a)
        if inner is not None:
            return inner, typing.get_origin(annotation) is dict
    return None, False


def known_keys(loc: list) -> list[str]:
    """The keys of the table at `loc` (none where it is no model's table)."""
    model = _model_at(loc)
    return [] if model is None else [f.alias or name for name, f in model.model_fields.items()]
