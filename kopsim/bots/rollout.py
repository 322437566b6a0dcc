"""Teacher values from rollouts: each legal action played on, in sampled worlds, by fast bots.

pimc values an action by solving each world it samples double-dummy: exact for the world, but
on 32 cards a solve from the first trick takes up to seconds. A rollout values it by playing
the world on with a fast line-up (ev, or a learnt bot of an earlier round), each seat deciding
from its own view, in the batch kernel: microseconds a world. The value is the action's when
the line-up plays on after it, so a policy learnt from the best of them improves on the
line-up by one step (rollout algorithms: Tesauro & Galperin 1996, Bertsekas 1997), and can in
turn play the next round's rollouts.

The decisions valued are those of the line-up's own play of the teacher deals (the states it
reaches; deal i is `teacher.teacher_deal(params, i)`), read through the reference engine: each
decision's view is the seat's `Observation` (`pimc_kernel.observed`), so no row reads a hidden
card. For each decision with a choice, worlds are drawn as pimc draws them
(`worlds.draw_worlds`: uniform among the deals consistent with everything the seat saw, its
calls and the cards played included), and each world is played once per legal action, the
same worlds for every action (so their differences are not blurred by the draws): the public
actions so far and then the action are forced (`play_batch(forced=...)`), the line-up plays
the rest. An action's value is the deciding seat's mean payout over the worlds; the action
taken in the row is the one of highest value (the first of equal ones).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..engine.draws import GOLDEN
from ..engine.jit import built_call, kernel_jit
from ..engine.reference import Deal, State
from ..rules.cache import compiled
from .pimc_kernel import observed
from .teacher import TeacherParams, chunked_decisions, row_of, teacher_deal
from .worlds import decision_state, draw_worlds, world_scratch

MAX_TRIES = 64  # draws per world wanted before a decision gives up looking (as pimc's)


class RolloutParams(BaseModel):
    """The rollout teacher: its deals, its worlds, and the line-up that plays them on."""

    model_config = ConfigDict(extra="forbid", strict=False)
    deals: int = Field(2000, ge=1, le=10_000_000, description="deals the line-up plays")
    seed: int = Field(0, description="of the deals (as the pimc teacher's) and the worlds")
    worlds: int = Field(16, ge=1, le=4096, description="worlds per decision")
    bot: dict = Field(default_factory=lambda: {"name": "ev"},
                      description="the bot of the line-up that plays the deals and the worlds")

    def deals_of(self) -> TeacherParams:
        return TeacherParams(deals=self.deals, seed=self.seed)


@kernel_jit()
def _draw(t, ws, view, n, seed, mix, max_draws):
    """Up to n worlds for the decision seen in view, into ws; how many were drawn."""
    state = decision_state(seed, mix, view.seat, view.ncalls + view.played)
    return draw_worlds(t, ws, view, n, state, max_draws)


def dealt_order(hands: np.ndarray, dealer: int, deal_to: np.ndarray) -> np.ndarray:
    """Deck orders that deal hands[..., s] (card masks; any leading shape, a mask a seat) to
    seat s, the i-th card to the seat deal_to[i] places on from the dealer's left
    (`RuleTables.deal_to`, as `steps.hand_out` deals): what `play_batch(given=...)` takes."""
    hands = np.asarray(hands, np.uint64)
    lead, n = hands.shape[:-1], hands.shape[-1]
    n_cards = len(deal_to)
    bits = (hands.reshape(-1, n)[:, :, None] >> np.arange(n_cards, dtype=np.uint64)) & 1
    cards = np.nonzero(bits.reshape(-1, n_cards))[1].reshape(-1, n, n_cards // n)  # rising
    owner = (dealer + 1 + np.asarray(deal_to, np.int64)) % n
    order = np.empty((cards.shape[0], n_cards), np.int64)
    for s in range(n):
        order[:, owner == s] = cards[:, s]
    return order.reshape(*lead, n_cards)


def _forced_rows(cr, view, play: bool, codes: list[int], nw: int) -> np.ndarray:
    """[world, action] rows: the public actions of view, then the action (a call code, or a
    card in play)."""
    row = np.full(cr.max_calls + cr.n_cards, -1, np.int64)
    row[:view.ncalls] = view.calls[:view.ncalls]
    row[cr.max_calls:cr.max_calls + view.played] = view.cards[:view.played]
    rows = np.tile(row, (nw, len(codes), 1))
    rows[:, :, cr.max_calls + view.played if play else view.ncalls] = codes
    return rows.reshape(-1, row.shape[0])


def _decisions(cr, seed: int, dealer: int, cards: np.ndarray, calls: np.ndarray):
    """The decisions with a choice along the line-up's play of one deal (its calls and cards
    as the kernel recorded them): (observation, legal codes) each."""
    state = State(cr.rules, Deal.from_seed(cr.rules, seed, dealer))
    found, ci, pi = [], 0, 0
    while not state.is_terminal():
        obs = state.observation(state.current_player())
        legal = list(obs.legal_actions)
        if obs.phase == "play":
            action = cr.cards[cards[pi]]
            pi += 1
        else:
            action = cr.call_names[calls[ci]]
            ci += 1
        if len(legal) > 1:
            found.append(obs)
        state.apply_action(action)
    return found


def _chunk_rows(rules, params: RolloutParams, first: int, n: int) -> list[dict]:
    """The rows of teacher deals first..first+n-1."""
    from .seated import play_batch
    from . import bot_spec, kernel  # noqa: F401  (kernel: fills the kernel's slots)

    cr = compiled(rules)
    bots = [bot_spec(params.bot)]
    deals = [teacher_deal(params.deals_of(), i, cr.tables.n_seats)
             for i in range(first, first + n)]
    played = play_batch(cr, np.array([s for s, _ in deals], np.int64),
                        np.array([d for _, d in deals], np.int64), bots=bots)
    found, which = [], []
    for j, (seed, dealer) in enumerate(deals):
        for obs in _decisions(cr, seed, dealer, played.cards[j], played.calls[j]):
            found.append((seed, obs))
            which.append(first + j)
    valued = value_decisions(cr, params, bots, found)
    return [dict(row_of(cr, view, codes, values, int(np.argmax(values))),
                 kind=int(view.to_speak < 0), deal=deal)
            for deal, (view, codes, values) in zip(which, valued)]


def value_decisions(cr, params: RolloutParams, bots: list, decisions: list) -> list:
    """(view, legal codes, values) of each decision (hand seed, the deciding seat's
    `Observation`): each legal action's mean payout to the seat over the worlds drawn for it,
    played on by the line-up `bots` (BotSpecs) in one batch."""
    from .seated import play_batch

    ws = world_scratch(cr, params.worlds)
    mix = np.uint64((params.seed + 1) * int(GOLDEN) % 2**64)
    pending = []  # (view, legal codes, first world row, worlds)
    given, forced, seeds, dealers = [], [], [], []
    rows = 0
    for seed, obs in decisions:
        view = observed(cr, obs)
        play = obs.phase == "play"
        codes = [cr.card_index[c] if play else cr.call_names.index(c)
                 for c in obs.legal_actions]
        nw = int(built_call(_draw, cr.tables, ws, view, params.worlds, np.uint64(seed), mix,
                            params.worlds * MAX_TRIES))
        pending.append((view, codes, rows, nw))
        if nw:
            n = nw * len(codes)
            given.append(np.repeat(dealt_order(ws.hands[:nw], obs.dealer, cr.tables.deal_to),
                                   len(codes), axis=0))
            forced.append(_forced_rows(cr, view, play, codes, nw))
            seeds.append(np.full(n, seed, np.int64))
            dealers.append(np.full(n, obs.dealer, np.int64))
            rows += n
    if not rows:
        return [(view, codes, np.zeros(len(codes))) for view, codes, _, _ in pending]
    forced = np.concatenate(forced)
    out = play_batch(cr, np.concatenate(seeds), np.concatenate(dealers), bots=bots,
                     given=np.concatenate(given), forced=forced)
    pay = out.payouts.copy()
    pay[~_followed(cr, out, forced)] = np.nan
    return [(view, codes, _values(pay[at:at + nw * len(codes), view.seat], nw, len(codes)))
            for view, codes, at, nw in pending]


def _values(pay: np.ndarray, nw: int, m: int) -> np.ndarray:
    """Each of m actions' mean payout over the worlds (pay: [world * m + action], nan where
    the play left the forced line); 0 where none followed it."""
    if nw == 0:
        return np.zeros(m)
    pay = pay.reshape(nw, m)
    followed = ~np.isnan(pay)
    counts = followed.sum(0)
    return np.where(counts > 0, np.where(followed, pay, 0.0).sum(0) / np.maximum(counts, 1),
                    0.0)


def _followed(cr, out, forced: np.ndarray) -> np.ndarray:
    """Whether each hand's play took every action forced on it."""
    mc = cr.max_calls
    calls = (forced[:, :mc] < 0) | (out.calls[:, :mc] == forced[:, :mc])
    cards = (forced[:, mc:] < 0) | (out.cards == forced[:, mc:])
    return calls.all(1) & cards.all(1)


def rollout_decisions(rules, params: RolloutParams, jobs: int = 1,
                      advance: Callable[[int], None] | None = None):
    """The rollout teacher's `teacher.Decisions` over deals 0..params.deals-1, in fixed chunks
    (`jobs` processes; `advance(deals)` after each chunk): the same rows whatever the jobs."""
    return chunked_decisions(_chunk_rows, rules, params, params.deals, jobs, advance)
