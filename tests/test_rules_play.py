"""Play rules, written from the documents (BUNDLED.md, KOP-FAMILY.md, the seeds), not from the code.

Covers: legal cards in every obligation case, trick winners in each card order, who leads.
Citations: B = docs/rules/BUNDLED.md, KF = docs/rules/KOP-FAMILY.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "B §2.2" is item 2.2); "seed NNN l.X" is line X of source NNN (docs/rules/SOURCES.md).
"""

import random
from functools import lru_cache

import pytest

from kopsim.engine.reference import Deal, State
from kopsim.rules.load import load_ruleset

from deals import make_deal  # tests/deals.py
PTS = {"A": 11, "10": 10, "Q": 3, "J": 2}  # KF §1.1: A=11, 10=10, Q=3, J=2

# KF §2.1, §2.2, §2.3 (card-order table), seed 000 l.6-10, l.54-56, l.68-74.
AS_DYCHA = {"T": "AH 10H QC QS QH QD JC JS JH JD AD 10D".split(), "C": ["AC", "10C"], "S": ["AS", "10S"]}
TRZY_DYCHY = {"T": "AH 10C 10S 10H QC QS QH QD JC JS JH JD AD 10D".split(), "C": ["AC"], "S": ["AS"]}
GRAN = {"T": ["JC", "JS", "JH", "JD"], "C": ["AC", "10C", "QC"], "D": ["AD", "10D", "QD"],
        "H": ["AH", "10H", "QH"], "S": ["AS", "10S", "QS"]}


@lru_cache(maxsize=None)
def rules(name):
    return load_ruleset(name)


# ------------------------------------------------------------------ an oracle written from KF §1.3, §1.4
def suit(order, card):
    return "T" if card in order["T"] else card[-1]


def higher(order, a, b):
    """a is higher than b within one suit (lists are high to low)."""
    s = suit(order, a)
    return order[s].index(a) < order[s].index(b)


def beats(order, card, best, led):
    # KF §1.4: a trick is won by its highest trump, or, with no trump, by the highest card of the suit led.
    sc, sb = suit(order, card), suit(order, best)
    if sc == "T":
        return sb != "T" or higher(order, card, best)
    return sb != "T" and sc == sb == led and higher(order, card, best)


def trick_winner(order, cards):
    led = suit(order, cards[0])
    w = 0
    for i in range(1, len(cards)):
        if beats(order, cards[i], cards[w], led):
            w = i
    return w


def oracle_legal(order, hand, trick):
    # KF §1.3: follow the suit led (trumps are one suit); else trump; else anything; and whatever
    # you play, beat the winning card if you can (over-trump; if you cannot, still trump).
    if not trick:
        return set(hand)
    led = suit(order, trick[0])
    best = trick[trick_winner(order, trick)]
    cand = ([c for c in hand if suit(order, c) == led]
            or [c for c in hand if suit(order, c) == "T"] or list(hand))
    beating = [c for c in cand if beats(order, c, best, led)]
    return set(beating or cand)


# ------------------------------------------------------------------------------------ helpers
def to_play(st, first_call=None):
    """Everyone passes (kop-sportowy's forehand asks); optionally the first call is a bid."""
    if first_call is not None:
        st.apply_action(first_call)
    while st.phase == "auction":
        la = st.legal_actions()
        # a kop-sportowy cicha-ban holder must bid (B §6.4); zolo keeps the As–Trzy Dychy order
        st.apply_action("pass" if "pass" in la else "ask" if "ask" in la else "zolo")
    assert st.phase == "play"


AS_DYCHA_RULESETS = ["kop", "kop-catsatcards", "baska", "kop-victory-cards"]  # B §2.1, §4, §5.1, §7.1
TRZY_DYCHY_RULESETS = ["kop-trzy-dychy", "kop-sportowy"]  # B §3.1, §6.1


