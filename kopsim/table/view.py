"""What one seat at the table is shown: drawn from its `Observation` alone (the view a bot gets),
never from the state, so a human player can see no more than a bot may.

`SeatView` remembers how much of the hand it has already told (calls said, cards played) and
turns each new observation into the lines that are news to the seat."""

from __future__ import annotations

from collections import Counter

from ..engine.reference import Observation
from ..rules.model import Ruleset, position_of
from ..rules.show import pretty_card
from ..terminal import clean


def seat_name(seat: int, dealer: int, you: int, seats: int) -> str:
    """"seat 2 (second)", or "you" for the viewer's own seat (of `seats` at the table)."""
    if seat == you:
        return "you"
    return f"seat {seat} ({position_of(seat, dealer, seats)})"


def display_order(rules: Ruleset, bid: str | None) -> list[str]:
    """Every card of the deck in the order a hand is shown: trumps high to low, then each plain
    suit high to low, under the bid in force, or, before any bid (and in a hand nobody bid,
    whose contract the seat may not know), under the order most contracts play with."""
    if bid is not None:
        name = rules.contracts[bid].order
    else:
        name = Counter(c.order for c in rules.contracts.values()).most_common(1)[0][0]
    order = rules.orders[name]
    cards = list(order.trumps) + [c for group in order.plain.values() for c in group]
    return cards + [c for c in rules.cards() if c not in set(cards)]


def sorted_hand(rules: Ruleset, hand, bid: str | None) -> list[str]:
    place = {c: i for i, c in enumerate(display_order(rules, bid))}
    return sorted(hand, key=place.__getitem__)


def cards_text(cards) -> str:
    return " ".join(pretty_card(c) for c in cards) or "(none)"


def action_label(rules: Ruleset, action: str, phase: str) -> str:
    """A legal action as offered: a card by its face, a bid with what the contract is."""
    if phase == "play":
        return pretty_card(action)
    contract = rules.contracts.get(action)
    if contract is not None and contract.description:
        text = clean(contract.description)
        return f"{clean(action)}: {text[:70] + '...' if len(text) > 73 else text}"
    return clean(action)


class SeatView:
    """The news for one seat, observation by observation."""

    def __init__(self, rules: Ruleset, seat: int):
        self.rules, self.seat = rules, seat
        self.calls_told = 0
        self.cards_told = 0  # cards of the hand's tricks already told, in play order
        self.tricks_told = 0  # completed tricks whose taker was told
        self.phase = "auction"
        self.hand_shown: tuple[str, ...] = ()

    def who(self, obs: Observation, seat: int) -> str:
        return seat_name(seat, obs.dealer, self.seat, self.rules.deck.players)

    def opening(self, obs: Observation) -> list[str]:
        """The start of a hand: who deals, where the seat sits, its cards."""
        self.hand_shown = tuple(sorted_hand(self.rules, obs.hand, None))
        return [f"dealer: {self.who(obs, obs.dealer)}; you are seat {self.seat} "
                f"({self._position(obs)})",
                f"your cards: {cards_text(self.hand_shown)}"]

    def _position(self, obs: Observation) -> str:
        n = self.rules.deck.players
        return position_of(self.seat, obs.dealer, n)

    def news(self, obs: Observation) -> list[str]:
        """The calls and cards said or played since the last observation told, the taker of each
        trick completed, and the auction's end."""
        out = [f"  {self.who(obs, s)}: {clean(call)}" for s, call in obs.auction[self.calls_told:]]
        self.calls_told = len(obs.auction)
        if self.phase == "auction" and obs.phase != "auction":
            out += self._auction_over(obs)
        self.phase = obs.phase
        played = [(t, i) for t in obs.tricks for i in range(len(t.cards))]
        for t, i in played[self.cards_told:]:
            seat = (t.leader + i) % self.rules.deck.players
            out.append(f"  {self.who(obs, seat)}: {pretty_card(t.cards[i])}")
            if i == len(t.cards) - 1 and t.winner is not None:
                out.append(self._taken(obs, t))
        self.cards_told = len(played)
        return out

    def _auction_over(self, obs: Observation) -> list[str]:
        if obs.bid is None:
            head = "auction over: nobody bid, so the deal decides the contract"
        else:
            by = "" if obs.bidder is None else f" by {self.who(obs, obs.bidder)}"
            head = f"auction over: {clean(obs.bid)}{by}"
        return [head] + (self._hand(obs) if obs.phase == "play" else [])

    def _hand(self, obs: Observation) -> list[str]:
        """The seat's cards in the order of the bid in force, unless shown so already."""
        hand = tuple(sorted_hand(self.rules, obs.hand, obs.bid))
        if hand == self.hand_shown:
            return []
        self.hand_shown = hand
        return [f"your cards: {cards_text(hand)}"]

    def _taken(self, obs: Observation, trick) -> str:
        points = sum(self.rules.points_of(c) for c in trick.cards)
        self.tricks_told += 1
        return f"  -> {self.who(obs, trick.winner)} take{'s' * (trick.winner != self.seat)} " \
               f"trick {self.tricks_told} ({points:g} points)"

    def choices(self, obs: Observation) -> tuple[list[str], list[str]]:
        """The seat's turn: (lines to show, the legal actions in the order numbered)."""
        legal = list(obs.legal_actions)
        lines = []
        if obs.phase == "play":
            legal = sorted_hand(self.rules, legal, obs.bid)
            lines = self._hand(obs)
            if obs.open_hand and obs.bidder != self.seat:  # played open: his cards lie face up
                lines.append(f"{self.who(obs, obs.bidder)} plays open: "
                             f"{cards_text(sorted_hand(self.rules, obs.open_hand, obs.bid))}")
        lines += [f"  {k}) {action_label(self.rules, a, obs.phase)}"
                  for k, a in enumerate(legal, start=1)]
        return lines, legal
