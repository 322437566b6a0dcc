"""pimc's inference: a world is weighed by how likely the others' calls are in it, under the ev
bot's model of a good player; only the world's hands enter."""

import numpy as np

from kopsim.bots import bot_spec
from kopsim.bots.inference import CallModel, log_likelihood, world_weights
from kopsim.bots.ev import EvParams
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

KOP = load_ruleset("kop")
MODEL = CallModel(KOP, EvParams(deals=5000, rounds=2))
# dealer 3: seat 0 (the bot) passes, then seat 1 passes. Seat 1 with A♥ 10♥ Q♣ Q♠ (the four
# highest trumps: a zolo nobody can beat) passing is far less likely than with the four
# plain aces and tens.
MINE = ["QH", "QD", "JC", "JS"]
STRONG = ["AH", "10H", "QC", "QS"]
WEAK = ["AC", "AS", "10C", "10S"]
REST = ["JH", "JD", "AD", "10D"]
AUCTION = [(0, "pass"), (1, "pass")]


def _hands(one, two, three):
    return [MINE, one, two, three]


def test_a_pass_with_an_unbeatable_zolo_is_unlikely():
    strong = log_likelihood(MODEL, 3, _hands(STRONG, WEAK, REST), AUCTION, 0, 2.0)
    weak = log_likelihood(MODEL, 3, _hands(WEAK, STRONG, REST), AUCTION, 0, 2.0)
    assert strong < weak


def test_the_bots_own_calls_weigh_nothing():
    assert log_likelihood(MODEL, 3, _hands(STRONG, WEAK, REST), [(0, "pass")], 0, 2.0) == 0.0


def test_weights_are_relative_and_computed_once_per_world():
    cr = compiled(KOP)
    index = {c: i for i, c in enumerate(cr.cards)}
    mask = lambda h: sum(1 << index[c] for c in h)  # noqa: E731
    worlds = np.array([[mask(h) for h in _hands(STRONG, WEAK, REST)],
                       [mask(h) for h in _hands(WEAK, STRONG, REST)]], np.uint64)
    known: dict = {}
    w = world_weights(MODEL, cr, 3, AUCTION, worlds, 0, 2.0, known)
    assert w.sum() == 2.0 and w[0] < w[1] and len(known) == 2
    assert np.array_equal(world_weights(MODEL, cr, 3, AUCTION, worlds, 0, 2.0, known), w)


def test_pimc_with_inference_plays_whole_hands_reproducibly():
    p = bot_spec({"name": "pimc", "samples": 6, "auction_samples": 3, "inference": 2.0,
                  "model": {"deals": 5000, "rounds": 2}})
    h = bot_spec("heuristic")
    from kopsim.bots.seated import play_hand

    for seed in (3, 4):
        a, b = (play_hand(KOP, seed, seed % 4, [p, h, p, h]) for _ in range(2))
        assert a.auction == b.auction and a.tricks == b.tricks
