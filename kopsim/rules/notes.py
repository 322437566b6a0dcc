"""What a valid ruleset does that its author may not expect: notes, not errors.

`rules validate` prints them under the file's "ok", and `rules diff` those the second ruleset
has and the first has not (removing kop's cicha is the case in point: the holder of both black
queens who passes then plays the normal game alone, at its prices).
"""

from __future__ import annotations

import random

from .model import Ruleset, positions

SAMPLED_HANDS = 400  # hands holding a team's every card, tried against the earlier entries


def notes(r: Ruleset) -> list[str]:
    return lone_holder_notes(r)


def lone_holder_notes(r: Ruleset) -> list[str]:
    """A `holders` contract played when nobody bids, whose team cards one seat can hold all of:
    that seat then plays it alone against three, unless a contract tried before it (a dealt
    one, or an earlier no_bid entry) takes such hands. Tried on seeded hands, so that any
    `eligible` condition counts, however it is written."""
    out = []
    for i, name in enumerate(r.auction.no_bid):
        c = r.contracts[name]
        team = sorted(set(c.team_cards))
        held = [x for card in team for x in r.copies_of(card)]  # every copy of them
        if c.team != "holders" or len(held) < 2 or len(held) > len(r.cards()) // r.deck.players:
            continue
        earlier = [r.contracts[n] for n in [*r.auction.dealt, *r.auction.no_bid[:i]]]
        share = _share_untaken(r, held, [e for e in earlier if e.eligible is not None], c)
        if share > 0:
            some = "" if share == 1 else " (on some such hands)"
            every = "every copy of " if len(held) > len(team) else ""
            out.append(f"when nobody bids and one player holds {every}{', '.join(team)}, the "
                       "team of "
                       f"{name!r} (the holders of {', '.join(team)}) is that one player{some}: he "
                       f"plays {name!r} alone against three, at its prices. To play such deals "
                       "otherwise, put a contract for that holding before it in auction.no_bid "
                       "(docs/rulesets.md, \"Forbidding a contract\")")
    return out


def _share_untaken(r: Ruleset, held: list[str], earlier, contract) -> float:
    """The share of seeded hands holding every team card (`held`: each copy of them) that no
    earlier entry takes and `contract` itself accepts."""
    rng = random.Random(0)
    others = [c for c in r.cards() if c not in held]
    size = len(r.cards()) // r.deck.players
    untaken, table = 0, positions(r.deck.players)
    for k in range(SAMPLED_HANDS):
        hand = r.holding_of(held + rng.sample(others, size - len(held)))
        pos = table[k % len(table)]
        if any(e.eligible.holds(hand, pos) for e in earlier):
            continue
        if contract.eligible is None or contract.eligible.holds(hand, pos):
            untaken += 1
    return untaken / SAMPLED_HANDS