# ------------------------------------------------------------------------- legal cards: As–Dycha
# Each case: hands of the seats that act (dealer 3, so seat 0 leads), cards played so far, expected
# legal set for the next seat.
AS_DYCHA_CASES = [
    # KF §1.3: trump led, all trumps one suit; must beat if able -> any higher trump, no plain card.
    ("trump led: any higher trump", {0: ["QH", "10C", "JC", "JS"], 1: ["AH", "QS", "JD", "AC"]},
     ["QH"], {"AH", "QS"}),
    # KF §1.3: cannot beat -> still follow with any trump.
    ("trump led, cannot beat: any trump", {0: ["QC", "10C", "JC", "JS"], 1: ["QH", "JD", "10D", "AC"]},
     ["QC"], {"QH", "JD", "10D"}),
    # KF §1.3: void in the plain suit led -> must trump (any trump beats a plain card).
    ("void in clubs: must trump", {0: ["AC", "10C", "JC", "JS"], 1: ["AS", "JD", "10D", "QH"]},
     ["AC"], {"JD", "10D", "QH"}),
    # KF §1.3: over-trump when trumping.
    ("over-trump", {0: ["AC", "10C", "JH", "JD"], 1: ["QD", "10D", "AS", "10S"], 2: ["AH", "JC", "JS", "QS"]},
     ["AC", "QD"], {"AH", "QS"}),
    # KF §1.3: "when you cannot over-trump you still must play a trump".
    ("cannot over-trump, still trump", {0: ["AC", "10C", "JC", "JH"], 1: ["QC", "AD", "10S", "JD"],
                                        2: ["JS", "10D", "AS", "QH"]},
     ["AC", "QC"], {"JS", "10D", "QH"}),
    # KF §1.3: following suit comes first, even when a trump has taken the lead and you could over-trump.
    ("follow plain suit after a trump", {0: ["AS", "AC", "QD", "QS"], 1: ["JD", "JH", "10C", "JS"],
                                         2: ["10S", "AH", "10H", "QC"]},
     ["AS", "JD"], {"10S"}),
    # KF §1.3: following a plain suit, beat if you can.
    ("follow plain suit and beat", {0: ["10S", "AC", "JC", "JS"], 1: ["AS", "AH", "QC", "JD"]},
     ["10S"], {"AS"}),
    # KF §1.3: neither the suit led nor a trump -> anything.
    ("void of both: anything", {0: ["QD", "QC", "JC", "JS"], 1: ["AC", "10C", "AS", "10S"]},
     ["QD"], {"AC", "10C", "AS", "10S"}),
    # KF §1.2: the leader may lead anything.
    ("lead: anything", {0: ["QD", "AC", "JC", "10S"]}, [], {"QD", "AC", "JC", "10S"}),
]


@pytest.mark.parametrize("name", AS_DYCHA_RULESETS)
@pytest.mark.parametrize("label,given,played,expected", AS_DYCHA_CASES, ids=[c[0] for c in AS_DYCHA_CASES])
def test_legal_cards_as_dycha(name, label, given, played, expected):
    # KF §1.3 obligations with the As–Dycha order (KF §2.1); B §2.1/§4/§5.1/§7.1 use this order.
    st = State(rules(name), make_deal(3, given))
    to_play(st)
    for card in played:
        st.apply_action(card)
    seat = len(played)
    assert st.current_player() == seat
    assert set(st.legal_actions()) == expected
    assert oracle_legal(AS_DYCHA, given[seat], played) == expected  # the case itself is consistent


# ---------------------------------------------------------------------- legal cards: As–Trzy Dychy
TRZY_DYCHY_CASES = [
    # KF §2.2: 10♣ is a trump, so ♣ holds only A♣: a player with 10♣ is void in clubs and must trump.
    ("10C is a trump: void in clubs", {0: ["AC", "QC", "JD", "10D"], 1: ["10C", "AS", "QD", "JH"]},
     ["AC"], {"10C", "QD", "JH"}),
    # KF §2.2: 10♣ ranks above 10♠ -> must beat 10♠ with 10♣.
    ("10C beats 10S", {0: ["10S", "QC", "JC", "10D"], 1: ["10C", "QS", "AS", "JD"]},
     ["10S"], {"10C"}),
    # KF §2.2: 10♥ ranks below 10♠ -> cannot beat, any trump (A♠ is plain, not allowed).
    ("10H below 10S", {0: ["10S", "QC", "JC", "10D"], 1: ["10H", "QS", "AS", "JD"]},
     ["10S"], {"10H", "QS", "JD"}),
    # KF §2.2 + §1.3: A♠ led, void (the only spade) -> trump; then over-trump Q♦ with 10♠.
    ("over-trump with 10S", {0: ["AS", "JH", "AH", "10H"], 1: ["QD", "10D", "AC", "JS"],
                             2: ["10S", "JC", "JD", "AD"]},
     ["AS", "QD"], {"10S"}),
]


@pytest.mark.parametrize("name", TRZY_DYCHY_RULESETS)
@pytest.mark.parametrize("label,given,played,expected", TRZY_DYCHY_CASES, ids=[c[0] for c in TRZY_DYCHY_CASES])
def test_legal_cards_trzy_dychy(name, label, given, played, expected):
    # B §3.1 (kop-trzy-dychy: 14 trumps, single-ace plain suits), B §6.1 (kop-sportowy: As–Trzy Dychy).
    st = State(rules(name), make_deal(3, given))
    to_play(st)
    for card in played:
        st.apply_action(card)
    assert set(st.legal_actions()) == expected
    assert oracle_legal(TRZY_DYCHY, given[len(played)], played) == expected


