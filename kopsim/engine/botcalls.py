"""Slots for the compiled decisions of the kernel bot kinds, filled by the bots package.

The kernel reads its bots' decisions from this module's attributes, which numba resolves when it
compiles the kernel; `kopsim.bots.kernel` fills them when it is imported (before any line-up can
reach the kernel) and declares the kinds in `KERNEL_KINDS`, refusing any other kind. So the kernel
imports no bot, and the calls stay plain compiled calls with array arguments, which the bots'
reference-engine faces call too.

The random kind (`BOT_RANDOM`) has no slot: its decision is a draw from the seat's own stream of
the hand seed, which the kernel holds (and must, for the reference `RandomBot` to draw the same).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class SeatView(NamedTuple):
    """What one seat has seen of a hand, as the kernel hands it to a bot that reads the whole
    history (pimc): nothing but the seat's own cards and what was said and played in the
    open."""

    seat: int
    dealer: int
    own: np.uint64  # the seat's cards as dealt
    calls: np.ndarray  # int16 [i] the code of the i-th call
    call_seats: np.ndarray  # int8 [i] who said it
    ncalls: int
    shown: np.ndarray  # int64 (the bid in force or the contract the deal made, its declarer)
    cards: np.ndarray  # int64 [i] the i-th card played
    played: int  # how many
    leaders: np.ndarray  # int8 [trick] who led it
    winners: np.ndarray  # int8 [trick] who took it
    to_speak: int  # the seat to speak next, -1 once the play has begun
    taken: int  # the talon picked up (1), the hand played without it (0), neither (-1): public
    laid: np.uint64  # the cards the seat laid away into the talon (the declarer's alone)

# BOT_HEURISTIC: heuristic_call(calls, m, hand, seat, bid, bidder, believed_k, believed_decl, K,
# ctab, power, params) -> index of the call; heuristic_relations(rel, seat, dealt, k, decl, ctab,
# team_cards, who_played) fills rel; heuristic_card(allowed, hand, ctab row, trick,
# leader, rel, who_played, suit, suit_mask, beat_mask, power, params) -> card;
# heuristic_take(hand, order, goal, power) -> pick the talon up (else play hand);
# heuristic_lay(hand, order, goal, suit, suit_mask, beat_mask, power) -> the card to lay away
heuristic_call = None
heuristic_take = None
heuristic_lay = None
# bidding by value: heuristic_worth(hand, t, ctab, power, params) -> what the hand's best game
# is worth; heuristic_value_call(calls, m, worth, held, t) -> index of the call; heuristic_declare(hand, t, options, m, ctab, power, params, settled) -> index of
# the contract declared among options[:m] (settled: the talon is dealt with)
heuristic_value_call = None
heuristic_worth = None
heuristic_declare = None
heuristic_relations = None
heuristic_card = None

# BOT_EV: ev_call(calls, m, hand, position, context, order, ctab, power, values, binom, edges,
# params) -> index of the call; ev_endgame_card(t, sc, seat, allowed, leader, bid, bidder, nd,
# forehand, params) -> its card in the last tricks, or -1 (then it plays heuristic_card)
ev_call = None
ev_endgame_card = None

# BOT_PIMC (`kopsim.bots.pimc_kernel`): pimc_call(t, ps, params, seed, view, legal, m) -> index
# of the call; pimc_card(t, ps, params, seed, view, allowed) -> card. Each reads only the seat's
# view (a SeatView), never the deal.
pimc_call = None
pimc_card = None

# BOT_LEARNT (`kopsim.bots.learnt_kernel`): learnt_call(ln, params, view, legal, m) -> index of
# the call; learnt_card(ln, params, view, allowed) -> card. Each reads only the seat's view (and
# the rule tables its nets hold).
learnt_call = None
learnt_card = None
