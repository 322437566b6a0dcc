"""The ruleset format: the pydantic models of a validated `Ruleset` and the limits they enforce.

A ruleset is data only. Predicates come from a small fixed vocabulary (`Predicate`) and are never
evaluated as code. `load` reads the TOML (resolving `extends`) into these models, which check
types (unknown keys are errors); `validate` then checks meaning (every order a permutation of the
deck, every card named exists, every contract reachable and priced, ...). Every problem is
reported with its file and key path.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Annotated, ClassVar, Literal, Mapping, Optional, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, model_validator


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
MAX_BID_VALUES = 200  # the values of a bidding-by-value ladder
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


def _whole(x: float) -> float:
    if not float(x).is_integer():
        raise ValueError(f"card points are whole numbers (got {x!r}): sums of them, and the "
                         "threshold a side wins with, must be exact")
    return x


# whole numbers, so that every sum of card points is exact (no card game of the family counts
# fractions: 0.1 + 0.2 + ... would put a 2:2 split past the default threshold)
CardPoints = Annotated[_float_in(0, MAX_CARD_POINTS), AfterValidator(_whole)]
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


def _named(name: str) -> str:
    if not name.strip():
        raise ValueError(f"a name cannot be {'empty' if not name else 'blank'}: other keys "
                         "refer to it, and an empty reference reads as none")
    return name


# a name other parts of the ruleset refer to: a rank, suit, order, contract, double or call. An
# empty one would read as "none" wherever a name is optional (an order "" as no order at all)
Name = Annotated[str, AfterValidator(_named)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, strict=True, frozen=True)


# ----------------------------------------------------------------------------------- predicates

# the seats a table may have: a record, a results file and the engines read the count from the
# ruleset (deck.players); these bound what a log may claim before any ruleset is read
MIN_SEATS, MAX_SEATS = 3, 6
DEFAULT_SEATS = 4  # a ruleset that does not say: every bundled ruleset's table


MAX_COPIES = 4  # copies of each card a deck may hold (within MAX_CARDS in all)
COPY_MARK = "#"  # "QC#2": the second copy of QC


def copy_name(card: str, j: int) -> str:
    """The name of copy j (0: the card itself) of `card` in a deck with copies."""
    return card if j == 0 else f"{card}{COPY_MARK}{j + 1}"


def positions(players: int) -> tuple[str, ...]:
    """Each seat's position counted from the dealer's left: forehand first, the dealer last."""
    return ("forehand", *("second", "third", "fourth", "fifth")[:players - 2], "dealer")


def position_of(seat: int, dealer: int, players: int) -> str:
    """The position of `seat` at a table of `players` seats when `dealer` deals."""
    return positions(players)[(seat - dealer - 1) % players]


POSITIONS = positions(DEFAULT_SEATS)  # the four-handed table's


class HoldsCount(_Model):
    cards: list[str]
    min: CardCount = 0
    max: Optional[CardCount] = None


class Predicate(_Model):
    """A condition on one seat's dealt hand (and where it sits). Exactly one key per table:

    holds_all / holds_any / holds_none = [cards]; holds_count = {cards, min, max};
    position = "forehand" | "second" | "third" | "fourth" | "fifth" | "dealer" (the table's
    positions: `positions(deck.players)`); all_of / any_of = [predicates];
    not = predicate.
    """

    holds_all: Optional[list[str]] = None
    holds_any: Optional[list[str]] = None
    holds_none: Optional[list[str]] = None
    holds_count: Optional[HoldsCount] = None
    position: Optional[Literal["forehand", "second", "third", "fourth", "fifth", "dealer"]] = None
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
        def own(p: "Predicate") -> list[tuple[str, str]]:
            out = [(f"{key}[{i}]", c) for key in ("holds_all", "holds_any", "holds_none")
                   for i, c in enumerate(getattr(p, key) or [])]
            if p.holds_count:
                out += [(f"holds_count.cards[{i}]", c)
                        for i, c in enumerate(p.holds_count.cards)]
            return out
        return self.gather(own)

    def positions(self) -> list[tuple[str, str]]:
        """(relative key path, position) for every position this predicate names."""
        return self.gather(lambda p: [("position", p.position)] if p.position is not None else [])

    def gather(self, own) -> list[tuple[str, str]]:
        """own(table)'s (relative key path, name) pairs of this table and of every table under
        it, each path from this table."""
        out = own(self)
        for key in ("all_of", "any_of"):
            for i, p in enumerate(getattr(self, key) or []):
                out += [(f"{key}[{i}].{k}", x) for k, x in p.gather(own)]
        if self.not_:
            out += [(f"not.{k}", x) for k, x in self.not_.gather(own)]
        return out

    def holds(self, hand: Mapping[str, int], position: str) -> bool:
        """Plain evaluation, used by the reference engine: `hand` maps each card the rules name
        that the seat holds to the copies of it held (`Ruleset.holding_of`)."""
        if self.holds_all is not None:
            return all(c in hand for c in self.holds_all)
        if self.holds_any is not None:
            return any(c in hand for c in self.holds_any)
        if self.holds_none is not None:
            return not any(c in hand for c in self.holds_none)
        if self.holds_count is not None:  # each copy of a card counts, each card named once
            n = sum(hand.get(c, 0) for c in set(self.holds_count.cards))
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
    ranks: list[Name] = Field(max_length=MAX_DECK_NAMES)
    suits: list[Name] = Field(max_length=MAX_DECK_NAMES)
    points: dict[Name, CardPoints]  # card points by rank
    players: Annotated[int, Field(ge=MIN_SEATS, le=MAX_SEATS)] = DEFAULT_SEATS  # seats
    # every card so many times (Doppelkopf: 2); None: once. Equal cards are separate cards of
    # the deck, dealt and played apart; the rules name a card once and mean every copy
    copies: Optional[Annotated[int, Field(ge=1, le=MAX_COPIES)]] = None

    def cards(self) -> list[str]:
        """The cards the rules name, in index order: ranks outer, suits inner ("AC", "AS",
        "AH", "AD", "10C", ...). With copies each is dealt `copies` times (`dealt_cards`)."""
        return [r + s for r in self.ranks for s in self.suits]

    def dealt_cards(self) -> list[str]:
        """The deck as dealt, in index order: each card the rules name, then its other copies
        right after it, named with the copy's number ("QC", "QC#2")."""
        return [c if j == 0 else copy_name(c, j) for c in self.cards()
                for j in range(self.copies or 1)]

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
    plain: dict[Name, list[str]] = Field({}, max_length=MAX_CARDS)
    description: str = ""


