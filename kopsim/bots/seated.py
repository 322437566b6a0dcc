"""Bots seated at a table: the front doors that play hands with bots named by `BotSpec`, in the
batch kernel (`play_batch`) or the reference engine (`play_hand`).

The engine stage knows no bot: it plays the kernel kinds this stage seats (`engine.kernel.Seated`)
and a reference `State` any caller steps. Seating is the bots' stage, so the engine imports
nothing from here and every stage above (experiments, bench, the CLI) plays hands through here.
"""

from __future__ import annotations

import numpy as np

from ..engine.kernel import BatchResult, play_seated
from ..engine.reference import Deal, State
from ..rules.cache import compiled as compiled_rules
from ..rules.compile import CompiledRules
from ..rules.model import Ruleset
from . import BotSpec, bot_spec
from .kernel import seat_bots
from .table_size import refuse_unseated

_RANDOM = None


def play_batch(compiled: CompiledRules | Ruleset, seeds: np.ndarray, dealers: np.ndarray,
               hand_index: np.ndarray | None = None, bots: list | None = None,
               seat_bot: np.ndarray | None = None, explore: np.ndarray | None = None,
               ev_table=None, given: np.ndarray | None = None,
               forced: np.ndarray | None = None) -> BatchResult:
    """Play one hand per seed in the batch kernel; hand i is dealt by `dealers[i]`. `bots` are
    `BotSpec`s that run in the kernel (default: random for every seat); `seat_bot[i, s]` is the
    index in `bots` of the bot in seat s for hand i (default: bot s in seat s, or the single bot
    everywhere); `ev_table` (calibration) the table every ev bot plays with, instead of its
    calibrated one; `explore`, `given` and `forced` as `engine.kernel.play_seated` takes them."""
    cr = compiled_rules(compiled)
    seated = seat_bots(cr, bots or [bot_spec("random")], seat_bot, len(seeds), ev_table)
    return play_seated(cr, seeds, dealers, seated, hand_index, explore, given, forced)


def play_hand(rules: Ruleset, seed: int, dealer: int, bots: list[BotSpec]) -> State:
    """One hand in the reference engine; bots[s] plays seat s and sees only observation(s)."""
    refuse_unseated(rules, bots)
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
