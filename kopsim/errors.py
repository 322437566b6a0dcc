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
