"""Skat's game value and score sheet, written from docs/rules/SKAT.md (SK): the value is the
base value times the matadors plus game, schneider and schwarz (SK §6.1-6.4), the matadors
counted over the declarer's cards and the skat's (SK §6.3); only the declarer's score changes,
by the value when he wins and by twice it when he loses (SK §8.1: `scoring.style =
"old_side_only"`). The ruleset is the talon's test table (tests/data/talon/skat-talon.toml:
clubs base 12, grand 24, matadors as Laufende from 1, a lost game doubled), scored on a sheet.
"""

import json
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch, play_hand
from kopsim.engine.layout import hand_seeds
from kopsim.engine.scoring import score
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

TALON = Path(__file__).parent / "data" / "talon" / "skat-talon.toml"
SHEET = f'extends = {json.dumps(str(TALON))}\nname = "skat-sheet"\n' \
        '[scoring]\nstyle = "old_side_only"\n'


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    p = tmp_path_factory.mktemp("sheet") / "skat-sheet.toml"
    p.write_text(SHEET, encoding="utf-8")
    return load_ruleset(p)


def hands_with(declarer: list[str], skat: list[str]) -> tuple:
    """Seat 0's ten cards as given, the skat as given, the rest dealt to seats 1 and 2."""
    rest = [c for c in load_ruleset(TALON).cards() if c not in declarer and c not in skat]
    return (tuple(declarer), tuple(rest[:10]), tuple(rest[10:20]))


def test_sk_e4_grand_with_four_schneider_is_144(sheet):
    # SK §9 E4: F holds JC JS JH JD AC 10C AS 10S AH 7D, skat KC 8D: grand with 4; he takes
    # 95 points, the opponents 25 and a trick: schneider. (4 + 1 + 1) x 24 = 144, won
    hands = hands_with(["JC", "JS", "JH", "JD", "AC", "10C", "AS", "10S", "AH", "7D"],
                       ["KC", "8D"])
    out = score(sheet, "grand", [0], [], [95.0, 15.0, 10.0], [8, 1, 1], hands)
    assert (out.winner, out.tier) == ("old", "schneider")
    assert out.payouts == (144.0, 0.0, 0.0)  # SK §8.1: only the declarer is scored


def test_a_jack_in_the_skat_counts_for_the_declarers_matadors(sheet):
    # SK §6.3: the skat's cards count: JS JH in hand and JC in the skat make "with 3"
    # ((3 + 1) x 12 = 48 at clubs, won, not schneider); JC with an opponent would make
    # "without 1" ((1 + 1) x 12 = 24)
    mine = ["JS", "JH", "AC", "10C", "KC", "AS", "10S", "AH", "10H", "7D"]
    with_jc = hands_with(mine, ["JC", "8D"])
    out = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], with_jc)
    assert out.payouts == (48.0, 0.0, 0.0)
    against = hands_with(mine, ["9D", "8D"])
    assert "JC" in against[1] + against[2]
    out = score(sheet, "clubs", [0], [], [70.0, 30.0, 20.0], [6, 2, 2], against)
    assert out.payouts == (24.0, 0.0, 0.0)


def test_a_game_lost_counts_twice_against_the_declarer_alone(sheet):
    # SK §8.1: lost, -2 x value. Clubs without 2 (JH highest, JC JS out): (2 + 1) x 12 = 36;
    # 50 points lose (61 needed, SK §5.1): -72, the opponents' scores unchanged
    mine = ["JH", "JD", "AC", "10C", "KC", "AS", "10S", "AH", "10H", "7D"]
    hands = hands_with(mine, ["9D", "8D"])
    out = score(sheet, "clubs", [0], [], [50.0, 40.0, 30.0], [4, 3, 3], hands)
    assert out.winner == "young" and out.payouts == (-72.0, 0.0, 0.0)


def test_a_null_lost_scores_minus_forty_six(sheet):
    # SK §8.1: null lost -46 (twice 23); a trick taken loses a null
    out = score(sheet, "null", [1], [], [30.0, 4.0, 86.0], [3, 1, 6])
    assert out.winner == "young" and out.payouts == (0.0, -46.0, 0.0)


def test_the_score_sheet_is_not_zero_sum_and_both_engines_agree(sheet):
    compiled = compile_rules(sheet)
    bots = [bot_spec("random")] * 3
    seeds = hand_seeds(3, 0, 600)
    dealers = np.arange(600) % 3
    batch = play_batch(compiled, seeds, dealers, bots=bots)
    moved = 0
    for i in range(600):
        got = batch_record(batch, i)
        ref = record_from_state(play_hand(sheet, int(seeds[i]), int(dealers[i]), bots),
                                int(seeds[i]), i)
        assert got.to_dict() == ref.to_dict(), f"hand {i} differs"
        scored = [s for s in range(3) if got.payouts[s] != 0]
        assert set(scored) <= set(got.old_side)  # nobody but the old side is scored
        moved += bool(scored)
    assert moved > 300
