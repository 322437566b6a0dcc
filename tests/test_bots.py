"""Bots decide from what their seat may know: hidden cards never change a decision."""

import random
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.pimc import public_history, replay
from kopsim.bots.sampler import AuctionBook, draw_worlds
from kopsim.errors import InputError
from kopsim.engine.reference import Deal, State
from kopsim.bots.seated import play_hand
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

RULES = {n: load_ruleset(n) for n in ("kop", "baska", "kop-sportowy")}
# tables of three and five (issue 36)
SEAT_RULES = {n: load_ruleset(Path(__file__).parent / "data" / "seats" / f"{n}.toml")
              for n in ("three-handed", "five-handed")}
# the issue-11 knobs pimc's worlds must respect (Laufende, the called ace's duties)
KNOB_RULES = {n: load_ruleset(Path(__file__).parent / "data" / "knobs" / f"{n}.toml")
              for n in ("kop-called-ace", "kop-laufende")}


def _random_prefix(rules, seed: int, dealer: int, steps: int, rng: random.Random) -> State:
    """A hand after up to `steps` random legal actions."""
    state = State(rules, Deal.from_seed(rules, seed, dealer))
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.randrange(len(legal))])
    return state


def _reshuffle_hidden(state: State, seat: int, rng: random.Random) -> State | None:
    """Another deal with the same public history and the same cards for `seat`: the cards the
    others still hold are dealt again among them (same counts), kept if the history replays."""
    n_seats = state.rules.deck.players
    history = [(s, c) for s, c in state.auction]
    history += [((t.leader + j) % n_seats, c) for t in state.tricks
                for j, c in enumerate(t.cards)]
    history += [((state.leader + j) % n_seats, c) for j, c in enumerate(state.trick)]
    hidden = [c for s in range(n_seats) if s != seat for c in state.held[s]]
    for _ in range(300):
        rng.shuffle(hidden)
        hands, i = [], 0
        for s in range(n_seats):
            if s == seat:
                hands.append(list(state.deal.hands[s]))
                continue
            played = [c for c in state.deal.hands[s] if c not in state.held[s]]
            n = len(state.held[s])
            hands.append(played + hidden[i:i + n])
            i += n
        if any(sorted(h) != sorted(o) for s, (h, o) in enumerate(zip(hands, state.deal.hands))
               if s != seat):
            other = replay(state.rules, state.deal.dealer, hands, history)
            if other is not None:
                return other
    return None


@pytest.mark.parametrize("name, bot", [
    (name, bot) for name in sorted(RULES)
    for bot in ["heuristic", "pimc:samples=6,auction_samples=3",
                "{name='pimc', samples=6, auction_samples=3, lookahead=true, "
                "model={deals=2000, rounds=2}}",
                "{name='pimc', samples=6, auction_samples=3, inference=2.0, "
                "model={deals=2000, rounds=2}}", "ev:deals=2000,rounds=2"]]
    + [(name, "pimc:samples=6,auction_samples=3") for name in sorted(KNOB_RULES)]
    + [(name, bot) for name in sorted(SEAT_RULES)
       for bot in ["pimc:samples=6,auction_samples=3", "ev:deals=2000,rounds=2",
                   "{name='learnt', deals=40, worlds=2, hidden=8, epochs=2, "
                   "rollout_bot='heuristic'}"]])
def test_hidden_cards_never_change_a_decision(name, bot):
    from kopsim.experiments.duel import parse_bot

    rules = {**RULES, **KNOB_RULES, **SEAT_RULES}[name]
    spec = parse_bot(bot, "bot")
    rng = random.Random(5)
    checked = 0
    for i in range(12):
        seed = hand_seed(21, i)
        state = _random_prefix(rules, seed, i % rules.deck.players, rng.randrange(0, 20), rng)
        if state.is_terminal():
            continue
        seat = state.current_player()
        other = _reshuffle_hidden(state, seat, rng)
        if other is None:
            continue
        assert other.observation(seat) == state.observation(seat)
        a = spec.make(seed, seat, rules).act(state.observation(seat))
        b = spec.make(seed, seat, rules).act(other.observation(seat))
        assert a == b
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", sorted(RULES))
def test_pimc_samples_agree_with_everything_public(name):
    rules = RULES[name]
    rng = random.Random(1)
    for i in range(10):
        state = _random_prefix(rules, hand_seed(2, i), i % 4, rng.randrange(4, 24), rng)
        if state.is_terminal():
            continue
        seat = state.current_player()
        obs = state.observation(seat)
        cr = compiled(rules)
        worlds = draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 5,
                             np.uint64(3 + i), 1000)
        assert len(worlds.readings) == 5
        for row in worlds.hands:
            hands = [[c for j, c in enumerate(cr.cards) if (int(h) >> j) & 1] for h in row]
            assert set(hands[seat]) == set(state.deal.hands[seat])
            hands[seat] = list(state.deal.hands[seat])  # in the order dealt, as obs shows it
            st = replay(rules, obs.dealer, hands, public_history(obs))
            assert st is not None
            assert sorted(c for h in hands for c in h) == sorted(rules.cards())
            assert st.observation(seat) == obs  # the sample explains everything this seat saw


def test_pimc_and_cheat_play_whole_hands_reproducibly():
    rules = RULES["baska"]
    p, h, c = bot_spec("pimc"), bot_spec("heuristic"), bot_spec("cheat-dd")
    assert "sees all hands" in c.label and "sees all" not in p.label
    for i in range(3):
        seed = hand_seed(8, i)
        a = play_hand(rules, seed, i % 4, [p, h, c, h])
        b = play_hand(rules, seed, i % 4, [p, h, c, h])
        assert a.auction == b.auction and a.tricks == b.tricks
        assert a.outcome == b.outcome


def test_bot_parameters_are_typed():
    with pytest.raises(InputError) as e:
        bot_spec({"name": "pimc", "samples": 0}, "bots[1]")
    assert "bots[1]" in str(e.value) and "samples" in str(e.value)
    assert bot_spec({"name": "pimc", "samples": 8}).label == "pimc(samples=8)"


class _FirstLegal:
    """A plug-in bot as a third party would write it."""

    name = "first-legal"
    kernel_kind = None

    class Params(__import__("pydantic").BaseModel):
        prefer_pass: bool = True

    def __init__(self, params, hand_seed, seat, rules):
        self.params = params

    def act(self, obs):
        legal = obs.legal_actions
        return "pass" if self.params.prefer_pass and "pass" in legal else legal[0]


def test_plugin_bots_register_through_entry_points(monkeypatch):
    import importlib.metadata

    import kopsim.bots as bots

    ep = importlib.metadata.EntryPoint(name="first-legal", group="kopsim.bots",
                                       value=f"{__name__}:_FirstLegal")
    monkeypatch.setattr(bots, "entry_points", lambda group=None: [ep] if group == "kopsim.bots"
                        else [])
    monkeypatch.delitem(bots.REGISTRY, "first-legal", raising=False)
    spec = bot_spec({"name": "first-legal", "prefer_pass": False}, "bots[0]")
    assert spec.kernel_kind is None and spec.label == "first-legal(prefer_pass=False)"
    rules = RULES["kop"]
    state = play_hand(rules, hand_seed(1, 0), 0, [spec, bot_spec("heuristic")] * 2)
    assert state.is_terminal()
    from kopsim.experiments.duel import duel

    res = duel(rules, spec, bot_spec("random"), 20, seed=3)
    assert res.deals == 20
    monkeypatch.delitem(bots.REGISTRY, "first-legal", raising=False)
