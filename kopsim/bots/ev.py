"""ev: every call chosen by its expected payout under the ruleset being played.

The bot holds a table of values, learnt by self-play in the batch kernel (`kopsim.bots.calibrate`):
``values[key, position, context, call]`` is the mean gain of the seat that makes `call` with a
hand of `key`, in `position` (0 forehand .. n - 1 the dealer, at a table of n), when the auction
has reached `context` (which contract is in force, if any, and whether this seat bid it), everyone
playing on as the bot does. A gain is the seat's payout less the table's mean payout: the payout
itself under zero-sum scoring, and under winners-only scoring what the call wins against the
others. At each call it makes the legal call of highest value. Its cards are the heuristic's,
played in the contract's order with the partnerships inferred as the heuristic infers them, except
in the last tricks, which it solves exactly over every deal of the unseen cards that fits what it
has seen (`kopsim.bots.endgame`).

The key of a hand: for small decks (at most `EXACT_KEYS` possible hands, e.g. the 1,820 four-card
hands of a 16-card deck) the hand itself, by its combinatorial rank; for larger decks the
strength of the hand in the card order of the contract a call is about, cut into `BUCKETS`
quantile buckets measured on random hands.

The payout table, tiers, multipliers, doubles, caps and tie rule enter only through the payouts
of simulated hands, so any ruleset the format expresses is priced the same way.
"""

from __future__ import annotations

from math import comb

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..engine.jit import kernel_jit
from ..engine.bits import lowbit_index
from ..rules.codes import CALL_ASK, CALL_BID
from ..engine.codes import BOT_EV
from ..engine.reference import Observation
from ..rules.cache import compiled
from ..rules.compile import card_mask
from .endgame import P_ENDGAME, P_WORLDS, endgame_choice
from .heuristic import HeuristicBot, HeuristicParams, strength
from .table_size import deck_problem

EXACT_KEYS = 5000  # up to this many possible hands, each hand is its own key
BUCKETS = 16  # otherwise, strength buckets per card order
P_TABLE = 7  # the kernel row: the heuristic's seven card-play parameters, then the table index
UNKNOWN = -1e9  # the value of a call never tried: below any payout, so never chosen


class EvParams(BaseModel):
    """How the table is learnt (these, with the ruleset's sha256, key the calibration cache),
    and the heuristic's card-play setting."""

    model_config = ConfigDict(extra="forbid", strict=False)
    deals: int = Field(100_000, ge=1_000, le=10_000_000,
                       description="deals played per round of self-play")
    rounds: int = Field(8, ge=1, le=50, description="rounds of self-play (fewer if it settles)")
    shrink: float = Field(8.0, ge=0.0, le=1e4,
                          description="weight of the coarser estimate for rarely seen hands")
    seed: int = Field(0, ge=0, lt=2**63, description="seed of the calibration deals")
    smear: float = Field(1.0, description="smear points on a partner's trick (1) or not (0)")
    endgame_tricks: int = Field(0, ge=0, le=16,
                                description="solve the last tricks exactly from this many "
                                            "before the end (0: never; kopsim.bots.endgame)")
    endgame_worlds: int = Field(6, ge=1, le=100_000,
                                description="and only where the unseen cards can be dealt in "
                                            "at most this many ways (its cost)")


def kernel_row(params: EvParams) -> list[float]:
    heuristic = HeuristicParams(smear=params.smear)
    row = HeuristicBot.kernel_params(heuristic) + [0.0]  # the table index, set per line-up
    row += [0.0] * (P_WORLDS + 1 - len(row))
    row[P_ENDGAME], row[P_WORLDS] = float(params.endgame_tricks), float(params.endgame_worlds)
    return row


# ------------------------------------------------------------------------------------ hand keys


def key_space(cr, power) -> tuple[np.ndarray, np.ndarray, int]:
    """(binom, edges, number of keys) of a ruleset: exact keys when the deck allows, else
    strength buckets (edges[o]: BUCKETS - 1 quantiles of random hands' strength in order o)."""
    nc, hs = cr.n_cards, cr.n_cards // cr.tables.n_seats
    binom = np.array([[comb(n, k) for k in range(hs + 2)] for n in range(nc + 1)], np.int64)
    if comb(nc, hs) <= EXACT_KEYS:
        return binom, np.zeros((power.shape[0], 0), np.float64), comb(nc, hs)
    rng = np.random.default_rng(20261201)
    hands = [int(sum(1 << int(c) for c in rng.choice(nc, hs, replace=False)))
             for _ in range(20_000)]
    edges = np.zeros((power.shape[0], BUCKETS - 1), np.float64)
    for o in range(power.shape[0]):
        s = np.array([strength(np.uint64(h), o, power) for h in hands])
        edges[o] = np.quantile(s, np.arange(1, BUCKETS) / BUCKETS)
    return binom, edges, BUCKETS


@kernel_jit()
def hand_key(hand, order, binom, edges, power):
    """The key of a hand (bitmask) for a call about a contract of card order `order`."""
    if edges.shape[1] == 0:
        rank = 0
        i = 0
        m = hand
        while m:
            i += 1
            rank += binom[lowbit_index(m), i]
            m &= m - np.uint64(1)
        return rank
    s = strength(hand, order, power)
    b = 0
    while b < edges.shape[1] and s >= edges[order, b]:
        b += 1
    return b


