"""Farbwenz and Geier in the bundled short pack (`schafkopf-kurz`, docs/rules/BUNDLED.md §9),
written from the rules as the online tables play them, not from kopsim's code:

- Farbwenz (one per suit): the four Unters (Eichel, Gras, Herz, Schellen), then the chosen
  suit's A 10 K O 9 are trumps; the other Obers are plain cards of their suits, between K and 9
  (schafkopfen.net's Farbwenz page; openschafkopf lib/src/rules/trumpfdecider.rs).
- Geier: only the four Obers are trumps; the Unters are plain cards of their suits, between K
  and 9 (openschafkopf trumpfdecider.rs; schafkopfen.net's Farbgeier page for the Unter's place).
- Price as a Solo: 50, +10 Schneider, +10 more Schwarz; Laufende 10 each, in the Farbwenz from
  3 of its trumps (Unters, then the suit), in the Geier from 2 Obers, as in the Wenz from 2
  Unters (openschafkopf lib/src/rules/parser.rs, which reads sauspiel.de's games; internet-
  schafkopf.de's rules). Tout: twice the game, Laufende 20 each.
- Declarations: Sauspiel < Farbwenz < Geier < Wenz < Solo < the Touts in the same order; a
  later player takes the game only with a higher class, of two wanting one class the earlier
  keeps it (internet-schafkopf.de's "Wertigkeit der Spiele"; Touts above every other game)."""

import numpy as np
import pytest

from kopsim.bots.rollout import dealt_order
from kopsim.bots.seated import play_batch
from kopsim.engine.reference import Deal, State, card_orders
from kopsim.engine.scoring import laufende, score
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset
from kopsim.records.format import batch_record

RULES = load_ruleset("schafkopf-kurz")
ORDERS = card_orders(RULES)
GEIER = ORDERS["geier"]
FW_HERZ = ORDERS["farbwenz-herz"]
FW_EICHEL = ORDERS["farbwenz-eichel"]


def wins(order, trick):
    """The card that takes `trick` (cards in play order, the first one led)."""
    return trick[order.winner_index(trick)]


# ---------------------------------------------------------------------------- the card orders


def test_in_a_geier_only_the_obers_are_trumps():
    # the lowest Ober takes a plain ace led, and a trick led with an Ober is won by the highest
    assert wins(GEIER, ["AS", "10S", "QD", "KS"]) == "QD"
    assert wins(GEIER, ["QD", "QC", "QH", "AH"]) == "QC"
    assert wins(GEIER, ["QH", "QS", "AC", "10C"]) == "QS"


def test_in_a_geier_an_unter_is_a_plain_card_of_its_suit_between_king_and_nine():
    # the Gras Unter does not take the Gras ace or king led; it takes the Gras nine
    assert wins(GEIER, ["AS", "JS", "9S", "9C"]) == "AS"
    assert wins(GEIER, ["KS", "JS", "9S", "9D"]) == "KS"
    assert wins(GEIER, ["9S", "JS", "AC", "AD"]) == "JS"
    # an Unter led is a plain card of its suit, not a trump: any Ober takes it ...
    assert wins(GEIER, ["JC", "AC", "QD", "10C"]) == "QD"
    # ... and by the clubs above it, and the Unter of another suit cannot win a clubs trick
    assert wins(GEIER, ["JC", "JS", "JH", "9C"]) == "JC"
    assert wins(GEIER, ["JC", "KC", "JS", "9C"]) == "KC"


def declared(contract, hands):
    """The reference engine's state of the deal `hands` (dealer 3, forehand 0) once seat 0 has
    declared `contract` and every other call has been a pass."""
    st = State(RULES, Deal(dealer=3, hands=tuple(tuple(hands[s]) for s in range(4))))
    st.apply_action(contract)
    while st.phase == "auction":
        st.apply_action("pass")
    return st


# seat 1's only gras card is the Gras Unter, and its only trump the Schellen Ober
UNTER_LAST = {0: ["AS", "QC", "QS", "AC", "10C", "9C"], 1: ["JS", "QD", "AH", "10H", "KH", "9H"],
              2: ["10S", "KS", "9S", "QH", "JC", "KC"], 3: ["JH", "JD", "AD", "10D", "KD", "9D"]}


def test_in_a_geier_an_unter_follows_its_suit_and_not_the_trumps():
    st = declared("geier", UNTER_LAST)
    st.apply_action("AS")  # seat 0 leads the Gras ace: seat 1 must follow with the Gras Unter
    assert st.current_player() == 1 and st.legal_actions() == ["JS"]
    st = declared("geier", UNTER_LAST)
    st.apply_action("QC")  # an Ober led: seat 1 must follow with its Ober, not the Unter
    assert st.legal_actions() == ["QD"]


