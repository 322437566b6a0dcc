"""The heuristic in games played to avoid tricks (Skat's null, SK §5.3: the declarer must take
no trick) or points (a Ramsch: the most card points lose, SK §10.1), and its lead at a deck of
any size. SK = docs/rules/SKAT.md; the heuristic's reading is docs/bots.md (heuristic).

Hand-built positions on the bundled `skat` (null order: A K Q J 10 9 8 7, no trumps, SK §2.3)
and the talon's test table (its Ramsch), fed to the heuristic's own functions."""

import numpy as np

from kopsim.bots import bot_spec
from kopsim.bots.heuristic import (C_GOAL, C_ORDER, heur_card, heur_declare, heuristic_tables,
                                   null_exposed)
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.rules.codes import GOAL_FEWEST_POINTS, GOAL_NO_TRICKS, GOAL_POINTS, WIN_OLD
from kopsim.rules.compile import card_mask, compile_rules
from kopsim.rules.load import load_ruleset

SKAT = compile_rules(load_ruleset("skat"))
T = SKAT.tables
POWER, CTAB = heuristic_tables(SKAT)
ORDERS = list(SKAT.rules.orders)
NULL, GRAND, CLUBS = (ORDERS.index(x) for x in ("null", "grand", "clubs"))
PRM = np.array(bot_spec("heuristic").kernel_params(), np.float64)
NO_ONE = np.full(len(SKAT.cards), -1, np.int64)  # who played each card: nobody yet


def mask(*cards) -> np.uint64:
    return np.uint64(card_mask(list(cards), SKAT.card_index))


def exposed(*cards) -> int:
    return int(null_exposed(mask(*cards), NULL, T.suit, T.suit_mask, T.beat_mask))


def test_a_null_holding_is_safe_when_each_card_has_enough_of_its_own_below_it():
    # SK §5.3: the others lead a low card of the suit and he must follow under it or take it
    assert exposed("7C") == 0
    assert exposed("7C", "9C", "JC") == 0  # every lead can be ducked
    assert exposed("7C", "8C", "9C", "10C") == 0
    assert exposed("8C") == 1  # the 7 led, he must take
    assert exposed("7C", "10C") == 1  # the 8 and the 9 led: the 10 takes
    assert exposed("AC", "AS", "7H") == 2
    # a void is safe: what matters is only the suits he holds
    assert exposed("7C", "7S", "7H", "7D") == 0


def card(legal, hand, goal, trick, leader, rel, order=NULL, who=NO_ONE) -> str:
    """The heuristic's card, playing seat rel.index(2) of three."""
    t = np.full(3, -1, np.int64)
    for i, c in enumerate(trick):
        t[i] = SKAT.card_index[c]
    crow = np.zeros(CTAB.shape[1], np.int64)  # a contract of this order and goal
    crow[C_ORDER], crow[C_GOAL] = order, goal
    c = heur_card(mask(*legal), mask(*hand), crow, t, leader, np.array(rel, np.int64), who,
                  T.suit, T.suit_mask, T.beat_mask, POWER, PRM)
    return SKAT.cards[c]


DECLARER = [2, -1, -1]  # seat 0 declares: the two others are against him
DEFENDER = [-1, 2, 1]  # seat 1 defends with seat 2 against seat 0


def test_the_null_declarer_ducks_with_his_highest_card_below_the_trick():
    hand = ("9H", "KH", "7S")
    assert card(("9H", "KH"), hand, GOAL_NO_TRICKS, ["10H"], 1, DECLARER) == "9H"
    # every card he may play takes it: he takes it with the highest, keeping the low one
    assert card(("9H", "KH"), hand, GOAL_NO_TRICKS, ["8H"], 1, DECLARER) == "KH"
    # void in the suit led: he throws the highest card he holds away
    assert card(("9H", "KH", "7S"), hand, GOAL_NO_TRICKS, ["8D"], 1, DECLARER) == "KH"


def test_the_null_declarer_leads_the_card_the_most_unseen_cards_beat():
    hand = ("7H", "QS", "AD")
    assert card(hand, hand, GOAL_NO_TRICKS, [], 0, DECLARER) == "7H"


def test_the_defenders_duck_under_the_null_declarer_and_play_low_before_him():
    hand = ("7H", "8H", "AH")
    # the declarer led the 9: go under it, with the highest card that does
    assert card(hand, hand, GOAL_NO_TRICKS, ["9H"], 0, DEFENDER) == "8H"
    # the declarer (seat 0) plays after seat 1: seat 1 plays low for him to go over
    assert card(hand, hand, GOAL_NO_TRICKS, ["10H"], 2, DEFENDER) == "7H"
    # the partner (seat 2) led over the declarer's card: shed the highest
    assert card(hand, hand, GOAL_NO_TRICKS, ["JH", "9H"], 2, DEFENDER) == "AH"


def test_in_a_ramsch_every_seat_ducks_under_the_trick():
    # a grand's order (jacks trumps): the 10 of hearts led, the king ducks under it
    hand = ("KH", "AH", "7S")
    each = [-1, 2, -1]  # each for himself (Ramsch)
    assert card(("KH", "AH"), hand, GOAL_FEWEST_POINTS, ["10H"], 0, each, GRAND) == "KH"
    # for points, the same seat takes the trick with its ace
    assert card(("KH", "AH"), hand, GOAL_POINTS, ["10H"], 0, [-1, 2, 1], GRAND) == "AH"


def test_a_leader_without_trumps_leads_a_plain_ace_in_a_deck_of_ten_tricks():
    # the heuristic's plain-suit top card is a master at every deck size (a 32-card deck
    # scales the strengths to its ten tricks)
    hand = ("AS", "7S", "8H", "9D")
    assert card(hand, hand, GOAL_POINTS, [], 1, [-1, 2, 1], CLUBS) == "AS"


def declared(hand, names, settled=True) -> str:
    options = np.array([SKAT.contract_names.index(n) for n in names], np.int64)
    return names[heur_declare(mask(*hand), T, options, len(options), CTAB, POWER, PRM, settled)]


def test_a_null_is_declared_only_with_no_card_exposed():
    safe = ("7C", "9C", "7S", "8S", "7H", "9H", "JH", "7D", "8D", "9D")
    assert declared(safe, ["diamonds", "null"]) == "null"
    one_out = ("8C", "9C", "7S", "8S", "7H", "9H", "JH", "7D", "8D", "9D")
    assert exposed(*one_out) == 1
    assert declared(one_out, ["diamonds", "null"]) == "diamonds"
    # before the skat is picked up one exposed card may still be laid away (SK §4.1)
    assert declared(one_out, ["diamonds", "null"], settled=False) == "null"


def test_heuristic_declarers_gain_on_the_score_sheet_in_nulls_and_suit_games():
    # SK §8.1: a game won scores its value, a game lost twice it, so a declarer gains only if he
    # wins more than two games in three
    bots = [bot_spec("heuristic")] * 3
    n = 10_000
    res = play_batch(SKAT, hand_seeds(5, 0, n), np.arange(n) % 3, bots=bots)
    names = [SKAT.contract_names[int(k)] for k in res.contract]
    won = res.winner == WIN_OLD
    for family in (("null", "null_ouvert"), ("diamonds", "hearts", "spades", "clubs")):
        rows = [i for i, k in enumerate(names) if k in family]
        assert len(rows) > 30, family
        assert np.mean([bool(won[i]) for i in rows]) > 2 / 3, family
