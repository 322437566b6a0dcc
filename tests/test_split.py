"""The split bot (kopsim.bots.split): one bot's calls with another's card play, alike in both
engines, with located errors for a bad part."""

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.bots.seated import play_hand
from kopsim.errors import InputError
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

HANDS = 300


def _batch(rules, bots, seat_bot=None):
    seeds = hand_seeds(5, 0, HANDS)
    return play_batch(compiled(rules), seeds, np.arange(HANDS) % 4, bots=bots, seat_bot=seat_bot)


def _calls(batch, i):
    return batch_record(batch, i).to_dict()["auction"]


def _cards(batch, i):
    return batch_record(batch, i).to_dict()["tricks"]


def test_calls_are_the_calls_bots_and_cards_the_cards_bots():
    """Calls come before any card, so a split bot's auction is its calls bot's, hand for hand;
    its cards are its cards bot's: with random cards the play differs from the heuristic's on
    the same auctions, and a split of a bot with itself is that bot."""
    rules = load_ruleset("kop")
    heuristic = _batch(rules, [bot_spec("heuristic")])
    mixed = _batch(rules, [bot_spec({"name": "split", "calls": "heuristic", "cards": "random"})])
    same = _batch(rules, [bot_spec({"name": "split", "calls": "heuristic",
                                    "cards": "heuristic"})])
    assert all(_calls(mixed, i) == _calls(heuristic, i) for i in range(HANDS))
    assert sum(_cards(mixed, i) != _cards(heuristic, i) for i in range(HANDS)) > HANDS // 2
    assert all(batch_record(same, i).to_dict() == batch_record(heuristic, i).to_dict() for i in range(HANDS))


def test_a_split_seat_beside_others_plays_its_own_parts():
    """In a line-up of split and plain bots, each seat's cards are its own bot's: the seats of
    the split bot play randomly, the others as the heuristic (so the records differ from an
    all-heuristic table only where the split seats had a choice)."""
    rules = load_ruleset("baska")
    bots = [bot_spec("heuristic"), bot_spec({"name": "split", "calls": "heuristic",
                                             "cards": "random"})]
    seat_bot = np.tile([0, 1, 0, 1], (HANDS, 1))
    mixed = _batch(rules, bots, seat_bot)
    plain = _batch(rules, [bot_spec("heuristic")])
    differs = [i for i in range(HANDS) if _cards(mixed, i) != _cards(plain, i)]
    assert differs
    for i in differs[:50]:  # the first card that differs is a split seat's
        ours, theirs = _cards(mixed, i), _cards(plain, i)
        k = next(k for k in range(len(ours)) if ours[k] != theirs[k])
        leader = ours[k]["leader"]
        j = next(j for j in range(len(ours[k]["cards"])) if ours[k]["cards"][j]
                 != theirs[k]["cards"][j])
        assert (leader + j) % 4 in (1, 3)


@pytest.mark.parametrize("parts", [("ev", "heuristic"), ("heuristic", "ev"),
                                   ("random", "heuristic")])
def test_both_engines_play_a_split_bot_alike(parts):
    calls, cards = parts
    rules = load_ruleset("kop")
    bots = [bot_spec({"name": "split", "calls": calls, "cards": cards}), bot_spec("heuristic"),
            bot_spec({"name": "split", "calls": cards, "cards": calls}), bot_spec("random")]
    seeds = hand_seeds(11, 0, 120)
    dealers = np.arange(120) % 4
    batch = play_batch(compiled(rules), seeds, dealers, bots=bots)
    for i in range(120):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        assert batch_record(batch, i).to_dict() == record_from_state(state, int(seeds[i]), i).to_dict()


@pytest.mark.parametrize("spec, needle", [
    ({"name": "split", "calls": "heuristc", "cards": "ev"}, "heuristic"),
    ({"name": "split", "calls": "ev", "cards": {"name": "ev", "zolo": 1}}, "zolo"),
    ({"name": "split", "calls": "ev", "cards": {"name": "split", "calls": "ev", "cards": "ev"}},
     "not another split"),
    ({"name": "split", "calls": "ev"}, "cards"),
])
def test_a_bad_part_is_a_located_error(spec, needle):
    with pytest.raises(InputError) as e:
        bot_spec(spec)
    text = str(e.value)
    assert needle in text and ("calls" in text or "cards" in text)


def test_label_names_both_parts():
    b = bot_spec({"name": "split", "calls": "learnt", "cards": "ev"})
    assert "learnt" in b.label and "ev" in b.label
