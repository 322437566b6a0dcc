"""The `split` bot: one bot's calls with another bot's card play.

What is a bot's bidding worth apart from its card play? `{ name = "split", calls = "learnt",
cards = "ev" }` calls as learnt and plays its cards as ev, so a duplicate duel against ev tells
what learnt's calls alone win (and the other way round, its card play alone). Each part is a
whole bot, with its own parameters; a part is never itself split.

In the batch kernel a split bot is its calls bot, and its seats' cards are played by its cards
bot (`split_lineup` lays the line-up out so, `loop.Lineup.card_bot`); in the reference engine
`SplitBot.act` hands each decision to the part that makes it. Both decide by their parts' own
code, so both engines agree as the parts do.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import InputError

PARTS = ("calls", "cards")


class SplitParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    calls: str | dict[str, Any] = Field(description="the bot whose calls (bids, passes, "
                                                    "doubles) it makes")
    cards: str | dict[str, Any] = Field(description="the bot whose cards it plays")

    @field_validator(*PARTS)
    @classmethod
    def _a_whole_bot(cls, spec, info):
        from . import bot_spec

        try:
            part = bot_spec(spec, f"bot.{info.field_name}")
        except InputError as e:
            raise ValueError("; ".join(f"{p.where}: {p.message}" if p.where else p.message
                                       for p in e.problems)) from None
        if part.cls is SplitBot:
            raise ValueError("a part of a split bot is a whole bot, not another split")
        return spec


def parts(params: SplitParams) -> tuple:
    """(the calls bot, the cards bot) as `BotSpec`s."""
    from . import bot_spec

    return bot_spec(params.calls), bot_spec(params.cards)


class SplitBot:
    """Calls as one bot, cards as another (each part with its own parameters)."""

    name = "split"
    summary = "one bot's calls with another's card play (what each is worth alone)"
    Params = SplitParams

    def __init__(self, params: SplitParams, hand_seed: int, seat: int, rules=None):
        calls, cards = parts(params)
        self.calls = calls.make(hand_seed, seat, rules)
        # one bot for both parts when they are the same: a bot's stream of draws is one
        self.cards = (self.calls if calls.label == cards.label
                      else cards.make(hand_seed, seat, rules))

    def act(self, obs) -> str:
        return (self.cards if obs.phase == "play" else self.calls).act(obs)

    @staticmethod
    def kernel_kind_of(params: SplitParams) -> int | None:
        """The calls bot's kind, where both parts play in the kernel; else None."""
        calls, cards = parts(params)
        return calls.kernel_kind if cards.kernel_kind is not None else None

    @staticmethod
    def cannot_play_of(params: SplitParams, rules) -> str | None:
        for part in parts(params):
            why = part.cannot_play(rules)
            if why:
                return f"its {part.label}: {why}"
        return None


def split_lineup(bots: list) -> tuple[list, np.ndarray]:
    """(the line-up as the kernel plays it, card_bot): each split bot replaced by its calls bot
    and its cards bot added after the line-up; card_bot[i] is the index of the bot that plays
    bot i's cards (i itself but for a split bot)."""
    flat = list(bots)
    card_bot = list(range(len(bots)))
    for i, b in enumerate(bots):
        if b.cls is SplitBot:
            calls, cards = parts(b.params)
            flat[i] = calls
            card_bot[i] = len(flat)
            flat.append(cards)
    return flat, np.array(card_bot, np.int64)
