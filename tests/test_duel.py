"""Duplicate duels: seats swapped on every deal, reproducible, with a confidence interval."""

import json

import numpy as np
import pytest

from kopsim.bots import BotSpec, bot_spec
from kopsim.bots.heuristic import HeuristicBot
from kopsim.cli import main
from kopsim.experiments.duel import _payout_diffs, duel, parse_bot
from kopsim.errors import InputError
from kopsim.rules.load import load_ruleset


def test_payout_diffs_by_hand():
    # deal 0: A (seats 0, 2) wins 2 each in the first play; in the swapped play A (1, 3) loses 1
    ab = np.array([[2.0, -2.0, 2.0, -2.0]])
    ba = np.array([[1.0, -1.0, 1.0, -1.0]])
    diff, a, b = _payout_diffs(ab, ba)
    assert diff.tolist() == [((2 - -2) + (-1 - 1)) / 2]
    assert a.tolist() == [(2 + -1) / 2] and b.tolist() == [(-2 + 1) / 2]


def test_a_bot_against_itself_is_exactly_even():
    # the same bot on both sides of every deal: each deal's two plays are identical
    r = load_ruleset("kop")
    res = duel(r, bot_spec("heuristic"), bot_spec("heuristic"), 500, seed=4)
    assert res.mean_diff == 0.0 and res.ci_low == 0.0 and res.ci_high == 0.0


@pytest.mark.parametrize("name", ["kop", "baska"])
def test_heuristic_beats_random(name):
    res = duel(load_ruleset(name), bot_spec("heuristic"), bot_spec("random"), 2000, seed=1)
    assert res.ci_low > 0, res.text()


def test_same_seed_same_duel_on_both_engines():
    r = load_ruleset("kop-sportowy")
    a, b = bot_spec("heuristic"), parse_bot("heuristic:solo=2.4,smear=0", "--b")
    kernel = duel(r, a, b, 60, seed=9)
    again = duel(r, a, b, 60, seed=9)
    assert kernel == again

    class Plain(HeuristicBot):  # the same bot, forced through the reference engine
        kernel_kind = None
    plain_a = BotSpec(Plain, a.params, a.label)
    plain_b = BotSpec(Plain, b.params, b.label)
    reference = duel(r, plain_a, plain_b, 60, seed=9, jobs=2)
    assert reference.mean_diff == pytest.approx(kernel.mean_diff)
    assert reference.ci_high == pytest.approx(kernel.ci_high)


def test_cli_json(capsys):
    assert main(["duel", "kop", "--a", "{name='heuristic', solo=2.5}", "--b", "random",
                 "--deals", "200", "--seed", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) >= {"a", "b", "deals", "mean_diff", "ci_low", "ci_high"}
    assert d["a"] == "heuristic(solo=2.5)" and d["deals"] == 200
    assert d["ci_low"] <= d["mean_diff"] <= d["ci_high"]


def test_bad_bot_specs():
    with pytest.raises(InputError) as e:
        parse_bot("heuristic:solo=high", "--a")
    assert "--a" in str(e.value) and "solo" in str(e.value)
    with pytest.raises(InputError):
        parse_bot("heuristic:bogus=1", "--a")
    assert main(["duel", "kop", "--a", "nosuch", "--b", "random"]) == 2
