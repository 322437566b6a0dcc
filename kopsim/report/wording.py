"""Words the report takes from the rulesets it compares rather than from Kop: what a tie is
called ("52:52" is half of a 104-point deck each) and who forms the old side of the game played
when nobody bids ("the holders of the black queens" in Kop).

A report may compare rulesets with different decks; a word is specific only when every ruleset
in it agrees, and otherwise falls back to a description that holds for all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.show import pretty_card, tie_name

GENERIC_TIE = "equal points"
RANK_NAMES = {"A": "aces", "K": "kings", "Q": "queens", "J": "jacks", "10": "tens", "9": "nines"}
SUIT_COLOURS = {frozenset("CS"): "black", frozenset("HD"): "red"}


@dataclass(frozen=True)
class Wording:
    tie: str  # a hand whose sides take half the deck's points each, e.g. "52:52"
    # the old side of the game played when nobody bids, e.g. "in a normal game the holders of
    # the black queens"; "" when the rulesets have no such game in common
    team_game: str


def wording(rulesets: list) -> Wording:
    """The report's wording for these rulesets (None for a variant without a ruleset)."""
    known = [r for r in rulesets if r is not None]
    ties = {tie_name(r) for r in known}
    games = {team_game(r) for r in known}
    return Wording(tie=ties.pop() if len(ties) == 1 else GENERIC_TIE,
                   team_game=games.pop() if len(games) == 1 else "")


def team_game(rules) -> str:
    """Who forms the old side of the first game played when nobody bids whose old side is the
    holders of given cards: "in a normal game the holders of the black queens"; "" if none."""
    for name in rules.auction.no_bid:
        c = rules.contracts.get(name)
        if c is not None and c.team == "holders" and c.team_cards:
            return f"in a {name} game the holders of {cards_name(c.team_cards)}"
    return ""


def cards_name(cards: list[str]) -> str:
    """"the black queens" for QC and QS, else the cards themselves: "Q♣ and J♠"."""
    ranks = {c[:-1] for c in cards}
    suits = frozenset(c[-1] for c in cards)
    rank = next(iter(ranks))
    if len(ranks) == 1 and len(cards) == len(suits) and rank in RANK_NAMES:
        if len(suits) == 4:
            return f"the four {RANK_NAMES[rank]}"
        if suits in SUIT_COLOURS:
            return f"the {SUIT_COLOURS[suits]} {RANK_NAMES[rank]}"
    shown = [pretty_card(c) for c in cards]
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
