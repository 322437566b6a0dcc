"""The score sheet (`scoring.style = "old_side_only"`), written from docs/rules/SKAT.md: only the
declarer's score changes, by the game's value when he wins and by twice it when he loses
(SK §8.1); nobody else is scored. The ruleset is the talon's test table
(tests/data/talon/skat-talon.toml) with its losses priced as its wins and the ISkO's doubling of
a lost game as a multiplier."""

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
SHEET = f"""\
extends = {json.dumps(str(TALON))}
name = "skat-sheet"

[scoring]
style = "old_side_only"

[[scoring.multipliers]]
factor = 2
when = "old_side_lost"

[contracts.grand]
payout = {{ won = {{ out = 48, schneider = 72, schwarz = 96 }}, lost = {{ out = 48, schneider = 72, schwarz = 96 }} }}

[contracts.null]
payout = {{ won = 23, lost = 23 }}
"""


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    p = tmp_path_factory.mktemp("sheet") / "skat-sheet.toml"
    p.write_text(SHEET, encoding="utf-8")
    return load_ruleset(p)


def test_a_grand_won_scores_its_value_for_the_declarer_alone(sheet):
    # SK §8.1: a game won adds its value to the declarer's score; the others' do not change.
    # Declarer (seat 1) 78 points in 6 tricks: won, opponents 42 > 30, not schneider: 48
    out = score(sheet, "grand", [1], [], [20.0, 78.0, 22.0], [2, 6, 2])
    assert (out.winner, out.tier) == ("old", "out")
    assert out.payouts == (0.0, 48.0, 0.0)


def test_a_grand_lost_scores_twice_its_value_against_the_declarer(sheet):
    # SK §8.1: a lost game subtracts twice its value; 50 points is lost (61 needed, SK §5.1)
    out = score(sheet, "grand", [2], [], [40.0, 30.0, 50.0], [3, 3, 4])
    assert out.winner == "young"
    assert out.payouts == (0.0, 0.0, -96.0)


def test_a_grand_lost_schneider_scores_twice_the_schneider_value(sheet):
    # the declarer with 25 points (30 or fewer, SK §5.2) is schneider: 2 x 72 against him
    out = score(sheet, "grand", [0], [], [25.0, 50.0, 45.0], [1, 5, 4])
    assert (out.winner, out.tier) == ("young", "schneider")
    assert out.payouts == (-144.0, 0.0, 0.0)


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
