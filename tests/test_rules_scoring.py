"""Payouts via kopsim.engine.scoring.score, written from the documents (BUNDLED.md, KOP-FAMILY.md).

Covers, per bundled ruleset: every contract at every doubling level and tier, schneider thresholds,
52:52 ties with and without doubles, counted (alternating) doubles, kop-sportowy's cicha cap,
instant contracts, zero-sum vs winners-only, baśka's ×2 when the old side loses.
Citations: B = docs/rules/BUNDLED.md, KF = docs/rules/KOP-FAMILY.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "B §2.2" is item 2.2); "seed NNN l.X" is line X of source NNN (docs/rules/SOURCES.md).
"""

from functools import lru_cache

import pytest

from kopsim.rules.load import load_ruleset
from kopsim.engine.scoring import score


@lru_cache(maxsize=None)
def rules(name):
    return load_ruleset(name)


TIER = {"out": 1, "schneider": 2, "schwarz": 3}  # B §2.4 / §5.4 / §6.5: 1 / 2 / 3
ALTERNATING = [2, 0, 3, 1]  # young, old, young, old for a team game with old side [0, 1]


def team(old_pts, old_tricks):
    """Old side [0, 1] takes old_pts in old_tricks; young side [2, 3] the rest."""
    return [0, 1], [old_pts, 0, 104 - old_pts, 0], [old_tricks, 0, 4 - old_tricks, 0]


def lone(pts, tricks):
    """Lone player 0 takes pts in tricks; seat 1 the rest."""
    return [0], [pts, 104 - pts, 0, 0], [tricks, 4 - tricks, 0, 0]


def team_pay(winner, v, winners_only=False):
    win, lose = (v, -v) if winner == "old" else (-v, v)
    if winners_only:
        win, lose = max(win, 0), max(lose, 0)
    return [win, win, lose, lose]


def lone_pay(winner, v, winners_only=False):
    if winner == "old":
        return [3 * v, 0, 0, 0] if winners_only else [3 * v, -v, -v, -v]
    return [0, v, v, v] if winners_only else [-3 * v, v, v, v]


# (label, old points, old tricks, winner, tier with "<=25", tier with "<=24")
TEAM_SCENARIOS = [
    ("old wins, young 44", 60, 2, "old", "out", "out"),
    ("old wins, young 26", 78, 3, "old", "out", "out"),
    ("old wins, young 25", 79, 3, "old", "schneider", "out"),
    ("old wins, young 24", 80, 3, "old", "schneider", "schneider"),
    ("old wins, young no trick", 104, 4, "old", "schwarz", "schwarz"),
    ("young wins, old 44", 44, 2, "young", "out", "out"),
    ("young wins, old 25", 25, 1, "young", "schneider", "out"),
    ("young wins, old 24", 24, 1, "young", "schneider", "schneider"),
    ("young wins, old no trick", 0, 0, "young", "schwarz", "schwarz"),
]
TEAM_IDS = [s[0] for s in TEAM_SCENARIOS]


# ------------------------------------------------------------------------------------ team games
@pytest.mark.parametrize("name,cap", [("kop", 4), ("kop-trzy-dychy", 4), ("kop-sportowy", 3)])
@pytest.mark.parametrize("contract", ["normal", "wesele"])
@pytest.mark.parametrize("label,pts,tricks,winner,tier,_", TEAM_SCENARIOS, ids=TEAM_IDS)
def test_team_zero_sum_kop(name, cap, contract, label, pts, tricks, winner, tier, _):
    # B §1.3 tiers (out >=26, schneider <=25 with a trick, schwarz no trick); B §2.4 normal and
    # wesele 1, x2 schneider, x3 schwarz (kop, and trzy-dychy by extends, B §3.1); B §6.5 sportowy
    # 1/2/3 x 2^doubles; B §1.2 zero-sum team payments; B §1.4 each counted double x2;
    # caps B §2.3 (4) and §6.3 (normal and wesele 3).
    for k in range(cap + 1):
        old, p, t = team(pts, tricks)
        o = score(rules(name), contract, old, ALTERNATING[:k], p, t)
        assert (o.winner, o.tier, o.doubles) == (winner, tier, k)
        assert list(o.payouts) == team_pay(winner, TIER[tier] * 2 ** k)