def test_in_a_farbwenz_the_unters_then_the_chosen_suit_are_trumps():
    # the lowest Unter takes the Herz ace in a Farbwenz of herz, and the Herz nine a plain ace
    assert wins(FW_HERZ, ["AH", "JD", "10H", "KH"]) == "JD"
    assert wins(FW_HERZ, ["AC", "10C", "9H", "KC"]) == "9H"
    assert wins(FW_HERZ, ["JD", "JS", "JC", "JH"]) == "JC"
    # in a Farbwenz of eichel, hearts are a plain suit: the Herz ace led loses to the Eichel nine
    assert wins(FW_EICHEL, ["AH", "10H", "9C", "KH"]) == "9C"


def test_in_a_farbwenz_the_chosen_suits_ober_is_a_trump_between_king_and_nine():
    assert wins(FW_HERZ, ["9H", "QH", "AC", "AD"]) == "QH"  # above the nine
    assert wins(FW_HERZ, ["QH", "KH", "AS", "AD"]) == "KH"  # below the king
    assert wins(FW_HERZ, ["AS", "QH", "10S", "KS"]) == "QH"  # it trumps a plain ace
    assert wins(FW_HERZ, ["QH", "JD", "AH", "10H"]) == "JD"  # an Unter takes it


def test_in_a_farbwenz_the_other_obers_are_plain_cards_of_their_suits():
    # in a Farbwenz of herz the Eichel Ober is a club between K and 9: no trump, no top card
    assert wins(FW_HERZ, ["QC", "9C", "AS", "AD"]) == "QC"
    assert wins(FW_HERZ, ["QC", "KC", "9C", "AS"]) == "KC"
    assert wins(FW_HERZ, ["AC", "QS", "QD", "QC"]) == "AC"  # Obers of other suits count nothing
    assert wins(FW_HERZ, ["QC", "9C", "9H", "AC"]) == "9H"  # the lowest trump takes it


# ------------------------------------------------------------------------------ the Laufende

OBERS = ["QC", "QS", "QH", "QD"]
UNTERS = ["JC", "JS", "JH", "JD"]


def hands_with(first: dict[str, int]) -> list[list[str]]:
    """Four 6-card hands: each card of `first` to its seat, the rest of the pack filling the
    hands in the pack's order (only who holds the counted cards matters for the Laufende)."""
    hands = [[] for _ in range(4)]
    for card, seat in first.items():
        hands[seat].append(card)
    rest = [c for c in RULES.cards() if c not in first]
    for s in range(4):
        while len(hands[s]) < 6:
            hands[s].append(rest.pop(0))
    assert all(len(h) == 6 for h in hands)
    return hands


@pytest.mark.parametrize("holders, old, expected", [
    ({"QC": 0, "QS": 0, "QH": 1, "QD": 2}, [0], 20),  # the two top Obers: 2 Laufende, from 2
    ({"QC": 0, "QS": 0, "QH": 0, "QD": 0}, [0], 40),  # all four
    ({"QC": 0, "QS": 1, "QH": 0, "QD": 0}, [0], 0),  # a gap after one: none
    ({"QC": 1, "QS": 2, "QH": 3, "QD": 0}, [0], 30),  # "without" three: they count the same
    # the Unters after the four Obers are no trumps in a Geier: they add nothing
    ({"QC": 0, "QS": 0, "QH": 0, "QD": 0, "JC": 0, "JS": 0}, [0], 40),
])
def test_geier_counts_the_obers_from_two(holders, old, expected):
    assert laufende(RULES, "geier", hands_with(holders), old) == expected
    assert laufende(RULES, "geier tout", hands_with(holders), old) == 2 * expected


