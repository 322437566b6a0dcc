"""Deals written by hand for the rule tests: the 16 Kop cards, and a deal from a few given hands."""

from kopsim.engine.reference import Deal

ALL = "AC AS AH AD 10C 10S 10H 10D QC QS QH QD JC JS JH JD".split()


def make_deal(dealer, given):
    """given: {seat: [cards]}; the remaining cards fill the other seats in ALL order."""
    used = [c for h in given.values() for c in h]
    rest = [c for c in ALL if c not in used]
    hands = []
    for s in range(4):
        if s in given:
            hands.append(tuple(given[s]))
        else:
            hands.append(tuple(rest[:4]))
            rest = rest[4:]
    assert sorted(sum(hands, ())) == sorted(ALL) and all(len(set(h)) == 4 for h in hands)
    return Deal(dealer=dealer, hands=tuple(hands))
