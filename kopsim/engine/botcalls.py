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

# BOT_HEURISTIC: heuristic_call(calls, m, hand, seat, bid, bidder, believed_k, believed_decl, K,
# ctab, power, params) -> index of the call; heuristic_relations(rel, seat, dealt, k, decl, ctab,
# team_cards, who_played) fills rel; heuristic_card(allowed, hand, order, trick,
# leader, rel, who_played, suit, suit_mask, beat_mask, power, params) -> card
heuristic_call = None
heuristic_relations = None
heuristic_card = None

# BOT_EV: ev_call(calls, m, hand, position, context, order, ctab, power, values, binom, edges,
# params) -> index of the call; ev_endgame_card(t, sc, seat, allowed, leader, bid, bidder, nd,
# forehand, params) -> its card in the last tricks, or -1 (then it plays heuristic_card)
ev_call = None
ev_endgame_card = None

# BOT_PIMC (`kopsim.bots.pimc_kernel`): pimc_call(t, ps, params, seed, seat, dealer, own, calls,
# call_seats, ncalls, legal, m) -> index of the call; pimc_card(t, ps, params, seed, seat,
# dealer, own, calls, call_seats, ncalls, shown, cards, played, leaders, winners, allowed) ->
# card. Each reads only what the seat saw: its own cards, the calls, the cards played.
pimc_call = None
pimc_card = None
