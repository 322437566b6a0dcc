"""The bundled `skat` (docs/rules/BUNDLED.md §10), scored against the worked examples of
docs/rules/SKAT.md §9 (SK): each example's cards, bid, game and card points, its value and
score computed there by hand. The declarer is seat 0; `score` is the reference engine's
scoring of a finished hand (the kernel's is held to it by the cross-checks)."""

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.reference import Deal, State
from kopsim.engine.scoring import score
from kopsim.records.format import batch_record
from kopsim.records.replay import check_record
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset
from kopsim.rules.show import show
from kopsim.table.view import SeatView

SKAT = load_ruleset("skat")


def hands_with(declarer: str, skat: str, others_hold: str = "") -> tuple:
    """Seat 0's ten cards, the skat (no seat's), the rest to seats 1 and 2, others_hold's
    cards first (so that they lie with the opponents, not in the skat)."""
    mine, talon, first = declarer.split(), skat.split(), others_hold.split()
    assert len(mine) == 10 and len(talon) == 2
    rest = first + [c for c in SKAT.cards() if c not in mine + talon + first]
    return (tuple(mine), tuple(rest[:10]), tuple(rest[10:20]))


def sheet(game, hands, points, tricks, bid, hand_game=False) -> float:
    """The declarer's score on the sheet (SK §8.1), the others' checked to be 0."""
    out = score(SKAT, game, [0], [], [float(p) for p in points], tricks, hands,
                hand_game=hand_game, bid_value=bid)
    assert out.payouts[1:] == (0.0, 0.0)
    return out.payouts[0]


def test_sk_e1_hearts_with_2_won():
    h = hands_with("JC JS AH 10H KH 9H AC 10C 7S 8D", "QH 7D")
    assert sheet("hearts", h, [78, 22, 20], [6, 2, 2], 27) == 30


def test_sk_e2_spades_without_1_lost():
    h = hands_with("JS AS 10S KS 9S 8S AH 7H KD QD", "AC 7C", "JC")
    assert sheet("spades", h, [58, 32, 30], [5, 3, 2], 22) == -44


def test_sk_e3_clubs_hand_overbid():
    h = hands_with("AC 10C KC QC 9C 8C AS 10S AH 10H", "JH 7D", "JC JS")
    assert sheet("clubs", h, [95, 15, 10], [8, 1, 1], 70, hand_game=True) == -144


def test_sk_e4_grand_with_4_schneider():
    h = hands_with("JC JS JH JD AC 10C AS 10S AH 7D", "KC 8D")
    assert sheet("grand", h, [95, 15, 10], [8, 1, 1], 48) == 144


def test_sk_e5_hearts_hand_schneider_announced():
    # without 1, game, hand, schneider, announced: 5 x 10 = 50; 82 points lose (90 announced)
    h = hands_with("JS JH AH 10H KH QH AC 10C AS 7D", "9H 8C", "JC")
    assert sheet("hearts_schneider", h, [82, 20, 18], [7, 2, 1], 40, hand_game=True) == -100
    assert sheet("hearts_schneider", h, [92, 18, 10], [8, 1, 1], 40, hand_game=True) == 50
    # every trick: unannounced schwarz on top, 6 x 10
    assert sheet("hearts_schneider", h, [120, 0, 0], [10, 0, 0], 40, hand_game=True) == 60


def test_sk_e6_clubs_ouvert_with_2():
    h = hands_with("JC JS AC 10C KC QC 9C 8C 7C AS", "10S KS", "JH")
    assert sheet("clubs_ouvert", h, [120, 0, 0], [10, 0, 0], 60, hand_game=True) == 108
    assert sheet("clubs_ouvert", h, [110, 10, 0], [9, 1, 0], 60, hand_game=True) == -216


def test_sk_e7_diamonds_overbid_schneider_missed():
    h = hands_with("JH AD KD 9D 8D AH 10H AS KS 7C", "JC 7S", "JS")
    assert sheet("diamonds", h, [85, 20, 15], [7, 2, 1], 20) == -54
    assert sheet("diamonds", h, [90, 20, 10], [8, 1, 1], 20) == 27


def test_sk_e8_spades_hand_a_jack_in_the_skat_raises_the_value():
    h = hands_with("JS JD AS 10S KS 9S AC 10C QH 7H", "JC 8H", "JH")
    assert sheet("spades", h, [70, 30, 20], [6, 2, 2], 33, hand_game=True) == 44


def test_sk_e9_spades_the_declarer_schneider():
    h = hands_with("JS AS 10S KS QS 9S 7C 8C 7H 8H", "AC 10C", "JC")
    assert sheet("spades", h, [28, 50, 42], [2, 4, 4], 22) == -66


