"""Hand records: the JSON Lines log format of docs/rules/HAND-RECORD.md.

The field names and meanings are a stable contract read by other tools: add fields, never rename
or drop them.

The hands of a bankroll session (victory cards, `kop-victory-cards`), where a loser who cannot pay
in full pays what he has, one unit at a time to the winners in turn clockwise from his left, carry
two fields beyond HAND-RECORD.md's table; their `payouts` is, as everywhere, what each seat actually
gained (negative: paid): the cards that moved, never more than a seat held.

| field | type | meaning |
| --- | --- | --- |
| `nominal_payouts` | list of 4 numbers | what the rules price the hand at before the bankroll limits it (equal to `payouts` unless a loser came up short) |
| `bankroll` | list of 4 numbers | the cards each seat held before the hand; the next hand of the session starts from `bankroll` + `payouts` |
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Iterable, Iterator

from .errors import InputError, Problem


@dataclass
class HandRecord:
    ruleset: str
    ruleset_sha256: str
    seed: int
    hand_index: int
    dealer: int
    hands: list[list[str]]
    auction: list[dict]  # {"seat": int, "call": str}
    contract: str
    declarer: int | None
    old_side: list[int]
    doubles: int
    tricks: list[dict]  # {"leader": int, "cards": [4 str], "winner": int}
    points: list[float]
    tricks_won: list[int]
    winner: str | None
    tier: str
    payouts: list[float]
    session: int | None = None
    nominal_payouts: list[float] | None = None  # bankroll sessions only, as `bankroll`
    bankroll: list[float] | None = None

    def to_dict(self) -> dict:
        # built by hand: dataclasses.asdict deep-copies every nested list, ten times slower
        d = {k: getattr(self, k) for k in FIELDS}
        for optional in OPTIONAL:
            if d[optional] is None:
                del d[optional]
        for numbers in ("points", "payouts", "nominal_payouts", "bankroll"):
            if numbers in d:
                d[numbers] = [_num(x) for x in d[numbers]]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict) -> "HandRecord":
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in names})


FIELDS = [f.name for f in fields(HandRecord)]
OPTIONAL = ("session", "nominal_payouts", "bankroll")  # left out of the JSON when None


def _num(x: float) -> float | int:
    """Whole numbers as JSON integers ("payouts": [1, -1, ...]), others as they are."""
    return int(x) if float(x).is_integer() else x


def record_from_state(state, seed: int, hand_index: int, session: int | None = None,
                      sha256: str | None = None) -> HandRecord:
    assert state.is_terminal()
    o = state.outcome
    return HandRecord(
        ruleset=state.rules.name,
        ruleset_sha256=sha256 or state.rules.sha256(),
        seed=seed,
        hand_index=hand_index,
        session=session,
        dealer=state.deal.dealer,
        hands=[list(h) for h in state.deal.hands],
        auction=[{"seat": s, "call": c} for s, c in state.auction],
        contract=state.contract,
        declarer=state.declarer,
        old_side=list(state.old_side),
        doubles=o.doubles,
        tricks=[{"leader": t.leader, "cards": list(t.cards), "winner": t.winner}
                for t in state.tricks],
        points=list(state.points),
        tricks_won=list(state.tricks_won),
        winner=o.winner,
        tier=o.tier,
        payouts=list(o.payouts),
    )


def write_jsonl(path: str | Path, records: Iterable[HandRecord]) -> int:
    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(rec.to_json())
            f.write("\n")
            n += 1
    return n


REQUIRED = ("ruleset", "ruleset_sha256", "seed", "hand_index", "dealer", "hands", "auction",
            "contract", "declarer", "old_side", "doubles", "tricks", "points", "tricks_won",
            "winner", "tier", "payouts")


def parse_records(path: str | Path, lines) -> Iterator[tuple[int, dict]]:
    """(line number, record dict) for each (line number, text); a located error for a line that
    is not a hand record."""
    for lineno, line in lines:
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError([Problem(str(path), f"line {lineno}", f"not JSON: {e.msg}")])
        if not isinstance(d, dict):
            raise InputError([Problem(str(path), f"line {lineno}", "not a JSON object")])
        missing = [k for k in REQUIRED if k not in d]
        if missing:
            raise InputError([Problem(str(path), f"line {lineno}",
                                      f"not a hand record: missing {', '.join(missing)}")])
        yield lineno, d