@pytest.mark.parametrize("contract", ["normal", "wesele"])
@pytest.mark.parametrize("label,pts,tricks,winner,_,tier", TEAM_SCENARIOS, ids=TEAM_IDS)
def test_team_winners_only_catsatcards(contract, label, pts, tricks, winner, _, tier):
    # B §4.2: winners-only, each winner earns 1; B §4.3: schneider is "fewer than 25" (<=24 with a
    # trick), x2 schneider, x3 schwarz; B §1.4 x2 per counted double (cap 4, as kop B §2.3).
    for k in range(5):
        old, p, t = team(pts, tricks)
        o = score(rules("kop-catsatcards"), contract, old, ALTERNATING[:k], p, t)
        assert (o.winner, o.tier, o.doubles) == (winner, tier, k)
        assert list(o.payouts) == team_pay(winner, TIER[tier] * 2 ** k, winners_only=True)


@pytest.mark.parametrize("contract", ["normal", "wesele"])
@pytest.mark.parametrize("label,pts,tricks,winner,tier,_", TEAM_SCENARIOS, ids=TEAM_IDS)
def test_team_baska(contract, label, pts, tricks, winner, tier, _):
    # B §5.4: simple 1, wesele 1 (x2 schneider, x3 schwarz); a further x2 when the old side loses a
    # simple game or wesele; zero-sum; B §5.3 cap 4.
    for k in range(5):
        old, p, t = team(pts, tricks)
        o = score(rules("baska"), contract, old, ALTERNATING[:k], p, t)
        v = TIER[tier] * 2 ** k * (2 if winner == "young" else 1)
        assert (o.winner, o.tier, o.doubles) == (winner, tier, k)
        assert list(o.payouts) == team_pay(winner, v)


@pytest.mark.parametrize("contract", ["normal", "wesele"])
@pytest.mark.parametrize("label,pts,tricks,winner,tier,_", TEAM_SCENARIOS, ids=TEAM_IDS)
def test_team_victory_cards(contract, label, pts, tricks, winner, tier, _):
    # B §7.2: team game: each winner takes 1 card from each loser (+2 / -2); no tier factor.
    # HR §2.17: the tier still names the losing side's tier in team games.
    old, p, t = team(pts, tricks)
    o = score(rules("kop-victory-cards"), contract, old, [], p, t)
    assert (o.winner, o.tier, o.doubles) == (winner, tier, 0)
    assert list(o.payouts) == team_pay(winner, 2)


# ------------------------------------------------------------------------------------ lone games
# (label, lone points, lone tricks, winner) for contracts whose goal is 53+ points
LONE_SCENARIOS = [
    ("won, opponents out", 60, 2, "old"),
    ("won, opponents no trick", 104, 4, "old"),
    ("lost, lone 44", 44, 2, "young"),
    ("lost, lone no trick", 0, 0, "young"),
]
LONE_IDS = [s[0] for s in LONE_SCENARIOS]
# zolo du / gran du: won only with all four tricks (KF §3.5, §3.7)
DU_SCENARIOS = [
    ("all four tricks", 104, 4, "old"),
    ("96 points in three tricks", 96, 3, "young"),
    ("lost, lone 44", 44, 2, "young"),
]
DU_IDS = [s[0] for s in DU_SCENARIOS]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy"])
@pytest.mark.parametrize("contract,base", [("cicha", 4), ("zolo", 5)])
@pytest.mark.parametrize("label,pts,tricks,winner", LONE_SCENARIOS, ids=LONE_IDS)
def test_lone_kop(name, contract, base, label, pts, tricks, winner):
    # B §2.4: cicha 4, zolo 5, won or lost, no tier factor (tier "lone"); zero-sum +3v / -3v
    # (B §1.2); x2 per counted double, cap 4.
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules(name), contract, old, [1, 0, 2, 0][:k], p, t)
        assert (o.winner, o.tier, o.doubles) == (winner, "lone", k)
        assert list(o.payouts) == lone_pay(winner, base * 2 ** k)


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy"])
@pytest.mark.parametrize("label,pts,tricks,winner", DU_SCENARIOS, ids=DU_IDS)
def test_zolo_du_kop(name, label, pts, tricks, winner):
    # B §2.4: zolo du 10, won or lost; KF §3.5: goal all 4 tricks.
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules(name), "zolo du", old, [1, 0, 2, 0][:k], p, t)
        assert (o.winner, o.tier, o.doubles) == (winner, "lone", k)
        assert list(o.payouts) == lone_pay(winner, 10 * 2 ** k)


