"""Session scoring as BUNDLED.md states it (kop-sportowy series, victory-card bankroll)."""

import pytest

from kopsim.rules.load import load_ruleset
from kopsim.engine.sessions import BankrollSession, bankroll_step, series_points

SERIES = load_ruleset("kop-sportowy").session
BANK = load_ruleset("kop-victory-cards").session


def test_series_places_and_bonus():
    # places 5/3/1/0; the two positive players share 3 bonus points
    assert series_points([12, 5, -7, -10], SERIES) == [5 + 1.5, 3 + 1.5, 1, 0]


def test_series_tied_places_share_their_points():
    # two players tied for first share 5+3; both positive share the bonus
    assert series_points([4, 4, -3, -5], SERIES) == [4 + 1.5, 4 + 1.5, 1, 0]
    # everyone at zero: (5+3+1+0)/4 each, nobody positive, no bonus
    assert series_points([0, 0, 0, 0], SERIES) == [2.25] * 4


def test_series_single_positive_player_takes_whole_bonus():
    assert series_points([-1, 9, -3, -5], SERIES) == [3, 5 + 3, 1, 0]


def test_bankroll_team_game_moves_one_card_per_pair():
    # team win: each winner takes 1 card from each loser (+2 / -2)
    assert bankroll_step([5, 5, 5, 5], [2, -2, 2, -2]) == [7, 3, 7, 3]


def test_bankroll_solo():
    # a lone winner takes 2 from each opponent; a lone loser gives 2 to each
    assert bankroll_step([5, 5, 5, 5], [6, -2, -2, -2]) == [11, 3, 3, 3]
    assert bankroll_step([7, 5, 5, 5], [-6, 2, 2, 2]) == [1, 7, 7, 7]
    # 5 cards for a debt of 6: one at a time to seats 1, 2, 3, 1, 2
    assert bankroll_step([5, 5, 5, 5], [-6, 2, 2, 2]) == [0, 7, 7, 6]


def test_bankroll_short_loser_pays_in_turn_clockwise_from_his_left():
    # seat 0 loses a solo owing 2 to each of seats 1, 2, 3 but holds only 4 cards:
    # one at a time to 1, 2, 3, 1 -> seat 1 gets 2, seats 2 and 3 get 1 each
    assert bankroll_step([4, 5, 5, 5], [-6, 2, 2, 2]) == [0, 7, 6, 6]
    # seat 2 loses a solo with 1 card: it goes to seat 3, his left
    assert bankroll_step([5, 5, 1, 5], [2, 2, -6, 2]) == [5, 5, 0, 6]


def test_bankroll_session_ends_after_the_hand_a_player_reaches_zero():
    b = BankrollSession.start(BANK, 4)
    assert b.balance == [5, 5, 5, 5]
    b.play([2, -2, 2, -2])
    b.play([2, -2, 2, -2])
    assert not b.over and b.balance == [9, 1, 9, 1]
    b.play([2, -2, 2, -2])
    # seats 1 and 3 have one card each for two debts: each pays the winner on his left
    assert b.over and b.balance == [10, 0, 10, 0]
    assert b.winners() == [0, 2]  # ties stand
    with pytest.raises(AssertionError):
        b.play([0, 0, 0, 0])
