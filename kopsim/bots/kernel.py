"""The declared table of kernel bot kinds, and the compiled decisions the batch kernel calls.

A bot runs in the kernel when its class names a `kernel_kind` listed in `KERNEL_KINDS`; its
compiled decisions fill the kernel's slots in `kopsim.engine.botcalls` when this module is
imported (the random kind is a draw from the seat's stream, which the kernel makes itself).
The kernel thus imports nothing from this package, and a line-up with an undeclared kind is
refused here, before play (`kernel_lineup`), rather than played by some other bot.
"""

from __future__ import annotations

import numpy as np

from ..engine import botcalls
from ..engine.codes import BOT_HEURISTIC, BOT_RANDOM
from .heuristic import HeuristicBot, heur_call, heur_card, relations
from .random import RandomBot

KERNEL_KINDS: dict[int, type] = {BOT_RANDOM: RandomBot, BOT_HEURISTIC: HeuristicBot}


def _fill_slots() -> None:
    """The heuristic kind's compiled decisions, into the kernel's slots."""
    botcalls.heuristic_call = heur_call
    botcalls.heuristic_relations = relations
    botcalls.heuristic_card = heur_card


_fill_slots()


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
