"""What a bot needs of a ruleset's table and deck, stated once.

Every bot plays a table of any size (`deck.players`); the double-dummy search, and the bots
built on it or on its model of a deal (ev's endgame, pimc, cheat-dd, learnt), need a deck of
distinct cards, every one dealt to a seat: random and heuristic also play equal cards
(`deck.copies`) and a talon (`talon`).
A bot that cannot play a ruleset says so before play (`BotSpec.cannot_play`), and the front
doors refuse it (`bots.seated`), rather than reading past its tables.
"""

from __future__ import annotations

from ..errors import InputError, Problem


def deck_problem(rules) -> str | None:
    """Why a bot written for a deck of distinct cards cannot play the ruleset; None if it
    can."""
    if (rules.deck.copies or 1) > 1:
        return (f"it is written for a deck of distinct cards and this one holds each card "
                f"{rules.deck.copies} times (random and heuristic play equal cards)")
    if rules.talon is not None:
        return (f"its model of a deal gives every card unseen to a seat, and these rules deal "
                f"{rules.talon.cards} to a talon (random and heuristic play with a talon)")
    if rules.auction.style == "value":
        return ("its calls are contracts bid, and these rules bid by value (random and "
                "heuristic bid by value)")
    return None


def refuse_unseated(rules, bots: list) -> None:
    """Refuse, before play, a bot that cannot play the ruleset (`BotSpec.cannot_play`): its
    tables, read past their end, would not fail cleanly. Both engines call it before each batch
    or hand."""
    problems = [Problem("bots", f"[{i}]", f"{b.label} cannot play {rules.name}: {why}")
                for i, b in enumerate(bots) if (why := b.cannot_play(rules)) is not None]
    if problems:
        raise InputError(problems)