@kernel_jit()
def call_order(code, order, ctab):
    """The card order a call is about: a bid's contract's, else the contract in force's."""
    K = ctab.shape[0]
    if code >= CALL_BID and code < CALL_BID + K:
        return ctab[code - CALL_BID, 2]
    return order


@kernel_jit()
def ev_call(calls, m, hand, position, context, order, ctab, power, values, binom, edges, prm):
    """Index in calls[:m] of the call of highest value; the first of equal ones."""
    table = np.int64(prm[P_TABLE])
    best = 0
    best_value = -np.inf
    for i in range(m):
        code = calls[i]
        key = hand_key(hand, call_order(code, order, ctab), binom, edges, power)
        v = values[table, key, position, context, code]
        if v > best_value:
            best, best_value = i, v
    return best


def context_of(bid, bidder_is_me, doubles, n_chain):
    """The auction's context for a call: the contract in force (-1: none), whether this seat
    bid it, and the doubles said on it so far; of numbers or of numpy arrays alike. (The kernel
    spells the same sum where it calls `ev_call`; the engines' cross-check holds them equal.)"""
    return (2 * (bid + 1) + (bidder_is_me * 1)) * (n_chain + 1) + doubles


def reopening_context(n_contracts: int, n_chain: int) -> int:
    """The context of the round a silent first round reopens (auction.reopen_after_silent_round),
    after every other: its calls lead elsewhere than the same calls in the first round (a pass
    there may be the last call of the auction)."""
    return 2 * (n_contracts + 1) * (n_chain + 1)


def n_contexts(n_contracts: int, n_chain: int, reopen: bool = False) -> int:
    return reopening_context(n_contracts, n_chain) + bool(reopen)


def in_reopening(t, bid, doubles, n_before, first_call):
    """Is a call one of the reopening round? No bid or double before it, and the calls before
    it (n_before; the auction's first, first_call: a code) fill a silent first round: the
    passes that end it, after forehand's ask if he asked. Of numbers or numpy arrays alike."""
    silent = np.where(first_call == CALL_ASK, t.end_after_passes + 1,
                      t.end_after_passes_without_call)
    return bool(t.reopen) & (bid < 0) & (doubles == 0) & (n_before >= silent)


# ------------------------------------------------------------------------ the reference-engine bot


class EvBot(HeuristicBot):
    name = "ev"
    summary = ("calls priced by self-play under the ruleset played (kopsim calibrate), "
               "cards as the heuristic plays them")
    Params = EvParams
    kernel_kind = BOT_EV  # runs in the batch kernel (ev_call; endgame_card, else heur_card)
    cannot_play = staticmethod(deck_problem)  # any table: its tables and endgame read the seats

    def __init__(self, params: EvParams, hand_seed: int, seat: int, rules=None):
        self.params, self.seat, self.rules = params, seat, rules
        self.prm = np.array(kernel_row(params), np.float64)

    @staticmethod
    def kernel_params(params: EvParams) -> list[float]:
        return kernel_row(params)

    def act(self, obs: Observation) -> str:
        if obs.phase != "auction":
            if len(obs.hand) <= self.params.endgame_tricks:
                cr = compiled(self.rules)
                card, _ = endgame_choice(cr, obs, self.prm)
                if card >= 0:
                    return cr.cards[card]
            return super().act(obs)
        from .calibrate import calibrated
        cr, power, ctab = self._compiled()
        table = calibrated(cr, self.params)
        index = cr.card_index
        dealt = np.uint64(card_mask(obs.dealt, index))
        bid = -1 if obs.bid is None else cr.contract_names.index(obs.bid)
        order = int(ctab[bid if bid >= 0 else cr.tables.normal_k, 2])
        codes = np.array([cr.call_names.index(c) for c in obs.legal_actions], np.int64)
        context = call_context(cr, obs, bid)
        position = (obs.seat - obs.dealer - 1) % obs.seats
        i = ev_call(codes, len(codes), dealt, position, context, order, ctab, power,
                    table.values[None], table.binom, table.edges, self.prm)
        return obs.legal_actions[i]


def call_context(cr, obs: Observation, bid: int) -> int:
    """The calling context of the seat to call (`context_of`, or the reopening round's)."""
    doubles = doubles_said(cr, obs)
    a = cr.rules.auction
    asked = a.style == "ask" and obs.auction and obs.auction[0][1] == a.ask_call
    if in_reopening(cr.tables, bid, doubles, len(obs.auction), CALL_ASK if asked else -1):
        return reopening_context(len(cr.contract_names), cr.tables.n_chain)
    return context_of(bid, obs.bidder == obs.seat, doubles, cr.tables.n_chain)


def doubles_said(cr, obs: Observation) -> int:
    """The doubles said since the last bid (on the contract in force, or before any bid)."""
    doubles = set(cr.rules.doubling.names)
    n = 0
    for _seat, call in obs.auction:
        if call in doubles:
            n += 1
        elif call in cr.rules.contracts:
            n = 0
    return n
