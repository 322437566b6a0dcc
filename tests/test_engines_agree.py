"""The batch kernel and the reference engine play the same seeded deals identically,
with random bots and with the heuristic bot (whose decisions both engines share)."""

import numpy as np
import pytest

from bundled import playable  # tests/bundled.py

from kopsim.bots.seated import play_batch
from kopsim.bots import bot_spec
from kopsim.rules.compile import compile_rules
from kopsim.bots.seated import play_hand
from kopsim.records.format import batch_record, record_from_state
from pathlib import Path

from kopsim.rules.load import bundled_names, load_ruleset
from kopsim.engine.layout import hand_seeds

BUNDLED = bundled_names()
# rulesets that use the knobs no bundled ruleset sets (issue 11), each played by both engines
KNOBS = sorted((Path(__file__).parent / "data" / "knobs").glob("*.toml"))
LINEUPS = {
    "random": ["random"] * 4,
    "heuristic": ["heuristic"] * 4,
    "mixed": ["heuristic", "random", {"name": "heuristic", "solo": 2.2, "smear": 0.0}, "random"],
    "ev": [{"name": "ev", "deals": 2000, "rounds": 2}, "heuristic"] * 2,
    "ev-endgame": [{"name": "ev", "deals": 2000, "rounds": 2, "endgame_tricks": 3,
                    "endgame_worlds": 400}, "heuristic"] * 2,  # from the lead, two tricks deep
}


@pytest.mark.parametrize("name,lineup", [
    (name, lineup) for name in BUNDLED for lineup in sorted(LINEUPS)
    if playable(name, [bot_spec(b) for b in LINEUPS[lineup]])])
def test_same_records_from_both_engines(rulesets, name, lineup):
    rules = rulesets[name]
    bots = [bot_spec(b) for b in LINEUPS[lineup]]
    hands = 1200 if lineup == "random" else 400
    seeds = hand_seeds(7, 0, hands)
    dealers = np.arange(hands) % rules.deck.players
    batch = play_batch(compile_rules(rules), seeds, dealers, bots=bots)
    contracts = set()
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i)
        got = batch_record(batch, i)
        assert got.to_dict() == ref.to_dict(), f"hand {i} differs"
        contracts.add(got.contract)
    # the comparison is only worth something if it covered much of the game
    assert len(contracts) >= min(3, len(rules.contracts))


@pytest.mark.parametrize("lineup", ["random", "heuristic"])
@pytest.mark.parametrize("path", KNOBS, ids=[p.stem for p in KNOBS])
def test_same_records_from_both_engines_on_every_new_knob(path, lineup):
    test_same_records_from_both_engines({path.stem: load_ruleset(path)}, path.stem, lineup)

