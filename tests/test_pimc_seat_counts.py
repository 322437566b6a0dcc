"""pimc and the cheat bound at tables of three and five (issue 36): pimc's compiled decisions
in the batch kernel and its Python statement in the reference engine play the same hands (the
sampler and the search read the table from the ruleset); with ev's model of the others' calls
(lookahead, inference), which reads the table too, they play there as well."""

from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch, play_hand
from kopsim.engine.layout import hand_seeds
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.load import load_ruleset

SEATS = Path(__file__).parent / "data" / "seats"
TABLES = {"three-handed": 3, "five-handed": 5}
PIMC = {"name": "pimc", "samples": 6, "auction_samples": 4, "seed": 5}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_pimc_plays_the_same_hands_in_both_engines_at_other_tables(name):
    rules = load_ruleset(SEATS / f"{name}.toml")
    n = TABLES[name]
    bots = [bot_spec(PIMC), bot_spec("heuristic")] * n
    bots = bots[:n]
    hands = 24
    seeds = hand_seeds(7, 0, hands)
    dealers = np.arange(hands) % n
    batch = play_batch(rules, seeds, dealers, bots=bots)
    contracts = set()
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i).to_dict()
        assert batch_record(batch, i).to_dict() == ref, f"hand {i} differs"
        contracts.add(ref["contract"])
    assert len(contracts) >= 2


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_cheat_bound_plays_at_other_tables(name):
    rules = load_ruleset(SEATS / f"{name}.toml")
    n = TABLES[name]
    bots = [bot_spec("cheat-dd")] + [bot_spec("heuristic")] * (n - 1)
    for i in range(4):
        state = play_hand(rules, int(hand_seeds(3, i, 1)[0]), i % n, bots)
        assert state.is_terminal()
        assert abs(sum(state.outcome.payouts)) < 1e-9


MODEL = {"deals": 2000, "rounds": 2}  # ev's self-play, small


@pytest.mark.parametrize("spec", [
    {"name": "pimc", "samples": 4, "auction_samples": 3, "lookahead": True, "model": MODEL},
    {"name": "pimc", "samples": 4, "auction_samples": 3, "inference": 1.0, "model": MODEL},
    {"name": "cheat-dd", "lookahead": True, "model": MODEL}], ids=["lookahead", "inference", "cheat-lookahead"])
@pytest.mark.parametrize("name", sorted(TABLES))
def test_what_needs_evs_model_of_the_calls_plays_at_other_tables(name, spec):
    rules = load_ruleset(SEATS / f"{name}.toml")
    n = TABLES[name]
    bot = bot_spec(spec)
    assert bot.cannot_play(rules) is None
    bots = [bot] + [bot_spec("heuristic")] * (n - 1)
    for i in range(3):
        state = play_hand(rules, int(hand_seeds(5, i, 1)[0]), i % n, bots)
        assert state.is_terminal()
        assert abs(sum(state.outcome.payouts)) < 1e-9