@pytest.mark.parametrize("holders, expected", [
    ({"JC": 0, "JS": 0, "JH": 0, "JD": 1}, 30),  # three Unters: 3 Laufende, from 3
    ({"JC": 0, "JS": 0, "JH": 1, "JD": 0}, 0),  # two, then a gap: fewer than 3, none
    # the run goes on into the chosen suit: four Unters, the Herz ace and ten: 6
    ({"JC": 0, "JS": 0, "JH": 0, "JD": 0, "AH": 0, "10H": 0}, 60),
    ({"JC": 0, "JS": 0, "JH": 0, "JD": 0, "AH": 0, "10H": 1}, 50),
    # "without": the defenders hold JC JS JH, the declarer JD
    ({"JC": 1, "JS": 2, "JH": 3, "JD": 0}, 30),
    # the Obers (but the chosen suit's) are no trumps in a Farbwenz: three of them with two
    # Unters count nothing
    ({"QC": 0, "QS": 0, "QD": 0, "JC": 0, "JS": 0, "JH": 1}, 0),
])
def test_farbwenz_counts_its_trumps_from_three(holders, expected):
    assert laufende(RULES, "farbwenz herz", hands_with(holders), [0]) == expected
    assert laufende(RULES, "farbwenz tout herz", hands_with(holders), [0]) == 2 * expected


def test_farbwenz_counts_the_suit_it_chose():
    # four Unters, then the Eichel ace: 5 in a Farbwenz of eichel, 4 in one of herz
    hands = hands_with({"JC": 0, "JS": 0, "JH": 0, "JD": 0, "AC": 0, "AH": 1})
    assert laufende(RULES, "farbwenz eichel", hands, [0]) == 50
    assert laufende(RULES, "farbwenz herz", hands, [0]) == 40


# ---------------------------------------------------------------------------- the tariff

NO_RUN_GEIER = hands_with({"QC": 0, "QS": 1})  # Eichel Ober with the declarer, Gras Ober not
NO_RUN_FW = hands_with({"JC": 0, "JS": 1})  # the same for the Unters


def pays(contract, points, tricks, hands, doubles=()):
    out = score(RULES, contract, [0], list(doubles), points, tricks, hands)
    return out.winner, out.tier, list(out.payouts)


def lone(value):
    return [3 * value, -value, -value, -value]


@pytest.mark.parametrize("contract, hands", [("geier", NO_RUN_GEIER),
                                             ("farbwenz schellen", NO_RUN_FW)])
@pytest.mark.parametrize("label, points, tricks, doubles, expected", [
    ("won", [70, 20, 20, 10], [3, 1, 1, 1], (), ("old", "out", 50)),
    ("won, defenders 30: free", [90, 10, 10, 10], [3, 1, 1, 1], (), ("old", "out", 50)),
    ("won schneider, defenders 29", [91, 10, 10, 9], [3, 1, 1, 1], (), ("old", "schneider", 60)),
    ("won schwarz", [120, 0, 0, 0], [6, 0, 0, 0], (), ("old", "schwarz", 70)),
    ("lost, declarer 31: free", [31, 30, 30, 29], [2, 2, 1, 1], (), ("young", "out", -50)),
    ("lost schneider, declarer 30", [30, 30, 30, 30], [1, 2, 2, 1], (),
     ("young", "schneider", -60)),
    ("lost schwarz", [0, 40, 40, 40], [0, 2, 2, 2], (), ("young", "schwarz", -70)),
    ("60:60 lost by the declarer", [60, 20, 20, 20], [3, 1, 1, 1], (), ("young", "tie", -50)),
    ("won schneider, kontra and re", [95, 10, 10, 5], [3, 1, 1, 1], (1, 0),
     ("old", "schneider", 240)),
])
def test_geier_and_farbwenz_are_priced_as_a_solo(contract, hands, label, points, tricks,
                                                  doubles, expected):
    winner, tier, value = expected
    assert pays(contract, points, tricks, hands, doubles) == (winner, tier, lone(value))


def test_laufende_add_before_schneider_and_doubles_are_applied():
    # a Geier won schneider with the three top Obers: 60 + 30; after Kontra: twice that
    hands = hands_with({"QC": 0, "QS": 0, "QH": 0, "QD": 1})
    assert pays("geier", [95, 10, 10, 5], [3, 1, 1, 1], hands) == ("old", "schneider",
                                                                    lone(90))
    assert pays("geier", [95, 10, 10, 5], [3, 1, 1, 1], hands, (2,))[2] == lone(180)
    # a Farbwenz of herz lost schneider against JC JS JH: 60 + 30, paid to each defender
    hands = hands_with({"JC": 1, "JS": 2, "JH": 3, "JD": 0})
    assert pays("farbwenz herz", [20, 40, 30, 30], [1, 2, 2, 1], hands) == (
        "young", "schneider", lone(-90))