def test_same_position_differs_between_orders():
    # KF §2.1 vs §2.2: with A♣ led, 10♣ must follow in As–Dycha but is a trump in As–Trzy Dychy.
    given = {0: ["AC", "QC", "JD", "10D"], 1: ["10C", "AS", "QD", "JH"]}
    a = State(rules("kop"), make_deal(3, given))
    t = State(rules("kop-trzy-dychy"), make_deal(3, given))
    for st in (a, t):
        to_play(st)
        st.apply_action("AC")
    assert set(a.legal_actions()) == {"10C"}
    assert set(t.legal_actions()) == {"10C", "QD", "JH"}


# ------------------------------------------------------------------------------ legal cards: Gran
GRAN_CASES = [
    # KF §2.3: in Gran, hearts are a plain suit A 10 Q; follow and beat: either higher heart.
    ("follow hearts, beat with either", {0: ["QH", "AC", "AD", "QS"], 1: ["AH", "10H", "JC", "10D"]},
     ["QH"], {"AH", "10H"}),
    # KF §1.3: follow, cannot beat -> any heart; the jack (trump) is not allowed.
    ("follow hearts, cannot beat", {0: ["AH", "AC", "AD", "QS"], 1: ["10H", "QH", "JS", "10C"]},
     ["AH"], {"10H", "QH"}),
    # KF §2.3: J♥ is a trump in Gran, not a heart -> void in hearts, must trump.
    ("jacks are trumps, not hearts", {0: ["AH", "AC", "AD", "QS"], 1: ["JH", "JD", "10C", "QC"]},
     ["AH"], {"JH", "JD"}),
    # KF §1.3: neither hearts nor jacks -> anything.
    ("void of both: anything", {0: ["AH", "JC", "JS", "QS"], 1: ["AC", "10C", "10S", "AD"]},
     ["AH"], {"AC", "10C", "10S", "AD"}),
    # KF §1.3: hearts led and trumped; the next player with hearts follows with any heart, not the jack.
    ("follow after a trump", {0: ["QH", "AS", "10S", "QS"], 1: ["JD", "AC", "10C", "QC"],
                              2: ["AH", "10H", "JC", "AD"]},
     ["QH", "JD"], {"AH", "10H"}),
    # KF §1.3 with the Gran trumps J♣ > J♠ > J♥ > J♦.
    ("over-trump jacks", {0: ["AC", "AH", "10H", "QH"], 1: ["JS", "JH", "AD", "10D"],
                          2: ["JC", "JD", "AS", "QS"]},
     ["AC", "JH"], {"JC"}),
]


@pytest.mark.parametrize("label,given,played,expected", GRAN_CASES, ids=[c[0] for c in GRAN_CASES])
def test_legal_cards_gran(label, given, played, expected):
    # B §5.1: baska's gran uses the Gran order (jacks trump; A 10 Q plain suits).
    st = State(rules("baska"), make_deal(3, given))
    to_play(st, first_call="gran")
    assert st.contract == "gran"
    for card in played:
        st.apply_action(card)
    assert set(st.legal_actions()) == expected
    assert oracle_legal(GRAN, given[len(played)], played) == expected


def test_gran_plain_trick_won_by_highest_of_suit_led():
    # KF §1.4: no trump in the trick -> highest card of the suit led (an off-suit ace does not win).
    given = {0: ["QH", "JC", "JS", "JH"], 1: ["10H", "JD", "QC", "QD"], 2: ["AH", "10C", "10D", "QS"],
             3: ["AC", "AS", "10S", "AD"]}
    st = State(rules("baska"), make_deal(3, given))
    to_play(st, first_call="gran")
    for card in ["QH", "10H", "AH", "AC"]:
        st.apply_action(card)
    assert st.tricks[0].winner == 2
    assert st.tricks[0].leader == 0
    assert st.current_player() == 2  # KF §1.2: the winner of a trick leads to the next


def test_gran_du_also_uses_gran_order():
    # B §5.1: "gran and gran du ... use the Gran order".
    given = {0: ["AH", "AC", "AD", "QS"], 1: ["JH", "JD", "10C", "QC"]}
    st = State(rules("baska"), make_deal(3, given))
    to_play(st, first_call="gran du")
    st.apply_action("AH")
    assert set(st.legal_actions()) == {"JH", "JD"}


