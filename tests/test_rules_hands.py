"""Whole hands played end to end through State, every expected value worked out by hand from the
documents (BUNDLED.md, KOP-FAMILY.md, the seeds): legal cards at each step, trick winners, points,
old side, counted doubles and payouts.
Citations: B = docs/rules/BUNDLED.md, KF = docs/rules/KOP-FAMILY.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "B §2.2" is item 2.2); "seed NNN l.X" is line X of source NNN (docs/rules/SOURCES.md).
"""

from functools import lru_cache

import pytest

from kopsim.engine.reference import Deal, State
from kopsim.rules.load import load_ruleset


@lru_cache(maxsize=None)
def rules(name):
    return load_ruleset(name)


def run(name, dealer, hands, auction, script):
    """auction: calls in order; script: 4 tricks of (card, expected legal set or None) in play order."""
    deal = Deal(dealer=dealer, hands=tuple(tuple(h) for h in hands))
    st = State(rules(name), deal)
    for call in auction:
        assert st.phase == "auction", call
        st.apply_action(call)
    assert st.phase == "play"
    for trick in script:
        for card, legal in trick:
            if legal is not None:
                assert set(st.legal_actions()) == set(legal), (card, st.legal_actions())
            st.apply_action(card)
    assert st.phase == "done" and st.current_player() is None
    return st


def check(st, winners, points, tricks_won, outcome, leader0):
    # KF §1.2: forehand leads the first trick, the winner of a trick leads the next.
    assert [t.winner for t in st.tricks] == winners
    assert [t.leader for t in st.tricks] == [leader0] + winners[:3]
    assert list(st.points) == points and list(st.tricks_won) == tricks_won
    o = st.outcome
    winner, tier, doubles, payouts = outcome
    assert (o.winner, o.tier, o.doubles) == (winner, tier, doubles)
    assert list(o.payouts) == payouts


# ---------------------------------------------------------------------------------------- deal A
# Dealer 3 (forehand 0); Q♣ at 0, Q♠ at 1: a normal game, the old side takes every trick.
A_HANDS = [["QC", "AH", "10H", "AC"], ["QS", "JC", "AS", "10S"],
           ["QH", "QD", "JS", "10C"], ["JH", "JD", "AD", "10D"]]
A_SCRIPT = [  # As–Dycha (KF §2.1), obligations KF §1.3
    [("AH", None), ("JC", {"QS", "JC"}), ("JS", {"QH", "QD", "JS"}), ("10D", {"JH", "JD", "AD", "10D"})],
    [("AC", None), ("QS", {"QS"}), ("10C", {"10C"}), ("AD", {"JH", "JD", "AD"})],
    [("AS", None), ("QH", {"QH", "QD"}), ("JD", {"JH", "JD"}), ("10H", {"QC", "10H"})],
    [("QC", None), ("10S", {"10S"}), ("QD", {"QD"}), ("JH", {"JH"})],
]
A_CASES = [
    # B §2.4: normal x3 schwarz, zero-sum
    ("kop", ["pass"] * 4, ("old", "schwarz", 0, [3, 3, -3, -3])),
    # B §4.2, §4.3: winners-only, each winner 1 x3
    ("kop-catsatcards", ["pass"] * 4, ("old", "schwarz", 0, [3, 3, 0, 0])),
    # B §5.4: simple 1 x3 schwarz (the old side won: no extra x2)
    ("baska", ["pass"] * 4, ("old", "schwarz", 0, [3, 3, -3, -3])),
    # B §7.1, §7.2: no double-queen holder, so no call at all; team win +2 / -2, no tier factor
    ("kop-victory-cards", [], ("old", "schwarz", 0, [2, 2, -2, -2])),
]


@pytest.mark.parametrize("name,auction,outcome", A_CASES, ids=[c[0] for c in A_CASES])
def test_deal_a_normal_schwarz(name, auction, outcome):
    st = run(name, 3, A_HANDS, auction, A_SCRIPT)
    assert st.contract == "normal" and st.declarer is None and st.old_side == [0, 1]
    check(st, [0, 1, 0, 0], [69, 35, 0, 0], [3, 1, 0, 0], outcome, 0)


