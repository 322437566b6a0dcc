"""Bots for the reference engine. A bot sees an `Observation` only, never the `State`."""

from __future__ import annotations

from .game import Observation
from .rng import Stream


class RandomBot:
    """Uniform over the legal calls and cards, drawing from its seat's stream of the hand seed.

    The batch kernel draws the same numbers in the same order, so both engines play the same
    hands from the same seed.
    """

    name = "random"

    def __init__(self, hand_seed: int, seat: int):
        self.rng = Stream(hand_seed, 1 + seat)

    def act(self, obs: Observation) -> str:
        legal = obs.legal_actions
        return legal[self.rng.choice(len(legal))]
