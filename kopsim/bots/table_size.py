"""The table the searching and learning bots are written for, stated once.

The learnt bots' features are written for a table of four and a deck of distinct cards (issue 36
lifts this step by step); the double-dummy search, pimc (with its model of the others' calls)
and ev play any table of distinct cards; random and heuristic play any seat count and equal
cards.
A bot that cannot play a ruleset's table says so before play (`BotSpec.cannot_play`), and the
front doors refuse it (`bots.seated`), rather than reading past its tables.
"""

from __future__ import annotations

from ..errors import InputError, Problem

FOUR_HANDED = 4  # the seats the learnt bots' features assume


def table_problem(rules) -> str | None:
    """Why a bot written for four seats and a deck of distinct cards cannot play the ruleset;
    None if it can."""
    seats = rules.deck.players
    if seats != FOUR_HANDED:
        return (f"it is written for a table of {FOUR_HANDED} and this ruleset seats {seats} "
                "(random, heuristic, ev and pimc play any table)")
    return deck_problem(rules)


def deck_problem(rules) -> str | None:
    """Why a bot written for a deck of distinct cards cannot play the ruleset; None if it
    can."""
    if (rules.deck.copies or 1) > 1:
        return (f"it is written for a deck of distinct cards and this one holds each card "
                f"{rules.deck.copies} times (random and heuristic play equal cards)")
    return None


def refuse_unseated(rules, bots: list) -> None:
    """Refuse, before play, a bot that cannot play the ruleset's table: its tables, read past
    their end, would not fail cleanly. Both engines call it before each batch or hand; at a
    table of four dealt distinct cards (every bot's) it returns at once."""
    if rules.deck.players == FOUR_HANDED and (rules.deck.copies or 1) == 1:
        return
    problems = [Problem("bots", f"[{i}]", f"{b.label} cannot play {rules.name}: {why}")
                for i, b in enumerate(bots) if (why := b.cannot_play(rules)) is not None]
    if problems:
        raise InputError(problems)