# ---------------------------------------------------------------------------------------- deal Z
# Dealer 0 (forehand 1); Q♣ at 1, Q♠ at 2. Seat 1 takes 70 points in three tricks, seat 0 the last.
Z_HANDS = [["JH", "JD", "AD", "10D"], ["AH", "10H", "QC", "AC"],
           ["QS", "QH", "AS", "10S"], ["QD", "JC", "JS", "10C"]]
Z_SCRIPT = [
    [("AH", None), ("QH", {"QS", "QH"}), ("JS", {"QD", "JC", "JS"}), ("10D", {"JH", "JD", "AD", "10D"})],
    [("10H", None), ("QS", {"QS"}), ("JC", {"QD", "JC"}), ("AD", {"JH", "JD", "AD"})],
    [("QC", None), ("10S", {"AS", "10S"}), ("QD", {"QD"}), ("JD", {"JH", "JD"})],
    # A♣ led: A♠ is not a club and no trump is left (anything), 10♣ follows, J♥ must trump and wins
    [("AC", None), ("AS", {"AS"}), ("10C", {"10C"}), ("JH", {"JH"})],
]
Z_CASES = [
    # normal game, old side [1, 2] wins 70:34, out: 1 each (B §2.4)
    ("kop normal", "kop", ["pass"] * 4, "normal", None, [1, 2], ("old", "out", 0, [-1, 1, 1, -1])),
    # zolo with kontra, re, bok, słup all alternating: 5 x 2^4 = 80 from each (B §2.3, §2.4, §1.4)
    ("kop zolo four doubles", "kop",
     ["zolo", "kontra", "pass", "pass", "re", "bok", "pass", "pass", "słup", "pass", "pass", "pass"],
     "zolo", 1, [1], ("old", "lone", 4, [-80, 240, -80, -80])),
    # zolo du lost with 70 points: it needs all four tricks (KF §3.5); 10 each (B §2.4)
    ("kop zolo du lost", "kop", ["zolo du", "pass", "pass", "pass"], "zolo du", 1, [1],
     ("young", "lone", 0, [10, -30, 10, 10])),
    # a higher bid cancels the kontra (B §1.4): zolo du by seat 3, no doubles, he takes no trick
    ("kop overbid cancels double", "kop", ["zolo", "kontra", "zolo du", "pass", "pass", "pass"],
     "zolo du", 3, [3], ("young", "lone", 0, [10, 10, 10, -30])),
    # kontra and re both from the old side (Q♣ 1, Q♠ 2) count once (B §1.4): 1 x 2
    ("kop same-side doubles", "kop", ["kontra", "re", "pass", "pass", "pass"], "normal", None, [1, 2],
     ("old", "out", 1, [-2, 2, 2, -2])),
    # catsatcards: four passes in a row (B §4.1); zolo won, opponents 34 -> tier out, +15 only (B §4.2, §4.3)
    ("catsatcards zolo", "kop-catsatcards", ["zolo", "pass", "pass", "pass", "pass"], "zolo", 1, [1],
     ("old", "out", 0, [0, 15, 0, 0])),
    # catsatcards: lost zolo du: each opponent earns 4 (B §4.2)
    ("catsatcards zolo du lost", "kop-catsatcards", ["zolo du", "pass", "pass", "pass", "pass"],
     "zolo du", 1, [1], ("young", "lone", 0, [4, 0, 4, 4])),
    # baska zolo won 5 each (B §5.4)
    ("baska zolo", "baska", ["zolo", "pass", "pass", "pass"], "zolo", 1, [1],
     ("old", "lone", 0, [-5, 15, -5, -5])),
    # baska zolo du lost: 10, x2 when a lone player loses (B §5.4)
    ("baska zolo du lost", "baska", ["zolo du", "pass", "pass", "pass"], "zolo du", 1, [1],
     ("young", "lone", 0, [20, -60, 20, 20])),
    # victory cards: no call; team win +2 / -2 (B §7.2)
    ("victory normal", "kop-victory-cards", [], "normal", None, [1, 2], ("old", "out", 0, [-2, 2, 2, -2])),
]


@pytest.mark.parametrize("label,name,auction,contract,declarer,old,outcome", Z_CASES,
                         ids=[c[0] for c in Z_CASES])