class Play(_Model):
    follow_suit: bool = True  # follow the suit led (all trumps count as one suit)
    trump_when_void: bool = True  # void in the suit led: play a trump if you have one
    must_beat: bool = True  # among the cards allowed, beat the card winning the trick if you can
    # of equal cards (the copies of a card) in one trick, which wins: None or "first" (the one
    # played first, as the Doppelkopf association's rules say) or "last"
    equal_cards: Optional[Literal["first", "last"]] = None


class Restriction(_Model):
    """Forbids some calls to a seat while every condition given holds."""

    forbid: list[Name]  # contract names, "pass", the ask call, or "double"
    holding: Optional[Predicate] = None  # the seat's hand and position
    first_call: Optional[bool] = None  # is this the seat's first call?
    bid_in_force: Optional[bool] = None  # has anyone bid so far?
    asked: Optional[bool] = None  # has this seat said the ask call?
    note: str = ""


class Reopening(_Model):
    """A silent first round reopens the auction once for these announcements (Wielkopolska
    tournament Kop's wesele after four passes)."""

    announce: list[Name] = Field(max_length=MAX_CONTRACTS)  # contracts that may be announced


class Auction(_Model):
    # open: clockwise from forehand, pass / higher bid / next double, until enough passes;
    # ask:  as open, but forehand's first call is a bid or the ask call, never a pass;
    # single: each seat that may bid speaks once (bid or pass), nobody else calls.
    # value: bidding by value (Skat's Reizen): a bid is a number of `values`; each seat after
    #        forehand in turn bids to the senior seat left standing: he names a higher value or
    #        passes, the senior holds it (`hold_call`) or passes, until one of them passes. The
    #        last seat standing declares, at the last value named or held, a contract with a
    #        bid_rank; if nobody named a value forehand may name one or pass.
    style: Literal["open", "ask", "single", "value"] = "open"
    ask_call: Name = "ask"
    values: Optional[list[_int_in(1, MAX_PRICE)]] = Field(None, max_length=MAX_BID_VALUES)
    hold_call: Optional[Name] = None  # style value: the senior's answer; None: "yes"
    end_after_passes: Passes = 3  # passes in a row after a bid, double or ask
    end_after_passes_without_call: Passes = 4  # passes in a row when nobody called
    no_bid: list[Name]  # contracts tried in order when nobody bids (first whose `eligible` holds)
    dealt: list[Name] = []  # contracts that win from the deal itself, before any auction
    restrictions: list[Restriction] = Field([], max_length=MAX_RESTRICTIONS)
    # single: once the declarations are made, a doubling round on the bid in force (Schafkopf's
    # Kontra and Re): from forehand each seat passes or says the next double, until
    # end_after_passes passes follow a double, or four passes none
    doubles_after_single_round: Optional[bool] = None
    # open, ask: a first round with no bid and no double (passes, and forehand's ask) does not end
    # the auction: from forehand each seat passes or announces one of these (as it may bid
    # it); the first announcement is the bid in force of an ordinary auction restarted from
    # forehand, which ends as any, but only once every seat has spoken in it. Nobody
    # announcing: the no-bid contracts as before. None: no reopening (every existing ruleset
    # keeps its sha256)
    reopen_after_silent_round: Optional[Reopening] = None


