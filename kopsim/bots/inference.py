"""How likely each sampled world makes the calls already seen: pimc's inference.

pimc samples the worlds consistent with everything public, each as likely as the next. But a
player who passed with a hand that bids zolo is rare, and one who doubled holds more than a
pass would suggest: the calls say more than the rules forbid. Each world is weighted by the
probability that the other seats, holding that world's hands, made the calls they made, under
a model of a good player: the `ev` bot, whose call values are learnt by self-play under the
ruleset. A seat's call is taken as a softmax choice over the calls legal to it at that point,
`temperature` (in payout units) making the model more or less certain; the bot's own calls
say nothing about the others and are not weighed. Only a world's hands enter, so no card the
bot cannot see does.
"""

from __future__ import annotations

import numpy as np

from ..engine.reference import Deal, State
from ..rules.cache import compiled
from .calibrate import calibrated
from .ev import EvParams, call_context, call_order, hand_key
from .heuristic import heuristic_tables
from .sampler import card_names


class CallModel:
    """The ev bot's values of every legal call, for the seat to call in a state."""

    def __init__(self, rules, params: EvParams):
        self.rules = rules
        self.cr = compiled(rules)
        self.table = calibrated(self.cr, params)
        self.power, self.ctab = heuristic_tables(self.cr)

    def values(self, state: State) -> tuple[list[str], np.ndarray]:
        cr, t = self.cr, self.table
        seat = state.current_player()
        obs = state.observation(seat)
        index = cr.card_index
        hand = np.uint64(sum(1 << index[c] for c in obs.dealt))
        bid = -1 if obs.bid is None else cr.contract_names.index(obs.bid)
        order = int(self.ctab[bid if bid >= 0 else cr.tables.normal_k, 2])
        context = call_context(cr, obs, bid)
        position = (seat - obs.dealer - 1) % obs.seats
        out = np.empty(len(obs.legal_actions), np.float64)
        for j, call in enumerate(obs.legal_actions):
            code = cr.call_names.index(call)
            key = hand_key(hand, call_order(code, order, self.ctab), t.binom, t.edges,
                           self.power)
            out[j] = t.values[key, position, context, code]
        return list(obs.legal_actions), out


def log_likelihood(model: CallModel, dealer: int, hands, auction, seat: int,
                   temperature: float) -> float:
    """log P(the others' calls of `auction` | the deal `hands`) under the model."""
    state = State(model.rules, Deal(dealer, tuple(tuple(h) for h in hands)))
    total = 0.0
    for who, call in auction:
        if who != seat:
            legal, v = model.values(state)
            z = (v - v.max()) / temperature
            total += float(z[legal.index(call)] - np.log(np.exp(z).sum()))
        state.apply_action(call)
    return total


def world_weights(model: CallModel, cr, dealer: int, auction, worlds: np.ndarray, seat: int,
                  temperature: float, known: dict) -> np.ndarray:
    """Each world's weight (summing to the number of worlds): its likelihood of the calls seen,
    relative to the others'. known: log-likelihoods already found this hand, by world."""
    logs = np.empty(worlds.shape[0], np.float64)
    for w in range(worlds.shape[0]):
        key = worlds[w].tobytes()
        if key not in known:
            known[key] = log_likelihood(model, dealer, card_names(cr, worlds[w]), auction, seat,
                                        temperature)
        logs[w] = known[key]
    weights = np.exp(logs - logs.max())
    return weights * (worlds.shape[0] / weights.sum())