def test_deal_z(label, name, auction, contract, declarer, old, outcome):
    st = run(name, 0, Z_HANDS, auction, Z_SCRIPT)
    assert (st.contract, st.declarer, st.old_side) == (contract, declarer, old)
    check(st, [1, 1, 1, 0], [34, 70, 0, 0], [1, 3, 0, 0], outcome, 1)


# ---------------------------------------------------------------------------------------- deal T
# Dealer 3 (forehand 0); Q♠ at 0, Q♣ at 1: a normal game that ends 52:52.
T_HANDS = [["AH", "10D", "QS", "QH"], ["AS", "QC", "JC", "AC"],
           ["10C", "10S", "JD", "JS"], ["QD", "JH", "AD", "10H"]]
T_SCRIPT = [
    [("QS", None), ("QC", {"QC"}), ("JD", {"JD", "JS"}), ("10H", {"10H"})],
    [("JH", None), ("QH", {"AH", "QH"}), ("JC", {"JC"}), ("JS", {"JS"})],
    # 10♦ led: seats 1 and 2 have no trump left (anything); seat 3 must beat with Q♦ or A♦
    [("10D", None), ("AS", {"AS", "AC"}), ("10C", {"10C", "10S"}), ("QD", {"QD", "AD"})],
    [("AD", None), ("AH", {"AH"}), ("AC", {"AC"}), ("10S", {"10S"})],
]
T_CASES = [
    # B §1.6: 52:52, no double -> the old side loses; tier "tie"; kop 1 each
    ("kop no double", "kop", ["pass"] * 4, ("young", "tie", 0, [-1, -1, 1, 1])),
    # the young side's kontra is the last counted double -> young loses, x2
    ("kop young kontra", "kop", ["pass", "pass", "kontra", "pass", "pass", "pass"],
     ("old", "tie", 1, [2, 2, -2, -2])),
    # kontra (young) then re (old): old made the last counted double -> old loses, x4
    ("kop kontra re", "kop", ["pass", "pass", "kontra", "pass", "re", "pass", "pass", "pass"],
     ("young", "tie", 2, [-4, -4, 4, 4])),
    # B §5.4: baśka's x2 when the old side loses a simple game, 52:52 included
    ("baska no double", "baska", ["pass"] * 4, ("young", "tie", 0, [-2, -2, 2, 2])),
    ("baska young kontra", "baska", ["pass", "pass", "kontra", "pass", "pass", "pass"],
     ("old", "tie", 1, [2, 2, -2, -2])),
    # B §4.4: no double -> each opponent of the old side earns 1
    ("catsatcards no double", "kop-catsatcards", ["pass"] * 4, ("young", "tie", 0, [0, 0, 1, 1])),
    # B §4.4 and §4.1: young's kontra, four passes in a row; old wins and earns 1 x 2
    ("catsatcards young kontra", "kop-catsatcards",
     ["pass", "pass", "kontra", "pass", "pass", "pass", "pass"], ("old", "tie", 1, [2, 2, 0, 0])),
    # B §7.2: nobody wins, nothing moves
    ("victory", "kop-victory-cards", [], (None, "tie", 0, [0, 0, 0, 0])),
]


@pytest.mark.parametrize("label,name,auction,outcome", T_CASES, ids=[c[0] for c in T_CASES])
def test_deal_t_tie(label, name, auction, outcome):
    st = run(name, 3, T_HANDS, auction, T_SCRIPT)
    assert st.contract == "normal" and st.old_side == [0, 1]
    check(st, [3, 0, 3, 0], [52, 0, 0, 52], [2, 0, 0, 2], outcome, 0)


# --------------------------------------------------------------------------------------- deal TD
# Dealer 3; As–Trzy Dychy order (KF §2.2): 10♣ and 10♠ are trumps. Q♣ at 0, Q♠ at 1.
TD_HANDS = [["AC", "QC", "JD", "10D"], ["10C", "QS", "JS", "AD"],
            ["AS", "10S", "JH", "QD"], ["AH", "10H", "QH", "JC"]]