class Doubling(_Model):
    # the chain: the n-th double since the last bid carries the n-th name
    names: list[Name] = Field([], max_length=MAX_DOUBLING_NAMES)
    factor: DoublingFactor = 2.0  # each counted double multiplies the value
    cap_without_bid: Optional[DoubleCount] = None  # doubles allowed before any bid
    without_bid: bool = True  # may doubles be said while no bid is in force?
    # a double on one's own side's double: said but not counted (it uses up the cap), or not
    # offered at all (the sides as the contract in force forms them). None reads "ignored": a
    # new key defaults to None so that every existing ruleset keeps its sha256
    own_side: Optional[Literal["ignored", "forbidden"]] = None


class Price(_Model):
    """A value: a number (no tiers), or one value per tier of the losing side."""

    expected: ClassVar[str] = "a number, or a table { out = …, schneider = …, schwarz = … }"
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


class Laufende(_Model):
    """Schafkopf's Laufende: the top trumps one side holds without a gap, counted from the top
    (with or without the highest), add `value` each to the hand's value once there are at least
    `from` of them."""

    from_: _int_in(1, MAX_CARDS) = Field(alias="from")
    value: Value
    cards: list[str] = Field([], max_length=MAX_CARDS)  # high to low; default: the order's trumps


class CalledCardRules(_Model):
    """Schafkopf's duties around the called ace (Rufsau), until its suit is first led: its
    holder must play it when the suit is led, may not throw it on another suit, and may lead
    the suit only with it, unless he holds `run_away_with` or more of the suit."""

    run_away_with: _int_in(1, MAX_CARDS) = 4


class Ramsch(_Model):
    """A hand played each for himself (team = "each", goal = "fewest_points"): the seat with the
    most points loses and pays the value to each of the others."""

    # of seats tied on the most points, the one who played the highest trump loses; or the one
    # with the most tricks, then the highest trump
    loser: Literal["highest_trump", "most_tricks"] = "highest_trump"
    # a Durchmarsch: a seat that takes every trick (or at least this many points) wins instead,
    # receiving the value from each of the others
    durchmarsch: Optional[Union[Literal["all_tricks"], Points]] = None
    # Jungfrau: each seat that took no trick doubles the value the loser pays
    jungfrau: Optional[Literal["double"]] = None


# Where the talon's card points count at the end of a hand: in the old side's (a lone
# player's: Skat's declarer takes the skat), in the last trick's winner's (Skat's Ramsch), or
# in nobody's
TalonPoints = Literal["old_side", "last_trick", "nobody"]

# Who picks the talon up once the contract and its declarer are known: nobody (it lies untouched
# to the end), the declarer, who may instead play "hand" without it (Skat), or the declarer
# always. Who picks it up lays as many cards away, face down: they are the talon from then on
TalonPickUp = Literal["never", "declarer_may", "declarer_must"]


class Talon(_Model):
    """Cards dealt face down to no seat (Skat's skat, Sheepshead's blind): the last `cards`
    cards of the deal. Nobody sees or plays them; at the end of the hand their card points count
    for `points` (a contract may say otherwise: `Contract.talon_points`)."""

    cards: _int_in(1, MAX_CARDS - MIN_SEATS)
    points: TalonPoints = "old_side"
    pick_up: TalonPickUp = "never"  # a contract may say otherwise: `Contract.talon_pick_up`


