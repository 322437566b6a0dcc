"""The rest of an auction as the table would likely play it, for the search bots' calls.

pimc and cheat-dd value a call by the contract it leads to, played double-dummy. Assuming that
everyone passes after it (the myopic valuation) makes a losing bid look free whenever the others
would double it, and a sacrifice bid (a zolo du to cancel the doubles on an opponent's winning
zolo) look cheaper than passing. Looking ahead, every later call of the auction, the bot's own
included, is made by a model of a good player: the `ev` bot, whose calls are priced by self-play
under the ruleset being played. In each world the model holds that world's hands, so the
continuation uses no card the bot cannot see (pimc's worlds are sampled; cheat-dd, which sees
every hand, uses the real deal).
"""

from __future__ import annotations

from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from ..engine.reference import Deal, State
from .ev import EvBot, EvParams


class LookaheadParams(BaseModel):
    """The model of the other players: an ev bot calibrated with these self-play settings."""

    model_config = ConfigDict(extra="forbid", strict=False)
    deals: int = Field(EvParams().deals, ge=1000, description="self-play deals per round")
    rounds: int = Field(EvParams().rounds, ge=1, le=64, description="self-play rounds")

    def ev_params(self) -> EvParams:
        return EvParams(deals=self.deals, rounds=self.rounds)


class Ending(NamedTuple):
    """How an auction ended: the contract played, its declarer and who doubled it; for a hand
    decided by the auction alone (an instant contract), its payouts."""

    contract: str
    declarer: int | None
    double_seats: tuple[int, ...]
    payouts: tuple[float, ...] | None


class AuctionModel:
    """Plays the rest of an auction by the ev bot's policy (one per ruleset and settings)."""

    def __init__(self, rules, params: LookaheadParams):
        self.rules = rules
        self.bot = EvBot(params.ev_params(), 0, 0, rules)  # its calls read only the observation

    def ending(self, dealer: int, hands, calls) -> Ending:
        """The auction's end on the deal `hands` (lists of card names, by seat) after `calls`
        ((seat, call) in order, the last the call being valued), the model calling on."""
        state = State(self.rules, Deal(dealer, tuple(tuple(h) for h in hands)))
        for _seat, call in calls:
            state.apply_action(call)
        while state.phase == "auction":
            seat = state.current_player()
            state.apply_action(self.bot.act(state.observation(seat)))
        done = state.phase == "done"
        return Ending(state.contract, state.declarer, tuple(state.double_seats),
                      tuple(state.returns()) if done else None)
