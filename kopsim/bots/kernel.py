"""The declared table of kernel bot kinds, and the compiled dispatch the batch kernel calls.

A bot runs in the kernel when its class names a `kernel_kind` listed in `KERNEL_KINDS`; its
compiled decisions are the branches of `choose_call` / `choose_card` below, registered with numba
as the implementation of the kernel's declarations in `kopsim.engine.botcalls` (the random kind
is a draw from the seat's stream, which the kernel makes itself). The kernel thus
imports nothing from this package, and a line-up with an undeclared kind is refused here, before
play (`kernel_lineup`), rather than played by some other bot.
"""

from __future__ import annotations

import numpy as np
from numba.extending import overload

from ..engine import botcalls
from ..engine.codes import BOT_HEURISTIC, BOT_RANDOM
from .heuristic import HeuristicBot, heur_call, heur_card, relations
from .random import RandomBot

KERNEL_KINDS: dict[int, type] = {BOT_RANDOM: RandomBot, BOT_HEURISTIC: HeuristicBot}


@overload(botcalls.choose_call, inline='always')
def _choose_call(kind, bots, bot, calls, m, hand, seat, contract, declarer, believed_k,
                 believed_decl):
    def choose_call(kind, bots, bot, calls, m, hand, seat, contract, declarer, believed_k,
                    believed_decl):
        if kind == BOT_HEURISTIC:
            bot_params, h_power, h_ctab, _ = bots
            j = heur_call(calls, m, hand, seat, contract, declarer, believed_k, believed_decl,
                          h_ctab.shape[0], h_ctab, h_power, bot_params[bot])
        else:
            raise ValueError("a kernel bot kind that kopsim.bots.kernel does not declare")
        return j
    return choose_call


@overload(botcalls.choose_card, inline='always')
def _choose_card(kind, bots, bot, cards, allowed, hand, dealt, seat, pos, leader, view):
    def choose_card(kind, bots, bot, cards, allowed, hand, dealt, seat, pos, leader, view):
        if kind == BOT_HEURISTIC:
            trick, who_played, rel, k, decl = view
            bot_params, h_power, h_ctab, team_cards = bots
            suit, suit_mask, beat_mask, card_points = cards
            relations(rel, seat, dealt, k, decl, h_ctab, team_cards, who_played)
            card = heur_card(allowed, hand, seat, h_ctab[k, 2], trick, pos, leader, rel,
                             who_played, suit, suit_mask, beat_mask, card_points, h_power,
                             bot_params[bot])
        else:
            raise ValueError("a kernel bot kind that kopsim.bots.kernel does not declare")
        return card
    return choose_card


def kernel_lineup(bots: list, seat_bot: np.ndarray | None, n: int):
    """(bot kinds, bot parameter rows, seat -> bot index per hand) for the kernel. Every bot
    must declare a kind of KERNEL_KINDS."""
    for b in bots:
        kind = b.kernel_kind
        if kind is None:
            raise ValueError(f"bot {b.label!r} is plain Python: it plays through the reference "
                             "engine, not the batch kernel")
        if kind not in KERNEL_KINDS:
            raise ValueError(f"bot {b.label!r} declares kernel kind {kind!r}, which is not a "
                             f"declared kernel kind (known: {sorted(KERNEL_KINDS)}, "
                             "kopsim.bots.kernel.KERNEL_KINDS)")
    kinds = np.array([b.kernel_kind for b in bots], np.int64)
    rows = [b.kernel_params() for b in bots]
    width = max([len(r) for r in rows] + [1])
    params = np.zeros((len(bots), width), np.float64)
    for i, r in enumerate(rows):
        params[i, :len(r)] = r
    if seat_bot is None:
        seat_bot = np.zeros((n, 4), np.int64) if len(bots) == 1 else np.tile(np.arange(4), (n, 1))
    seat_bot = np.ascontiguousarray(np.broadcast_to(seat_bot, (n, 4)), np.int64)
    if len(bots) != 1 and seat_bot.max(initial=0) >= len(bots):
        raise ValueError("seat_bot names a bot index beyond the bots given")
    return kinds, params, seat_bot
