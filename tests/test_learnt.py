"""The learnt bot (kopsim.bots.learnt): its models cached and checked as ev's tables are, its
decisions legal, reproducible and blind to hidden cards."""

import random

import numpy as np
import pytest
from test_bots import _random_prefix, _reshuffle_hidden

from kopsim.bots import BotSpec
from kopsim.bots import learnt as L
from kopsim.bots.seated import play_hand
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset
from kopsim.records.format import batch_record

TINY = L.LearntParams(deals=40, teacher="pimc", samples=4, auction_samples=4, hidden=8, epochs=2)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPSIM_CACHE", str(tmp_path))
    monkeypatch.setattr(L, "_MEMORY", {})
    return tmp_path


def test_models_are_cached_by_ruleset_and_parameters_and_checked(cache):
    cr = compiled(load_ruleset("kop"))
    said = []
    first = L.learnt_models(cr, TINY, say=said.append)
    assert said and "kop" in said[0]
    path = cache / "learnt" / f"{L.cache_key(cr, TINY)}.npz"
    assert path.exists()
    L._MEMORY.clear()
    again = L.learnt_models(cr, TINY, say=said.append)  # from the file: nothing said
    assert again.sha256 == first.sha256 and len(said) == 3
    other = TINY.model_copy(update={"seed": 1})
    assert L.cache_key(cr, other) != L.cache_key(cr, TINY)
    assert L.cache_key(compiled(load_ruleset("baska")), TINY) != L.cache_key(cr, TINY)
    # a file that fails its checksum is learnt again, never used
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["card_0"] = arrays["card_0"] + 1.0
    np.savez(path, **arrays)
    assert L._load(path, first.key) is None
    L._MEMORY.clear()
    assert L.learnt_models(cr, TINY).sha256 == first.sha256


def test_the_learnt_bot_plays_legal_reproducible_hands(cache):
    rules = load_ruleset("kop")
    spec = BotSpec(L.LearntBot, TINY, "learnt")
    a = [play_hand(rules, hand_seed(5, i), i % 4, [spec] * 4).returns() for i in range(6)]
    b = [play_hand(rules, hand_seed(5, i), i % 4, [spec] * 4).returns() for i in range(6)]
    assert a == b
    assert all(abs(sum(r)) < 1e-9 for r in a)


def test_hidden_cards_never_change_a_learnt_decision(cache):
    rules = load_ruleset("kop")
    spec = BotSpec(L.LearntBot, TINY, "learnt")
    rng = random.Random(8)
    checked = 0
    for i in range(20):
        seed = hand_seed(13, i)
        state = _random_prefix(rules, seed, i % 4, rng.randrange(0, 20), rng)
        if state.is_terminal():
            continue
        seat = state.current_player()
        other = _reshuffle_hidden(state, seat, rng)
        if other is None:
            continue
        assert (spec.make(seed, seat, rules).act(state.observation(seat))
                == spec.make(seed, seat, rules).act(other.observation(seat)))
        checked += 1
    assert checked >= 8


def test_a_duel_trains_the_models_once_before_play(cache):
    from kopsim.experiments.duel import duel

    rules = load_ruleset("kop")
    spec = BotSpec(L.LearntBot, TINY, "learnt")
    from kopsim.bots import bot_spec
    first = duel(rules, spec, bot_spec("heuristic"), 6, seed=3, jobs=2)
    assert (cache / "learnt" / f"{L.cache_key(compiled(rules), TINY)}.npz").exists()
    assert duel(rules, spec, bot_spec("heuristic"), 6, seed=3, jobs=1) == first


def test_a_run_records_the_models_it_played_with(cache, tmp_path):
    import json

    from kopsim import experiment_from_dict, run_experiment

    tiny = {"name": "learnt", **TINY.model_dump(exclude_defaults=True)}
    exp = experiment_from_dict({"name": "learnt-run", "deals": 8, "seed": 2,
                                "bots": [tiny, "heuristic", tiny, "heuristic"],
                                "variants": [{"ruleset": "kop"}]})
    run_experiment(exp, tmp_path / "out")
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    models = L.learnt_models(compiled(load_ruleset("kop")), TINY)
    label = exp.bots[0].label
    assert manifest["run_key"]["ev_tables"]["kop"][label] == models.sha256


@pytest.mark.parametrize("name", ["kop", "baska", "kop-sportowy"])
def test_both_engines_play_the_learnt_bot_alike(cache, name):
    """The batch kernel's learnt kind and LearntBot.act in the reference engine make the same
    decisions: the same seeded hands give the same records, beside other kinds and beside a
    second learnt bot of other parameters (its own models)."""
    from kopsim.bots import bot_spec
    from kopsim.bots.seated import play_batch
    from kopsim.engine.layout import hand_seeds
    from kopsim.records.format import record_from_state

    rules = load_ruleset(name)
    other = TINY.model_copy(update={"seed": 3, "hidden": 5})
    bots = [BotSpec(L.LearntBot, TINY, "learnt"), bot_spec("heuristic"),
            BotSpec(L.LearntBot, other, "learnt(other)"), bot_spec("random")]
    hands = 150
    seeds = hand_seeds(9, 0, hands)
    dealers = np.arange(hands) % 4
    batch = play_batch(compiled(rules), seeds, dealers, bots=bots)
    contracts = set()
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        assert batch_record(batch, i).to_dict() == record_from_state(state, int(seeds[i]), i).to_dict()
        contracts.add(state.contract)
    assert len(contracts) >= 2


