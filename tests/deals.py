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


# Dealer 3, forehand 0; Q♣ at 0 and Q♠ at 1 (the normal game's old side is {0, 1}); nobody
# holds both black queens or four tens.
PLAIN = {0: ["AH", "10H", "QC", "AC"], 1: ["QS", "QH", "AS", "10S"],
         2: ["QD", "JC", "JS", "10C"], 3: ["JH", "JD", "AD", "10D"]}


def after_calls(rules, calls, given=PLAIN, dealer=3):
    """A reference-engine State of the deal `given`, after the calls in order."""
    from kopsim.engine.reference import State

    st = State(rules, make_deal(dealer, given))
    for call in calls:
        st.apply_action(call)
    return st