TD_SCRIPT = [
    [("AC", None), ("JS", {"10C", "QS", "JS", "AD"}), ("QD", {"10S", "QD"}), ("QH", {"AH", "10H", "QH"})],
    [("JC", None), ("QC", {"QC"}), ("10C", {"10C"}), ("10S", {"10S", "JH"})],
    [("QS", None), ("JH", {"JH"}), ("10H", {"AH", "10H"}), ("JD", {"JD", "10D"})],
    [("AH", None), ("10D", {"10D"}), ("AD", {"AD"}), ("AS", {"AS"})],
]
TD_CASES = [
    # old side [0, 1] takes exactly 25 in one trick: schneider (<=25, B §1.3): 2 each (B §2.4, §6.5)
    ("trzy-dychy normal", "kop-trzy-dychy", ["pass"] * 4, "normal", None, [0, 1],
     ("young", "schneider", 0, [-2, -2, 2, 2])),
    ("sportowy normal", "kop-sportowy", ["ask", "pass", "pass", "pass", "pass"], "normal", None, [0, 1],
     ("young", "schneider", 0, [-2, -2, 2, 2])),
    # kontra (young 2), rej (young 3, same side: not counted), bok (old 0): 2 counted, cap 3 said
    # (B §6.3); schneider 2 x 4
    ("sportowy doubles", "kop-sportowy",
     ["ask", "pass", "kontra", "rej", "bok", "pass", "pass", "pass", "pass"], "normal", None, [0, 1],
     ("young", "schneider", 2, [-8, -8, 8, 8])),
    # zolo by seat 1 (25 points): lost, 5 x 2^2 (kontra by 2, rej by the declarer) (B §6.5)
    ("sportowy zolo", "kop-sportowy",
     ["ask", "zolo", "kontra", "pass", "pass", "rej", "pass", "pass", "pass", "pass"], "zolo", 1, [1],
     ("young", "lone", 2, [20, -60, 20, 20])),
]


@pytest.mark.parametrize("label,name,auction,contract,declarer,old,outcome", TD_CASES,
                         ids=[c[0] for c in TD_CASES])
def test_deal_td(label, name, auction, contract, declarer, old, outcome):
    st = run(name, 3, TD_HANDS, auction, TD_SCRIPT)
    assert (st.contract, st.declarer, st.old_side) == (contract, declarer, old)
    check(st, [3, 1, 3, 3], [0, 25, 0, 79], [0, 1, 0, 3], outcome, 0)


# ---------------------------------------------------------------------------------------- deal G
# Dealer 3; baska gran by seat 0: Gran order (KF §2.3): jacks trump, A 10 Q in each suit.
G_HANDS = [["JC", "JS", "AH", "AD"], ["10H", "QH", "JD", "10C"],
           ["AC", "QC", "AS", "JH"], ["10S", "QS", "10D", "QD"]]
G_SCRIPT = [
    [("AH", None), ("QH", {"10H", "QH"}), ("JH", {"JH"}), ("10D", {"10S", "QS", "10D", "QD"})],
    [("AC", None), ("QS", {"10S", "QS", "QD"}), ("JS", {"JC", "JS"}), ("10C", {"10C"})],
    [("AD", None), ("JD", {"JD"}), ("QC", {"QC", "AS"}), ("QD", {"QD"})],
    [("10H", None), ("AS", {"AS"}), ("10S", {"10S"}), ("JC", {"JC"})],
]
G_CASES = [
    # B §5.4: gran 5, won (59 points)
    ("gran", ["gran", "pass", "pass", "pass"], "gran", ("old", "lone", 0, [15, -5, -5, -5])),
    # gran with kontra and rekontra: 5 x 4 (B §5.3, §1.4)
    ("gran doubled", ["gran", "kontra", "pass", "pass", "rekontra", "pass", "pass", "pass"], "gran",
     ("old", "lone", 2, [60, -20, -20, -20])),
    # gran du: all four tricks needed; lost: 10 x2 (B §5.4)
    ("gran du", ["gran du", "pass", "pass", "pass"], "gran du", ("young", "lone", 0, [-60, 20, 20, 20])),
]


@pytest.mark.parametrize("label,auction,contract,outcome", G_CASES, ids=[c[0] for c in G_CASES])
def test_deal_g_gran(label, auction, contract, outcome):
    st = run("baska", 3, G_HANDS, auction, G_SCRIPT)
    assert (st.contract, st.declarer, st.old_side) == (contract, 0, [0])
    check(st, [2, 0, 1, 0], [59, 19, 26, 0], [2, 1, 1, 0], outcome, 0)