def test_baska_zolo_uses_as_dycha():
    # B §5.1: order As–Dycha except gran and gran du; in As–Dycha Q♥ is a trump and hearts are no suit.
    given = {0: ["AH", "AC", "AD", "QS"], 1: ["10H", "QH", "JS", "10C"]}
    st = State(rules("baska"), make_deal(3, given))
    to_play(st, first_call="zolo")
    st.apply_action("AH")
    assert set(st.legal_actions()) == {"10H", "QH", "JS"}


def test_legal_cards_sorted_in_deck_order():
    # Brief/API: play-phase legal actions are sorted in deck order.
    st = State(rules("kop"), make_deal(3, {0: ["QD", "AC", "JC", "10S"]}))
    to_play(st)
    la = st.legal_actions()
    deck = rules("kop").cards()
    assert la == sorted(la, key=deck.index) and set(la) == {"QD", "AC", "JC", "10S"}


@pytest.mark.parametrize("dealer", range(4))
def test_forehand_speaks_and_leads_first(dealer):
    # KF §1.2 / HR §1.2: forehand = (dealer + 1) % 4 speaks first and leads to the first trick.
    st = State(rules("kop"), Deal.from_seed(rules("kop"), 7 + dealer, dealer))
    assert st.current_player() == (dealer + 1) % 4
    # a zolo bid by someone else does not move the lead (KF §1.2)
    st.apply_action("pass")
    st.apply_action("zolo")
    while st.phase == "auction":
        st.apply_action("pass")
    assert st.declarer == (dealer + 2) % 4
    assert st.current_player() == (dealer + 1) % 4


# ------------------------------------------------- oracle comparison on many seeded deals and plays
ORACLE_SETUPS = [
    ("kop", None, AS_DYCHA), ("kop-catsatcards", None, AS_DYCHA), ("baska", None, AS_DYCHA),
    ("baska", "zolo", AS_DYCHA), ("baska", "gran", GRAN), ("baska", "gran du", GRAN),
    ("kop-victory-cards", None, AS_DYCHA), ("kop-trzy-dychy", None, TRZY_DYCHY),
    ("kop-sportowy", None, TRZY_DYCHY),
]


@pytest.mark.parametrize("name,first_call,order", ORACLE_SETUPS,
                         ids=[f"{n}-{c or 'pass'}" for n, c, _ in ORACLE_SETUPS])
def test_random_hands_match_documented_obligations(name, first_call, order):
    # KF §1.2 (forehand leads, winner leads next), §1.1 (card points), §1.3, §1.4 (obligations and
    # trick winner), checked at every card of random legal plays on seeded deals.
    r = rules(name)
    rng = random.Random(12345)
    played_hands = 0
    for seed in range(120):
        dealer = seed % 4
        deal = Deal.from_seed(r, seed, dealer)
        st = State(r, deal)
        if st.phase == "done":
            # B §6.1: only a hand dealt all four tens ends at once (kop-sportowy's KOP)
            assert name == "kop-sportowy" and any(
                {"10C", "10S", "10H", "10D"} <= set(h) for h in deal.hands)
            continue
        if first_call is not None:
            if st.current_player() != (dealer + 1) % 4 or first_call not in st.legal_actions():
                continue
        to_play(st, first_call)
        hands = [list(h) for h in deal.hands]
        leader = (dealer + 1) % 4
        points, tricks = [0] * 4, [0] * 4
        for t in range(4):
            trick = []
            for k in range(4):
                seat = (leader + k) % 4
                assert st.current_player() == seat
                legal = st.legal_actions()
                assert set(legal) == oracle_legal(order, hands[seat], trick), (seed, hands, trick)
                card = rng.choice(sorted(legal))
                st.apply_action(card)
                hands[seat].remove(card)
                trick.append(card)
            w = (leader + trick_winner(order, trick)) % 4
            assert st.tricks[t].leader == leader and list(st.tricks[t].cards) == trick
            assert st.tricks[t].winner == w, (seed, trick)
            points[w] += sum(PTS[c[:-1]] for c in trick)
            tricks[w] += 1
            leader = w
        assert st.phase == "done"
        assert list(st.points) == points and list(st.tricks_won) == tricks
        assert sum(points) == 104
        pay = st.outcome.payouts
        if name == "kop-catsatcards":
            assert all(p >= 0 for p in pay)  # B §4.2: winners-only
        else:
            assert sum(pay) == 0  # B §2.4, §5.4, §6.5, §7.2: zero-sum
        played_hands += 1
    assert played_hands >= 20