def test_calibrate_trains_and_run_check_says_it_is_pending(cache, tmp_path, capsys):
    """`run --check` names the learnt models it would train, with a time; `kopsim calibrate`
    trains them and says how often they choose as pimc did; after it, nothing is pending."""
    from kopsim.cli import main

    exp = tmp_path / "e.toml"
    exp.write_text('name = "e"\ndeals = 100\nbots = { name = "learnt", deals = 40, teacher = "pimc", samples = 4, '
                   'auction_samples = 4, hidden = 8, epochs = 2 }\nvariants = ["kop"]\n',
                   encoding="utf-8")
    assert main(["run", str(exp), "--check", "--jobs", "1"]) == 0
    assert "training pending: learnt(deals=40" in capsys.readouterr().out
    assert main(["calibrate", str(exp), "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "learnt from pimc's play of 40 deals" in out and "the teacher's choice taken on" in out
    assert main(["run", str(exp), "--check", "--jobs", "1"]) == 0
    out = capsys.readouterr().out
    assert "training pending" not in out and "none pending" in out


@pytest.mark.parametrize("name", ["kop", "baska", "schafkopf-kurz"])
def test_each_decision_is_the_best_the_model_scores(cache, name):
    """The compiled decision (parts of the hidden layer kept between calls, single precision)
    takes an action the trained model, in double precision on the whole feature row, scores
    best: up to rounding, within 1e-4. The same seat calls with the same hand again and
    again, and other seats call in between, so kept parts are used and replaced."""
    from kopsim.bots.features import call_features, card_features, feature_sizes, feature_tables
    from kopsim.bots.learn import scores
    from kopsim.bots.pimc_kernel import observed

    rules = load_ruleset(name)
    cr = compiled(rules)
    fs, t = feature_sizes(cr.tables), feature_tables(cr.tables)
    models = L.learnt_models(cr, TINY)
    spec = BotSpec(L.LearntBot, TINY, "learnt")
    rng = random.Random(4)
    checked = {"play": 0, "auction": 0}
    for i in range(60):
        state = _random_prefix(rules, hand_seed(8, i), i % 4, rng.randrange(0, 6), rng)
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            action = spec.make(i, seat, rules).act(obs)
            legal = list(obs.legal_actions)
            if len(legal) > 1:
                play = obs.phase == "play"
                codes = np.array([cr.card_index[c] if play else cr.call_names.index(c)
                                  for c in legal], np.int64)
                x = np.zeros((len(legal), fs.card if play else fs.call))
                (card_features if play else call_features)(t, observed(cr, obs), codes,
                                                           len(codes), x)
                s = scores(models.card if play else models.call, x)
                assert s[legal.index(action)] >= s.max() - 1e-4 * (1 + abs(s.max())), \
                    (obs.phase, legal, action, s)
                checked["play" if play else "auction"] += 1
            state.apply_action(action)
    assert min(checked.values()) > 50, checked


def test_a_rollout_teacher_trains_round_after_round(cache):
    """teacher = "rollout": the first round plays on with the rollout bot, each later round
    with the models of the round before (trained first, cached under their own key); the
    pimc parameters do not enter a rollout model's key, nor the rollout ones a pimc model's."""
    cr = compiled(load_ruleset("kop"))
    two = TINY.model_copy(update={"teacher": "rollout", "rollout_bot": "heuristic",
                                  "worlds": 3, "rounds": 2})
    said = []
    second = L.learnt_models(cr, two, say=said.append)
    first = L.LearntParams(**{**two.model_dump(), "rounds": 1})
    assert L.is_cached(cr, first)
    assert any("rollouts of heuristic (round 1)" in s for s in said)
    assert any("rollouts of learnt (round 2)" in s for s in said)
    assert second.sha256 != L.learnt_models(cr, first).sha256
    assert L.cache_key(cr, two.model_copy(update={"samples": 9})) == L.cache_key(cr, two)
    assert L.cache_key(cr, TINY.model_copy(update={"worlds": 9})) == L.cache_key(cr, TINY)
    assert L.cache_key(cr, two.model_copy(update={"worlds": 4})) != L.cache_key(cr, two)
    spec = BotSpec(L.LearntBot, two, "learnt")
    hand = play_hand(load_ruleset("kop"), hand_seed(5, 1), 1, [spec] * 4)
    assert abs(sum(hand.returns())) < 1e-9


def test_a_rollout_bot_table_is_checked_and_keyed_in_one_order():
    """rollout_bot as a table: ev or heuristic with that bot's own parameters, checked as any
    bot's are (a located error names the parameter); its keys in any order give one key."""
    from kopsim.bots import bot_spec
    from kopsim.errors import InputError

    a = L.LearntParams(rollout_bot={"name": "ev", "deals": 2000})
    b = L.LearntParams(rollout_bot={"deals": 2000, "name": "ev"})
    assert a.key_json() == b.key_json() != L.LearntParams().key_json()
    assert a.rollout_bot_spec() == {"deals": 2000, "name": "ev"}
    for bad, said in (({"name": "pimc"}, "ev or heuristic"), ({"name": "ev", "deals": -5}, "deals"),
                      ({"name": "heuristic", "zolo": "x"}, "zolo")):
        with pytest.raises(InputError) as e:
            bot_spec({"name": "learnt", "rollout_bot": bad})
        assert "rollout_bot" in str(e.value) and said in str(e.value), str(e.value)
