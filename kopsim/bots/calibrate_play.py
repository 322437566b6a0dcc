"""The self-play of `kopsim.bots.calibrate`: one round's samples of call values, and a summary of
what a table makes a table of ev bots do. Plays in the batch kernel only."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..rules.codes import CALL_BID, WIN_OLD
from .seated import play_batch
from ..engine.layout import hand_seeds
from .ev import call_order, context_of, hand_key, in_reopening, reopening_context
from .heuristic import strength


class _Studied(NamedTuple):
    """A chunk's base play and the call studied in each of its deals (`hands`: those deals)."""

    cr: object
    bots: list
    table: object
    base: object  # BatchResult
    seeds: np.ndarray
    dealers: np.ndarray
    given: np.ndarray | None
    hands: np.ndarray
    step: np.ndarray
    seat: np.ndarray
    chosen: np.ndarray


def _ev_spec(params):
    from . import bot_spec
    return bot_spec({"name": "ev", "smear": params.smear})


def round_deals(st) -> int:
    """Deals in a round: with exact keys, every (hand, position) the same number of times."""
    if st.key_masks is None:
        return st.params.deals
    rows = st.n_keys * st.n_seats
    return rows * max(1, -(-st.params.deals // rows))


def explore_round(st, table, r: int, jobs: int, advance=None):
    """(sums, counts) of the payouts sampled in round r, over fixed chunks summed in order;
    `advance(deals)` follows each finished chunk."""
    from .calibrate import CHUNK, round_seed
    n = round_deals(st)
    seed = round_seed(st.params, r)
    work = [(st, table, seed, r, s, min(CHUNK, n - s)) for s in range(0, n, CHUNK)]
    if jobs > 1 and len(work) > 1:
        from joblib import Parallel, delayed
        parts = Parallel(n_jobs=min(jobs, len(work)), return_as="generator")(
            delayed(explore_chunk)(*w) for w in work)  # in order, each as soon as it is done
    else:
        parts = (explore_chunk(*w) for w in work)
    total, count = st.empty(), st.empty()
    for w, (s, c) in zip(work, parts):
        total += s
        count += c
        if advance is not None:
            advance(w[-1])
    return total, count


def _studied_deals(st, rng, start: int, count: int):
    """(given deals or None, dealers, the seat studied in each): with exact keys deal d gives
    hand d // n mod n_keys to position d mod n (n seats), the other cards shuffled; else random
    deals."""
    d = np.arange(start, start + count)
    n = st.n_seats
    if st.key_masks is None:
        return None, (d % n).astype(np.int64), rng.integers(0, n, count)
    nc = st.cr.n_cards
    rows = st.n_keys * n
    key, position = (d % rows) // n, d % n
    dealers = ((d // rows) % n).astype(np.int64)
    mask = st.key_masks[key]
    held = ((mask[:, None] >> np.arange(nc, dtype=np.uint64)[None, :]) & np.uint64(1)) == 1
    cards = np.argsort(held + rng.random((count, nc)), axis=1, kind="stable")  # others first
    hs = nc // n
    given = np.empty((count, nc), np.int64)
    slots = np.arange(nc)
    for p in range(n):
        rows_p = np.flatnonzero(position == p)
        mine = st.cr.tables.deal_to == p  # the slots of the deal position p is dealt
        given[np.ix_(rows_p, slots[mine])] = cards[rows_p, nc - hs:]
        given[np.ix_(rows_p, slots[~mine])] = cards[rows_p, :nc - hs]
    return given, dealers, (dealers + 1 + position) % n


def _studied_call(rng, calls_seat, steps, seat):
    """Which call of each deal to study: one of the studied seat's, its first half the time."""
    n, width = calls_seat.shape
    own = (calls_seat == seat[:, None]) & (np.arange(width)[None, :] < steps[:, None])
    n_own = own.sum(axis=1)
    pick = np.where(rng.random(n) < 0.5, 0, (rng.random(n) * n_own).astype(np.int64))
    rank = np.cumsum(own, axis=1) - 1
    step = np.argmax(own & (rank == pick[:, None]), axis=1)
    return np.where(n_own > 0, step, -1)


def explore_chunk(st, table, seed: int, r: int, start: int, count: int):
    """The samples of deals start .. start + count - 1 of a round (see the module of calibrate)."""
    cr = st.cr
    rng = np.random.default_rng([st.params.seed, r, start])
    given, dealers, studied = _studied_deals(st, rng, start, count)
    seeds = hand_seeds(seed, start, count)
    bots = [_ev_spec(st.params)]
    base = play_batch(cr, seeds, dealers, bots=bots, explore=np.full((count, 2), -1, np.int64),
                      ev_table=table, given=given)
    steps = np.minimum(base.ncalls.astype(np.int64), cr.max_calls)
    step_all = _studied_call(rng, base.call_seat.astype(np.int64), steps, studied)
    hands = np.flatnonzero(step_all >= 0)
    step = step_all[hands]
    seat = studied[hands].astype(np.int64)
    options = base.options[hands, step]
    chosen = base.calls[hands, step].astype(np.int64)
    bid, bidder, doubles = _bid_before(base.calls[hands], base.call_seat[hands], step, st.K)
    position = (seat - dealers[hands] - 1) % st.n_seats
    context = context_of(bid, bidder == seat, doubles, st.n_chain)
    context = np.where(in_reopening(cr.tables, bid, doubles, step, base.calls[hands, 0]),
                       reopening_context(st.K, st.n_chain), context)
    held = _held(base.perm[hands].astype(np.int64), dealers[hands], seat, cr.tables)
    order = st.ctab[np.where(bid >= 0, bid, st.normal), 2]
    play = _Studied(cr, bots, table, base, seeds, dealers, given, hands, step, seat, chosen)
    total, tally = st.empty(), st.empty()
    for code in range(st.n_codes):
        tried = np.flatnonzero((options >> np.uint64(code)) & np.uint64(1))
        if len(tried) == 0:
            continue
        payoff = _payoffs(play, tried, code)
        keys = _keys(held[tried], code, order[tried], st)
        index = (keys, position[tried], context[tried], np.full(len(tried), code))
        np.add.at(total, index, payoff)
        np.add.at(tally, index, 1.0)
    return total, tally


def _payoffs(play: _Studied, tried, code):
    """What the calling seat gains over the table when its call is `code` (`_gain`): from the
    base play where it chose that call, else from a replay of the deal with the call forced."""
    payoff = np.empty(len(tried))
    seat = play.seat[tried]
    same = play.chosen[tried] == code
    h = play.hands[tried]
    payoff[same] = _gain(play.base.payouts[h[same]], seat[same])
    other = np.flatnonzero(~same)
    if len(other):
        ho = h[other]
        explore = np.stack([play.step[tried][other], np.full(len(other), code)], axis=1)
        given = None if play.given is None else play.given[ho]
        replay = play_batch(play.cr, play.seeds[ho], play.dealers[ho], bots=play.bots,
                            explore=explore, ev_table=play.table, given=given)
        payoff[other] = _gain(replay.payouts, seat[other])
    return payoff


def _gain(payouts, seat):
    """Each hand's payout to `seat` less the mean payout of the four seats. Under zero-sum
    scoring that mean is 0 and this is the payout itself; under winners-only scoring, where a
    loser pays nothing, it is what a call is worth against the others: a seat valuing only its
    own payout would find every bid and double free to lose."""
    return payouts[np.arange(len(seat)), seat] - payouts.mean(axis=1)


def _bid_before(calls, call_seat, step, K):
    """The contract in force (-1: none), its bidder and the doubles said on it before call
    `step` of each hand."""
    n = len(step)
    bid = np.full(n, -1, np.int64)
    bidder = np.full(n, -1, np.int64)
    doubles = np.zeros(n, np.int64)
    for j in range(calls.shape[1]):
        code = calls[:, j].astype(np.int64)
        before = j < step
        is_bid = before & (code >= CALL_BID) & (code < CALL_BID + K)
        bid = np.where(is_bid, code - CALL_BID, bid)
        bidder = np.where(is_bid, call_seat[:, j], bidder)
        doubles = np.where(is_bid, 0, doubles + (before & (code >= CALL_BID + K)))
    return bid, bidder, doubles


def _held(perm, dealers, seat, t):
    """The dealt hand (bitmask) of each hand's seat: card i of the deal goes to the seat
    t.deal_to[i] places on from the dealer's left (`steps.hand_out`)."""
    owner = (dealers[:, None] + 1 + t.deal_to.astype(np.int64)[None, :]) % t.n_seats
    bits = np.left_shift(np.uint64(1), perm.astype(np.uint64))
    return np.bitwise_or.reduce(np.where(owner == seat[:, None], bits, np.uint64(0)), axis=1)


@njit(cache=True)
def _keys_of(held, code, order, ctab, binom, edges, power):
    out = np.empty(held.shape[0], np.int64)
    for i in range(held.shape[0]):
        out[i] = hand_key(held[i], call_order(code, order[i], ctab), binom, edges, power)
    return out


def _keys(held, code, order, st):
    return _keys_of(held.astype(np.uint64), code, order.astype(np.int64), st.ctab, st.binom,
                    st.edges, st.power)


# --------------------------------------------------------------------------------- the summary


def summarise(st, table, deals: int = 40_000) -> dict:
    """Per contract, in four ev bots' play of fresh deals: how often it is played, how often its
    side wins, the mean payout to each of its seats, and the declarer's mean hand strength in
    its order (what hands it is bid from)."""
    cr = st.cr
    seeds = hand_seeds(st.params.seed ^ 0x5EED, 0, deals)
    dealers = (np.arange(deals) % st.n_seats).astype(np.int64)
    res = play_batch(cr, seeds, dealers, bots=[_ev_spec(st.params)], ev_table=table)
    old = res.old.astype(np.int64)
    old_seats = (old[:, None] >> np.arange(st.n_seats)[None, :]) & 1
    old_pay = (res.payouts * old_seats).sum(axis=1) / np.maximum(old_seats.sum(axis=1), 1)
    rows = {}
    for k, name in enumerate(cr.contract_names):
        sel = np.flatnonzero(res.contract == k)
        if len(sel) == 0:
            rows[name] = {"share": 0.0, "hands": 0}
            continue
        decl = res.declarer[sel].astype(np.int64)
        held = _held(res.perm[sel].astype(np.int64), dealers[sel], np.maximum(decl, 0),
                     cr.tables)
        o = int(st.ctab[k, 2])
        power = [strength(np.uint64(h), o, st.power) for h, d in zip(held, decl) if d >= 0]
        rows[name] = {"share": len(sel) / deals, "hands": int(len(sel)),
                      "win_rate": float(np.mean(res.winner[sel] == WIN_OLD)),
                      "mean_payout": float(old_pay[sel].mean()),
                      "declarer_strength": float(np.mean(power)) if power else None}
    return {"deals": deals, "contracts": rows}