class Contract(_Model):
    description: str = ""
    bid_rank: Optional[BidRank] = None  # biddable in the auction, higher rank beats lower
    # bid classes (Schafkopf: Rufspiel < Wenz < Solo): a bid beats the bid in force only with a
    # higher class, so of two seats wanting one class the earlier keeps it; bid_rank then only
    # orders the calls. Either every biddable contract has a class or none has
    bid_class: Optional[BidRank] = None
    eligible: Optional[Predicate] = None  # who may bid it / to whom a no-bid contract applies
    first_call_only: bool = False  # may only be a seat's first call of the auction
    team: Literal["holders", "called", "alone", "each"] = "alone"
    # holders: the holders of team_cards form the old side;
    # called: the declarer plus the holder of the first card of team_cards he lacks;
    # each: every seat for himself (Ramsch; goal = "fewest_points")
    team_cards: list[str] = Field([], max_length=MAX_CARDS)
    instant: bool = False  # wins at once, without play
    # no_tricks: Bettel, Null; fewest_points: Ramsch (team = "each")
    goal: Literal["points", "all_tricks", "no_tricks", "fewest_points"] = "points"
    order: Optional[Name] = None
    max_doubles: Optional[DoubleCount] = None  # doubles allowed while it is in force
    declarer_may_double_first: bool = False
    # only the young side may say the first double (Schafkopf: "only opponents may Kontra"),
    # the sides as the contract forms them on the deal (a called partner is the declarer's)
    first_double_young_only: Optional[bool] = None
    # an add-on to another contract (Baśka's "du" on zolo or gran): its bidder, while that
    # contract is his bid in force, may say this one and keep the doubles already said; anyone
    # else's bid of it cancels them, as any higher bid does
    add_on_to: Optional[Name] = None
    # an instant contract in which nobody plays (Schafkopf's cards thrown in when nobody
    # declares): nobody wins and nothing is paid
    thrown_in: Optional[bool] = None
    payout: Payout
    laufende: Optional[Laufende] = None  # an added value part, before doubling
    called_card_rules: Optional[CalledCardRules] = None  # team = "called" only
    ramsch: Optional[Ramsch] = None  # team = "each" only; None: its defaults
    # whose points the talon's cards count in (rules with a `talon` only); None: talon.points
    talon_points: Optional[TalonPoints] = None
    # who picks the talon up in it (rules with a `talon` only); None: talon.pick_up
    talon_pick_up: Optional[TalonPickUp] = None
    # Skat's game value (docs/rules/SKAT.md §6): added to the value, before doubles and
    # multipliers, when the declarer played without picking the talon up (a hand game)
    hand_value: Optional[Value] = None
    # bid by value: declared only by a declarer who did not pick the talon up (Skat's
    # announced schneider and schwarz, ouvert)
    hand_only: Optional[bool] = None
    # played open: the declarer lays his cards face up before the first lead and plays from
    # them, every seat seeing what he still holds (Skat's ouvert games, SKAT.md §2.7)
    open_hand: Optional[bool] = None
    # the points the old side wins with in this contract (Skat's announced schneider: 90);
    # None: scoring.win_points
    win_points: Optional[Points] = None
    # bid by value, a game whose value falls below the bid is lost at the least multiple of
    # this that reaches the bid (Skat's overbid, SKAT.md §7); None: at the bid
    base_value: Optional[Value] = None

    def laufende_cards(self, orders: dict) -> list[str]:
        """The cards Laufende are counted over, high to low."""
        if self.laufende is None:
            return []
        if self.laufende.cards:
            return list(self.laufende.cards)
        return [] if self.order is None else list(orders[self.order].trumps)


class Multiplier(_Model):
    factor: MultiplierFactor
    when: Literal["old_side_lost", "old_side_won", "tie"]
    contracts: Optional[list[str]] = None  # default: every contract
    note: str = ""


class RevokePenalty(_Model):
    offender: SignedValue
    others: SignedValue


