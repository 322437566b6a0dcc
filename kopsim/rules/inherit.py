"""How a ruleset's keys combine with those it inherits (`extends`, and an experiment's overrides).

The child's keys override the parent's; tables merge key by key; any other value, a list
included, replaces the parent's whole. A child's `[inherit]` table says what else to do:

    [inherit]
    remove = ['contracts."gran du"', "auction.restrictions[0]"]  # drop these inherited keys
    append = ["auction.restrictions"]  # the child's items follow the inherited ones

Paths are TOML dotted keys (quote a name with spaces), optionally ending in a list index.
Removal happens first, on the inherited data, so an index counts the parent's items. A child
that replaces an inherited list of tables (`[[...]]`, which reads like an addition) without
saying so gets a note (`kopsim rules validate` prints it).
"""

from __future__ import annotations

import copy
import re
import sys

from ..errors import InputError, Problem, dotted

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

INHERIT_KEY = "inherit"
# Tables that are one value, not a set of settings: a child's replaces the parent's whole.
ATOMIC_TABLES = {"eligible", "holding", "won", "lost", "plain"}
_INDEXED = re.compile(r"^(.*?)\[(\d{1,6})\]$", re.S)
MAX_INHERIT_PATHS = 256


def merge_tables(parent: dict, child: dict) -> dict:
    """Child overrides parent; tables merge key by key (except ATOMIC_TABLES), everything else
    is replaced."""
    out = dict(parent)
    for k, v in child.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k not in ATOMIC_TABLES:
            out[k] = merge_tables(out[k], v)
        else:
            out[k] = v
    return out


def inherit(parent: dict, child: dict, source: str) -> tuple[dict, list[str]]:
    """(the child's data over the parent's, following the child's `[inherit]`; notes on
    inherited lists of tables the child replaces). The child's `inherit` is its own: it is
    not passed on to the rulesets extending it."""
    child = dict(child)
    removes, appends = _spec(child.pop(INHERIT_KEY, None), source)
    base = copy.deepcopy(parent)
    for where, keys, index in sorted(removes, key=lambda r: -1 if r[2] is None else -r[2]):
        _remove(base, keys, index, Problem(source, where, ""))
    merged = merge_tables(base, child)
    for where, keys in appends:
        inherited, own = _get(base, keys), _get(child, keys)
        if not isinstance(inherited, list) or not isinstance(own, list):
            raise InputError([Problem(source, where, f"append needs a list at {dotted(keys)} in "
                                      "both the parent and this file")])
        _set(merged, keys, inherited + own)
    appended = {tuple(keys) for _, keys in appends}
    notes = [f"{source}: {dotted(keys)}: replaces the {n} inherited item{'s' * (n != 1)} "
             f"(to add to them instead, list it in [{INHERIT_KEY}] append)"
             for keys, n in _replaced_lists(base, child) if tuple(keys) not in appended]
    return merged, notes


def _spec(spec, source: str):
    """The checked `[inherit]` table: ([(where, keys, index)], [(where, keys)])."""
    if spec is None:
        return [], []
    if not isinstance(spec, dict):
        raise InputError([Problem(source, INHERIT_KEY, "expected a table with remove and/or "
                                  "append (lists of key paths)")])
    problems = [Problem(source, f"{INHERIT_KEY}.{k}", "unknown key (expected remove or append)")
                for k in spec if k not in ("remove", "append")]
    out: dict[str, list] = {"remove": [], "append": []}
    seen: dict[tuple, str] = {}  # (kind, keys, index) -> where it was first listed
    for kind in out:
        paths = spec.get(kind, [])
        if not isinstance(paths, list) or len(paths) > MAX_INHERIT_PATHS:
            problems.append(Problem(source, f"{INHERIT_KEY}.{kind}",
                                    f"expected a list of at most {MAX_INHERIT_PATHS} key paths"))
            continue
        for i, path in enumerate(paths):
            where = f"{INHERIT_KEY}.{kind}[{i}]"
            try:
                keys, index = _parse(path)
            except ValueError as e:
                problems.append(Problem(source, where, str(e)))
                continue
            if kind == "append" and index is not None:
                problems.append(Problem(source, where, "append takes the path of a list, "
                                        "without an index"))
            # removals apply to the parent's data, indices counting its items: a path listed
            # twice would remove another item the second time
            first = seen.setdefault((kind, tuple(keys), index), where)
            if first != where:
                problems.append(Problem(source, where, f"{dotted(keys)}"
                                        f"{'' if index is None else f'[{index}]'} is listed "
                                        f"twice (first at {first})"))
                continue
            out[kind].append((where, keys, index) if kind == "remove" else (where, keys))
    problems += _nested_removals(out["remove"], source)
    if problems:
        raise InputError(problems)
    return out["remove"], out["append"]


