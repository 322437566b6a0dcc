"""Hand records: the JSON Lines log format of docs/rules/HAND-RECORD.md.

The field names and meanings are a stable contract read by other tools: add fields, never rename
or drop them.

The hands of a bankroll session (victory cards, `kop-victory-cards`), where a loser who cannot pay
in full pays what he has, one unit at a time to the winners in turn clockwise from his left, carry
two more fields (HAND-RECORD.md §2.20, §2.21); their `payouts` is, as everywhere, what each seat
actually gained (negative: paid): the cards that moved, never more than a seat held.

| field | type | meaning |
| --- | --- | --- |
| `nominal_payouts` | list of numbers, one a seat | what the rules price the hand at before the bankroll limits it (equal to `payouts` unless a loser came up short) |
| `bankroll` | list of numbers, one a seat | the cards each seat held before the hand; the next hand of the session starts from `bankroll` + `payouts` |
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Iterator

from ..errors import InputError, Problem
from ..engine.reference import Deal
from ..rules.codes import TIER_NAMES, WINNER_NAMES
from ..rules.model import MAX_SEATS, MIN_SEATS


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
    tricks: list[dict]  # {"leader": int, "cards": [one str a seat], "winner": int}
    points: list[float]
    tricks_won: list[int]
    winner: str | None
    tier: str
    payouts: list[float]
    session: int | None = None
    # The ruleset file, absolute, when the hand was played under a file of the user's rather
    # than a bundled ruleset: `kopsim replay` says which --rules to pass, and reads it itself
    # only when told to (--rules-from-log), checking ruleset_sha256.
    ruleset_file: str | None = None
    nominal_payouts: list[float] | None = None  # bankroll sessions only, as `bankroll`
    bankroll: list[float] | None = None
    talon: list[str] | None = None  # the cards dealt to no seat, in rules with a talon only
    # where the contract has the declarer pick the talon up: whether he did (False: hand), and
    # the cards he laid away, the talon from then on (when he picked it up)
    talon_taken: bool | None = None
    laid_away: list[str] | None = None

    def to_dict(self) -> dict:
        # built by hand: dataclasses.asdict deep-copies every nested list, ten times slower
        d = {k: getattr(self, k) for k in FIELDS}
        for optional in OPTIONAL:
            if d[optional] is None:
                del d[optional]
        for numbers in ("points", "payouts", "nominal_payouts", "bankroll"):
            if numbers in d:
                d[numbers] = [json_number(x) for x in d[numbers]]
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_dict(cls, d: dict) -> "HandRecord":
        names = cls.__dataclass_fields__
        return cls(**{k: v for k, v in d.items() if k in names})


FIELDS = [f.name for f in fields(HandRecord)]
# left out of the JSON when None
OPTIONAL = ("session", "ruleset_file", "nominal_payouts", "bankroll", "talon", "talon_taken",
            "laid_away")


def json_number(x: float) -> float | int:
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
        talon=None if state.rules.talon is None else list(state.deal.talon),
        talon_taken=state.talon_taken,
        laid_away=list(state.laid_away) if state.talon_taken else None,
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


def batch_record(res, i: int, session: int | None = None) -> HandRecord:
    """Hand i of a kernel batch (`engine.kernel.BatchResult`) as a hand record: the same record
    the reference engine's play of that hand gives (`record_from_state`)."""
    cr = res.compiled
    r, names, n = cr.rules, cr.cards, cr.tables.n_seats
    deal = Deal.dealt(r, res.perm[i], int(res.dealers[i]))
    auction = [{"seat": int(res.call_seat[i, j]), "call": cr.call_names[int(res.calls[i, j])]}
               for j in range(int(res.ncalls[i]))]
    k = int(res.contract[i])
    tricks = []
    if not r.contracts[cr.contract_names[k]].instant:
        played = res.cards[i]
        tricks = [{"leader": int(res.leaders[i, t]),
                   "cards": [names[c] for c in played[n * t:n * t + n]],
                   "winner": int(res.trick_winners[i, t])} for t in range(cr.tables.hand_size)]
    old, decl, taken = int(res.old[i]), int(res.declarer[i]), int(res.taken[i])
    return HandRecord(
        ruleset=r.name, ruleset_sha256=cr.sha256, seed=int(res.seeds[i]),
        hand_index=int(res.hand_index[i]), session=session, dealer=deal.dealer,
        hands=[list(h) for h in deal.hands], talon=None if r.talon is None else list(deal.talon),
        talon_taken=None if taken < 0 else taken == 1,
        laid_away=[names[c] for c in res.laid[i]] if taken == 1 else None, auction=auction, contract=cr.contract_names[k],
        declarer=None if decl < 0 else decl, old_side=[s for s in range(n) if (old >> s) & 1],
        doubles=int(res.doubles[i]), tricks=tricks,
        points=[float(x) for x in res.points[i]], tricks_won=[int(x) for x in res.tricks[i]],
        winner=WINNER_NAMES[int(res.winner[i])], tier=TIER_NAMES[int(res.tier[i])],
        payouts=[float(x) for x in res.payouts[i]],
    )


def batch_records(res, session: int | None = None) -> Iterator[HandRecord]:
    """Every hand of a kernel batch as a hand record, in order."""
    for i in range(len(res)):
        yield batch_record(res, i, session)


def open_log(path: str | Path):
    """The hand-record log `path`, opened for writing; a located error if it cannot be."""
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise InputError([Problem(str(path), "", f"cannot write the log: {e.strerror or e}")])


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


