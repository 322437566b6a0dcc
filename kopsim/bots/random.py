"""random: uniform over the legal calls and cards."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ..engine.codes import BOT_RANDOM
from ..engine.reference import Observation
from ..engine.rng import Stream


class RandomParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RandomBot:
    """Draws from its seat's stream of the hand seed, like the batch kernel's random bot, so
    both engines play the same hands from the same seed."""

    name = "random"
    summary = "every call and card drawn at random among the legal ones"
    Params = RandomParams
    kernel_kind = BOT_RANDOM  # in the kernel: a draw from the seat's stream

    def __init__(self, params: RandomParams, hand_seed: int, seat: int, rules=None):
        self.rng = Stream(hand_seed, 1 + seat)

    @staticmethod
    def kernel_params(params: RandomParams) -> list[float]:
        return []

    def act(self, obs: Observation) -> str:
        legal = obs.legal_actions
        return legal[self.rng.choice(len(legal))]