@pytest.mark.parametrize("contract,base,cap", [("cicha", 4, 2), ("zolo", 5, 2), ("zolo du", 10, 1)])
def test_lone_sportowy(contract, base, cap):
    # B §6.5: cicha 4; zolo 5; zolo du 10; x 2^doubles; zero-sum. Caps B §6.3 (cicha: at most 2).
    scenarios = DU_SCENARIOS if contract == "zolo du" else LONE_SCENARIOS
    for label, pts, tricks, winner in scenarios:
        for k in range(cap + 1):
            old, p, t = lone(pts, tricks)
            o = score(rules("kop-sportowy"), contract, old, [1, 0][:k], p, t)
            assert (o.winner, o.tier, o.doubles) == (winner, "lone", k), label
            assert list(o.payouts) == lone_pay(winner, base * 2 ** k), label


@pytest.mark.parametrize("contract,base", [("cicha", 4), ("gran", 5), ("zolo", 5)])
@pytest.mark.parametrize("label,pts,tricks,winner", LONE_SCENARIOS, ids=LONE_IDS)
def test_lone_baska(contract, base, label, pts, tricks, winner):
    # B §5.4: cicha 4, gran 5, zolo 5 (tier "lone"); a further x2 when a lone player loses; zero-sum.
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules("baska"), contract, old, [1, 0, 2, 0][:k], p, t)
        v = base * 2 ** k * (2 if winner == "young" else 1)
        assert (o.winner, o.tier, o.doubles) == (winner, "lone", k)
        assert list(o.payouts) == lone_pay(winner, v)


@pytest.mark.parametrize("contract", ["gran du", "zolo du"])
@pytest.mark.parametrize("label,pts,tricks,winner", DU_SCENARIOS, ids=DU_IDS)
def test_du_baska(contract, label, pts, tricks, winner):
    # B §5.4: gran du 10, zolo du 10; x2 when the lone player loses; KF §3.7: all 4 tricks.
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules("baska"), contract, old, [1, 0, 2, 0][:k], p, t)
        v = 10 * 2 ** k * (2 if winner == "young" else 1)
        assert (o.winner, o.tier, o.doubles) == (winner, "lone", k)
        assert list(o.payouts) == lone_pay(winner, v)


# (label, lone points, lone tricks, winner, tier with "<=24")
CATS_LONE = [
    ("won, opponents 44", 60, 2, "old", "out"),
    ("won, opponents 25", 79, 3, "old", "out"),
    ("won, opponents 24", 80, 3, "old", "schneider"),
    ("won, opponents no trick", 104, 4, "old", "schwarz"),
    ("lost, lone 44", 44, 2, "young", "out"),
    ("lost, lone 25", 25, 1, "young", "out"),
    ("lost, lone 24", 24, 1, "young", "schneider"),
    ("lost, lone no trick", 0, 0, "young", "schwarz"),
]


@pytest.mark.parametrize("contract,won,lost", [("cicha", 4, 4), ("zolo", 5, 5)])
@pytest.mark.parametrize("label,pts,tricks,winner,tier", CATS_LONE, ids=[c[0] for c in CATS_LONE])
def test_lone_catsatcards(contract, won, lost, label, pts, tricks, winner, tier):
    # B §4.2, §4.3: winners-only; cicha 4, zolo 5 per opponent when won; when lost each opponent earns 4 / 5;
    # schneider (<=24 with a trick) x2 and schwarz x3 apply to every contract whose goal is card points.
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules("kop-catsatcards"), contract, old, [1, 0, 2, 0][:k], p, t)
        base = won if winner == "old" else lost
        assert (o.winner, o.tier, o.doubles) == (winner, tier, k)
        assert list(o.payouts) == lone_pay(winner, base * TIER[tier] * 2 ** k, winners_only=True)


