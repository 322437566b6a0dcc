"""The one cache of what is derived from a ruleset: its `CompiledRules` and any table an engine or
a bot builds from it, keyed by the ruleset's sha256 (so two loads of the same rules share one
entry, and an edited ruleset never sees the tables of the old one).

    cr = compiled(rules)
    power = table(rules, "heuristic", lambda: heuristic_tables(cr))

Only the most recently used rulesets are kept, so a run over thousands of generated rulesets (a
fuzz test, a parameter sweep) does not grow without bound.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Hashable, TypeVar

if TYPE_CHECKING:
    from .compile import CompiledRules
    from .model import Ruleset

MAX_RULESETS = 32

T = TypeVar("T")

_ENTRIES: OrderedDict[str, dict[Hashable, Any]] = OrderedDict()
_MISSING = object()


_LAST: list = [None, None]  # the rules object looked up last, and its entry


def table(rules: Ruleset, key: Hashable, build: Callable[[], T]) -> T:
    """The value cached under `key` for these rules, built by `build()` on first use."""
    # a bot's decision looks up a dozen tables of one ruleset: the same object as last time
    # needs no digest (the models are frozen)
    if _LAST[0] is rules and _LAST[1] is not None:
        entry = _LAST[1]
        value = entry.get(key, _MISSING)
        if value is not _MISSING:
            return value
    sha = rules.sha256()
    entry = _ENTRIES.get(sha)
    if entry is None:
        entry = _ENTRIES[sha] = {}
        while len(_ENTRIES) > MAX_RULESETS:
            _ENTRIES.popitem(last=False)
    else:
        _ENTRIES.move_to_end(sha)
    _LAST[0], _LAST[1] = rules, entry
    if key not in entry:
        entry[key] = build()
    return entry[key]


def compiled(rules: Ruleset | CompiledRules) -> CompiledRules:
    """The compiled tables of `rules` (compiled once per ruleset); a `CompiledRules` is returned
    as it is."""
    from .compile import CompiledRules, compile_rules

    if isinstance(rules, CompiledRules):
        return rules
    return table(rules, "compiled", lambda: compile_rules(rules))

