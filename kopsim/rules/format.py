"""The ruleset format: TOML -> validated `Ruleset` model.

A ruleset is data only. Predicates come from a small fixed vocabulary (`Predicate`) and are never
evaluated as code. Loading resolves `extends`, validates types with pydantic (unknown keys are
errors) and then checks meaning (every order a permutation of the deck, every card named exists,
every contract reachable and priced, ...). Every problem is reported with its file and key path.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Annotated, Literal, Optional

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from ..errors import InputError, Problem, dotted

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

BUNDLED_DIR = Path(__file__).resolve().parent.parent / "rulesets"


# ---------------------------------------------------------------------------------------- limits
# Every number and size the engines rely on has a bound, documented in docs/rulesets.md
# ("Limits") and checked here at validation, so that no valid ruleset can overflow an int64 or a
# compiled table's integer type, make a payout infinite or NaN, allocate without bound, or write
# past a scratch array of the compiled engines. The bounds are far beyond any real rulebook.
MAX_FILE_BYTES = 1 << 20  # a ruleset file is read up to this size, and only if a regular file
MAX_EXTENDS_CHAIN = 16  # files in one chain of `extends`, the ruleset itself included
MAX_EXTENDS_CHARS = 255  # the length of an `extends` name or path
MAX_NESTING = 32  # tables and arrays inside one another in a ruleset file
MAX_CARDS = 64  # a hand is a 64-bit mask
MAX_DECK_NAMES = 64  # ranks, and suits, listed in the deck
MAX_CONTRACTS = 60  # call codes and restriction masks share 64 bits with pass and ask
MAX_ORDERS = 32
MAX_DOUBLING_NAMES = 16  # the doubling chain; the kernel keeps one seat per double said
MAX_RESTRICTIONS = 64
MAX_MULTIPLIERS = 16
MAX_PREDICATE_NODES = 256  # tables in one predicate, nested ones included
MAX_AUCTION_CALLS = 512  # the longest auction the rules allow (every hand record holds this)
MAX_PASSES = 16  # end_after_passes, end_after_passes_without_call
MAX_CARD_POINTS = 1_000  # one card's points
MAX_POINTS = MAX_CARDS * MAX_CARD_POINTS  # win_points, schneider_max_points
MAX_BID_RANK = 10_000
MAX_PRICE = 1_000_000  # a payout value, tie value, revoke penalty, placement points, bonus
MAX_FACTOR = 16  # doubling factor, multiplier factor
MAX_HAND_VALUE = 1e12  # a hand's value to one seat, every double and multiplier applied
MAX_SESSION_HANDS = 10_000
MAX_HANDS_OPTIONS = 64
MAX_START = 10_000  # a bankroll's start (losers pay one unit at a time)


def _float_in(lo: float, hi: float):
    """A finite number in [lo, hi] (TOML writes nan and inf; no engine can price them)."""
    return Annotated[float, Field(ge=lo, le=hi, allow_inf_nan=False)]


def _int_in(lo: int, hi: int):
    return Annotated[int, Field(ge=lo, le=hi)]


CardPoints = _float_in(0, MAX_CARD_POINTS)
Points = _float_in(0, MAX_POINTS)
Value = _float_in(0, MAX_PRICE)  # what a hand pays, before doubles and multipliers
SignedValue = _float_in(-MAX_PRICE, MAX_PRICE)
DoublingFactor = _float_in(1, MAX_FACTOR)
MultiplierFactor = _float_in(0, MAX_FACTOR)
CardCount = _int_in(0, MAX_CARDS)
Passes = _int_in(1, MAX_PASSES)
DoubleCount = _int_in(0, MAX_DOUBLING_NAMES)
BidRank = _int_in(0, MAX_BID_RANK)
SessionHands = _int_in(1, MAX_SESSION_HANDS)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True)


# ----------------------------------------------------------------------------------- predicates

POSITIONS = ("forehand", "second", "third", "dealer")  # seats counted from the dealer's left


class HoldsCount(_Model):
    cards: list[str]
    min: CardCount = 0
    max: Optional[CardCount] = None


class Predicate(_Model):
    """A condition on one seat's dealt hand (and where it sits). Exactly one key per table:

    holds_all / holds_any / holds_none = [cards]; holds_count = {cards, min, max};
    position = "forehand" | "second" | "third" | "dealer"; all_of / any_of = [predicates];
    not = predicate.
    """

    holds_all: Optional[list[str]] = None
    holds_any: Optional[list[str]] = None
    holds_none: Optional[list[str]] = None
    holds_count: Optional[HoldsCount] = None
    position: Optional[Literal["forehand", "second", "third", "dealer"]] = None
    all_of: Optional[list["Predicate"]] = None
    any_of: Optional[list["Predicate"]] = None
    not_: Optional["Predicate"] = Field(default=None, alias="not")

    @model_validator(mode="after")
    def _exactly_one(self) -> "Predicate":
        keys = [k for k in type(self).model_fields if getattr(self, k) is not None]
        if len(keys) != 1:
            raise ValueError(
                "a predicate table needs exactly one of holds_all, holds_any, holds_none, "
                f"holds_count, position, all_of, any_of, not (found {len(keys)})"
            )
        return self

    @property
    def kind(self) -> str:
        for k in type(self).model_fields:
            if getattr(self, k) is not None:
                return "not" if k == "not_" else k
        raise AssertionError

    def cards(self) -> list[tuple[str, str]]:
        """(relative key path, card) for every card this predicate names."""
        out: list[tuple[str, str]] = []
        for key in ("holds_all", "holds_any", "holds_none"):
            for i, c in enumerate(getattr(self, key) or []):
                out.append((f"{key}[{i}]", c))
        if self.holds_count:
            out += [(f"holds_count.cards[{i}]", c) for i, c in enumerate(self.holds_count.cards)]
        for key in ("all_of", "any_of"):
            for i, p in enumerate(getattr(self, key) or []):
                out += [(f"{key}[{i}].{k}", c) for k, c in p.cards()]
        if self.not_:
            out += [(f"not.{k}", c) for k, c in self.not_.cards()]
        return out

    def holds(self, hand: set[str], position: str) -> bool:
        """Plain evaluation, used by the reference engine."""
        if self.holds_all is not None:
            return all(c in hand for c in self.holds_all)
        if self.holds_any is not None:
            return any(c in hand for c in self.holds_any)
        if self.holds_none is not None:
            return not any(c in hand for c in self.holds_none)
        if self.holds_count is not None:
            n = sum(c in hand for c in self.holds_count.cards)
            hi = self.holds_count.max
            return n >= self.holds_count.min and (hi is None or n <= hi)
        if self.position is not None:
            return position == self.position
        if self.all_of is not None:
            return all(p.holds(hand, position) for p in self.all_of)
        if self.any_of is not None:
            return any(p.holds(hand, position) for p in self.any_of)
        assert self.not_ is not None
        return not self.not_.holds(hand, position)


Predicate.model_rebuild()


# ------------------------------------------------------------------------------------ sections


class Deck(_Model):
    ranks: list[str] = Field(max_length=MAX_DECK_NAMES)
    suits: list[str] = Field(max_length=MAX_DECK_NAMES)
    points: dict[str, CardPoints]  # card points by rank
    players: Literal[4] = 4

    def cards(self) -> list[str]:
        """Cards in index order: ranks outer, suits inner ("AC", "AS", "AH", "AD", "10C", ...)."""
        return [r + s for r in self.ranks for s in self.suits]

    def card_points(self, card: str) -> float:
        for r in sorted(self.ranks, key=len, reverse=True):
            if card.startswith(r):
                return self.points[r]
        raise KeyError(card)


class Order(_Model):
    """A card order: trumps high to low, then the plain suits, each high to low.

    All trumps form one suit for following; a plain suit is any named group of cards.
    """

    trumps: list[str]
    plain: dict[str, list[str]] = Field({}, max_length=MAX_CARDS)
    description: str = ""


class Play(_Model):
    follow_suit: bool = True  # follow the suit led (all trumps count as one suit)
    trump_when_void: bool = True  # void in the suit led: play a trump if you have one
    must_beat: bool = True  # among the cards allowed, beat the card winning the trick if you can


class Restriction(_Model):
    """Forbids some calls to a seat while every condition given holds."""

    forbid: list[str]  # contract names, "pass", the ask call, or "double"
    holding: Optional[Predicate] = None  # the seat's hand and position
    first_call: Optional[bool] = None  # is this the seat's first call?
    bid_in_force: Optional[bool] = None  # has anyone bid so far?
    asked: Optional[bool] = None  # has this seat said the ask call?
    note: str = ""


class Auction(_Model):
    # open: clockwise from forehand, pass / higher bid / next double, until enough passes;
    # ask:  as open, but forehand's first call is a bid or the ask call, never a pass;
    # single: each seat that may bid speaks once (bid or pass), nobody else calls.
    style: Literal["open", "ask", "single"] = "open"
    ask_call: str = "ask"
    end_after_passes: Passes = 3  # passes in a row after a bid, double or ask
    end_after_passes_without_call: Passes = 4  # passes in a row when nobody called
    no_bid: list[str]  # contracts tried in order when nobody bids (first whose `eligible` holds)
    dealt: list[str] = []  # contracts that win from the deal itself, before any auction
    restrictions: list[Restriction] = Field([], max_length=MAX_RESTRICTIONS)


class Doubling(_Model):
    # the chain: the n-th double since the last bid carries the n-th name
    names: list[str] = Field([], max_length=MAX_DOUBLING_NAMES)
    factor: DoublingFactor = 2.0  # each counted double multiplies the value
    cap_without_bid: Optional[DoubleCount] = None  # doubles allowed before any bid
    without_bid: bool = True  # may doubles be said while no bid is in force?


class Price(_Model):
    """A value: a number (no tiers), or one value per tier of the losing side."""

    flat: Optional[Value] = None
    out: Optional[Value] = None
    schneider: Optional[Value] = None
    schwarz: Optional[Value] = None

    @model_validator(mode="before")
    @classmethod
    def _number(cls, v):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return {"flat": v}
        return v

    @model_validator(mode="after")
    def _shape(self) -> "Price":
        tiers = [self.out, self.schneider, self.schwarz]
        if self.flat is not None and any(t is not None for t in tiers):
            raise ValueError("give a number, or a table of out/schneider/schwarz, not both")
        if self.flat is None and any(t is None for t in tiers):
            raise ValueError("a tiered value needs all of out, schneider and schwarz")
        return self

    @property
    def tiered(self) -> bool:
        return self.flat is None

    def value(self, tier: str) -> float:
        if self.flat is not None:
            return self.flat
        return {"out": self.out, "schneider": self.schneider, "schwarz": self.schwarz,
                "tie": self.out}[tier]


class Payout(_Model):
    won: Price  # value v when the old side (declarer's side) wins
    lost: Optional[Price] = None  # value v when it loses; not needed by instant contracts


class Contract(_Model):
    description: str = ""
    bid_rank: Optional[BidRank] = None  # biddable in the auction, higher rank beats lower
    eligible: Optional[Predicate] = None  # who may bid it / to whom a no-bid contract applies
    first_call_only: bool = False  # may only be a seat's first call of the auction
    team: Literal["holders", "called", "alone"] = "alone"
    # holders: the holders of team_cards form the old side;
    # called: the declarer plus the holder of the first card of team_cards he lacks
    team_cards: list[str] = Field([], max_length=MAX_CARDS)
    instant: bool = False  # wins at once, without play
    goal: Literal["points", "all_tricks"] = "points"
    order: Optional[str] = None
    max_doubles: Optional[DoubleCount] = None  # doubles allowed while it is in force
    declarer_may_double_first: bool = False
    payout: Payout


class Multiplier(_Model):
    factor: MultiplierFactor
    when: Literal["old_side_lost", "old_side_won", "tie"]
    contracts: Optional[list[str]] = None  # default: every contract
    note: str = ""


class RevokePenalty(_Model):
    offender: SignedValue
    others: SignedValue


class Scoring(_Model):
    style: Literal["zero_sum", "winners_only"] = "zero_sum"
    win_points: Optional[Points] = None  # default: a majority of the pack's points
    schneider_max_points: Points = 25  # losing side with at most this and a trick: schneider
    tie: Literal["last_double_loses", "nobody_wins"] = "last_double_loses"
    tie_value_without_double: Optional[Value] = None  # default: the contract's own value
    multipliers: list[Multiplier] = Field([], max_length=MAX_MULTIPLIERS)
    revoke_penalty: Optional[RevokePenalty] = None  # cannot happen between bots; shown only


class Session(_Model):
    kind: Literal["series", "bankroll"]
    # series: a fixed number of hands, then table places score points
    hands: Optional[SessionHands] = None
    hands_options: list[SessionHands] = Field([], max_length=MAX_HANDS_OPTIONS)
    placement_points: list[SignedValue] = Field([], max_length=4)
    positive_bonus: Value = 0  # shared equally by the players who end with a positive total
    # bankroll: every player starts with `start`; the session ends after the hand in which a
    # player reaches zero; a loser who cannot pay in full pays what he has, one unit at a time
    # to the winners in turn clockwise from his left
    start: Optional[Annotated[float, Field(gt=0, le=MAX_START, allow_inf_nan=False)]] = None


class Ruleset(_Model):
    name: str
    description: str = ""
    source: str = ""
    deck: Deck
    orders: dict[str, Order] = Field(max_length=MAX_ORDERS)
    play: Play = Play()
    auction: Auction
    doubling: Doubling = Doubling()
    contracts: dict[str, Contract]
    scoring: Scoring = Scoring()
    session: Optional[Session] = None

    # Derived values are cached: a loaded ruleset is treated as immutable everywhere.
    _cache: dict = PrivateAttr(default_factory=dict)

    def _cached(self, key: str, make):
        cache = self._cache
        if key not in cache:
            cache[key] = make()
        return cache[key]

    # ------------------------------------------------------------------ derived, convenient views
    def cards(self) -> list[str]:
        return self._cached("cards", self.deck.cards)

    def points_of(self, card: str) -> float:
        table = self._cached("points", lambda: {c: self.deck.card_points(c) for c in self.cards()})
        return table[card]

    def total_points(self) -> float:
        return sum(self.points_of(c) for c in self.cards())

    def win_points(self) -> float:
        if self.scoring.win_points is not None:
            return self.scoring.win_points
        return self.total_points() // 2 + 1

    def max_doubles(self, contract: str) -> int:
        c = self.contracts[contract]
        if c.max_doubles is not None:
            return c.max_doubles
        return 0 if c.instant else len(self.doubling.names)

    def cap_without_bid(self) -> int:
        if not self.doubling.without_bid:
            return 0
        cap = self.doubling.cap_without_bid
        return len(self.doubling.names) if cap is None else cap

    def bids(self) -> list[str]:
        """Biddable contracts, lowest first."""
        def make():
            named = [(c.bid_rank, n) for n, c in self.contracts.items() if c.bid_rank is not None]
            return [n for _, n in sorted(named)]
        return self._cached("bids", make)

    def canonical_json(self) -> str:
        data = self.model_dump(mode="json", by_alias=True, exclude_none=True)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def sha256(self) -> str:
        return self._cached("sha256", lambda: hashlib.sha256(
            self.canonical_json().encode("utf-8")).hexdigest())


# --------------------------------------------------------------------------------------- loading


def bundled_names() -> list[str]:
    return sorted(p.stem for p in BUNDLED_DIR.glob("*.toml"))


def resolve_path(name_or_path: str | Path, relative_to: Path | None = None) -> Path:
    """A bare name ("kop") is a bundled ruleset; anything ending in .toml or holding a path
    separator is a file, relative to the extending file's folder when given from `extends`."""
    s = str(name_or_path)
    p = Path(s)
    if p.suffix != ".toml" and "/" not in s and "\\" not in s:
        return BUNDLED_DIR / f"{s}.toml"
    if relative_to is not None and not p.is_absolute():
        return relative_to / p
    return p


