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
from ..engine.codes import BOT_EV, BOT_HEURISTIC, BOT_LEARNT, BOT_PIMC, BOT_RANDOM
from ..engine.kernel import ONE_KERNEL, Seated
from ..rules.cache import table as rules_table
from .endgame import endgame_card
from .ev import P_TABLE, EvBot, ev_call
from .heuristic import (HeuristicBot, heur_call, heur_card, heur_declare, heur_lay, heur_take,
                        heur_value_call, heuristic_tables, relations, best_worth)
from .learnt import LearntBot
from .split import split_lineup
from .learnt_kernel import LP_MODEL, learnt_call, learnt_card, learnt_nets
from .pimc import PimcBot
from .pimc_kernel import PP_AUCTION_SAMPLES, PP_SAMPLES, pimc_call, pimc_card, pimc_scratch
from .table_size import refuse_unseated
from .random import RandomBot

KERNEL_KINDS: dict[int, type] = {BOT_RANDOM: RandomBot, BOT_HEURISTIC: HeuristicBot,
                                 BOT_EV: EvBot, BOT_PIMC: PimcBot, BOT_LEARNT: LearntBot}


def _fill_slots() -> None:
    """The heuristic, ev, pimc and learnt kinds' compiled decisions, into the kernel's
    slots."""
    botcalls.heuristic_call = heur_call
    botcalls.heuristic_relations = relations
    botcalls.heuristic_card = heur_card
    botcalls.heuristic_take = heur_take
    botcalls.heuristic_lay = heur_lay
    botcalls.heuristic_value_call = heur_value_call
    botcalls.heuristic_worth = best_worth
    botcalls.heuristic_declare = heur_declare
    botcalls.ev_call = ev_call
    botcalls.ev_endgame_card = endgame_card
    botcalls.pimc_call = pimc_call
    botcalls.pimc_card = pimc_card
    botcalls.learnt_call = learnt_call
    botcalls.learnt_card = learnt_card


_fill_slots()


def seat_bots(cr, bots: list, seat_bot: np.ndarray | None, n: int, ev_table=None) -> Seated:
    """The bots (`BotSpec`s that run in the kernel) seated for a batch of n hands:
    `seat_bot[i, s]` is the index in `bots` of the bot in seat s of hand i (default: bot s in
    seat s, or the single bot everywhere); `ev_table` (calibration) the table every ev bot plays
    with, instead of its calibrated one."""
    refuse_unseated(cr.rules, bots)
    bots, kind, params, seat_bot, card_bot = kernel_lineup(bots, seat_bot, n, cr.tables.n_seats)
    # numba types a read-only array apart from a writable one: without this a broadcast seat_bot
    # (read-only) and a copied one (writable) made a second build of each kernel, 40 s apiece
    seat_bot = np.require(seat_bot, requirements="W")
    ev_values, ev_binom, ev_edges = ev_tables(cr, bots, params, ev_table)
    h_power, h_ctab = rules_table(cr.rules, "heuristic", lambda: heuristic_tables(cr))
    pimc = _pimc_scratch(cr, kind, params)
    learnt = learnt_lineup(cr, bots, params)
    # the learnt kind reads the seat's whole view, as pimc does: it plays in pimc's kernels
    if (ONE_KERNEL or (kind == BOT_LEARNT).any()) and not pimc:
        pimc = pimc_scratch(cr, 1)
    return Seated(kind, params, seat_bot, card_bot, h_power, h_ctab, ev_values, ev_binom,
                  ev_edges, pimc, learnt, plays_endgame(bots))


def _pimc_scratch(cr, bot_kind: np.ndarray, bot_params: np.ndarray) -> tuple:
    """The pimc kind's scratch, sized for the line-up's pimc bots; () without one."""
    rows = bot_params[bot_kind == BOT_PIMC]
    if not len(rows):
        return ()
    return pimc_scratch(cr, int(rows[:, [PP_SAMPLES, PP_AUCTION_SAMPLES]].max()))