def _nested_removals(removes: list, source: str) -> list[Problem]:
    """A removal inside another (an item of a list removed whole) says two things at once:
    refused, rather than read one way."""
    full = [(where, (*keys, *([] if index is None else [index]))) for where, keys, index in removes]
    return [Problem(source, where, f"{_path_text(inner)} is inside {_path_text(outer)}, "
                    f"which {other} removes whole")
            for where, inner in full for other, outer in full
            if len(outer) < len(inner) and inner[:len(outer)] == outer]


def _path_text(path: tuple) -> str:
    keys = [k for k in path if isinstance(k, str)]
    return dotted(keys) + "".join(f"[{k}]" for k in path if isinstance(k, int))


def _parse(path) -> tuple[list[str], int | None]:
    """'contracts."gran du"' -> (["contracts", "gran du"], None); 'a.b[2]' -> (["a", "b"], 2)."""
    if not isinstance(path, str) or not 0 < len(path) <= 1000:
        raise ValueError("expected a key path such as 'contracts.\"gran du\"' (1 to 1,000 "
                         "characters)")
    index = None
    m = _INDEXED.match(path)
    if m:
        path, index = m.group(1), int(m.group(2))
    try:
        parsed = tomllib.loads(f"{path} = 0")
    except tomllib.TOMLDecodeError:
        raise ValueError(f"{path!r} is not a TOML key path (quote a name with spaces or dots: "
                         "'contracts.\"zolo du\"')") from None
    keys = []
    while isinstance(parsed, dict) and len(parsed) == 1:
        (key, parsed), = parsed.items()
        keys.append(key)
    return keys, index


def _get(data, keys: list[str]):
    for k in keys:
        if not isinstance(data, dict) or k not in data:
            return None
        data = data[k]
    return data


def _set(data: dict, keys: list[str], value) -> None:
    for k in keys[:-1]:
        data = data[k]
    data[keys[-1]] = value


def _remove(base: dict, keys: list[str], index: int | None, at: Problem) -> None:
    holder = _get(base, keys[:-1]) if len(keys) > 1 else base
    what = dotted(keys) + ("" if index is None else f"[{index}]")
    if not isinstance(holder, dict) or keys[-1] not in holder:
        raise InputError([Problem(at.source, at.where, f"nothing inherited at {what} to remove")])
    if index is None:
        del holder[keys[-1]]
        return
    items = holder[keys[-1]]
    if not isinstance(items, list) or index >= len(items):
        n = len(items) if isinstance(items, list) else 0
        raise InputError([Problem(at.source, at.where, f"nothing inherited at {what} to remove "
                                  f"({dotted(keys)} has {n} inherited items)")])
    del items[index]


def _replaced_lists(base, child, keys=()):
    """(key path, inherited items) of every non-empty inherited list of tables the child
    replaces."""
    for k, v in child.items():
        inherited = base.get(k) if isinstance(base, dict) else None
        if isinstance(v, dict) and isinstance(inherited, dict) and k not in ATOMIC_TABLES:
            yield from _replaced_lists(inherited, v, (*keys, k))
        elif (isinstance(v, list) and isinstance(inherited, list) and inherited
              and all(isinstance(x, dict) for x in inherited)):
            yield [*keys, k], len(inherited)