# ---------------------------------------------------------------------------------------- deal C
# Dealer 3; seat 0 holds both black queens and takes every trick.
C_HANDS = [["QC", "QS", "AH", "10H"], ["JC", "JS", "AC", "10C"],
           ["QH", "QD", "AS", "10S"], ["JH", "JD", "AD", "10D"]]
C_SCRIPT = [
    [("AH", None), ("JS", {"JC", "JS"}), ("QD", {"QH", "QD"}), ("10D", {"JH", "JD", "AD", "10D"})],
    [("10H", None), ("JC", {"JC"}), ("QH", {"QH"}), ("AD", {"JH", "JD", "AD"})],
    [("QC", None), ("10C", {"AC", "10C"}), ("10S", {"AS", "10S"}), ("JD", {"JH", "JD"})],
    [("QS", None), ("AC", {"AC"}), ("AS", {"AS"}), ("JH", {"JH"})],
]
C_CASES = [
    # B §2.1, §2.4: cicha 4, tier lone
    ("kop cicha", "kop", ["pass"] * 4, "cicha", [0], ("old", "lone", 0, [12, -4, -4, -4])),
    # kontra by seat 1, re by the would-be cicha (B §1.5): 2 counted, 4 x 4
    ("kop cicha doubled", "kop", ["pass", "kontra", "pass", "pass", "re", "pass", "pass", "pass"], "cicha",
     [0], ("old", "lone", 2, [48, -16, -16, -16])),
    # B §4.3: catsatcards cicha with opponents taking no trick: x3 schwarz, winners-only: 4 x 3 x 3
    ("catsatcards cicha", "kop-catsatcards", ["pass"] * 4, "cicha", [0], ("old", "schwarz", 0, [36, 0, 0, 0])),
    ("baska cicha", "baska", ["pass"] * 4, "cicha", [0], ("old", "lone", 0, [12, -4, -4, -4])),
    # wesele: partner is the J♣ holder, seat 1 (KF §3.3); schwarz x3 (B §2.4, §5.4)
    ("kop wesele", "kop", ["wesele", "pass", "pass", "pass"], "wesele", [0, 1],
     ("old", "schwarz", 0, [3, 3, -3, -3])),
    # the partner's kontra is the first double said, so it counts (B §1.4): 3 x 2
    ("kop wesele partner kontra", "kop", ["wesele", "kontra", "pass", "pass", "pass"], "wesele", [0, 1],
     ("old", "schwarz", 1, [6, 6, -6, -6])),
    ("baska wesele", "baska", ["wesele", "pass", "pass", "pass"], "wesele", [0, 1],
     ("old", "schwarz", 0, [3, 3, -3, -3])),
    # B §7.1, §7.2: victory cards: pass -> cicha scored as a solo (+6 / -2); solo the same; wesele +2 / -2
    ("victory pass", "kop-victory-cards", ["pass"], "cicha", [0], ("old", "lone", 0, [6, -2, -2, -2])),
    ("victory solo", "kop-victory-cards", ["solo"], "solo", [0], ("old", "lone", 0, [6, -2, -2, -2])),
    ("victory wesele", "kop-victory-cards", ["wesele"], "wesele", [0, 1],
     ("old", "schwarz", 0, [2, 2, -2, -2])),
]


@pytest.mark.parametrize("label,name,auction,contract,old,outcome", C_CASES, ids=[c[0] for c in C_CASES])
def test_deal_c_double_queen_holder(label, name, auction, contract, old, outcome):
    st = run(name, 3, C_HANDS, auction, C_SCRIPT)
    assert (st.contract, st.declarer, st.old_side) == (contract, 0, old)
    check(st, [0, 0, 0, 0], [104, 0, 0, 0], [4, 0, 0, 0], outcome, 0)


def test_observation_records_the_hand():
    # HR §2.7, §2.8: every call in order; each seat's cards as dealt.
    st = run("kop", 3, T_HANDS, ["pass", "pass", "kontra", "pass", "pass", "pass"], T_SCRIPT)
    for seat in range(4):
        obs = st.observation(seat)
        assert tuple(obs.dealt) == tuple(T_HANDS[seat])
        assert tuple(obs.hand) == ()
        assert obs.phase == "done"
        assert list(obs.auction) == [(0, "pass"), (1, "pass"), (2, "kontra"), (3, "pass"), (0, "pass"),
                                     (1, "pass")]
