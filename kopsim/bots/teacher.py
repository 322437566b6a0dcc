"""Teacher data for the `learnt` bot: pimc's decisions and its value of every legal action.

Four pimc bots play deals through the reference engine, each deciding in compiled code as in
the batch kernel (`pimc_kernel`). At every decision with a choice, one row records what the
deciding seat saw, as the kernel hands it to a bot (a `botcalls.SeatView`: its own cards, the
calls, the contract shown, the cards played, the tricks' leaders and winners), the legal
actions, pimc's mean value of each over its worlds, and the action pimc took:

- a call's value is the seat's own payout if the auction ended after it (see `pimc_kernel`);
  the call taken is the best one pimc allows itself (with `sound_bids`, never a bid that loses
  in most worlds while another call is open), which need not be the highest value;
- a card's value is its side's payout minus the other side's, per seat, played double-dummy in
  each world; the card taken is the one of highest value (the first of equal ones).

A row is built from the seat's `Observation` alone (`pimc_kernel.observed`): no row can read a
hidden card. Deal i of a teacher run is the deal `hand_seed(seed, i)` dealt by seat i % n, and
deals are played in fixed chunks whose rows are joined in order, so the rows are the same
whatever the number of jobs.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..engine.reference import Deal, State
from ..engine.rng import hand_seed
from ..rules.cache import compiled
from .pimc_kernel import pimc_valued

CHUNK = 64  # deals per piece of work: fixed, so that jobs do not change the rows
KIND_CALL, KIND_CARD = 0, 1


class TeacherParams(BaseModel):
    """The teacher: pimc's settings, and the deals it plays."""

    model_config = ConfigDict(extra="forbid", strict=False)
    deals: int = Field(2000, ge=1, le=10_000_000, description="deals the teacher plays")
    seed: int = Field(0, description="of the deals (teacher deal i: hand_seed(seed + 7, i))")
    samples: int = Field(24, ge=1, le=4096, description="pimc's worlds per card decision")
    auction_samples: int = Field(24, ge=1, le=4096,
                                 description="pimc's worlds per call decision")


class Decisions(NamedTuple):
    """Columns, one row per decision with a choice (A: room for the most legal actions)."""

    deal: np.ndarray  # int64: the teacher deal's index
    kind: np.ndarray  # int8: KIND_CALL or KIND_CARD
    seat: np.ndarray  # int8
    dealer: np.ndarray  # int8
    own: np.ndarray  # uint64: the seat's cards as dealt
    ncalls: np.ndarray  # int16
    calls: np.ndarray  # int16 [row, max_calls]: call codes, -1 beyond ncalls
    call_seats: np.ndarray  # int8 [row, max_calls]: who said them, -1 beyond
    shown: np.ndarray  # int64 [row, 2]: the bid in force or the contract shown, its declarer
    played: np.ndarray  # int16: cards played so far
    cards: np.ndarray  # int8 [row, n_cards]: card indices in play order, -1 beyond
    leaders: np.ndarray  # int8 [row, tricks]
    winners: np.ndarray  # int8 [row, tricks]: -1 for a trick not yet won
    n_legal: np.ndarray  # int8
    legal: np.ndarray  # int16 [row, A]: call codes or card indices, -1 beyond n_legal
    values: np.ndarray  # float64 [row, A]: pimc's mean value of each, nan beyond
    chosen: np.ndarray  # int8: the index in legal of the action pimc took

    def __len__(self) -> int:
        return int(self.deal.shape[0])


def teacher_deal(params: TeacherParams, i: int, n_seats: int) -> tuple[int, int]:
    """(hand seed, dealer) of teacher deal i at a table of n_seats: apart from the deals of duels and runs (whose
    seeds are chosen by users, seed 21 in the docs), so a bot is not measured on what it
    learnt from."""
    return hand_seed(params.seed + 7, i), i % n_seats


def row_of(cr, view, legal_codes: list[int], values: np.ndarray, chosen: int) -> dict:
    """A `Decisions` row (but deal and kind) of a decision seen in view."""
    nc, hs = cr.n_cards, cr.n_cards // cr.tables.n_seats
    calls = np.full(cr.max_calls, -1, np.int16)
    seats = np.full(cr.max_calls, -1, np.int8)
    calls[:view.ncalls] = view.calls[:view.ncalls]
    seats[:view.ncalls] = view.call_seats[:view.ncalls]
    cards = np.full(nc, -1, np.int8)
    cards[:view.played] = view.cards[:view.played]
    winners = np.full(hs, -1, np.int8)
    done = view.played // cr.tables.n_seats
    winners[:done] = view.winners[:done]
    return dict(seat=view.seat, dealer=view.dealer, own=int(view.own), ncalls=view.ncalls,
                calls=calls, call_seats=seats, shown=np.asarray(view.shown, np.int64),
                played=view.played, cards=cards, leaders=np.asarray(view.leaders, np.int8),
                winners=winners, legal=legal_codes, values=values, chosen=chosen)


