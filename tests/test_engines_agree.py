"""The batch kernel and the reference engine play the same seeded deals identically."""

import numpy as np
import pytest

from kopsim.batch import play_batch
from kopsim.compiled import compile_rules
from kopsim.play import play_random_hand
from kopsim.records import record_from_state
from kopsim.runner import hand_seeds

from kopsim.ruleset import bundled_names

BUNDLED = bundled_names()

HANDS = 1500


@pytest.mark.parametrize("name", BUNDLED)
def test_same_records_from_both_engines(rulesets, name):
    rules = rulesets[name]
    seeds = hand_seeds(7, 0, HANDS)
    dealers = np.arange(HANDS) % 4
    batch = play_batch(compile_rules(rules), seeds, dealers)
    contracts = set()
    for i in range(HANDS):
        ref = record_from_state(play_random_hand(rules, int(seeds[i]), int(dealers[i])),
                                int(seeds[i]), i)
        got = batch.record(i)
        assert got.to_dict() == ref.to_dict(), f"hand {i} differs"
        contracts.add(got.contract)
    # the comparison is only worth something if it covered most of the game
    assert len(contracts) >= min(4, len(rules.contracts))
