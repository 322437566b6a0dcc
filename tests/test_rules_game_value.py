"""Skat's game value beyond the matadors and tiers: the hand level, null hand, and the overbid,
written from docs/rules/SKAT.md (SK §6.2, §6.5, §6.6, §7, the examples of §9) and the contract
keys of docs/rulesets.md (hand_value, hand_only, win_points, base_value).

The ruleset is tests/data/talon/skat-value.toml (clubs base 12, grand 24, null 23, hand one
more base value, null hand 35, a lost game doubled) scored on a sheet (`scoring.style =
"old_side_only"`, SK §8.1): only the declarer, seat 0 here, is scored."""

import json

import pytest

from kopsim.engine.scoring import score
from kopsim.rules.load import load_ruleset

from talon_tables import VALUE, problems_of as problems_over  # tests/talon_tables.py

CARDS = load_ruleset(VALUE).cards()


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    p = tmp_path_factory.mktemp("sheet") / "sheet.toml"
    p.write_text(f'extends = {json.dumps(str(VALUE))}\nname = "sheet"\n'
                 '[scoring]\nstyle = "old_side_only"\n', encoding="utf-8")
    return load_ruleset(p)


def hands_with(declarer: list[str], skat: list[str], opponents_first: tuple = ()) -> tuple:
    """Seat 0's ten cards, the skat as given (no seat's), the rest to seats 1 and 2, the
    cards opponents_first among seat 1's."""
    rest = [c for c in CARDS if c not in declarer and c not in skat and c not in opponents_first]
    rest = list(opponents_first) + rest
    return (tuple(declarer), tuple(rest[:10]), tuple(rest[10:20]))


def problems_of(tmp_path, text: str) -> list[str]:
    return problems_over(VALUE, tmp_path, text)


CLUBS_WITH_1 = ["JC", "AC", "10C", "KC", "QC", "AS", "10S", "AH", "10H", "7D"]  # no JS: with 1


# ------------------------------------------------------------------------------------ hand


def test_a_hand_game_counts_one_level_more(sheet):
    # SK §6.2: with 1, game 1: 2 x 12 = 24 with the skat; hand adds a level: 3 x 12 = 36
    hands = hands_with(CLUBS_WITH_1, ["9D", "8D"])
    picked = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], hands)
    hand = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], hands,
                 hand_game=True)
    assert picked.payouts == (24.0, 0.0, 0.0) and hand.payouts == (36.0, 0.0, 0.0)


def test_sk_e12_null_hand_is_35_and_lost_minus_70(sheet):
    # SK §6.5, §9 E12a: null hand 35; lost, twice its value (SK §8.1)
    won = score(sheet, "null", [0], [], [0.0, 60.0, 60.0], [0, 5, 5], hand_game=True)
    lost = score(sheet, "null", [0], [], [10.0, 60.0, 50.0], [1, 5, 4], hand_game=True)
    assert won.payouts == (35.0, 0.0, 0.0) and lost.payouts == (-70.0, 0.0, 0.0)


# --------------------------------------------------------------------------------- overbid


def test_sk_e3_clubs_hand_overbid_by_a_jack_in_the_skat(sheet):
    # SK §9 E3: no jack in hand, bid 70; JH in the skat: without 2 (JC JS out), game, hand,
    # schneider (D = 95): 5 x 12 = 60 < 70: overbid, lost at 12 x ceil(70 / 12) = 72, twice
    mine = ["AC", "10C", "KC", "QC", "9C", "8C", "AS", "10S", "AH", "10H"]
    hands = hands_with(mine, ["JH", "7D"], ("JC", "JS"))
    out = score(sheet, "clubs", [0], [], [95.0, 15.0, 10.0], [8, 1, 1], hands, hand_game=True,
                bid_value=70)
    assert out.winner == "young" and out.tier == "out"  # lost, the declarer not schneider
    assert out.payouts == (-144.0, 0.0, 0.0)


def test_overbid_with_the_skat_and_saved_by_schneider(sheet):
    # SK §7.2, after §9 E7: bid 30, clubs with 1 after picking up is 24: with 85 points
    # overbid, lost at 12 x ceil(30 / 12) = 36, twice; with 90 the schneider makes it 36 >= 30
    hands = hands_with(CLUBS_WITH_1, ["9D", "8D"])
    short = score(sheet, "clubs", [0], [], [85.0, 20.0, 15.0], [7, 2, 1], hands, bid_value=30)
    assert short.winner == "young" and short.payouts == (-72.0, 0.0, 0.0)
    made = score(sheet, "clubs", [0], [], [90.0, 20.0, 10.0], [7, 2, 1], hands, bid_value=30)
    assert made.winner == "old" and made.payouts == (36.0, 0.0, 0.0)


def test_a_bid_that_is_a_multiple_of_the_base_loses_itself(sheet):
    # SK §7.3: bid 72 in clubs loses 72; bid 70 loses 72 too
    hands = hands_with(CLUBS_WITH_1, ["9D", "8D"])
    for bid in (70, 72):
        out = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], hands,
                    bid_value=bid)
        assert out.payouts == (-144.0, 0.0, 0.0), bid


def test_the_value_won_is_the_games_not_the_bid(sheet):
    # SK §6.6, after §9 E8: bid 18, the game worth 24 scores 24
    hands = hands_with(CLUBS_WITH_1, ["9D", "8D"])
    out = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], hands, bid_value=18)
    assert out.payouts == (24.0, 0.0, 0.0)


def test_sk_e11_sixty_all_is_lost_not_overbid(sheet):
    # SK §9 E11: grand without 2 (JH highest), bid 48: value 3 x 24 = 72 >= 48; 60 points lose
    mine = ["JH", "JD", "AC", "10C", "KC", "AS", "10S", "KS", "AH", "10H"]
    hands = hands_with(mine, ["7C", "7D"], ("JC", "JS"))
    out = score(sheet, "grand", [0], [], [60.0, 30.0, 30.0], [5, 3, 2], hands, bid_value=48)
    assert out.winner == "young" and out.payouts == (-144.0, 0.0, 0.0)


# ------------------------------------------------------------------------------ validation


def test_a_hand_value_needs_a_declarer_who_may_play_hand(tmp_path):
    msgs = problems_of(tmp_path, '[talon]\ncards = 2\npick_up = "declarer_must"\n')
    assert any("contracts.clubs.hand_value" in m and "declarer_may" in m for m in msgs)


def test_hand_only_and_base_value_belong_to_bidding_by_value(tmp_path):
    msgs = problems_of(tmp_path, """\
        [auction]
        style = "open"
        [inherit]
        remove = ["auction.values"]
        [contracts.grand]
        hand_only = true
        """)
    assert any("contracts.grand.hand_only" in m for m in msgs)
    assert any("contracts.clubs.base_value" in m and "overbidding" in m for m in msgs)


def test_winning_points_belong_to_a_points_goal(tmp_path):
    msgs = problems_of(tmp_path, "[contracts.null]\nwin_points = 90\n")
    assert any("contracts.null.win_points" in m and "tricks" in m for m in msgs)


def test_a_declarer_who_picked_up_must_have_a_game_to_declare(tmp_path):
    msgs = problems_of(tmp_path, """\
        [contracts.clubs]
        hand_only = true
        [contracts.null]
        hand_only = true
        [contracts.grand]
        hand_only = true
        """)
    assert any("at least one contract with a bid_rank must not be hand_only" in m
               for m in msgs)