class Scoring(_Model):
    # zero_sum: losers pay winners; winners_only: losers pay nothing; old_side_only: only the
    # old side is scored, +v or -v a seat (Skat's score sheet), nobody else
    style: Literal["zero_sum", "winners_only", "old_side_only"] = "zero_sum"
    win_points: Optional[Points] = None  # default: a majority of the pack's points
    schneider_max_points: Points = 25  # losing side with at most this and a trick: schneider
    # the old side, losing, is schneider with at most this many (default: schneider_max_points):
    # Schafkopf's declarers are free from 31, its defenders from 30
    old_side_schneider_max_points: Optional[Points] = None
    tie: Literal["last_double_loses", "nobody_wins", "old_side_loses"] = "last_double_loses"
    # a lone player's game is paid by (or to) each opponent, or once, shared by the three
    lone_settlement: Optional[Literal["each_opponent", "once"]] = None
    tie_value_without_double: Optional[Value] = None  # default: the contract's own value
    multipliers: list[Multiplier] = Field([], max_length=MAX_MULTIPLIERS)
    revoke_penalty: Optional[RevokePenalty] = None  # cannot happen between bots; shown only


MAX_TOURNAMENT_ROUNDS = 1_000
TIE_BREAKS = ("placement_points", "total", "places")


class Tournament(_Model):
    """Several series (rounds) at one table, the players re-seated between rounds and ranked
    over all of them."""

    rounds: _int_in(1, MAX_TOURNAMENT_ROUNDS)
    # "random": a fresh draw of seats each round; "plan": round r seats player plan[r][s] in
    # seat s (the plan repeats when there are more rounds than rows)
    seating: Literal["random", "plan"] = "random"
    plan: list[list[int]] = Field([], max_length=MAX_TOURNAMENT_ROUNDS)
    # the order of comparison: placement points summed over the rounds, then total points,
    # then the number of 1st places, of 2nd places, ...; a tie on all of them stands
    ranking: list[Literal["placement_points", "total", "places"]] = list(TIE_BREAKS)
    # what a player who misses a round scores for it (shown; bots never miss a round)
    # a team's total: the placement points of its best team_best players (in an experiment the
    # players of one bot form a team); None: no team standings
    team_best: Optional[_int_in(1, MAX_SEATS)] = None
    forfeit_placement_points: Optional[SignedValue] = None
    forfeit_total: Optional[SignedValue] = None


class Session(_Model):
    kind: Literal["series", "bankroll"]
    # series: a fixed number of hands, then table places score points
    hands: Optional[SessionHands] = None
    hands_options: list[SessionHands] = Field([], max_length=MAX_HANDS_OPTIONS)
    placement_points: list[SignedValue] = Field([], max_length=MAX_SEATS)
    positive_bonus: Value = 0  # shared equally by the players who end with a positive total
    # bankroll: every player starts with `start`; the session ends after the hand in which a
    # player reaches zero; a loser who cannot pay in full pays what he has, one unit at a time
    # to the winners in turn clockwise from his left
    start: Optional[Annotated[float, Field(gt=0, le=MAX_START, allow_inf_nan=False)]] = None
    # series only: the series as rounds of a tournament (played when an experiment says so)
    tournament: Optional[Tournament] = None