def test_sk_e10_diamonds_with_5_schwarz():
    h = hands_with("JC JS JH JD AD KD QD 9D AC AH", "8D 7S", "10D")
    assert sheet("diamonds", h, [120, 0, 0], [10, 0, 0], 36) == 72


def test_sk_e11_grand_at_sixty_all():
    h = hands_with("JH JD AC 10C KC AS 10S KS AH 10H", "7C 7D", "JC JS")
    assert sheet("grand", h, [60, 30, 30], [5, 3, 2], 48) == -144


def test_sk_e12_nulls():
    # (a) null hand won +35; (b) null ouvert lost -92; (c) at 24 no null after picking up,
    # null hand (35) yes
    none = hands_with("7C 8C 9C 7S 8S 9S 7H 8H 9H 7D", "10D JD")
    assert sheet("null", none, [0, 60, 50], [0, 5, 5], 35, hand_game=True) == 35
    assert sheet("null_ouvert", none, [10, 60, 40], [1, 5, 4], 46) == -92
    assert "null" not in SKAT.declarable(24, hand_game=False)
    assert "null" in SKAT.declarable(24, hand_game=True)


def test_a_passed_in_hand_is_nobodys_and_scores_nothing():
    # SK §3.6: all three pass: nobody plays, nobody scores
    st = State(SKAT, Deal.from_seed(SKAT, 4, 2))
    for call in ("pass", "pass", "pass"):
        st.apply_action(call)
    assert st.contract == "passed_in" and st.is_terminal() and st.returns() == (0.0, 0.0, 0.0)
    assert st.points == [0.0, 0.0, 0.0]


def test_announcements_are_hand_games_only():
    # SK §4.4: schneider, schwarz and ouvert only in a hand game (null ouvert either way)
    picked = SKAT.declarable(18, hand_game=False)
    assert not [g for g in picked if g.endswith(("_schneider", "_schwarz"))]
    assert "null_ouvert" in picked and "grand_ouvert" not in picked
    assert "grand_ouvert" in SKAT.declarable(264, hand_game=True)


def test_skat_simulates_and_replays_clean():
    # issue 37: simulate then replay find nothing wrong (here 600 hands of random play)
    cr = compile_rules(SKAT)
    res = play_batch(cr, np.arange(600), np.arange(600) % 3, bots=[bot_spec("random")] * 3)
    for i in range(600):
        assert check_record(SKAT, batch_record(res, i).to_dict()) is None, i


@pytest.mark.parametrize("bot", ["ev", "cheat-dd", "learnt", {"name": "pimc", "lookahead": True},
                                 {"name": "pimc", "inference": 2.0}])
def test_bots_that_cannot_play_skat_say_so(bot):
    # pimc plays skat in its compiled decisions (tests/test_pimc_talon.py), not with a model
    # of the others' calls, which deals every unseen card to a seat
    assert bot_spec(bot).cannot_play(SKAT) is not None
    assert bot_spec("pimc").cannot_play(SKAT) is None


def test_an_ouvert_game_lies_open_from_the_first_lead():
    # SK §2.7: in an open game the declarer lays his ten cards face up before the first lead
    # and plays from them; in a closed one nobody sees another's cards
    mine = "7C 9C JC 7S 9S 7H 9H 7D 8D 9D"
    for game, shown in (("null_ouvert", True), ("null", False)):
        st = State(SKAT, Deal(2, hands_with(mine, "AC AS"), ("AC", "AS")))
        for call in ("pass", "pass", "18", "hand"):  # M, R pass; forehand bids, plays hand
            assert not st.observation(1).open_hand  # nothing open before the play
            st.apply_action(call)
        st.apply_action(game)
        assert st.phase == "play" and st.current_player() == 0
        for seat in (1, 2):
            assert set(st.observation(seat).open_hand) == (set(mine.split()) if shown else set())
        st.apply_action("7C")  # he leads: the cards he still holds stay open
        assert set(st.observation(2).open_hand) == (set(mine.split()) - {"7C"} if shown
                                                   else set())
        # a seat at the table sees them on its turn (`kopsim play`)
        lines, _ = SeatView(SKAT, 1).choices(st.observation(1))
        assert any("plays open" in x for x in lines) == shown
    assert "played open" in show(SKAT)


def test_rules_diff_says_a_game_is_played_open(tmp_path):
    from kopsim.rules.diff import diff_rules
    p = tmp_path / "closed.toml"
    p.write_text('extends = "skat"\nname = "closed"\n[contracts.null_ouvert]\n'
                 'open_hand = false\n', encoding="utf-8")
    said = [c.text for c in diff_rules(load_ruleset(str(p)), SKAT)]
    assert any("null_ouvert: played open" in x for x in said)