@pytest.mark.parametrize("contract, hands, run", [
    ("geier tout", hands_with({"QC": 0, "QS": 0, "QH": 2}), 2),
    ("farbwenz tout gras", hands_with({"JC": 0, "JS": 0, "JH": 0, "JD": 3}), 3),
])
def test_a_tout_pays_twice_the_game_and_twice_the_laufende(contract, hands, run):
    # won: every trick (the tier is the flat price's "lone"), 100 + 20 per Laufende
    assert pays(contract, [120, 0, 0, 0], [6, 0, 0, 0], hands) == ("old", "lone",
                                                                   lone(100 + 20 * run))
    # lost with one trick of the defenders, however few points it holds
    assert pays(contract, [116, 4, 0, 0], [5, 1, 0, 0], hands) == ("young", "lone",
                                                                   lone(-(100 + 20 * run)))


# ------------------------------------------------------------------------- the declarations

# dealer 3, forehand 0. Seat 0 holds no ace and no Unter; each seat may bid every solo game
DECL = {0: ["QC", "QS", "10C", "9C", "10S", "9S"], 1: ["QH", "QD", "KC", "KS", "10H", "9H"],
        2: ["JC", "JS", "AC", "AS", "KH", "KD"], 3: ["JH", "JD", "AH", "AD", "10D", "9D"]}


def declare(calls):
    st = State(RULES, Deal(dealer=3, hands=tuple(tuple(DECL[s]) for s in range(4))))
    for call in calls:
        st.apply_action(call)
    return st


def played_after(calls):
    """The contract and declarer once every seat has declared (and nobody doubles)."""
    st = declare(calls)
    while st.phase == "auction":
        st.apply_action("pass")
    return st.contract, st.declarer


FARBWENZ = ["farbwenz eichel", "farbwenz gras", "farbwenz herz", "farbwenz schellen"]
SOLO = ["solo eichel", "solo gras", "solo herz", "solo schellen"]


def test_a_geier_outbids_a_farbwenz_and_not_the_other_way():
    after_fw = declare(["farbwenz herz"]).legal_actions()  # seat 1 speaks
    assert "geier" in after_fw and not set(FARBWENZ) & set(after_fw)
    assert played_after(["farbwenz herz", "geier"]) == ("geier", 1)
    after_geier = declare(["geier"]).legal_actions()
    assert not set(FARBWENZ) & set(after_geier) and "geier" not in after_geier
    assert played_after(["geier"]) == ("geier", 0)


def test_of_two_wanting_a_farbwenz_the_earlier_keeps_it_whatever_the_suit():
    assert played_after(["pass", "farbwenz schellen"]) == ("farbwenz schellen", 1)
    for later in range(2, 4):  # seats 2 and 3 cannot take it with another suit's Farbwenz
        st = declare(["pass", "farbwenz schellen"] + ["pass"] * (later - 2))
        assert st.current_player() == later
        assert not set(FARBWENZ) & set(st.legal_actions())


def test_wenz_and_solo_outbid_the_geier_and_a_sauspiel_outbids_nothing():
    after_geier = set(declare(["geier"]).legal_actions())
    assert {"wenz", *SOLO} <= after_geier
    assert not {"sauspiel eichel", "sauspiel gras", "sauspiel schellen"} & after_geier
    assert played_after(["geier", "wenz"]) == ("wenz", 1)
    assert played_after(["farbwenz eichel", "pass", "solo gras"]) == ("solo gras", 2)
    # a Wenz said first keeps the game against a later Geier or Farbwenz
    after_wenz = set(declare(["wenz"]).legal_actions())
    assert "geier" not in after_wenz and not set(FARBWENZ) & after_wenz


def test_the_touts_rank_above_every_other_game_in_the_same_order():
    after_solo = set(declare(["solo herz"]).legal_actions())
    assert {"farbwenz tout eichel", "geier tout", "wenz tout", "solo tout herz"} <= after_solo
    assert played_after(["solo herz", "farbwenz tout gras"]) == ("farbwenz tout gras", 1)
    after_fwt = set(declare(["farbwenz tout gras"]).legal_actions())
    assert {"geier tout", "wenz tout", "solo tout eichel"} <= after_fwt
    assert not {"farbwenz tout herz", "geier", "wenz", "solo eichel"} & after_fwt
    assert played_after(["farbwenz tout gras", "geier tout"]) == ("geier tout", 1)
    after_gt = set(declare(["geier tout"]).legal_actions())
    assert "farbwenz tout eichel" not in after_gt and "wenz tout" in after_gt
    assert played_after(["geier tout", "pass", "wenz tout"]) == ("wenz tout", 2)


# ---------------------------------------------------- whole hands through both engines