class Ruleset(_Model):
    """A validated rule variant (docs/rulesets.md): deck, card orders, contracts, auction,
    doubling, scoring and payouts. Made by `load_ruleset`; compiled to the kernel's tables."""

    name: Name
    description: str = ""
    source: str = ""
    deck: Deck
    orders: dict[Name, Order] = Field(max_length=MAX_ORDERS)
    play: Play = Play()
    auction: Auction
    doubling: Doubling = Doubling()
    contracts: dict[Name, Contract]
    scoring: Scoring = Scoring()
    session: Optional[Session] = None
    talon: Optional[Talon] = None  # cards dealt to no seat; None: every card is dealt to a seat

    # The model's own derived views (cards, points, bids, sha256) are memoised here: the models
    # are frozen. Tables the engines build from a ruleset live in rules/cache.py.
    _cache: dict = PrivateAttr(default_factory=dict)

    def _cached(self, key: str, make):
        # the private attributes' dict itself: `self._cache` goes through pydantic's
        # __getattr__, a cost the reference engine paid at every hand
        cache = self.__pydantic_private__["_cache"]
        if key not in cache:
            cache[key] = make()
        return cache[key]

    # ------------------------------------------------------------------ derived, convenient views
    def cards(self) -> list[str]:
        """The deck as dealt (`Deck.dealt_cards`): a card's index here is its index everywhere
        (deals, hand masks, records)."""
        return self._cached("cards", self.deck.dealt_cards)

    def deal_offsets(self) -> tuple[int, ...]:
        """Where each card of the deck goes, in the order dealt: the seat, counted from the
        dealer's left (0: forehand), one card at a time round the table; then the talon's cards
        (`talon_cards`), whose destination is `deck.players` (no seat). The one statement of the
        deal, which the compiler turns into `RuleTables.deal_to` and the reference engine reads.
        """
        n, held = self.deck.players, self.hand_size() * self.deck.players
        return self._cached("deal", lambda: tuple(i % n if i < held else n
                                                  for i in range(len(self.cards()))))

    def talon_cards(self) -> int:
        """The cards dealt to the talon (0: none)."""
        return 0 if self.talon is None else self.talon.cards

    def hand_size(self) -> int:
        """The cards dealt to each seat, the tricks of a hand: the deck less the talon, shared
        evenly (validation holds it whole)."""
        return (len(self.cards()) - self.talon_cards()) // self.deck.players

    def talon_points_of(self, contract: str) -> str:
        """Whose points the talon's cards count in when `contract` is played (`TalonPoints`;
        "nobody" without a talon)."""
        c = self.contracts[contract]
        if self.talon is None:
            return "nobody"
        return c.talon_points if c.talon_points is not None else self.talon.points

    def hold_call(self) -> str:
        """The senior's answer in bidding by value: he holds the value named."""
        return self.auction.hold_call or "yes"

    def top_value(self, contract: str, hand_game: bool = True) -> float:
        """The most `contract` can be worth before doubles and multipliers: its highest price
        won, with every Laufende counted, and its hand value in a hand game. In bidding by
        value a contract may be declared only at a bid it can reach."""
        c = self.contracts[contract]
        value = max(c.payout.won.value(t) for t in ("out", "schneider", "schwarz"))
        if c.laufende is not None:
            value += c.laufende.value * len(c.laufende_cards(self.orders))
        return value + ((c.hand_value or 0.0) if hand_game else 0.0)

    def declarable(self, bid_value: int, hand_game: bool) -> list[str]:
        """The contracts a declarer may declare at `bid_value` (bidding by value): those with a
        bid_rank, low to high, that can be worth it; `hand_only` ones in a hand game only. If
        none can, any of them (he will have overbid: a Skat declarer who picked up after a bid
        only a hand game reaches must still declare)."""
        open_ = [n for n in self.bids() if hand_game or not self.contracts[n].hand_only]
        return [n for n in open_ if self.top_value(n, hand_game) >= bid_value] or open_

    def win_points_of(self, contract: str) -> float:
        """The points the old side wins `contract` with."""
        own = self.contracts[contract].win_points
        return self.win_points() if own is None else own

    def talon_pick_up_of(self, contract: str) -> str:
        """Who picks the talon up when `contract` is played (`TalonPickUp`): "never" without a
        talon, and in a contract without a declarer to pick it up (each for himself) or
        without play (instant)."""
        c = self.contracts[contract]
        if self.talon is None or c.team == "each" or c.instant:
            return "never"
        return c.talon_pick_up if c.talon_pick_up is not None else self.talon.pick_up

    def holding_of(self, cards) -> Counter:
        """What the rules read of a hand of dealt cards: each card they name, with the copies
        of it held (what `Predicate.holds` takes)."""
        faces = self._faces()  # read once: the reference engine reads every hand it deals
        return Counter(faces[c] for c in cards)

    def face_of(self, card: str) -> str:
        """The card the rules name for a dealt card: "QC" for "QC#2" (itself without copies)."""
        return self._faces()[card]

    def _faces(self) -> dict[str, str]:
        return self._cached("faces", lambda: {copy_name(c, j): c for c in self.deck.cards()
                                              for j in range(self.deck.copies or 1)})

    def copies_of(self, card: str) -> list[str]:
        """The dealt cards a card the rules name stands for: itself and its copies."""
        return [copy_name(card, j) for j in range(self.deck.copies or 1)]

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

    def bid_level(self, name: str) -> int:
        """What a bid of contract `name` must exceed to beat it: its class, else its rank."""
        c = self.contracts[name]
        return c.bid_class if c.bid_class is not None else c.bid_rank

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


