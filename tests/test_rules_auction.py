"""Auction rules, written from the documents (BUNDLED.md, KOP-FAMILY.md), not from the code.

Covers: legal calls and their order, eligibility, the wesele partner, when the auction ends, the
first-double rule, double names and caps, higher bids cancelling doubles, kop-sportowy's ask /
first-call / cicha-ban rules, victory cards' single call, the instant contracts.
Citations: B = docs/rules/BUNDLED.md, KF = docs/rules/KOP-FAMILY.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "B §2.2" is item 2.2); "seed NNN l.X" is line X of source NNN (docs/rules/SOURCES.md).
"""

from functools import lru_cache

import pytest

from kopsim.engine.reference import IllegalAction, State
from kopsim.rules.load import load_ruleset

from deals import make_deal  # tests/deals.py
DOUBLE_NAMES = {"kontra", "re", "rej", "rekontra", "bok", "słup", "hirsh"}


@lru_cache(maxsize=None)
def rules(name):
    return load_ruleset(name)


def state(name, given, dealer=3):
    return State(rules(name), make_deal(dealer, given))


def calls(st, seq):
    """Apply calls, checking the seat to act each time: seq items are (seat, call)."""
    for seat, call in seq:
        assert st.phase == "auction"
        assert st.current_player() == seat, (seat, call)
        st.apply_action(call)


# Dealer 3 throughout unless said: forehand is seat 0 (HR §1.2).
# Nobody holds both black queens; Q♣ at 0, Q♠ at 1; nobody holds four tens.
PLAIN = {0: ["AH", "10H", "QC", "AC"], 1: ["QS", "QH", "AS", "10S"],
         2: ["QD", "JC", "JS", "10C"], 3: ["JH", "JD", "AD", "10D"]}
# Seat 0 holds both black queens (no A♥+10♣, so no kop-sportowy cicha ban).
CICHA0 = {0: ["QC", "QS", "AH", "10H"], 1: ["JC", "JS", "AC", "10C"],
          2: ["QH", "QD", "AS", "10S"], 3: ["JH", "JD", "AD", "10D"]}
# Seat 1 holds both black queens (no ban).
CICHA1 = {0: ["AH", "10H", "AC", "10C"], 1: ["QC", "QS", "JH", "AD"],
          2: ["QH", "QD", "AS", "10S"], 3: ["JC", "JS", "JD", "10D"]}


# ------------------------------------------------------------------------------------ kop family
@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy", "kop-catsatcards"])
def test_opening_calls_kop(name):
    # B §2.2: a call is pass, a higher bid, or the next double; B §2.1 bid order wesele < zolo < zolo du;
    # KF §3.3 wesele needs both black queens; B §1.5 a would-be cicha may not double first.
    assert state(name, PLAIN).legal_actions() == ["pass", "zolo", "zolo du", "kontra"]
    assert state(name, CICHA0).legal_actions() == ["pass", "wesele", "zolo", "zolo du"]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy"])
