"""Play whole hands through the reference engine, with any bots (plain-Python ones included)."""

from __future__ import annotations

from ..bots import BotSpec, bot_spec
from ..bots.table_size import refuse_unseated
from .reference import Deal, State
from ..rules.model import Ruleset

_RANDOM = None


def play_hand(rules: Ruleset, seed: int, dealer: int, bots: list[BotSpec]) -> State:
    """One hand; bots[s] plays seat s and sees only observation(s)."""
    refuse_unseated(rules, bots)  # only random and heuristic play any table yet
    state = State(rules, Deal.from_seed(rules, seed, dealer))
    players = [b.make(seed, s, rules) for s, b in enumerate(bots)]
    while not state.is_terminal():
        seat = state.current_player()
        bot = players[seat]
        if getattr(bot, "sees_all", False):  # the marked cheat bound, never a fair bot
            state.apply_action(bot.act_seeing_all(state))
        else:
            state.apply_action(bot.act(state.observation(seat)))
    return state


def play_random_hand(rules: Ruleset, seed: int, dealer: int) -> State:
    global _RANDOM
    if _RANDOM is None:
        _RANDOM = bot_spec("random")
    return play_hand(rules, seed, dealer, [_RANDOM] * rules.deck.players)

