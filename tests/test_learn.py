"""Training the learnt bot's models (kopsim.bots.learn): reproducible to the byte, able to learn
what the features tell, and closer to pimc than chance on pimc's own decisions."""

import numpy as np
import pytest

from kopsim.bots.learn import Examples, TrainParams, accuracy, examples, scores, targets, train
from kopsim.bots.teacher import KIND_CALL, KIND_CARD, TeacherParams, teacher_decisions
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset


def _synthetic(n: int, seed: int) -> Examples:
    """Decisions of 4 actions whose best action is the one with the largest feature 0."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 4, 6)).astype(np.float32)
    legal = np.ones((n, 4), bool)
    legal[::3, 3] = False
    x[~legal] = 0.0
    best = np.where(legal, x[:, :, 0], -1).argmax(axis=1)
    values = np.where(legal, x[:, :, 0], 0.0).astype(np.float64)
    return Examples(x, legal, best, values)


def test_the_same_data_and_seed_give_the_same_model_bytes():
    ex = _synthetic(400, 1)
    p = TrainParams(epochs=3, hidden=8, batch=32)
    assert train(ex, p).sha256() == train(ex, p).sha256()
    assert train(ex, p).sha256() != train(ex, TrainParams(epochs=3, hidden=8, batch=32,
                                                          seed=1)).sha256()


def test_a_model_learns_what_its_features_tell():
    train_ex, test_ex = _synthetic(3000, 2), _synthetic(500, 3)
    model = train(train_ex, TrainParams(epochs=15, hidden=16, batch=64, soft=0.0))
    assert accuracy(model, test_ex) > 0.9
    # an illegal action is never picked, whatever its score
    s = np.where(test_ex.legal, scores(model, test_ex.x), -np.inf)
    assert test_ex.legal[np.arange(len(s)), s.argmax(axis=1)].all()


def test_soft_targets_weigh_pimcs_values_and_sum_to_one():
    ex = _synthetic(50, 4)
    for soft in (0.0, 0.5, 1.0):
        t = targets(ex, TrainParams(soft=soft))
        assert np.allclose(t.sum(axis=1), 1.0) and (t[~ex.legal] == 0).all()
    hard, soft = targets(ex, TrainParams(soft=0.0)), targets(ex, TrainParams(soft=1.0))
    assert (hard.argmax(axis=1) == ex.chosen).all()
    assert (soft.argmax(axis=1) == ex.chosen).all()  # the highest value is the choice here
    assert (soft.max(axis=1) < 1.0).any()


@pytest.mark.parametrize("kind", [KIND_CARD, KIND_CALL])
def test_a_model_of_pimc_plays_closer_to_pimc_than_chance(kind):
    """On held-out decisions of kop the model's action costs less of pimc's value than a
    random legal one."""
    rules = load_ruleset("kop")
    cr = compiled(rules)
    d = teacher_decisions(rules, TeacherParams(deals=800, samples=6, auction_samples=6))
    ex = examples(cr, d, kind)
    cut = int(len(ex.chosen) * 0.75)
    fit = Examples(*(a[:cut] for a in ex))
    held = Examples(*(a[cut:] for a in ex))
    model = train(fit, TrainParams(epochs=20, hidden=32, batch=64))
    rows = np.arange(len(held.chosen))
    best = np.where(held.legal, held.values, -np.inf).max(axis=1)
    picked = np.where(held.legal, scores(model, held.x), -np.inf).argmax(axis=1)
    rng = np.random.default_rng(0)
    chance = (rng.random(held.legal.shape) * held.legal).argmax(axis=1)
    regret = (best - held.values[rows, picked]).mean()
    assert regret < 0.8 * (best - held.values[rows, chance]).mean()
    assert accuracy(model, held) > np.mean(held.chosen == chance)