@pytest.mark.parametrize("label,pts,tricks,winner", DU_SCENARIOS, ids=DU_IDS)
def test_zolo_du_catsatcards(label, pts, tricks, winner):
    # B §4.2: zolo du 10 per opponent when won; when lost each opponent earns 4; B §4.3: tier "lone".
    for k in range(5):
        old, p, t = lone(pts, tricks)
        o = score(rules("kop-catsatcards"), "zolo du", old, [1, 0, 2, 0][:k], p, t)
        base = 10 if winner == "old" else 4
        assert (o.winner, o.tier, o.doubles) == (winner, "lone", k)
        assert list(o.payouts) == lone_pay(winner, base * 2 ** k, winners_only=True)


@pytest.mark.parametrize("contract", ["solo", "cicha"])
@pytest.mark.parametrize("label,pts,tricks,winner", LONE_SCENARIOS, ids=LONE_IDS)
def test_lone_victory_cards(contract, label, pts, tricks, winner):
    # B §7.1, §7.2: solo, called or silent (cicha): +6 / -2 each when won, -6 / +2 each when lost; no tier factor.
    old, p, t = lone(pts, tricks)
    o = score(rules("kop-victory-cards"), contract, old, [], p, t)
    assert (o.winner, o.tier, o.doubles) == (winner, "lone", 0)
    assert list(o.payouts) == lone_pay(winner, 2)


# ----------------------------------------------------------------------------------------- ties
TIE_TEAM = team(52, 2)
TIE_LONE = lone(52, 2)
# (contract, team?, double seats, winner, payouts)
KOP_TIES = [
    # B §1.6: 52:52 -> the side of the last counted double loses; with none, the old side; tier "tie".
    ("normal", True, [], "young", [-1, -1, 1, 1]),
    ("normal", True, [2], "old", [2, 2, -2, -2]),
    ("normal", True, [2, 0], "young", [-4, -4, 4, 4]),
    ("normal", True, [2, 3], "old", [2, 2, -2, -2]),  # same-side double not counted (B §1.4)
    ("wesele", True, [], "young", [-1, -1, 1, 1]),
    ("cicha", False, [], "young", [-12, 4, 4, 4]),
    ("zolo", False, [], "young", [-15, 5, 5, 5]),
    ("zolo", False, [1], "old", [30, -10, -10, -10]),
    ("zolo", False, [1, 0], "young", [-60, 20, 20, 20]),
]
BASKA_TIES = [
    # B §1.6 and §5.4: a further x2 when the old side loses a simple game or wesele (a 52:52
    # loss included) and when a lone player loses.
    ("normal", True, [], "young", [-2, -2, 2, 2]),
    ("normal", True, [2], "old", [2, 2, -2, -2]),
    ("normal", True, [2, 0], "young", [-8, -8, 8, 8]),
    ("wesele", True, [], "young", [-2, -2, 2, 2]),
    ("cicha", False, [], "young", [-24, 8, 8, 8]),
    ("zolo", False, [], "young", [-30, 10, 10, 10]),
    ("gran", False, [1], "old", [30, -10, -10, -10]),
]
CATS_TIES = [
    # B §4.4: with no double each opponent of the old side earns 1, whatever the contract; with
    # doubles the side of the last counted double loses and the winners earn value x 2^doubles.
    ("normal", True, [], "young", [0, 0, 1, 1]),
    ("wesele", True, [], "young", [0, 0, 1, 1]),
    ("cicha", False, [], "young", [0, 1, 1, 1]),
    ("zolo", False, [], "young", [0, 1, 1, 1]),
    ("normal", True, [2], "old", [2, 2, 0, 0]),
    ("normal", True, [2, 0], "young", [0, 0, 4, 4]),
    ("cicha", False, [1], "old", [24, 0, 0, 0]),
    ("zolo", False, [1], "old", [30, 0, 0, 0]),
    ("zolo", False, [1, 0], "young", [0, 20, 20, 20]),
]
VICTORY_TIES = [
    # B §7.2: 52:52: nobody wins, nothing moves (winner null).
    ("normal", True, [], None, [0, 0, 0, 0]),
    ("wesele", True, [], None, [0, 0, 0, 0]),
    ("solo", False, [], None, [0, 0, 0, 0]),
    ("cicha", False, [], None, [0, 0, 0, 0]),
]
ALL_TIES = ([(n,) + c for n in ("kop", "kop-trzy-dychy", "kop-sportowy") for c in KOP_TIES]
            + [("baska",) + c for c in BASKA_TIES] + [("kop-catsatcards",) + c for c in CATS_TIES]
            + [("kop-victory-cards",) + c for c in VICTORY_TIES])


