"""pimc in compiled code (`kopsim.bots.pimc_kernel`): every decision the same as the Python
statement of the bot (`PimcBot.act_in_python`, over the reference engine and its own sampler),
the batch kernel playing pimc seats card for card as the reference engine does, and results that
do not depend on how hands are batched or on the cards a seat cannot see."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.bots.seated import play_hand
from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import hand_seed
from kopsim.rules.load import load_ruleset
from kopsim.records.format import batch_records

KNOBS = Path(__file__).parent / "data" / "knobs"


def _rules(name: str):
    path = KNOBS / f"{name}.toml"
    return load_ruleset(path if path.exists() else name)


# every bundled Kop and Baśka ruleset, and the knob files pimc plays (not the Ramsch: two sides)
STATED_TWICE = ["kop", "baska", "kop-catsatcards", "kop-sportowy", "kop-trzy-dychy",
                "kop-victory-cards", "kop-called-ace", "kop-laufende", "kop-own-double-forbidden",
                "kop-wesele-reopened", "kop-bid-classes", "kop-scoring-knobs", "kop-bettel",
                "baska-du-add-on", "baska-own-double-forbidden", "victory-cards-kontra"]


@pytest.mark.parametrize("name", STATED_TWICE)
def test_every_decision_is_the_python_statements(name):
    rules = _rules(name)
    spec = bot_spec({"name": "pimc", "samples": 16, "auction_samples": 8})
    decided = {"auction": 0, "play": 0}
    for i in range(8):
        seed = hand_seed(41, i)
        state = State(rules, Deal.from_seed(rules, seed, i % 4))
        bots = [spec.make(seed, s, rules) for s in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            action = bots[seat].act(obs)
            if len(obs.legal_actions) > 1:
                assert action == bots[seat].act_in_python(obs), (i, obs)
                decided[obs.phase] += 1
            state.apply_action(action)
    assert decided["auction"] >= 2 and decided["play"] >= 24


@pytest.mark.parametrize("settings", [{"punished": True}, {"sound_bids": False},
                                      {"seed": 7, "max_tries": 3}])
def test_settings_decide_alike_in_both_statements(settings):
    rules = load_ruleset("kop")
    spec = bot_spec({"name": "pimc", "samples": 12, "auction_samples": 8, **settings})
    compared = 0
    for i in range(6):
        seed = hand_seed(43, i)
        state = State(rules, Deal.from_seed(rules, seed, i % 4))
        bots = [spec.make(seed, s, rules) for s in range(4)]
        while not state.is_terminal():
            obs = state.observation(state.current_player())
            action = bots[obs.seat].act(obs)
            if len(obs.legal_actions) > 1:
                assert action == bots[obs.seat].act_in_python(obs)
                compared += 1
            state.apply_action(action)
    assert compared >= 30


def _records(res) -> list:
    return [(r.auction, r.tricks, r.payouts) for r in batch_records(res)]


@pytest.mark.parametrize("name", ["kop", "baska", "kop-sportowy", "kop-called-ace",
                                  "kop-laufende", "kop-wesele-reopened", "baska-du-add-on"])
def test_the_kernel_plays_pimc_as_the_reference_engine(name):
    rules = _rules(name)
    lineup = [bot_spec({"name": "pimc", "samples": 8, "auction_samples": 6}),
              bot_spec("heuristic"),
              bot_spec({"name": "pimc", "samples": 6, "auction_samples": 4, "seed": 3,
                        "punished": True}),
              bot_spec("random")]
    n = 24
    seeds, dealers = hand_seeds(9, 0, n), np.arange(n) % 4
    res = play_batch(rules, seeds, dealers, bots=lineup)
    for i, record in enumerate(batch_records(res)):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), lineup)
        assert [(a["seat"], a["call"]) for a in record.auction] == list(state.auction), i
        assert [t["cards"] for t in record.tricks] == [list(t.cards) for t in state.tricks], i
        assert list(record.payouts) == list(state.returns()), i


def test_batching_changes_nothing():
    # a batch keeps its transposition table and pricings from hand to hand: a decision must
    # not depend on what came before it
    rules = load_ruleset("kop")
    lineup = [bot_spec({"name": "pimc", "samples": 8, "auction_samples": 6})]
    n = 30
    seeds, dealers = hand_seeds(12, 0, n), np.arange(n) % 4
    whole = _records(play_batch(rules, seeds, dealers, bots=lineup))
    parts = []
    for a, b in ((0, 7), (7, 8), (8, 30)):
        parts += _records(play_batch(rules, seeds[a:b], dealers[a:b], bots=lineup))
    backwards = []
    for i in reversed(range(n)):
        backwards[:0] = _records(play_batch(rules, seeds[i:i + 1], dealers[i:i + 1],
                                            bots=lineup))
    assert whole == parts == backwards


def test_the_first_call_reads_only_the_callers_cards():
    # forehand's first call in the kernel, over deals that give forehand the same cards and
    # the three others any of the rest: the same call every time (as a seat sees it, nothing
    # else differs)
    rules = load_ruleset("kop")
    cards = list(range(16))
    rng = random.Random(8)
    lineup = [bot_spec({"name": "pimc", "auction_samples": 8})]
    checked = 0
    for trial in range(6):
        rng.shuffle(cards)
        mine, rest = cards[:4], cards[4:]
        given = []
        for _ in range(5):
            rng.shuffle(rest)
            # dealt one at a time from the dealer's left: forehand (seat 0, dealer 3) gets
            # every fourth card from the first
            order = [0] * 16
            order[0::4] = mine
            others = list(rest)
            for j in range(16):
                if j % 4:
                    order[j] = others.pop()
            given.append(order)
        given = np.array(given, np.int64)
        n = len(given)
        seed = hand_seeds(trial, 0, 1)[0]  # one seed: the same samples for the same view
        res = play_batch(rules, np.full(n, seed), np.full(n, 3), bots=lineup, given=given)
        first = {int(res.calls[i, 0]) for i in range(n)}
        assert len(first) == 1
        assert all(int(res.call_seat[i, 0]) == 0 for i in range(n))
        checked += 1
    assert checked == 6