def play_teacher_deal(cr, ps, row_params: list[float], seed: int, dealer: int) -> list[dict]:
    """One deal played by a pimc bot in every seat; a row (a dict of `Decisions` fields but deal and
    kind) for each decision with a choice."""
    state = State(cr.rules, Deal.from_seed(cr.rules, seed, dealer))
    rows = []
    while not state.is_terminal():
        seat = state.current_player()
        obs = state.observation(seat)
        legal = list(obs.legal_actions)
        if len(legal) == 1:
            state.apply_action(legal[0])
            continue
        view, index, values = pimc_valued(cr, ps, row_params, seed, obs)
        play = obs.phase == "play"
        codes = ([cr.card_index[c] for c in legal] if play
                 else [cr.call_names.index(c) for c in legal])
        rows.append(dict(row_of(cr, view, codes, values, index), kind=int(play)))
        state.apply_action(legal[index])
    return rows


def _chunk_rows(rules, params: TeacherParams, first: int, n: int) -> list[dict]:
    from .pimc import PimcBot, PimcParams, scratch

    cr = compiled(rules)
    pimc = PimcParams(samples=params.samples, auction_samples=params.auction_samples)
    row_params = PimcBot.kernel_params(pimc)
    ps = scratch(cr, max(pimc.samples, pimc.auction_samples))
    out = []
    for i in range(first, first + n):
        seed, dealer = teacher_deal(params, i, cr.tables.n_seats)
        out += [dict(r, deal=i) for r in play_teacher_deal(cr, ps, row_params, seed, dealer)]
    return out


def n_actions(cr) -> int:
    """Room for the legal actions of any decision: a hand's cards, or every call code."""
    return max(cr.n_cards // cr.tables.n_seats, len(cr.call_names))


def as_decisions(cr, rows: list[dict]) -> Decisions:
    """The rows as columns."""
    a = n_actions(cr)
    n = len(rows)
    legal = np.full((n, a), -1, np.int16)
    values = np.full((n, a), np.nan, np.float64)
    for i, r in enumerate(rows):
        legal[i, :len(r["legal"])] = r["legal"]
        values[i, :len(r["values"])] = r["values"]

    def col(name, dtype):
        return np.array([r[name] for r in rows], dtype).reshape(
            (n, *np.shape(rows[0][name])) if rows else (0,))
    return Decisions(
        col("deal", np.int64), col("kind", np.int8), col("seat", np.int8),
        col("dealer", np.int8), np.array([r["own"] for r in rows], np.uint64),
        col("ncalls", np.int16), col("calls", np.int16), col("call_seats", np.int8),
        col("shown", np.int64), col("played", np.int16), col("cards", np.int8),
        col("leaders", np.int8), col("winners", np.int8),
        np.array([len(r["legal"]) for r in rows], np.int8), legal, values,
        col("chosen", np.int8))


def teacher_decisions(rules, params: TeacherParams, jobs: int = 1,
                      advance: Callable[[int], None] | None = None) -> Decisions:
    """pimc's decisions over the teacher deals 0..params.deals-1, in fixed chunks (`jobs`
    processes; `advance(deals)` after each chunk)."""
    return chunked_decisions(_chunk_rows, rules, params, params.deals, jobs, advance)


def chunked_decisions(chunk_rows: Callable, rules, params, deals: int, jobs: int,
                      advance: Callable[[int], None] | None) -> Decisions:
    """The rows `chunk_rows(rules, params, first, n)` gives for deals 0..deals-1, in fixed
    chunks of CHUNK deals joined in order (so the same whatever the jobs), on `jobs`
    processes; `advance(deals)` after each chunk."""
    from joblib import Parallel, delayed

    starts = range(0, deals, CHUNK)
    work = (delayed(chunk_rows)(rules, params, s, min(CHUNK, deals - s)) for s in starts)
    rows: list[dict] = []
    if jobs <= 1:
        parts = (w[0](*w[1], **w[2]) for w in work)
    else:
        parts = Parallel(n_jobs=jobs, return_as="generator")(work)
    for s, part in zip(starts, parts):
        rows += part
        if advance is not None:
            advance(min(CHUNK, deals - s))
    return as_decisions(compiled(rules), rows)


def view_of(d: Decisions, r: int):
    """Row r's view, as the batch kernel hands it to a bot (`botcalls.SeatView`)."""
    from ..engine.botcalls import SeatView

    return SeatView(int(d.seat[r]), int(d.dealer[r]), np.uint64(d.own[r]),
                    d.calls[r], d.call_seats[r], int(d.ncalls[r]), d.shown[r],
                    d.cards[r].astype(np.int64), int(d.played[r]), d.leaders[r], d.winners[r],
                    int(d.seat[r]) if d.kind[r] == KIND_CALL else -1,
                    -1, np.uint64(0))  # (the learnt bot plays no talon: `table_size`)