def _read_text(path: Path, label: str) -> str:
    """The text of a ruleset file: a regular file of at most MAX_FILE_BYTES, in UTF-8. Opened
    without blocking and checked before reading, so a FIFO or a device is refused, not read."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        if path.parent == BUNDLED_DIR:  # a bare name: say so, not where bundled files live
            raise InputError([Problem(path.stem, "", "no bundled ruleset of that name (bundled: "
                                      f"{', '.join(bundled_names())}; or give a .toml path)")])
        raise InputError([Problem(label, "", "no such ruleset file "
                                  f"(bundled rulesets: {', '.join(bundled_names())})")])
    except (OSError, ValueError) as e:
        raise InputError([Problem(label, "", f"cannot read: {e}")])
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise InputError([Problem(label, "", "not a regular file: a ruleset is a TOML file")])
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise InputError([Problem(label, "", f"larger than {MAX_FILE_BYTES:,} bytes: "
                                  "not a ruleset file")])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise InputError([Problem(label, "", f"cannot read: not UTF-8 text ({e.reason} at byte "
                                  f"{e.start})")])


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


# Tables that are one value, not a set of settings: a child's replaces the parent's whole.
ATOMIC_TABLES = {"eligible", "holding", "won", "lost", "plain"}


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


def load_raw(name_or_path: str | Path, _chain: tuple[Path, ...] = ()) -> tuple[dict, Path]:
    """The merged TOML data of a ruleset, `extends` resolved (parents first)."""
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
        return data, path
    parent_name = _check_extends_name(parent_name, str(path))
    try:
        parent, _ = load_raw(parent_name, (*_chain, resolved))
    except InputError as e:
        if any(p.where == "extends" for p in e.problems) or _chain:
            raise
        raise InputError([Problem(str(path), "extends",
                                  f"cannot load parent ruleset {parent_name!r}: "
                                  + "; ".join(str(p) for p in e.problems))])
    data.setdefault("name", path.stem)
    return merge_tables(parent, data), path


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


def load_ruleset(name_or_path: str | Path) -> Ruleset:
    data, path = load_raw(name_or_path)
    data.setdefault("name", path.stem)
    return ruleset_from_dict(data, str(path))


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
    loc = ["not" if p == "not_" else p for p in loc]
    if loc[-2:-1] in (["won"], ["lost"]) and loc[-1] == "flat":
        loc = loc[:-1]  # a price written as a plain number: the user wrote no `flat` key
    msg = err["msg"]
    if err["type"] == "extra_forbidden":
        msg = "unknown key"
    elif err["type"] == "missing":
        msg = "missing required key"
    elif "input" in err and err["type"] not in ("value_error",):
        msg = f"{msg} (got {err['input']!r})"
    msg = msg.removeprefix("Value error, ")
    return Problem(source, dotted(loc), msg)


# ------------------------------------------------------------------------------------- semantics


def check_semantics(r: Ruleset, source: str) -> list[Problem]:
    probs: list[Problem] = []

    def bad(where: str, msg: str) -> None:
        probs.append(Problem(source, where, msg))

    deck = r.deck
    for key, seq in (("deck.ranks", deck.ranks), ("deck.suits", deck.suits)):
        for x in {x for x in seq if seq.count(x) > 1}:
            bad(key, f"{x!r} is listed more than once")
    for rank in deck.ranks:
        if rank not in deck.points:
            bad("deck.points", f"no card points for rank {rank!r}")
    for rank in deck.points:
        if rank not in deck.ranks:
            bad(f"deck.points.{rank}", f"{rank!r} is not a rank of the deck")
    cards = deck.cards()
    card_set = set(cards)
    if len(cards) != len(card_set):
        bad("deck", "two rank+suit combinations spell the same card name")
    if len(cards) % deck.players:
        bad("deck", f"{len(cards)} cards cannot be dealt evenly to {deck.players} players")
    if len(cards) > MAX_CARDS:
        bad("deck", f"{len(cards)} cards: at most {MAX_CARDS} are supported")
    if len(r.contracts) > MAX_CONTRACTS:
        bad("contracts", f"{len(r.contracts)} contracts: at most {MAX_CONTRACTS} are supported")
    if probs:
        return probs  # nothing below makes sense without a sound deck

    def check_cards(where: str, seq: list[str]) -> None:
        for i, c in enumerate(seq):
            if c not in card_set:
                bad(f"{where}[{i}]", f"{c!r} is not a card of the deck ({', '.join(cards)})")

    for oname, order in r.orders.items():
        where = f"orders.{dotted([oname])}"
        if not order.trumps and not order.plain:
            bad(where, "an order needs trumps or plain suits")
        seq = list(order.trumps) + [c for g in order.plain.values() for c in g]
        check_cards(f"{where}.trumps", order.trumps)
        for g, group in order.plain.items():
            check_cards(f"{where}.plain.{dotted([g])}", group)
        for c in sorted({c for c in seq if seq.count(c) > 1}):
            bad(where, f"card {c} appears more than once")
        missing = [c for c in cards if c not in seq]
        if missing:
            bad(where, f"the order misses {', '.join(missing)} (every card must appear once)")
    if not r.orders:
        bad("orders", "at least one card order is needed")

    chain = r.doubling.names
    for x in {x for x in chain if chain.count(x) > 1}:
        bad("doubling.names", f"{x!r} is listed more than once")
    if r.doubling.cap_without_bid is not None and r.doubling.cap_without_bid > len(chain):
        bad("doubling.cap_without_bid",
            f"cap {r.doubling.cap_without_bid} is beyond the doubling chain ({len(chain)} names)")

    _check_call_names(r, bad)
    reserved = {"pass", r.auction.ask_call, "double", *chain}
    ranks_seen: dict[int, str] = {}
    for cname, c in r.contracts.items():
        where = f"contracts.{dotted([cname])}"
        if cname in reserved:
            bad(where, f"a contract cannot be named {cname!r}: that is a call of the auction")
        if c.bid_rank is not None:
            if c.bid_rank in ranks_seen:
                bad(f"{where}.bid_rank",
                    f"rank {c.bid_rank} is also the rank of {ranks_seen[c.bid_rank]!r}")
            ranks_seen[c.bid_rank] = cname
        reachable = (c.bid_rank is not None or cname in r.auction.no_bid
                     or cname in r.auction.dealt)
        if not reachable:
            bad(where, "the contract can never be played: give it a bid_rank or list it in "
                "auction.no_bid or auction.dealt")
        if not c.instant:
            if c.order is None:
                bad(f"{where}.order", "missing: a played contract needs a card order")
            elif c.order not in r.orders:
                bad(f"{where}.order",
                    f"no card order named {c.order!r} (orders: {', '.join(r.orders)})")
            if c.payout.lost is None:
                bad(f"{where}.payout.lost", "missing: a played contract can be lost")
        check_cards(f"{where}.team_cards", c.team_cards)
        if c.team in ("holders", "called") and not c.team_cards:
            bad(f"{where}.team_cards", f"team = {c.team!r} needs the cards that form the team")
        if c.team == "alone" and c.team_cards:
            bad(f"{where}.team_cards", "a contract played alone names no team cards")
        if c.eligible is not None:
            for rel, card in c.eligible.cards():
                if card not in card_set:
                    bad(f"{where}.eligible.{rel}", f"{card!r} is not a card of the deck")
            _check_predicate_size(c.eligible, f"{where}.eligible", bad)
        if c.team == "holders" and r.scoring.style == "zero_sum" and len(set(c.team_cards)) >= 4:
            # Every deal is possible and every card is dealt, so with four or more team cards
            # some deal gives one to each seat: the old side is then the whole table and nobody
            # pays what the winners receive.
            bad(f"{where}.team_cards", f"{len(set(c.team_cards))} cards can be held one by each "
                "seat, putting all four players on the old side (no one to pay in a zero_sum "
                "ruleset): a holders team needs at most 3 team cards")
        if c.instant and c.max_doubles:
            bad(f"{where}.max_doubles", "an instant contract cannot be doubled (it is never "
                "played, so nothing would price the doubles)")
        if c.max_doubles is not None and c.max_doubles > len(chain):
            bad(f"{where}.max_doubles",
                f"cap {c.max_doubles} is beyond the doubling chain ({len(chain)} names)")

    a = r.auction
    if not a.no_bid:
        bad("auction.no_bid", "name the contract(s) played when nobody bids")
    for key, lst in (("no_bid", a.no_bid), ("dealt", a.dealt)):
        for i, n in enumerate(lst):
            if n not in r.contracts:
                bad(f"auction.{key}[{i}]", f"no contract named {n!r}")
    if a.no_bid and all(n in r.contracts and r.contracts[n].eligible is not None
                        for n in a.no_bid):
        bad("auction.no_bid", "some deal would have no contract: at least one entry must have "
            "no `eligible` condition")
    for n in a.dealt:
        if n in r.contracts and r.contracts[n].eligible is None:
            bad("auction.dealt", f"contract {n!r} needs an `eligible` holding to be dealt")
        if n in r.contracts and r.contracts[n].team == "called":
            bad("auction.dealt", f"contract {n!r}: a dealt contract cannot call a partner")
    for i, n in enumerate(a.no_bid):
        c = r.contracts.get(n)
        if c is None:
            continue
        if c.team == "called":
            bad(f"auction.no_bid[{i}]", f"contract {n!r} calls a partner, but nobody bid it: "
                "only `holders` or `alone` (with an `eligible` holding) can apply unbid")
        if c.team == "alone" and c.eligible is None:
            bad(f"auction.no_bid[{i}]", f"contract {n!r} is played alone, but with no `eligible` "
                "holding nobody is its player")
    callable_names = {"pass", a.ask_call, "double", *r.contracts}
    for i, res in enumerate(a.restrictions):
        for j, n in enumerate(res.forbid):
            if n not in callable_names:
                bad(f"auction.restrictions[{i}].forbid[{j}]",
                    f"{n!r} is not a call (a contract name, 'pass', {a.ask_call!r} or 'double')")
        if res.holding is not None:
            for rel, card in res.holding.cards():
                if card not in card_set:
                    bad(f"auction.restrictions[{i}].holding.{rel}", f"{card!r} is not a card")
            _check_predicate_size(res.holding, f"auction.restrictions[{i}].holding", bad)
    if a.style == "single" and chain:
        bad("auction.style", "a single-call auction has no doubling: leave doubling.names empty")

    for i, m in enumerate(r.scoring.multipliers):
        for j, n in enumerate(m.contracts or []):
            if n not in r.contracts:
                bad(f"scoring.multipliers[{i}].contracts[{j}]", f"no contract named {n!r}")
    if probs:
        return probs  # the bounds below read contracts, chain and orders as sound
    calls = max_auction_calls(r)
    if calls > MAX_AUCTION_CALLS:
        bad("auction", f"an auction could run to {calls:,} calls (bids, doubles and the passes "
            f"between them): at most {MAX_AUCTION_CALLS} are supported; shorten the doubling "
            "chain, bid fewer contracts or end the auction after fewer passes")
    for cname in r.contracts:
        value = max_hand_value(r, cname)
        if value > MAX_HAND_VALUE:
            bad(f"contracts.{dotted([cname])}.payout", f"with every double and multiplier the "
                f"hand could be worth {value:.3g} to one seat: at most {MAX_HAND_VALUE:.0e}")

    s = r.session
    if s is not None:
        if s.kind == "series":
            if s.hands is None:
                bad("session.hands", "a series needs its number of hands")
            if len(s.placement_points) != deck.players:
                bad("session.placement_points", f"give one value per place ({deck.players})")
        if s.kind == "series" and s.hands_options and s.hands not in s.hands_options:
            bad("session.hands", f"{s.hands} is not one of hands_options {s.hands_options}")
        if s.kind == "bankroll" and s.start is None:
            bad("session.start", "a bankroll session needs each player's starting amount")
        if s.kind == "bankroll" and r.scoring.style != "zero_sum":
            bad("session.kind", "a bankroll moves what losers pay: it needs scoring.style = "
                "\"zero_sum\"")
    return probs


def _check_call_names(r: Ruleset, bad) -> None:
    """The engines tell calls apart by name: pass, the ask call, the doubling chain and the
    generic "double" of restrictions must all differ (contracts are checked against them too)."""
    ask = r.auction.ask_call
    if ask in ("pass", "double"):
        bad("auction.ask_call", f"the ask call cannot be named {ask!r}: that is a call of the "
            "auction")
    for i, name in enumerate(r.doubling.names):
        if name in ("pass", "double", ask):
            bad(f"doubling.names[{i}]", f"a double cannot be named {name!r}: that is "
                + ("the ask call" if name == ask else "a call of the auction"))


def _check_predicate_size(p: Predicate, where: str, bad) -> None:
    nodes = predicate_nodes(p)
    if nodes > MAX_PREDICATE_NODES:
        bad(where, f"a predicate of {nodes:,} tables: at most {MAX_PREDICATE_NODES}")


def predicate_nodes(p: Predicate) -> int:
    subs = (p.all_of or []) + (p.any_of or []) + ([p.not_] if p.not_ else [])
    return 1 + sum(predicate_nodes(s) for s in subs)


def max_auction_calls(r: Ruleset) -> int:
    """The most calls an auction can have: every call but a pass moves the auction on (each bid
    is higher, each double the next of its chain, the ask call said once), and between two such
    calls, before the first and after the last, fewer passes than end it."""
    a = r.auction
    n_bids = len(r.bids())
    moves = 1 + n_bids + (n_bids + 1) * len(r.doubling.names)
    return moves * a.end_after_passes + a.end_after_passes_without_call + 4


def max_hand_value(r: Ruleset, contract: str) -> float:
    """The most one seat can receive or pay on one hand of a contract: the highest price (or the
    tie value), every allowed double counted, every multiplier that can apply, three opponents."""
    c = r.contracts[contract]
    prices = [c.payout.won] + ([c.payout.lost] if c.payout.lost else [])
    tiers = ("out", "schneider", "schwarz")
    value = max(p.value(t) for p in prices for t in tiers)
    value = max(value, r.scoring.tie_value_without_double or 0)
    value *= r.doubling.factor ** r.max_doubles(contract)
    for m in r.scoring.multipliers:
        if m.contracts is None or contract in m.contracts:
            value *= max(m.factor, 1)
    return 3 * value


def validate_files(paths: list[str]) -> list[Problem]:
    problems: list[Problem] = []
    for p in paths:
        try:
            load_ruleset(p)
        except InputError as e:
            problems += e.problems
    return problems
