"""Located errors for user input (rulesets, logs, experiment files).

A user who writes a TOML file gets one message per problem, each naming the file and the line or
the dotted key path, and the CLI turns them into exit code 2 without a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    source: str  # file path or ruleset name
    where: str  # "line 12, column 3" or a dotted key path such as "contracts.zolo.payout.won"
    message: str

    def __str__(self) -> str:
        where = f" {self.where}:" if self.where else ""
        return f"{self.source}:{where} {self.message}"


class InputError(Exception):
    """Bad user input; carries every problem found, not just the first."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def dotted(loc: tuple | list) -> str:
    """("contracts", "zolo", "payout", 0) -> "contracts.zolo.payout[0]"."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            part = str(part)
            if not part.replace("_", "").replace("-", "").isalnum():
                part = f'"{part}"'
            out += ("." if out else "") + part
    return out


def did_you_mean(word: object, choices) -> str:
    """" (did you mean 'x'?)" for the choice closest to a misspelt word, if one is close."""
    import difflib

    choices = [str(c) for c in choices]
    same_letters = [c for c in choices if c.casefold() == str(word).casefold()]
    found = same_letters or difflib.get_close_matches(str(word), choices, n=1, cutoff=0.6)
    return f" (did you mean {found[0]!r}?)" if found else ""


# pydantic's error types in kopsim's words: what the key expects, as a TOML writer reads it
_EXPECTED = {
    "int_type": "a whole number", "int_parsing": "a whole number",
    "int_from_float": "a whole number", "float_type": "a number", "float_parsing": "a number",
    "finite_number": "a finite number", "string_type": "text in quotes",
    "bool_type": "true or false", "bool_parsing": "true or false",
    "list_type": "a list, like [\"a\", \"b\"]", "tuple_type": "a list, like [\"a\", \"b\"]",
    "dict_type": "a table, like { key = value }", "model_type": "a table, like { key = value }",
    "model_attributes_type": "a table, like { key = value }",
}
_BOUNDS = {"greater_than_equal": ("ge", "at least"), "less_than_equal": ("le", "at most"),
           "greater_than": ("gt", "more than"), "less_than": ("lt", "less than")}


def plain_message(err: dict, table_hint: str | None = None, echo=repr) -> str:
    """A pydantic error of a user's file in kopsim's words, with the value given (`echo`ed) and
    the nearest allowed one where a choice was misspelt. `table_hint` says what a table there
    holds, where a value of another type was given."""
    text = _expected(err, table_hint)
    if "input" in err and err["type"] not in ("value_error", "missing", "extra_forbidden"):
        text += f" (got {echo(err['input'])})"
    if err["type"] == "literal_error":
        import re

        choices = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        text += did_you_mean(err.get("input", ""), choices)
    return text


def _expected(err: dict, table_hint: str | None) -> str:
    kind, ctx = err["type"], err.get("ctx") or {}
    if kind in _EXPECTED:
        expected = _EXPECTED[kind]
        if table_hint and kind in ("dict_type", "model_type", "model_attributes_type"):
            expected = table_hint
        return f"expected {expected}"
    if kind in _BOUNDS:
        key, words = _BOUNDS[kind]
        bound = ctx.get(key)
        if isinstance(bound, float) and bound.is_integer() and abs(bound) < 1e15:
            bound = int(bound)
        return f"expected a number {words} {bound}"
    if kind == "literal_error":
        return f"expected {ctx.get('expected', err['msg'])}"
    if kind in ("too_long", "too_short"):
        bound = ctx.get("max_length" if kind == "too_long" else "min_length")
        return f"expected {'at most' if kind == 'too_long' else 'at least'} {bound} entries"
    return err["msg"].removeprefix("Value error, ")