def test_kop_four_passes_make_normal_game(name):
    # B §2.2: four passes with no call make a normal game; B §1.1 old side = black-queen holders;
    # HR §2.10: declarer null for a normal game.
    st = state(name, PLAIN)
    calls(st, [(0, "pass"), (1, "pass"), (2, "pass")])
    assert st.phase == "auction" and st.current_player() == 3
    calls(st, [(3, "pass")])
    assert st.phase == "play"
    assert st.contract == "normal" and st.declarer is None and st.old_side == [0, 1]
    assert st.current_player() == 0


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy", "kop-catsatcards", "baska"])
def test_four_passes_with_both_black_queens_make_cicha(name):
    # B §2.1 / KF §3.2: both black queens and no bid -> cicha, alone (B §1.1).
    st = state(name, CICHA1)
    calls(st, [(0, "pass"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert st.phase == "play"
    assert st.contract == "cicha" and st.declarer == 1 and st.old_side == [1]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy"])
def test_kop_auction_ends_three_passes_after_last_bid(name):
    # B §2.2: "It ends when the three players after the last bid or double have all passed".
    st = state(name, PLAIN)
    calls(st, [(0, "pass"), (1, "zolo"), (2, "pass"), (3, "pass")])
    assert st.phase == "auction" and st.current_player() == 0
    calls(st, [(0, "pass")])
    assert st.phase == "play"
    assert st.contract == "zolo" and st.declarer == 1 and st.old_side == [1]
    assert st.current_player() == 0  # KF §1.2: forehand leads


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy"])
def test_kop_auction_ends_three_passes_after_a_double(name):
    # B §2.2: three passes after the last double end the auction, no bid -> normal game.
    st = state(name, PLAIN)
    calls(st, [(0, "kontra")])
    assert st.legal_actions() == ["pass", "zolo", "zolo du", "re"]  # B §1.4: the 2nd double is "re"
    calls(st, [(1, "pass"), (2, "pass"), (3, "pass")])
    assert st.phase == "play" and st.contract == "normal"


def test_kop_late_bid_needs_three_passes_after_it():
    # B §2.2: after a bid in the third seat the auction goes on until the three following players pass.
    st = state("kop", PLAIN)
    calls(st, [(0, "pass"), (1, "pass"), (2, "zolo"), (3, "pass"), (0, "pass")])
    assert st.phase == "auction" and st.current_player() == 1
    calls(st, [(1, "pass")])
    assert st.phase == "play" and st.declarer == 2


@pytest.mark.parametrize("name", ["kop-catsatcards", "kop-sportowy"])
def test_four_passes_in_a_row_after_a_bid(name):
    # B §4.1 (catsatcards) and §6.2 (sportowy): the auction ends only after four passes in a row,
    # so the bidder himself speaks again; as declarer he may not double first (B §1.5).
    st = state(name, PLAIN)
    calls(st, [(0, "zolo"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert st.phase == "auction" and st.current_player() == 0
    la = st.legal_actions()
    assert "pass" in la and not DOUBLE_NAMES & set(la)
    calls(st, [(0, "pass")])
    assert st.phase == "play" and st.contract == "zolo" and st.declarer == 0


@pytest.mark.parametrize("name,ended", [("kop", True), ("kop-trzy-dychy", True), ("kop-catsatcards", False)])
def test_end_after_double_three_vs_four_passes(name, ended):
    # B §2.2 (kop: three passes after the last double end it) vs B §4.1 (catsatcards: four in a row).
    st = state(name, PLAIN)
    calls(st, [(0, "pass"), (1, "kontra"), (2, "pass"), (3, "pass"), (0, "pass")])
    assert (st.phase == "play") == ended
    if not ended:
        calls(st, [(1, "pass")])
        assert st.phase == "play"


@pytest.mark.parametrize("name", ["kop-catsatcards", "kop-sportowy"])
def test_four_passes_with_no_call(name):
    # B §4.1 / §6.2: four passes in a row (sportowy: ask, then four passes; ask is not a pass).
    st = state(name, PLAIN)
    first = "ask" if name == "kop-sportowy" else "pass"
    calls(st, [(0, first), (1, "pass"), (2, "pass"), (3, "pass")])
    assert (st.phase == "play") == (name == "kop-catsatcards")
    if name == "kop-sportowy":
        calls(st, [(0, "pass")])
        assert st.phase == "play"
    assert st.contract == "normal" and st.old_side == [0, 1]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy", "kop-catsatcards"])
def test_kop_double_chain_names_and_cap(name):
    # B §2.3: doubles kontra, re, bok, słup (cap 4); B §1.4: the n-th double carries the n-th name;
    # B §1.5: the declarer may redouble once the other side has doubled. (B §4: catsatcards as kop.)
    # The three-call gaps below never end a catsatcards auction either (fewer than four passes).
    st = state(name, PLAIN)
    calls(st, [(0, "pass"), (1, "zolo")])
    assert st.legal_actions() == ["pass", "zolo du", "kontra"]
    calls(st, [(2, "kontra")])
    assert st.legal_actions() == ["pass", "zolo du", "re"]
    calls(st, [(3, "pass"), (0, "pass")])
    assert "re" in st.legal_actions()  # declarer 1 redoubles
    calls(st, [(1, "re")])
    assert st.legal_actions()[-1] == "bok"
    calls(st, [(2, "bok"), (3, "pass"), (0, "pass")])
    assert st.legal_actions()[-1] == "słup"
    calls(st, [(1, "słup")])
    assert st.legal_actions() == ["pass", "zolo du"]  # cap 4 reached
    calls(st, [(2, "pass"), (3, "pass"), (0, "pass")])
    assert st.phase == ("auction" if name == "kop-catsatcards" else "play")


def test_kop_higher_bid_cancels_doubles():
    # B §1.4: "a higher bid cancels them"; doubling starts again at the first name.
    # B §1.5: only the declarer of the bid *in force* may not double first, so the overbid zolo
    # bidder may now say kontra.
    st = state("kop", PLAIN)
    calls(st, [(0, "pass"), (1, "zolo"), (2, "kontra"), (3, "zolo du")])
    assert st.legal_actions() == ["pass", "kontra"]
    calls(st, [(0, "pass")])
    assert st.legal_actions() == ["pass", "kontra"]


def test_kop_would_be_cicha_may_redouble_and_bid_wesele_later():
    # B §1.5: with no bid the double-queen holder may not double first but may redouble;
    # B §2.1: wesele in any round; B §1.4: the bid cancels the doubles.
    st = state("kop", CICHA0)
    calls(st, [(0, "pass"), (1, "kontra"), (2, "pass"), (3, "pass")])
    assert st.legal_actions() == ["pass", "wesele", "zolo", "zolo du", "re"]
    calls(st, [(0, "wesele")])
    assert st.legal_actions() == ["pass", "zolo", "zolo du", "kontra"]


@pytest.mark.parametrize("name", ["kop", "kop-catsatcards", "baska", "kop-sportowy"])
def test_wesele_only_for_double_queen_holder(name):
    # KF §3.3 / seed 000 l.22: wesele "may only be made by a player who has both Black Queens".
    st = state(name, CICHA1)
    first = "ask" if name == "kop-sportowy" else "pass"
    assert "wesele" not in st.legal_actions()
    calls(st, [(0, first)])
    assert "wesele" in st.legal_actions()
    calls(st, [(1, "pass")])
    assert "wesele" not in st.legal_actions()
    calls(st, [(2, "pass")])
    assert "wesele" not in st.legal_actions()


def test_kop_wesele_partner_may_double_first():
    # B §1.5: only "the declarer of the bid in force" may not say the first double; the (hidden)
    # wesele partner, seat 1 with J♣, may.
    st = state("kop", CICHA0)
    calls(st, [(0, "wesele")])
    assert st.legal_actions() == ["pass", "zolo", "zolo du", "kontra"]


def test_catsatcards_wesele_caller_may_not_double_own_wesele():
    # B §1.5: the declarer of the bid in force may not say the first double (only sportowy excepts wesele).
    st = state("kop-catsatcards", CICHA0)
    calls(st, [(0, "wesele"), (1, "pass"), (2, "pass"), (3, "pass")])
    la = st.legal_actions()
    assert "pass" in la and "kontra" not in la


# --------------------------------------------------------------------------------- wesele partner
WESELE_DEALS = [
    # KF §3.3: partner = holder of the highest jack the caller lacks (J♣, else J♠, else J♥).
    ("no jack: J♣ holder", {0: ["QC", "QS", "AH", "10H"], 1: ["JS", "JH", "AC", "10C"],
                            2: ["JC", "JD", "AS", "10S"], 3: ["QH", "QD", "AD", "10D"]}, [0, 2]),
    ("holds J♣: J♠ holder", {0: ["QC", "QS", "JC", "AH"], 1: ["JH", "JD", "AC", "10C"],
                             2: ["10H", "AS", "10S", "QH"], 3: ["JS", "QD", "AD", "10D"]}, [0, 3]),
    ("holds J♣ J♠: J♥ holder", {0: ["QC", "QS", "JC", "JS"], 1: ["JH", "AC", "10C", "AH"],
                                2: ["JD", "AS", "10S", "10H"], 3: ["QH", "QD", "AD", "10D"]}, [0, 1]),
    ("holds J♠ only: J♣ holder", {0: ["QC", "QS", "JS", "AD"], 1: ["JH", "AC", "10C", "AH"],
                                  2: ["JD", "AS", "10S", "10H"], 3: ["JC", "QH", "QD", "10D"]}, [0, 3]),
]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy", "kop-catsatcards", "baska", "kop-sportowy",
                                  "kop-victory-cards"])
@pytest.mark.parametrize("label,given,old", WESELE_DEALS, ids=[w[0] for w in WESELE_DEALS])
def test_wesele_partner(name, label, given, old):
    # KF §3.3; B §7.1 (victory cards: "partner: highest jack he lacks"); HR §2.11: old_side ascending.
    st = state(name, given)
    calls(st, [(0, "wesele")])
    while st.phase == "auction":
        st.apply_action("pass")
    assert st.contract == "wesele" and st.declarer == 0 and st.old_side == old


# ------------------------------------------------------------------------------------------ baska
BASKA4 = {0: ["AC", "AS", "AH", "AD"], 1: ["QC", "QS", "QH", "QD"],
          2: ["10C", "10S", "JH", "JD"], 3: ["JC", "JS", "10H", "10D"]}


def test_baska_opening_calls():
    # B §5.2: bid order wesele < gran < zolo < gran du < zolo du < baśka; baśka needs all four queens;
    # B §1.5: a would-be cicha may not double first.
    assert state("baska", PLAIN).legal_actions() == ["pass", "gran", "zolo", "gran du", "zolo du", "kontra"]
    assert state("baska", CICHA0).legal_actions() == ["pass", "wesele", "gran", "zolo", "gran du", "zolo du"]
    st = state("baska", BASKA4)
    assert "baśka" not in st.legal_actions()
    calls(st, [(0, "pass")])
    assert st.legal_actions() == ["pass", "wesele", "gran", "zolo", "gran du", "zolo du", "baśka"]


def test_baska_higher_bids_only():
    # B §2.2 + §5.2: only a higher bid may follow gran.
    st = state("baska", PLAIN)
    calls(st, [(0, "gran")])
    assert st.legal_actions() == ["pass", "zolo", "gran du", "zolo du", "kontra"]


def test_baska_double_chain_and_cap():
    # B §5.3: kontra, rekontra, bok, hirsh (cap 4).
    st = state("baska", PLAIN)
    calls(st, [(0, "gran"), (1, "kontra"), (2, "pass"), (3, "pass")])
    assert st.legal_actions()[-1] == "rekontra"
    calls(st, [(0, "rekontra")])
    assert st.legal_actions()[-1] == "bok"
    calls(st, [(1, "bok"), (2, "pass"), (3, "pass")])
    assert st.legal_actions()[-1] == "hirsh"
    calls(st, [(0, "hirsh")])
    assert st.legal_actions() == ["pass", "zolo", "gran du", "zolo du"]


def finish_after_baska(st):
    # B §5.2, §5.3: baśka is the highest bid and cannot be doubled, so nothing but pass can follow it
    # (B §1.7 "no play": whether the remaining passes are asked for is not fixed by the documents).
    while st.phase == "auction":
        assert st.legal_actions() == ["pass"]
        st.apply_action("pass")


def test_baska_bid_wins_at_once():
    # B §1.7 and §5.2: baśka wins at once; no play, empty tricks, zero points, winner old,
    # tier instant, 0 doubles, +30 / -10 each.
    st = state("baska", BASKA4)
    calls(st, [(0, "pass"), (1, "baśka")])
    finish_after_baska(st)
    assert st.phase == "done" and st.current_player() is None
    assert st.contract == "baśka" and st.declarer == 1 and st.old_side == [1]
    assert st.tricks == [] and list(st.points) == [0] * 4 and list(st.tricks_won) == [0] * 4
    o = st.outcome
    assert (o.winner, o.tier, o.doubles) == ("old", "instant", 0)
    assert list(o.payouts) == [-10, 30, -10, -10]


def test_baska_bid_cancels_doubles():
    # B §1.4 (a higher bid cancels doubles) and §5.3 (baśka cannot be doubled): 0 doubles.
    st = state("baska", BASKA4)
    calls(st, [(0, "zolo"), (1, "pass"), (2, "kontra"), (3, "pass"), (0, "rekontra"), (1, "baśka")])
    finish_after_baska(st)
    assert st.phase == "done" and st.tricks == [] and st.contract == "baśka"
    assert st.outcome.doubles == 0 and list(st.outcome.payouts) == [-10, 30, -10, -10]


# ---------------------------------------------------------------------------------- kop-sportowy
def test_sportowy_opening_is_bid_or_ask():
    # B §6.2: forehand's first call is a bid or `ask` (no pass, no double).
    assert state("kop-sportowy", PLAIN).legal_actions() == ["ask", "zolo", "zolo du"]
    assert state("kop-sportowy", CICHA0).legal_actions() == ["ask", "wesele", "zolo", "zolo du"]


@pytest.mark.parametrize("given,expected,contract", [
    (PLAIN, ["pass", "zolo du", "kontra"], "normal"),
    # the asker holding both black queens: no wesele (not his first call), no zolo (he asked),
    # no first double (would-be cicha, B §1.5)
    (CICHA0, ["pass", "zolo du"], "cicha"),
])
def test_sportowy_forehand_speaks_fourth_after_ask(given, expected, contract):
    # B §6.2: after an ask the others speak and forehand speaks fourth; ask is not a pass; wesele only
    # as first call; a forehand who asked may no longer bid zolo (zolo du stays open).
    st = state("kop-sportowy", given)
    calls(st, [(0, "ask"), (1, "pass"), (2, "pass"), (3, "pass")])
    assert st.phase == "auction" and st.current_player() == 0
    assert st.legal_actions() == expected
    with pytest.raises(IllegalAction):
        st.apply_action("zolo")
    calls(st, [(0, "pass")])
    assert st.phase == "play" and st.contract == contract


def test_sportowy_wesele_only_as_first_call():
    # B §6.2: "Wesele may only be a player's first call"; B §1.5: the would-be cicha may redouble.
    st = state("kop-sportowy", CICHA1)
    calls(st, [(0, "ask"), (1, "pass"), (2, "kontra"), (3, "pass"), (0, "pass")])
    assert st.current_player() == 1
    assert st.legal_actions() == ["pass", "zolo", "zolo du", "rej"]


def test_sportowy_late_first_call_may_be_wesele():
    # B §6.2: the dealer's first call comes fourth and may be wesele.
    given = {3: ["QC", "QS", "JH", "AD"], 0: ["AH", "10H", "AC", "10C"]}
    st = state("kop-sportowy", given)
    calls(st, [(0, "ask"), (1, "pass"), (2, "pass")])
    assert st.legal_actions() == ["pass", "wesele", "zolo", "zolo du"]


BAN = ["wesele", "zolo", "zolo du"]
NO_BAN = ["pass", "wesele", "zolo", "zolo du"]
BAN_CASES = [
    # (label, seat, hand, calls before the holder's first call, expected legal calls)
    ("second seat A♥ 10♣", 1, ["QC", "QS", "AH", "10C"], [(0, "ask")], BAN),
    ("forehand A♥ 10♣", 0, ["QC", "QS", "AH", "10C"], [], BAN),
    ("dealer A♥ 10♠", 3, ["QC", "QS", "AH", "10S"], [(0, "ask"), (1, "pass"), (2, "pass")], BAN),
    ("dealer A♥ 10♥", 3, ["QC", "QS", "AH", "10H"], [(0, "ask"), (1, "pass"), (2, "pass")], BAN),
    ("dealer A♥ 10♣", 3, ["QC", "QS", "AH", "10C"], [(0, "ask"), (1, "pass"), (2, "pass")], BAN),
    ("second seat A♥ 10♠ is free", 1, ["QC", "QS", "AH", "10S"], [(0, "ask")], NO_BAN),
    ("third seat A♥ 10♥ is free", 2, ["QC", "QS", "AH", "10H"], [(0, "ask"), (1, "pass")], NO_BAN),
    ("dealer A♥ 10♦ is free", 3, ["QC", "QS", "AH", "10D"], [(0, "ask"), (1, "pass"), (2, "pass")], NO_BAN),
    ("dealer 10♣ 10♠ without A♥ is free", 3, ["QC", "QS", "10C", "10S"],
     [(0, "ask"), (1, "pass"), (2, "pass")], NO_BAN),
    ("dealer banned but a bid is in force", 3, ["QC", "QS", "AH", "10S"],
     [(0, "ask"), (1, "zolo"), (2, "pass")], ["pass", "zolo du", "kontra"]),
    ("banned after a double, no bid in force", 2, ["QC", "QS", "AH", "10C"],
     [(0, "ask"), (1, "kontra")], BAN),
]


@pytest.mark.parametrize("label,seat,hand,before,expected", BAN_CASES, ids=[c[0] for c in BAN_CASES])
def test_sportowy_cicha_ban(label, seat, hand, before, expected):
    # B §6.4: both black queens with A♥ and 10♣ (any seat), or as dealer with A♥ and one of
    # 10♣ 10♠ 10♥, must bid (wesele, zolo or zolo du) at his first call if no bid is in force by then.
    st = state("kop-sportowy", {seat: hand})
    assert st.phase == "auction"  # nobody was dealt four tens
    calls(st, before)
    assert st.current_player() == seat
    assert st.legal_actions() == expected


@pytest.mark.parametrize("bid,expected", [
    # B §6.3: caps zolo du 1, zolo 2 (the cap of the contract in force when the double is said).
    ("zolo du", ["pass"]),
    ("zolo", ["pass", "zolo du", "rej"]),
])
def test_sportowy_caps_on_bids(bid, expected):
    st = state("kop-sportowy", PLAIN)
    calls(st, [(0, "ask"), (1, bid), (2, "kontra"), (3, "pass"), (0, "pass")])
    la = st.legal_actions()
    assert st.current_player() == 1
    assert (la[-1] == "rej") == (bid == "zolo") and "pass" in la
    if bid == "zolo":
        calls(st, [(1, "rej")])
        assert st.legal_actions() == ["pass", "zolo du"]  # cap 2 reached
    else:
        assert not DOUBLE_NAMES & set(la)


def test_sportowy_cap_normal_three():
    # B §6.3: doubles kontra, rej, bok; normal cap 3 (no bid: normal).
    st = state("kop-sportowy", PLAIN)
    calls(st, [(0, "ask"), (1, "kontra"), (2, "rej"), (3, "bok")])
    assert st.legal_actions() == ["pass", "zolo du"]


def test_sportowy_cap_wesele_three():
    # B §6.3: wesele cap 3.
    st = state("kop-sportowy", CICHA1)
    calls(st, [(0, "ask"), (1, "wesele"), (2, "pass"), (3, "kontra"), (0, "rej")])
    assert st.legal_actions()[-1] == "bok"
    calls(st, [(1, "bok")])
    assert st.legal_actions() == ["pass", "zolo", "zolo du"]


def test_sportowy_wesele_caller_may_double_own_wesele():
    # B §1.5: "kop-sportowy lets the wesele caller double his own wesele" (003 rule 7B).
    st = state("kop-sportowy", CICHA1)
    calls(st, [(0, "ask"), (1, "wesele"), (2, "pass"), (3, "pass"), (0, "pass")])
    assert st.current_player() == 1
    assert st.legal_actions()[-1] == "kontra"


def test_sportowy_zolo_declarer_may_not_double_first():
    # B §1.5: the exception is for wesele only.
    st = state("kop-sportowy", PLAIN)
    calls(st, [(0, "ask"), (1, "zolo"), (2, "pass"), (3, "pass"), (0, "pass")])
    assert st.current_player() == 1
    assert not DOUBLE_NAMES & set(st.legal_actions())


def test_sportowy_kop_instant():
    # B §6.1: a player dealt all four tens wins at once, no auction; contract "kop", declarer that
    # seat; B §1.7: tricks empty, zeros, old / instant / 0 doubles, +30 / -10 each.
    given = {2: ["10C", "10S", "10H", "10D"], 0: ["AC", "AS", "AH", "AD"], 1: ["QC", "QS", "QH", "QD"]}
    st = state("kop-sportowy", given)
    assert st.phase == "done" and st.current_player() is None
    assert st.contract == "kop" and st.declarer == 2 and st.old_side == [2]
    assert st.tricks == [] and list(st.points) == [0] * 4 and list(st.tricks_won) == [0] * 4
    assert st.observation(0).auction == ()
    o = st.outcome
    assert (o.winner, o.tier, o.doubles) == ("old", "instant", 0)
    assert list(o.payouts) == [-10, -10, 30, -10]


@pytest.mark.parametrize("name", ["kop", "kop-trzy-dychy", "kop-catsatcards", "baska", "kop-victory-cards"])
def test_four_tens_are_not_instant_elsewhere(name):
    # B §6.1: KOP is kop-sportowy's contract only.
    given = {2: ["10C", "10S", "10H", "10D"], 0: ["AC", "AS", "AH", "AD"], 1: ["QC", "QS", "QH", "QD"]}
    st = state(name, given)
    assert st.phase in ("auction", "play")


# ----------------------------------------------------------------------------- kop-victory-cards
def test_victory_no_call_without_double_queen_holder():
    # B §7.1: the only call is made by a player holding both black queens; nobody else calls.
    st = state("kop-victory-cards", PLAIN)
    assert st.phase == "play" and st.current_player() == 0
    assert st.contract == "normal" and st.old_side == [0, 1]


@pytest.mark.parametrize("call,contract,old", [
    ("pass", "cicha", [0]), ("solo", "solo", [0]), ("wesele", "wesele", [0, 1]),
])
def test_victory_single_call(call, contract, old):
    # B §7.1: the double-queen holder calls wesele (partner: J♣ holder, seat 1), solo, or pass
    # (contract "cicha"); his call is logged even when it is pass; nobody else calls, no doubles.
    st = state("kop-victory-cards", CICHA0, dealer=0)  # forehand is seat 1, the holder is the dealer
    assert st.phase == "auction" and st.current_player() == 0
    la = st.legal_actions()
    assert set(la) == {"pass", "wesele", "solo"}
    st.apply_action(call)
    assert st.phase == "play" and st.current_player() == 1
    assert st.contract == contract and st.declarer == 0 and st.old_side == old
    assert st.observation(2).auction == ((0, call),)
