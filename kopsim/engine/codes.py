"""The integer codes of the kernel's own: the kinds of bot it seats, and what replaying an
auction found. The codes of compiled rules (calls, tiers, goals, ...) are `kopsim.rules.codes`."""

from __future__ import annotations

# --- kernel bot kinds (declared by the bots in kopsim.bots.kernel)
BOT_RANDOM, BOT_HEURISTIC, BOT_EV, BOT_PIMC, BOT_LEARNT = 0, 1, 2, 3, 4
# where a pimc bot's kernel row holds the heuristic's parameters, after its own: they decide
# what it does not search (bidding by value, the talon, the game declared)
PIMC_HEURISTIC_AT = 7


# --- what replaying a public auction on a deal found (kopsim.engine.loop.replay_auction)
REPLAY_OVER, REPLAY_NEXT, REPLAY_CONTRADICTED = 0, 1, 2
