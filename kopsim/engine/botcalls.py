"""The two decisions the kernel asks of a kernel bot, declared here and implemented in the bots
package (`kopsim.bots.kernel` registers them with numba), so the kernel imports no bot.

Both take the bot's kind (a `BOT_*` code of `kopsim.engine.codes`) and dispatch on it; the kinds
are declared in `kopsim.bots.kernel.KERNEL_KINDS`, which refuses a line-up with any other kind
before the kernel runs. The random kind is the one the kernel answers itself: its decision is a
draw from the seat's own stream of the hand seed, which the kernel holds (and must, for the
reference engine's `RandomBot` to draw the same).

bots: (bot parameter rows, heuristic powers, heuristic contract table, team cards);
cards: (suit, suit_mask, beat_mask, card_points) of `RuleTables`.
"""

from __future__ import annotations


def choose_call(kind, bots, bot, calls, m, hand, seat, contract, declarer, believed_k,
                believed_decl):
    """Index in calls[:m] of the call seat makes. contract/declarer: the bid in force (-1);
    believed_k/believed_decl: the no-bid contract and its declarer as seat can tell."""
    raise NotImplementedError("compiled only: implemented by kopsim.bots.kernel")


def choose_card(kind, bots, bot, cards, allowed, hand, dealt, seat, pos, leader, view):
    """The card seat plays from `allowed` (a mask). view: (trick so far, who played each card,
    a scratch row for relations, the contract and declarer as seat knows them)."""
    raise NotImplementedError("compiled only: implemented by kopsim.bots.kernel")