def kernel_lineup(bots: list, seat_bot: np.ndarray | None, n: int, seats: int):
    """(the bots as the kernel plays them, their kinds, their parameter rows, seat -> bot index
    per hand [n, seats], bot index -> the bot that plays its cards) for the kernel: a split bot
    is its calls bot, its cards bot added after the line-up (`split.split_lineup`). Every bot
    must declare a kind of KERNEL_KINDS."""
    if seat_bot is None:
        seat_bot = (np.zeros((n, seats), np.int64) if len(bots) == 1
                    else np.tile(np.arange(seats), (n, 1)))
    seat_bot = np.ascontiguousarray(np.broadcast_to(seat_bot, (n, seats)), np.int64)
    if len(bots) != 1 and seat_bot.max(initial=0) >= len(bots):
        raise ValueError("seat_bot names a bot index beyond the bots given")
    for b in bots:
        if b.kernel_kind is None:
            raise ValueError(f"bot {b.label!r} is plain Python: it plays through the reference "
                             "engine, not the batch kernel")
    bots, card_bot = split_lineup(bots)
    for b in bots:
        if b.kernel_kind not in KERNEL_KINDS:
            raise ValueError(f"bot {b.label!r} declares kernel kind {b.kernel_kind!r}, which is "
                             f"not a declared kernel kind (known: {sorted(KERNEL_KINDS)}, "
                             "kopsim.bots.kernel.KERNEL_KINDS)")
    kinds = np.array([b.kernel_kind for b in bots], np.int64)
    rows = [b.kernel_params() for b in bots]
    width = max([len(r) for r in rows] + [1])
    params = np.zeros((len(bots), width), np.float64)
    for i, r in enumerate(rows):
        params[i, :len(r)] = r
    return bots, kinds, params, seat_bot, card_bot


def plays_endgame(bots: list) -> bool:
    """Whether an ev bot of the line-up plays an endgame (`endgame_tricks` > 0): only then is the
    kernel built with it."""
    return any(b.kernel_kind == BOT_EV and b.params.endgame_tricks > 0 for b in bots)


def learnt_lineup(cr, bots: list, bot_params: np.ndarray):
    """The nets of the line-up's learnt bots (`LearntNets`), one model pair per distinct
    parameters, each bot's row pointing at its own (bot_params[i, LP_MODEL])."""
    from .learnt import learnt_models

    models: list = []
    keys: list = []
    for i, b in enumerate(bots):
        if b.kernel_kind != BOT_LEARNT:
            continue
        key = b.params.model_dump_json()
        if key not in keys:
            keys.append(key)
            models.append(learnt_models(cr, b.params))
        bot_params[i, LP_MODEL] = keys.index(key)
    return learnt_nets(cr, models)


def ev_tables(cr, bots: list, bot_params: np.ndarray, given=None):
    """(values, binom, edges) of the line-up's ev bots, one table per distinct calibration, each
    bot's row pointing at its own (bot_params[i, P_TABLE]); `given` (a table) serves every ev
    bot instead, as calibration plays with the table it is learning. Empty tables without ev."""
    from .calibrate import calibrated
    tables: list = []
    keys: list = []
    for i, b in enumerate(bots):
        if b.kernel_kind != BOT_EV:
            continue
        key = "given" if given is not None else b.params.model_dump_json()
        if key not in keys:
            keys.append(key)
            tables.append(given if given is not None else calibrated(cr, b.params))
        bot_params[i, P_TABLE] = keys.index(key)
    if not tables:
        return (np.zeros((0, 1, 1, 1, 1), np.float64), np.zeros((1, 1), np.int64),
                np.zeros((1, 0), np.float64))
    if len(tables) == 1:  # a view, not a copy: calibration plays a table of 10-100 MB often
        return tables[0].values[None], tables[0].binom, tables[0].edges
    values = np.ascontiguousarray(np.stack([t.values for t in tables]))
    return values, tables[0].binom, tables[0].edges