# A hand record is a few kilobytes; a longer line is not one, and is not read into memory whole.
MAX_LINE_BYTES = 1 << 20


def read_lines(path: str | Path) -> Iterator[tuple[int, bytes]]:
    """(line number, raw bytes) of each non-blank line, each at most MAX_LINE_BYTES."""
    try:
        f = open(path, "rb")
    except OSError as e:
        raise InputError([Problem(str(path), "", f"cannot read: {e.strerror or e}")])
    with f:
        lineno = 0
        while line := f.readline(MAX_LINE_BYTES + 1):
            lineno += 1
            if len(line) > MAX_LINE_BYTES:
                raise InputError([Problem(str(path), f"line {lineno}",
                                          f"longer than {MAX_LINE_BYTES:,} bytes: not a hand "
                                          "record")])
            if line.strip():
                yield lineno, line


def parse_records(path: str | Path, lines) -> Iterator[tuple[int, dict]]:
    """(line number, record dict) for each (line number, bytes or text); a located error for a
    line that is not a hand record at all (its fields' types are record_problem's concern)."""
    for lineno, line in lines:
        where = f"line {lineno}"
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError([Problem(str(path), where, "not UTF-8 text: not a hand record")])
        if not line.strip():
            continue
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError([Problem(str(path), where, f"not JSON: {e.msg}")])
        except (ValueError, RecursionError) as e:  # a 5,000-digit number, arrays 10,000 deep
            raise InputError([Problem(str(path), where, f"not a hand record: {e}"[:200])])
        if not isinstance(d, dict):
            raise InputError([Problem(str(path), where, "not a JSON object")])
        missing = [k for k in REQUIRED if k not in d]
        if missing:
            raise InputError([Problem(str(path), where,
                                      f"not a hand record: missing {', '.join(missing)}")])
        yield lineno, d


# ------------------------------------------------------------------------- field types (checked)


def _int_in(low: int, high: int):
    # bool is an int to Python, not to JSON: true is not a seat
    return lambda x: type(x) is int and low <= x < high


def _number(x) -> bool:
    return (type(x) is int and abs(x) < 2**63) or (type(x) is float and math.isfinite(x))


def _string(x) -> bool:
    return type(x) is str


def _list_of(ok, length: int | None = None):
    return lambda x: (type(x) is list and (length is None or len(x) == length)
                      and all(ok(v) for v in x))


def _object(**fields_ok):
    return lambda x: (type(x) is dict and fields_ok.keys() <= x.keys()
                      and all(ok(x[k]) for k, ok in fields_ok.items()))


def _or_null(ok):
    return lambda x: x is None or ok(x)


_count = _int_in(0, 2**63)


@lru_cache(maxsize=None)  # one table a seat count, not one a record replayed
def field_types(n: int) -> dict:
    """Each field's expected value (in words) and its check, for a record of a table of n
    seats: every per-seat list has n entries, every seat is one of 0 .. n-1."""
    seat = _int_in(0, n)
    last = f"0-{n - 1}"
    return {
        "ruleset": ("a string", _string),
        "ruleset_sha256": ("a string", _string),
        "seed": ("an integer from 0 to 2**64 - 1", _int_in(0, 2**64)),
        "hand_index": ("a whole number >= 0", _count),
        "session": ("a whole number >= 0 or null", _or_null(_count)),
        "ruleset_file": ("a string or null", _or_null(_string)),
        "dealer": (f"a seat ({last})", seat),
        "auction": (f'a list of {{"seat": {last}, "call": string}}',
                    _list_of(_object(seat=seat, call=_string))),
        "contract": ("a string", _string),
        "declarer": (f"a seat ({last}) or null", _or_null(seat)),
        "old_side": (f"a list of seats ({last})", _list_of(seat)),
        "doubles": ("a whole number >= 0", _count),
        "tricks": (f'a list of {{"leader": {last}, "cards": [{n} strings], "winner": {last}}}',
                   _list_of(_object(leader=seat, cards=_list_of(_string, n), winner=seat))),
        "points": (f"{n} finite numbers", _list_of(_number, n)),
        "tricks_won": (f"{n} whole numbers >= 0", _list_of(_count, n)),
        "winner": ("a string or null", _or_null(_string)),
        "tier": ("a string", _string),
        "payouts": (f"{n} finite numbers", _list_of(_number, n)),
        "nominal_payouts": (f"{n} finite numbers or null", _or_null(_list_of(_number, n))),
        "bankroll": (f"{n} finite numbers or null", _or_null(_list_of(_number, n))),
        "talon": ("a list of card strings or null", _or_null(_list_of(_string))),
        "talon_taken": ("true, false or null", _or_null(lambda x: type(x) is bool)),
        "laid_away": ("a list of card strings or null", _or_null(_list_of(_string))),
    }


def record_problem(d: dict) -> str | None:
    """The first field of a parsed record whose value has the wrong type (HAND-RECORD.md), or
    None: a record that passes can be replayed without a type surprising the engine. Its
    seats are as many as its hands (MIN_SEATS to MAX_SEATS); replay checks them against the
    ruleset's."""
    hands = d.get("hands")
    if not (_list_of(_list_of(_string))(hands) and MIN_SEATS <= len(hands) <= MAX_SEATS):
        return (f"hands: expected {MIN_SEATS} to {MAX_SEATS} lists of card strings, one a "
                "seat")
    for key, (expected, ok) in field_types(len(hands)).items():
        if key in d and not ok(d[key]):
            return f"{key}: expected {expected}"
    return None
