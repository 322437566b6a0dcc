"""The reference engine: one hand of any ruleset as a plain-Python `State`.

Written for reading, not for speed: card names, sets and the validated `Ruleset` model, no
compiled tables. Bots, `replay` and human play use it; the batch kernel (`kopsim.engine.kernel`) must
agree with it hand for hand, which a test checks on seeded deals.

The API follows OpenSpiel's: `current_player`, `legal_actions`, `apply_action`, `is_terminal`,
`returns`, and `observation(seat)`, which holds only what that seat may know.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .rng import shuffled
from ..rules.cache import table
from ..rules.model import Order, Play, Ruleset, position_of
from .scoring import Outcome, each_alone, score
from .value_bidding import ValueBidding

PASS = "pass"
DOUBLE = "double"  # the generic name restrictions use for "any double"
# the declarer's choice where the rules let him pick the talon up or play without it
PICK_UP, HAND = "pick_up", "hand"


# ------------------------------------------------------------------------------------------ deal


@dataclass(frozen=True)
class Deal:
    dealer: int
    hands: tuple[tuple[str, ...], ...]  # each seat's cards in the order dealt
    talon: tuple[str, ...] = ()  # the cards dealt to no seat (`Ruleset.talon`), in that order
    seats: int = field(init=False, compare=False)  # at the table: one hand each

    def __post_init__(self):
        object.__setattr__(self, "seats", len(self.hands))  # read at every card played

    @classmethod
    def from_seed(cls, rules: Ruleset, seed: int, dealer: int) -> "Deal":
        """Shuffle with the hand's seed, deal one card at a time from the dealer's left."""
        return cls.dealt(rules, shuffled(seed, len(rules.cards())), dealer)

    @classmethod
    def dealt(cls, rules: Ruleset, perm, dealer: int) -> "Deal":
        """The deal of the cards in the order `perm` (card indices of `rules.cards()`): the k-th
        to the seat `rules.deal_offsets()[k]` places on from the dealer's left, or to the
        talon where that is `deck.players` (the kernel's `steps.hand_out`, in plain Python)."""
        cards = rules.cards()
        n = rules.deck.players
        hands: list[list[str]] = [[] for _ in range(n + 1)]  # the seats', then the talon
        for ci, offset in zip(perm, rules.deal_offsets()):
            hands[(dealer + 1 + offset) % n if offset < n else n].append(cards[int(ci)])
        return cls(dealer, tuple(tuple(h) for h in hands[:n]), tuple(hands[n]))

    def position(self, seat: int) -> str:
        return position_of(seat, self.dealer, self.seats)


# ------------------------------------------------------------------------------------ card order


TRUMP = None  # the trump suit's key: no plain suit's name can collide with it


class CardOrder:
    """One card order: which suit a card follows as, and which card beats which. The copies of
    a card (`copies_of`) share its suit and rank; of equal cards in a trick the first played
    wins, or the last with `last_wins` (play.equal_cards)."""

    def __init__(self, order: Order, copies_of=lambda c: [c], last_wins: bool = False):
        self.suit: dict[str, str | None] = {}
        self.rank: dict[str, int] = {}  # higher is stronger within its suit
        self.last_wins = last_wins
        for i, c in enumerate(order.trumps):
            for x in copies_of(c):
                self.suit[x] = TRUMP
                self.rank[x] = len(order.trumps) - i
        for name, group in order.plain.items():
            for i, c in enumerate(group):
                for x in copies_of(c):
                    self.suit[x] = name
                    self.rank[x] = len(group) - i

    def strength(self, card: str, led_suit: str | None) -> int:
        """How strongly `card` bids for a trick whose led suit is `led_suit` (-1: not at all)."""
        if self.suit[card] is TRUMP:
            return 1000 + self.rank[card]
        if self.suit[card] == led_suit:
            return self.rank[card]
        return -1

    def winner_index(self, cards: list[str]) -> int:
        led = self.suit[cards[0]]
        strengths = [self.strength(c, led) for c in cards]
        best = max(strengths)  # equal only for copies of one card
        if self.last_wins:
            return len(strengths) - 1 - strengths[::-1].index(best)
        return strengths.index(best)


def card_orders(rules: Ruleset) -> dict[str, CardOrder]:
    """Each of the ruleset's card orders by name."""
    last = rules.play.equal_cards == "last"
    return table(rules, "card_orders", lambda: {k: CardOrder(o, rules.copies_of, last)
                                                for k, o in rules.orders.items()})


def deck_index(rules: Ruleset) -> dict[str, int]:
    """Each card's place in the deck."""
    return table(rules, "deck_index", lambda: {c: i for i, c in enumerate(rules.cards())})


def card_points(rules: Ruleset) -> dict[str, float]:
    """Each card's points."""
    return table(rules, "card_points", lambda: {c: rules.points_of(c) for c in rules.cards()})


def legal_cards(play: Play, order: CardOrder, hand: list[str], trick: list[str]) -> list[str]:
    """The cards of `hand` that may be played to `trick` (the cards already played to it, in
    order) under the play rules and the contract's card order; `hand`'s order is kept."""
    if not trick:
        return list(hand)
    led = order.suit[trick[0]]
    same = [c for c in hand if order.suit[c] == led]
    trumps = [c for c in hand if order.suit[c] is TRUMP]
    if same:
        allowed = same if play.follow_suit else list(hand)
    elif play.trump_when_void and trumps:
        allowed = trumps
    else:
        allowed = list(hand)
    if play.must_beat:
        best = max(order.strength(c, led) for c in trick)
        beaters = [c for c in allowed if order.strength(c, led) > best]
        if beaters:
            allowed = beaters
    return allowed


def called_card_duties(order: CardOrder, allowed: list[str], hand: list[str], trick: list[str],
                       called: str, run_away: int) -> list[str]:
    """The cards allowed to the holder of the called card before its suit has been led: he
    plays it when its suit is led, never on another suit, and leads the suit only with it
    unless he holds `run_away` cards of it. A duty never leaves him without a card."""
    suit = order.suit[called]
    if not trick:
        if sum(order.suit[c] == suit for c in hand) >= run_away:
            return allowed
        keep = [c for c in allowed if order.suit[c] != suit or c == called]
    elif order.suit[trick[0]] == suit:
        keep = [c for c in allowed if c == called]
    else:
        keep = [c for c in allowed if c != called]
    return keep or allowed


def called_card_of(rules: Ruleset, deal: Deal, contract: str, declarer: int | None) -> str | None:
    """The card that called the declarer's partner: the first team card he lacks."""
    c = rules.contracts[contract]
    if c.team != "called" or declarer is None:
        return None
    return next((card for card in c.team_cards if card not in deal.hands[declarer]), None)


def old_side_of(rules: Ruleset, deal: Deal, contract: str, declarer: int | None) -> list[int]:
    """The old side of a contract on a deal: the holders of its team cards, the declarer and
    the holder of the first team card he lacks, or the declarer alone; each for himself, nobody
    until the play is over (`scoring.each_alone`)."""
    c = rules.contracts[contract]
    if c.team == "each":
        return []
    if c.team == "holders":  # the holders of any copy of a team card
        team = set(c.team_cards)
        return sorted({s for s in range(deal.seats) for card in deal.hands[s]
                       if rules.face_of(card) in team})
    assert declarer is not None
    if c.team == "called":
        partner = next((s for card in c.team_cards if card not in deal.hands[declarer]
                        for s in range(deal.seats) if card in deal.hands[s]), None)
        return sorted({declarer} | ({partner} if partner is not None else set()))
    return [declarer]


# ---------------------------------------------------------------------------------- observation


@dataclass(frozen=True)
class TrickView:
    leader: int
    cards: tuple[str, ...]
    winner: int | None  # None while the trick is open

    def players(self, seats: int) -> list[int]:
        """The seat that played each card of the trick, at a table of `seats`."""
        return [(self.leader + j) % seats for j in range(len(self.cards))]


@dataclass(frozen=True)
class Observation:
    """What one seat knows: its own cards and everything said or played in the open."""

    seat: int
    seats: int  # at the table
    dealer: int
    phase: str  # "auction", "talon" (the declarer picks it up, lays away), "declare" (bid by
    # value, he names his game), "play" or "done"
    dealt: tuple[str, ...]  # own cards as dealt
    hand: tuple[str, ...]  # own cards still held
    auction: tuple[tuple[int, str], ...]  # (seat, call) in order
    bid: str | None  # the highest bid (or dealt contract, or the game declared), public;
    # None when nobody bid (or before a bid by value is declared)
    bidder: int | None
    tricks: tuple[TrickView, ...]  # completed tricks, then the open one
    to_play: int | None
    legal_actions: tuple[str, ...]  # empty unless it is this seat's turn
    # the talon picked up (True), the hand played without it (False), or no pick-up: public
    talon_taken: bool | None = None
    talon_seen: tuple[str, ...] = ()  # the talon's cards as picked up: the declarer's alone
    laid_away: tuple[str, ...] = ()  # the cards he laid away: his alone
    bid_value: int | None = None  # bidding by value: the last value named, public
    # a contract played open (`open_hand`): the declarer's cards still held, from the first
    # lead, public
    open_hand: tuple[str, ...] = ()


# ----------------------------------------------------------------------------------------- state


@dataclass
class State:
    rules: Ruleset
    deal: Deal
    phase: str = "auction"
    auction: list[tuple[int, str]] = field(default_factory=list)
    bid: str | None = None
    bidder: int | None = None
    double_seats: list[int] = field(default_factory=list)  # doubles since the last bid
    passes: int = 0
    any_call: bool = False
    doubling_round: bool = False  # single style: the round of doubles after the declarations
    reopening: bool = False  # in the round a silent first round reopens (announcements only)
    reopened: bool = False
    min_calls: int = 0  # a restarted auction ends only once every seat has spoken in it
    spoken: set[int] = field(default_factory=set)
    asked: set[int] = field(default_factory=set)
    turn: int | None = None
    contract: str | None = None
    declarer: int | None = None
    old_side: list[int] = field(default_factory=list)
    held: list[list[str]] = field(default_factory=list)
    tricks: list[TrickView] = field(default_factory=list)
    trick: list[str] = field(default_factory=list)
    leader: int = 0
    points: list[float] = field(default_factory=list)
    tricks_won: list[int] = field(default_factory=list)
    outcome: Outcome | None = None
    talon_taken: bool | None = None  # picked up, played hand, or no pick-up (None)
    laid_away: list[str] = field(default_factory=list)  # the talon once picked up
    value_bidding: ValueBidding | None = None  # style "value": the bidding, then its result
    _legal: list[str] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        n = self.rules.deck.players
        self.held = [list(h) for h in self.deal.hands]
        self.points = [0.0] * n
        self.tricks_won = [0] * n
        self.leader = self.forehand
        self._orders = card_orders(self.rules)
        self._deck_index = deck_index(self.rules)
        # what the rules read of a hand: the cards they name, a copy as often as held
        self._holdings = [self.rules.holding_of(h) for h in self.deal.hands]
        self._points = card_points(self.rules)
        self._bids = self.rules.bids()
        self._eligible: dict[tuple[str, int], bool] = {}
        dealt = self._dealt_contract()
        if dealt is not None:
            self._start(*dealt)
        else:
            self.turn = self.forehand
            a = self.rules.auction
            if a.style == "value":
                self.value_bidding = ValueBidding(tuple(a.values), self.rules.hold_call(),
                                                  self.seats_from_forehand())
                self.turn = self.value_bidding.to_speak()
            if self.rules.auction.style == "single":
                self.turn = self._next_single_speaker(self.forehand, first=True)
                if self.turn is None:
                    self._end_auction()

    # -------------------------------------------------------------------------------- basics
    @property
    def forehand(self) -> int:
        return (self.deal.dealer + 1) % self.deal.seats

    def holding(self, seat: int) -> Counter:
        return self._holdings[seat]

    def eligible(self, contract: str, seat: int) -> bool:
        key = (contract, seat)
        if key not in self._eligible:
            pred = self.rules.contracts[contract].eligible
            self._eligible[key] = pred is None or pred.holds(self.holding(seat),
                                                             self.deal.position(seat))
        return self._eligible[key]

    def seats_from_forehand(self) -> list[int]:
        n = self.deal.seats
        return [(self.forehand + i) % n for i in range(n)]

    def current_player(self) -> int | None:
        return None if self.phase == "done" else self.turn

    def is_terminal(self) -> bool:
        return self.phase == "done"

    def returns(self) -> tuple[float, ...]:
        assert self.outcome is not None, "the hand is not over"
        return self.outcome.payouts

    # ------------------------------------------------------------------------------- auction
    def _dealt_contract(self) -> tuple[str, int] | None:
        for name in self.rules.auction.dealt:
            for seat in self.seats_from_forehand():
                if self.eligible(name, seat):
                    return name, seat
        return None

    def implied_contract(self) -> tuple[str, int | None]:
        """The contract played if nobody bids, and its declarer (the cicha holder) if alone."""
        for name in self.rules.auction.no_bid:
            c = self.rules.contracts[name]
            if c.eligible is None:
                return name, None
            for seat in self.seats_from_forehand():
                if self.eligible(name, seat):
                    return name, (seat if c.team == "alone" else None)
        raise AssertionError("validation guarantees a no-bid contract without condition")

    def _may_double(self, seat: int) -> bool:
        r = self.rules
        if not r.doubling.names:
            return False
        if self.bid is None:
            cap = r.cap_without_bid()
            contract, declarer = self.implied_contract()
        else:
            cap = r.max_doubles(self.bid)
            contract, declarer = self.bid, self.bidder
        if len(self.double_seats) >= cap:
            return False
        c = r.contracts[contract]
        sides_known = declarer is not None or c.team == "holders"
        if not self.double_seats:
            if c.first_double_young_only and sides_known:
                return seat not in old_side_of(r, self.deal, contract, declarer)
            return seat != declarer or c.declarer_may_double_first
        if r.doubling.own_side == "forbidden" and sides_known:
            old = old_side_of(r, self.deal, contract, declarer)
            return (seat in old) != (self.double_seats[-1] in old)
        return True

    def _bids_open_to(self, seat: int) -> list[str]:
        r = self.rules
        floor = None if self.bid is None else r.bid_level(self.bid)
        out = []
        for name in self._bids:
            c = r.contracts[name]
            if (floor is not None and r.bid_level(name) <= floor) or not self.eligible(name, seat):
                continue
            if c.first_call_only and seat in self.spoken:
                continue
            out.append(name)
        return out

    def _restricted(self, seat: int, calls: list[str]) -> list[str]:
        forbidden: set[str] = set()
        for res in self.rules.auction.restrictions:
            if res.first_call is not None and res.first_call != (seat not in self.spoken):
                continue
            if res.bid_in_force is not None and res.bid_in_force != (self.bid is not None):
                continue
            if res.asked is not None and res.asked != (seat in self.asked):
                continue
            if res.holding is not None and not res.holding.holds(self.holding(seat),
                                                                 self.deal.position(seat)):
                continue
            forbidden.update(res.forbid)
        names = self.rules.doubling.names
        kept = [c for c in calls
                if c not in forbidden and not (c in names and DOUBLE in forbidden)]
        return kept or calls  # a restriction never leaves a seat without a call

    def legal_calls(self, seat: int) -> list[str]:
        """In canonical order: pass, ask, bids low to high, the next double."""
        r = self.rules
        a = r.auction
        first = seat not in self.spoken
        if self.value_bidding is not None:
            return self.value_bidding.legal()
        if a.style == "single" and self.doubling_round:
            calls = [PASS] + ([r.doubling.names[len(self.double_seats)]]
                              if self._may_double(seat) else [])
            return self._restricted(seat, calls)
        if a.style == "single":
            return self._restricted(seat, [PASS] + self._bids_open_to(seat))
        if self.reopening:
            announce = a.reopen_after_silent_round.announce
            return self._restricted(seat, [PASS] + [b for b in self._bids_open_to(seat)
                                                    if b in announce])
        forehand_opening = a.style == "ask" and seat == self.forehand and first
        calls = [] if forehand_opening else [PASS]
        if forehand_opening:
            calls.append(a.ask_call)
        calls += self._bids_open_to(seat)
        if not forehand_opening and self._may_double(seat):
            calls.append(r.doubling.names[len(self.double_seats)])
        return self._restricted(seat, calls)

    def _next_single_speaker(self, start: int, first: bool) -> int | None:
        seats = self.seats_from_forehand()
        i = seats.index(start) if first else seats.index(start) + 1
        for seat in seats[i:]:
            if self._bids_open_to(seat):
                return seat
        return None

    def _apply_call(self, call: str) -> None:
        seat = self.turn
        assert seat is not None
        r = self.rules
        self.auction.append((seat, call))
        if self.value_bidding is not None:
            self._apply_value_call(call)
            return
        if call == PASS:
            self.passes += 1
        else:
            self.passes = 0
            self.any_call = True
            if call == r.auction.ask_call and call not in r.contracts:
                self.asked.add(seat)
            elif call in r.contracts:
                add_on = (self.bid is not None and self.bidder == seat
                          and r.contracts[call].add_on_to == self.bid)
                self.bid, self.bidder = call, seat
                if not add_on:  # an add-on to one's own bid keeps the doubles said on it
                    self.double_seats = []
            else:
                self.double_seats.append(seat)
        self.spoken.add(seat)
        if r.auction.style == "single" and not self.doubling_round:
            self.turn = self._next_single_speaker(seat, first=False)
            if self.turn is None and r.auction.doubles_after_single_round \
                    and r.doubling.names and self.bid is not None:
                self.doubling_round, self.passes, self.any_call = True, 0, False
                self.turn = self.forehand  # the doubling round: passes count afresh
            elif self.turn is None:
                self._end_auction()
            return
        if self.doubling_round:
            needed = r.auction.end_after_passes if self.double_seats else self.deal.seats
            if self.passes >= needed:
                self._end_auction()
            else:
                self.turn = (seat + 1) % self.deal.seats
            return
        if self.reopening:
            self._after_announcement_call(seat)
            return
        needed = (r.auction.end_after_passes if self.any_call
                  else r.auction.end_after_passes_without_call)
        if self.passes >= needed and len(self.auction) >= self.min_calls:
            if r.auction.reopen_after_silent_round is None or self.reopened \
                    or self.bid is not None or self.double_seats:
                self._end_auction()
            else:  # a silent round: the auction reopens once, from forehand
                self.reopening, self.reopened, self.passes = True, True, 0
                self.turn = self.forehand
        else:
            self.turn = (seat + 1) % self.deal.seats

    def _after_announcement_call(self, seat: int) -> None:
        """After a call of the reopening round: the first announcement restarts the auction
        from forehand with it in force; four passes end the auction without a bid."""
        if self.bid is not None:
            self.reopening, self.passes = False, 0
            self.min_calls = len(self.auction) + self.deal.seats
            self.turn = self.forehand
        elif self.passes >= self.deal.seats:
            self._end_auction()
        else:
            self.turn = (seat + 1) % self.deal.seats

    def _apply_value_call(self, call: str) -> None:
        """Bidding by value: once it is over, nobody bid (the no-bid contract), or the seat
        left standing deals with the talon (`talon.pick_up`) and declares."""
        vb = self.value_bidding
        vb.apply(call)
        if not vb.done:
            self.turn = vb.to_speak()
            return
        if vb.declarer is None:
            self._start(*self.implied_contract())
            return
        self.declarer = self.turn = vb.declarer
        pick_up = "never" if self.rules.talon is None else self.rules.talon.pick_up
        self.phase = "declare" if pick_up == "never" else "talon"
        if pick_up == "declarer_must":
            self._pick_up()

    def declarable(self) -> list[str]:
        """The contracts the declarer may declare at his bid (`Ruleset.declarable`)."""
        return self.rules.declarable(self.value_bidding.value, self.talon_taken is False)

    def _end_auction(self) -> None:
        if self.bid is not None:
            self._start(self.bid, self.bidder)
        else:
            self._start(*self.implied_contract())

    # ---------------------------------------------------------------------------------- play
    def _start(self, contract: str, declarer: int | None) -> None:
        c = self.rules.contracts[contract]
        self.contract, self.declarer = contract, declarer
        if self.bid is None and contract in self.rules.auction.dealt:
            self.bid, self.bidder = contract, declarer
        self.old_side = old_side_of(self.rules, self.deal, contract, declarer)
        if c.instant:
            self._finish()
            return
        pick_up = self.rules.talon_pick_up_of(contract)
        if pick_up == "never" or declarer is None or self.value_bidding is not None:
            self._start_play()  # (bid by value, the talon was dealt with before declaring)
            return
        self.phase, self.turn = "talon", declarer
        if pick_up == "declarer_must":
            self._pick_up()

    def _start_play(self) -> None:
        self.phase = "play"
        self.leader = self.turn = self.forehand

    # --------------------------------------------------------------------------------- talon
    def _pick_up(self) -> None:
        self.talon_taken = True
        self.held[self.declarer].extend(self.deal.talon)

    def legal_talon_actions(self) -> list[str]:
        """Pick up or play hand, where the declarer may choose and has not; then the cards he
        may lay away: any he holds."""
        if self.talon_taken is None:
            return [PICK_UP, HAND]
        return sorted(self.held[self.declarer], key=self._deck_index.__getitem__)

    def _apply_talon_action(self, action: str) -> None:
        if action == HAND:
            self.talon_taken = False
            self._after_talon()
        elif action == PICK_UP:
            self._pick_up()
        else:
            self.held[self.declarer].remove(action)
            self.laid_away.append(action)
            if len(self.laid_away) == len(self.deal.talon):
                self._after_talon()

    def _after_talon(self) -> None:
        """The play begins; bid by value, the declarer declares first."""
        if self.value_bidding is not None:
            self.phase = "declare"
        else:
            self._start_play()

    def _declare(self, contract: str) -> None:
        self.bid, self.bidder = contract, self.declarer
        self._start(contract, self.declarer)

    @property
    def talon(self) -> tuple[str, ...]:
        """The cards in the talon: as dealt, or those laid away once picked up."""
        return tuple(self.laid_away) if self.talon_taken else self.deal.talon

    @property
    def order(self) -> CardOrder:
        assert self.contract is not None
        return self._orders[self.rules.contracts[self.contract].order]

    def legal_cards(self, seat: int) -> list[str]:
        hand = sorted(self.held[seat], key=self._deck_index.__getitem__)
        allowed = legal_cards(self.rules.play, self.order, hand, self.trick)
        called = self._called_card_on_duty()
        if called is None or called not in hand:
            return allowed
        duties = self.rules.contracts[self.contract].called_card_rules
        return called_card_duties(self.order, allowed, hand, self.trick, called,
                                  duties.run_away_with)

    def _called_card_on_duty(self) -> str | None:
        """The called card while its duties hold: until a trick has been led in its suit."""
        c = self.rules.contracts[self.contract]
        if c.called_card_rules is None:
            return None
        called = called_card_of(self.rules, self.deal, self.contract, self.declarer)
        if called is None:
            return None
        suit = self.order.suit[called]
        done = [t for t in self.tricks if t.winner is not None]
        return None if any(self.order.suit[t.cards[0]] == suit for t in done) else called

    def _apply_card(self, card: str) -> None:
        seat = self.turn
        assert seat is not None
        self.held[seat].remove(card)
        self.trick.append(card)
        n = self.deal.seats
        if len(self.trick) < n:
            self.turn = (seat + 1) % n
            return
        w = (self.leader + self.order.winner_index(self.trick)) % n
        self.tricks.append(TrickView(self.leader, tuple(self.trick), w))
        self.points[w] += sum(self._points[c] for c in self.trick)
        self.tricks_won[w] += 1
        self.trick = []
        self.leader = self.turn = w
        if not self.held[w]:
            self._finish()

    def _finish(self) -> None:
        assert self.contract is not None
        self._count_talon()
        if self.rules.contracts[self.contract].team == "each":
            n = self.deal.seats
            played_by = {c: (t.leader + i) % n for t in self.tricks for i, c in enumerate(t.cards)}
            self.old_side, self.outcome = each_alone(self.rules, self.contract, self.points,
                                                     self.tricks_won, played_by, self.forehand)
            self.phase, self.turn = "done", None
            return
        bid_value = None if self.value_bidding is None else self.value_bidding.value
        self.outcome = score(self.rules, self.contract, self.old_side, self.double_seats,
                             self.points, self.tricks_won, self.deal.hands,
                             hand_game=self.talon_taken is False, bid_value=bid_value)
        self.phase = "done"
        self.turn = None

    def _count_talon(self) -> None:
        """The talon's card points, counted in the points of the seat the contract gives them
        to (`Ruleset.talon_points_of`): the old side's (its one seat: validation holds a
        contract played with a talon to one), or the last trick's winner."""
        to = self.rules.talon_points_of(self.contract)
        if to == "nobody" or not self.talon or self.rules.contracts[self.contract].instant:
            return  # (an instant contract is not played: the talon lies where it is)
        seat = self.tricks[-1].winner if to == "last_trick" else min(self.old_side)
        self.points[seat] += sum(self._points[c] for c in self.talon)

    # ----------------------------------------------------------------------------------- API
    def legal_actions(self) -> list[str]:
        # computed once per decision: bots ask through observation(), apply_action checks again
        if self._legal is None:
            if self.phase == "done" or self.turn is None:
                self._legal = []
            elif self.phase == "auction":
                self._legal = self.legal_calls(self.turn)
            elif self.phase == "talon":
                self._legal = self.legal_talon_actions()
            elif self.phase == "declare":
                self._legal = self.declarable()
            else:
                self._legal = self.legal_cards(self.turn)
        return list(self._legal)

    def apply_action(self, action: str) -> None:
        legal = self.legal_actions()
        if action not in legal:
            raise IllegalAction(f"{action!r} is not legal for seat {self.turn} "
                                f"in the {self.phase} (legal: {', '.join(legal)})")
        self._legal = None
        if self.phase == "auction":
            self._apply_call(action)
        elif self.phase == "talon":
            self._apply_talon_action(action)
        elif self.phase == "declare":
            self._declare(action)
        else:
            self._apply_card(action)

    def observation(self, seat: int) -> Observation:
        tricks = list(self.tricks)
        if self.trick:
            tricks.append(TrickView(self.leader, tuple(self.trick), None))
        return Observation(
            seat=seat,
            seats=self.deal.seats,
            dealer=self.deal.dealer,
            phase=self.phase,
            dealt=self.deal.hands[seat],
            hand=tuple(sorted(self.held[seat], key=self._deck_index.__getitem__)),
            auction=tuple(self.auction),
            bid=self.bid,
            bidder=self.bidder,
            tricks=tuple(tricks),
            to_play=self.current_player(),
            legal_actions=tuple(self.legal_actions()) if self.turn == seat else (),
            talon_taken=self.talon_taken,
            talon_seen=self.deal.talon if self.talon_taken and seat == self.declarer else (),
            laid_away=tuple(self.laid_away) if seat == self.declarer else (),
            bid_value=None if self.value_bidding is None else self.value_bidding.value,
            open_hand=self._open_hand(),
        )

    def _open_hand(self) -> tuple[str, ...]:
        """The declarer's cards still held, once the play of a contract played open begins."""
        if (self.phase not in ("play", "done") or self.declarer is None
                or not self.rules.contracts[self.contract].open_hand):
            return ()
        return tuple(sorted(self.held[self.declarer], key=self._deck_index.__getitem__))


class IllegalAction(ValueError):
    pass