@pytest.mark.parametrize("name,contract,is_team,doubles,winner,payouts", ALL_TIES,
                         ids=[f"{t[0]}-{t[1]}-{t[3]}" for t in ALL_TIES])
def test_ties(name, contract, is_team, doubles, winner, payouts):
    old, p, t = TIE_TEAM if is_team else TIE_LONE
    o = score(rules(name), contract, old, doubles, p, t)
    assert (o.winner, o.tier) == (winner, "tie")
    assert list(o.payouts) == payouts


# -------------------------------------------------------------------------------- counted doubles
@pytest.mark.parametrize("name", ["kop", "baska", "kop-catsatcards"])
@pytest.mark.parametrize("seats,counted", [
    # B §1.4: a double counts only if it comes from the other side than the previous counted one;
    # the first double said always counts.
    ([2, 3], 1), ([0, 1], 1), ([2, 3, 0], 2), ([0, 1, 2, 3], 2), ([2, 0, 1, 3], 3), ([2, 0, 3, 1], 4),
])
def test_same_side_doubles_do_not_count(name, seats, counted):
    old, p, t = team(60, 2)
    o = score(rules(name), "normal", old, seats, p, t)
    assert o.doubles == counted
    assert list(o.payouts) == team_pay("old", 2 ** counted, winners_only=name == "kop-catsatcards")


def test_lone_doubles_from_the_three_count_once():
    # B §1.4: the three opponents of a zolo are one side.
    old, p, t = lone(60, 2)
    o = score(rules("kop"), "zolo", old, [1, 2, 3], p, t)
    assert o.doubles == 1 and list(o.payouts) == lone_pay("old", 10)
    o = score(rules("kop"), "zolo", old, [1, 2, 0, 3], p, t)
    assert o.doubles == 3 and list(o.payouts) == lone_pay("old", 40)


def test_sportowy_cicha_counts_at_most_two_doubles():
    # B §6.3: "A hand that turns out to be cicha counts at most 2 doubles, and its 'last counted
    # double' is the last one within that cap."
    old, p, t = lone(60, 2)
    o = score(rules("kop-sportowy"), "cicha", old, [1, 0, 2], p, t)
    assert o.doubles == 2 and list(o.payouts) == [48, -16, -16, -16]
    old, p, t = TIE_LONE
    o = score(rules("kop-sportowy"), "cicha", old, [1, 0, 2], p, t)
    # the last counted double is seat 0's (the lone player's) -> he loses the 52:52
    assert (o.winner, o.tier, o.doubles) == ("young", "tie", 2)
    assert list(o.payouts) == [-48, 16, 16, 16]


def test_kop_cicha_has_no_two_double_cap():
    # B §2.3: kop's cap is 4 for every contract; the cicha cap is kop-sportowy's only (B §6.3).
    old, p, t = lone(60, 2)
    o = score(rules("kop"), "cicha", old, [1, 0, 2], p, t)
    assert o.doubles == 3 and list(o.payouts) == [96, -32, -32, -32]
    old, p, t = TIE_LONE
    o = score(rules("kop"), "cicha", old, [1, 0, 2], p, t)
    assert o.winner == "old" and list(o.payouts) == [96, -32, -32, -32]


# ---------------------------------------------------------------------------------------- instant
@pytest.mark.parametrize("name,contract", [("baska", "baśka"), ("kop-sportowy", "kop")])
def test_instant_contracts(name, contract):
    # B §1.7: no play; winner "old", tier "instant", 0 doubles, v = 10 per opponent (+30 / -10 each).
    o = score(rules(name), contract, [2], [], [0] * 4, [0] * 4)
    assert (o.winner, o.tier, o.doubles) == ("old", "instant", 0)
    assert list(o.payouts) == [-10, -10, 30, -10]
