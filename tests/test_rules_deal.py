"""The deal, and one exact probability, written from the documents (KOP-FAMILY.md).
Citations: B = docs/rules/BUNDLED.md, KF = docs/rules/KOP-FAMILY.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "B §2.2" is item 2.2); "seed NNN l.X" is line X of source NNN (docs/rules/SOURCES.md).
"""

import itertools
import math
from fractions import Fraction

import pytest

from kopsim.engine.reference import Deal
from kopsim.rules.load import load_ruleset

from deals import ALL  # tests/deals.py


def test_deck_is_sixteen_cards_of_104_points():
    # KF §1.1: 16 cards, A, 10, Q, J of each suit; A=11, 10=10, Q=3, J=2; 104 in the pack.
    r = load_ruleset("kop")
    assert sorted(r.cards()) == sorted(ALL)
    assert sum({"A": 11, "10": 10, "Q": 3, "J": 2}[c[:-1]] for c in ALL) == 104


def test_both_black_queens_exact_probability():
    # KF §1.2 (4 cards each from 16) and §1.6, §3.3 (cicha / wesele need both black queens in one hand):
    # P(a given seat holds Q♣ and Q♠) = C(14,2) / C(16,4) = 91 / 1820 = 1/20, by enumeration.
    hands = list(itertools.combinations(ALL, 4))
    assert len(hands) == math.comb(16, 4) == 1820
    both = sum(1 for h in hands if "QC" in h and "QS" in h)
    assert both == 91
    assert Fraction(both, len(hands)) == Fraction(1, 20)


@pytest.mark.parametrize("name", ["kop", "kop-sportowy"])
def test_seeded_deals_match_the_probability(name):
    # Deal.from_seed: each seat 4 distinct cards, all 16 dealt (KF §1.2); the frequency of a fixed seat
    # holding both black queens should match 1/20 within a loose binomial bound (6 sigma).
    r = load_ruleset(name)
    n = 6000
    hits = [0] * 4
    for seed in range(n):
        dealer = seed % 4
        d = Deal.from_seed(r, seed, dealer)
        assert d.dealer == dealer
        assert len(d.hands) == 4 and all(len(h) == 4 and len(set(h)) == 4 for h in d.hands)
        assert sorted(c for h in d.hands for c in h) == sorted(ALL)
        for s in range(4):
            if "QC" in d.hands[s] and "QS" in d.hands[s]:
                hits[s] += 1
    p = 91 / 1820
    mean, sd = n * p, math.sqrt(n * p * (1 - p))
    for s in range(4):
        assert abs(hits[s] - mean) < 6 * sd, (s, hits[s], mean)
    # and at most one seat can hold both in a deal: the total is the sum over seats
    assert abs(sum(hits) - 4 * mean) < 6 * math.sqrt(n * 4 * p * (1 - 4 * p))


def test_seeded_deals_are_reproducible_and_vary():
    # HR §2.3: the seed reproduces the hand.
    r = load_ruleset("kop")
    assert Deal.from_seed(r, 42, 1) == Deal.from_seed(r, 42, 1)
    assert len({Deal.from_seed(r, s, 1).hands for s in range(50)}) > 45
