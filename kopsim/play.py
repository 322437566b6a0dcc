"""Play whole hands through the reference engine."""

from __future__ import annotations

from .bots import RandomBot
from .game import Deal, State
from .records import HandRecord, record_from_state
from .rng import hand_seed
from .ruleset import Ruleset


def play_random_hand(rules: Ruleset, seed: int, dealer: int) -> State:
    state = State(rules, Deal.from_seed(rules, seed, dealer))
    bots = [RandomBot(seed, s) for s in range(4)]
    while not state.is_terminal():
        seat = state.current_player()
        state.apply_action(bots[seat].act(state.observation(seat)))
    return state


def random_records(rules: Ruleset, run_seed: int, start: int, count: int) -> list[HandRecord]:
    """Hands start..start+count of a run, each with its own seed; hand i is dealt by seat i % 4."""
    sha = rules.sha256()
    out = []
    for i in range(start, start + count):
        seed = hand_seed(run_seed, i)
        st = play_random_hand(rules, seed, i % 4)
        out.append(record_from_state(st, seed, i, sha256=sha))
    return out