# A Geier, dealer 3, forehand 0 declares it with the three top Obers; the Gras Unter is seat 1's
# only gras card at the end, the Eichel Unter seat 2's last club
GEIER_HANDS = {0: ["QC", "QS", "QH", "AC", "10C", "9S"], 1: ["QD", "JS", "AS", "9H", "AH", "KS"],
               2: ["JC", "KC", "9C", "10S", "10H", "KH"], 3: ["JH", "JD", "AD", "10D", "KD", "9D"]}
GEIER_PLAY = ["QC", "QD", "KH", "9D",  # seat 0: 10
              "QS", "9H", "10H", "KD",  # seat 0: 17
              "QH", "KS", "9C", "10D",  # seat 0: 17
              "AC", "AH", "KC", "AD",  # seat 0: 37; seat 2 follows clubs with the king
              "10C", "JS", "JC", "JD",  # seat 0: 16; the Eichel Unter follows clubs, under the 10
              "9S", "AS", "10S", "JH"]  # seat 1: 23; the Gras ace takes the nine led
# 97 to 23 with a trick: won schneider, with 3 Laufende (QC QS QH; QD with seat 1): 60 + 30


# A Farbwenz of herz lost schneider: the declarer (seat 0) takes only the first trick, 11 points
FW_HANDS = {0: ["JC", "QH", "9H", "QC", "9S", "9D"], 1: ["JD", "JS", "AH", "AC", "10C", "KC"],
            2: ["JH", "10H", "KH", "AS", "10S", "KS"], 3: ["QS", "AD", "10D", "KD", "QD", "9C"]}
FW_PLAY = ["JC", "JD", "KH", "QD",  # seat 0: 11; the Schellen Ober is no trump
           "QC", "AC", "10S", "9C",  # seat 1: 24; the Eichel Ober follows clubs, under the ace
           "10C", "AS", "AD", "9S",  # seat 1: 32 (seat 1 leads, seat 0 plays last)
           "KC", "KS", "KD", "9D",  # seat 1: 12
           "AH", "JH", "10D", "QH",  # seat 2: 26; the Unter takes the ace, the Herz Ober follows
           "10H", "QS", "9H", "JS"]  # seat 1: 15 (seat 2 leads)
# 11 to 109, one trick: lost schneider (the declarer at most 30); JC with the declarer, JS not:
# no Laufende. 60 from the declarer to each of the three


def _reference(contract, hands, cards):
    st = declared(contract, hands)
    for c in cards:
        assert c in st.legal_actions(), (c, st.legal_actions())
        st.apply_action(c)
    assert st.phase == "done"
    return st


@pytest.mark.parametrize("contract, hands, cards, expected", [
    ("geier", GEIER_HANDS, GEIER_PLAY,
     dict(points=[97, 23, 0, 0], tricks_won=[5, 1, 0, 0], winner="old", tier="schneider",
          payouts=[270, -90, -90, -90])),
    ("farbwenz herz", FW_HANDS, FW_PLAY,
     dict(points=[11, 83, 26, 0], tricks_won=[1, 4, 1, 0], winner="young", tier="schneider",
          payouts=[-180, 60, 60, 60])),
])
def test_a_whole_hand_is_played_and_paid_alike_by_both_engines(contract, hands, cards,
                                                               expected):
    st = _reference(contract, hands, cards)
    assert (st.contract, st.declarer, st.old_side) == (contract, 0, [0])
    o = st.outcome
    assert dict(points=st.points, tricks_won=st.tricks_won, winner=o.winner, tier=o.tier,
                payouts=list(o.payouts)) == expected

    cr = compiled(RULES)
    index = {c: i for i, c in enumerate(cr.cards)}
    masks = np.array([sum(1 << index[c] for c in hands[s]) for s in range(4)], np.uint64)
    given = dealt_order(masks, 3, cr.tables.deal_to)[None]
    row = np.full(cr.max_calls + cr.n_cards, -1, np.int64)
    calls = [call for _, call in st.auction]
    row[:len(calls)] = [cr.call_names.index(call) for call in calls]
    row[cr.max_calls:] = [index[c] for c in cards]
    res = play_batch(cr, np.array([7]), np.array([3]), given=given, forced=row[None])
    rec = batch_record(res, 0)
    assert [a["call"] for a in rec.auction] == calls
    assert [c for t in rec.tricks for c in t["cards"]] == cards
    assert (rec.contract, rec.declarer, rec.old_side) == (contract, 0, [0])
    assert dict(points=list(rec.points), tricks_won=list(rec.tricks_won), winner=rec.winner,
                tier=rec.tier, payouts=list(rec.payouts)) == expected

