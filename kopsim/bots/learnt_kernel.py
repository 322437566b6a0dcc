"""The learnt bot's decisions, compiled: the batch kernel's learnt kind, and `LearntBot.act` in
the reference engine, through the very same calls (so both engines decide alike).

A decision writes the features of its legal actions (`kopsim.bots.features`) and scores each
with the bot's network: the decision's context enters the hidden layer once, each action's own
features after it, and only the features that are not 0 are read (most are one-hot). The
legal action of the highest score is taken, the first of equal ones: calls in the order the
kernel lists them, cards in card order.

A seat's hand does not change in the auction, and its summaries (in each card order) are most
of a call's features: their part of the hidden layer is worked out when a seat first calls
with a hand and kept for its next calls (`_hand_parts`). It depends on the hand and the model
alone, so a kept part is the very one a new one would be, and no decision depends on what was
decided before it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE
from ..engine.jit import kernel_jit
from .teacher import n_actions
from .features import (FeatureTables, call_codes, call_order, call_public, card_context,
                       card_dynamic, card_situation, card_static, feature_sizes, feature_tables,
                       hand_summary)

LP_MODEL = 0  # a learnt bot's kernel parameter row: the index of its models in LearntNets
# the nets' numbers in play: single precision halves what a decision reads and doubles what a
# vector instruction holds; the models are trained and stored in double precision
REAL = np.float32
ZERO = REAL(0.0)
# the output layer sums its hidden units in LANES partial sums, each of every LANES-th unit,
# then the partial sums pairwise (the upper half onto the lower, until one is left): a fixed
# order of additions (no result depends on the machine's vector width) in which few additions
# wait for the one before; hidden layers are padded with zero units to a multiple of it
LANES = 16


class LearntNets(NamedTuple):
    """A line-up's learnt models, stacked ([model, ...]; hidden units padded with zeros, which
    add nothing), the rule tables their features read, and room for one decision."""

    tables: FeatureTables
    call_w1: np.ndarray  # [model, call feature, hidden]
    call_b1: np.ndarray  # [model, hidden]
    call_w2: np.ndarray  # [model, hidden]
    call_b2: np.ndarray  # [model]
    card_w1: np.ndarray
    card_b1: np.ndarray
    card_w2: np.ndarray
    card_b2: np.ndarray
    # [model, order, card, hidden] the hidden layer's part of a card's features that depend on
    # the card order alone (`features.card_static`): one row read where there were four
    card_static: np.ndarray
    x: np.ndarray  # [action, feature] the decision's feature rows
    nonzero: np.ndarray  # [feature] which features of a row are not 0
    legal: np.ndarray  # [action] the legal cards of a card decision
    pre_ctx: np.ndarray  # [hidden] the context's part of the hidden layer
    pre: np.ndarray  # [hidden]
    score: np.ndarray  # [action]
    hand_x: np.ndarray  # [hand feature] one hand summary
    hand_own: np.ndarray  # uint64 [seat] the hand whose parts are kept, for model:
    hand_model: np.ndarray  # int64 [seat] (-1: none kept)
    hand_ctx: np.ndarray  # [seat, hidden] the call context's hand summaries' part
    hand_bid: np.ndarray  # [seat, order, hidden] the part of a bid's hand summary in the order
    lanes: np.ndarray  # [LANES] the output layer's partial sums


def learnt_nets(cr, models: list) -> LearntNets:
    """The nets of `models` (LearntModels, in line-up order), stacked for the kernel; with no
    models, empty nets (the kernel holds them all the same)."""
    fs = feature_sizes(cr.tables)
    widest = max([m.call.w1.shape[1] for m in models] + [m.card.w1.shape[1] for m in models]
                 + [1])
    hidden = -(-widest // LANES) * LANES
    n = len(models)

    def stack(kind: str, width: int):
        w1, b1 = np.zeros((n, width, hidden), REAL), np.zeros((n, hidden), REAL)
        w2, b2 = np.zeros((n, hidden), REAL), np.zeros(n, REAL)
        for i, m in enumerate(models):
            net = getattr(m, kind)
            h = net.w1.shape[1]
            w1[i, :, :h], b1[i, :h], w2[i, :h], b2[i] = net.w1, net.b1, net.w2, net.b2[0]
        return [w1, b1, w2, b2]
    actions, n = n_actions(cr), cr.tables.n_seats
    tables = feature_tables(cr.tables)
    return LearntNets(tables, *stack("call", fs.call), *stack("card", fs.card),
                      _card_static(tables, models, hidden, fs.card_context, fs.card_action),
                      np.zeros((actions, max(fs.call, fs.card)), REAL),
                      np.zeros(max(fs.call, fs.card), np.int64),
                      np.zeros(actions, np.int64), np.zeros(hidden, REAL), np.zeros(hidden, REAL),
                      np.zeros(actions, REAL), np.zeros(fs.hand, REAL), np.zeros(n, np.uint64),
                      np.full(n, -1, np.int64), np.zeros((n, hidden), REAL),
                      np.zeros((n, cr.tables.suit_mask.shape[0], hidden), REAL),
                      np.zeros(LANES, REAL))


def _card_static(t: FeatureTables, models: list, hidden: int, at: int, size: int) -> np.ndarray:
    """[model, order, card, hidden]: each card's `card_static` features in each card order,
    through the card models' first layer (its rows from `at`; in double precision, then
    single)."""
    n_orders = t.suit_mask.shape[0]
    x = np.zeros((n_orders, t.n_cards, size))
    for o in range(n_orders):
        for c in range(t.n_cards):
            card_static.py_func(t, o, c, x[o, c], 0)
    parts = np.zeros((len(models), n_orders, t.n_cards, hidden), REAL)
    for i, m in enumerate(models):
        w1 = m.card.w1[at:at + size]
        parts[i, :, :, :w1.shape[1]] = x @ w1
    return parts


@kernel_jit(inline='always')
def _add_rows(w1, i, xrow, lo, hi, acc, nonzero, shift=0):
    """acc += xrow[f] * w1[i, f + shift] for the non-zero xrow[f], lo <= f < hi: four rows at
    a time, ((r0 + r1) + (r2 + r3)) added to acc, then the rest one by one, each in the order
    of f (elementwise, so the sum does not depend on how the machine vectorizes it). Four rows
    a pass: acc goes through memory once for four rows, where each row's addition waited for
    the last one's store. The non-zero features are listed first without a branch: which are
    0 follows no pattern a branch predictor could learn."""
    n = 0
    for f in range(lo, hi):
        nonzero[n] = f
        n += xrow[f] != 0.0
    hidden = acc.shape[0]
    for j in range(0, n - 3, 4):
        f0, f1, f2, f3 = nonzero[j], nonzero[j + 1], nonzero[j + 2], nonzero[j + 3]
        v0, v1, v2, v3 = xrow[f0], xrow[f1], xrow[f2], xrow[f3]
        r0, r1 = w1[i, f0 + shift], w1[i, f1 + shift]
        r2, r3 = w1[i, f2 + shift], w1[i, f3 + shift]
        for h in range(hidden):
            acc[h] += (v0 * r0[h] + v1 * r1[h]) + (v2 * r2[h] + v3 * r3[h])
    for j in range(n - n % 4, n):
        f = nonzero[j]
        v = xrow[f]
        row = w1[i, f + shift]
        for h in range(hidden):
            acc[h] += v * row[h]


@kernel_jit(inline='always')
def _score_cards(ln, i, o, n_ctx, m):
    """ln.score[j] for the feature rows ln.x[:m] of the cards ln.legal[:m] by card model i
    (context: the first n_ctx features, read from row 0; each card's features of the order o
    alone from ln.card_static, the rest from its row)."""
    w1 = ln.card_w1
    hidden, width = w1.shape[2], w1.shape[1]
    for h in range(hidden):
        ln.pre_ctx[h] = ln.card_b1[i, h]
    _add_rows(w1, i, ln.x[0], 0, n_ctx, ln.pre_ctx, ln.nonzero)
    out = ln.card_w2[i]
    for j in range(m):
        static = ln.card_static[i, o, ln.legal[j]]
        for h in range(hidden):
            ln.pre[h] = ln.pre_ctx[h] + static[h]
        _add_rows(w1, i, ln.x[j], n_ctx, width, ln.pre, ln.nonzero)
        ln.score[j] = _output(ln, out, ln.card_b2[i])


@kernel_jit(inline='always')
def _output(ln, out, bias):
    """The score of the hidden layer's input ln.pre: bias + out · relu(ln.pre). (Indexed by
    block and lane, both counted up from 0: the compiler then knows no index is negative and
    adds a block's lanes in one vector instruction.)"""
    for k in range(LANES):
        ln.lanes[k] = ZERO
    for b in range(ln.pre.shape[0] // LANES):
        for k in range(LANES):
            p = ln.pre[b * LANES + k]
            ln.lanes[k] += (p if p > ZERO else ZERO) * out[b * LANES + k]
    half = LANES // 2
    while half:  # the partial sums pairwise, halves at a time: a fixed order, a short chain
        for k in range(half):
            ln.lanes[k] += ln.lanes[k + half]
        half //= 2
    return bias + ln.lanes[0]


@kernel_jit(inline='always')
def _first_best(ln, m):
    best = 0
    for j in range(1, m):
        if ln.score[j] > ln.score[best]:
            best = j
    return best


@kernel_jit(inline='always')
def _clear(ln, m, width):
    for j in range(m):
        for f in range(width):
            ln.x[j, f] = 0.0


@kernel_jit(inline='always')
def _hand_parts(ln, t, i, own, seat, n_pub, n):
    """Keeps in ln.hand_ctx[seat] and ln.hand_bid[seat] the hidden layer's parts of hand own's
    summaries, by call model i: in the context (its summaries follow the n_pub public
    features) and in a bid in each order (after the n context features and the call codes);
    made anew only when the seat's hand or model is not the one kept."""
    if ln.hand_own[seat] == own and ln.hand_model[seat] == i:
        return
    w1 = ln.call_w1
    hidden, size = w1.shape[2], ln.hand_x.shape[0]
    bid_at = n + call_codes(t)
    for h in range(hidden):
        ln.hand_ctx[seat, h] = 0.0
    for o in range(t.suit_mask.shape[0]):
        for f in range(size):
            ln.hand_x[f] = 0.0
        hand_summary(t, o, own, ln.hand_x)
        _add_rows(w1, i, ln.hand_x, 0, size, ln.hand_ctx[seat], ln.nonzero, n_pub + o * size)
        for h in range(hidden):
            ln.hand_bid[seat, o, h] = 0.0
        _add_rows(w1, i, ln.hand_x, 0, size, ln.hand_bid[seat, o], ln.nonzero, bid_at)
    ln.hand_own[seat], ln.hand_model[seat] = own, i


@kernel_jit()
def learnt_call(ln, params, view, legal, m):
    """The index in legal[:m] (call codes) of the call the learnt bot makes seeing view: the
    context's public features and each call's code are read from the row, the hand's
    summaries from `_hand_parts`."""
    if m == 1:
        return 0
    t = ln.tables
    i = np.int64(params[LP_MODEL])
    w1 = ln.call_w1
    hidden = w1.shape[2]
    _clear(ln, 1, w1.shape[1])
    n_pub = call_public(t, view, ln.x[0])
    n = n_pub + t.suit_mask.shape[0] * ln.hand_x.shape[0]  # the context's size
    _hand_parts(ln, t, i, view.own, view.seat, n_pub, n)
    for h in range(hidden):
        ln.pre_ctx[h] = ln.call_b1[i, h]
    _add_rows(w1, i, ln.x[0], 0, n_pub, ln.pre_ctx, ln.nonzero)
    for h in range(hidden):
        ln.pre_ctx[h] += ln.hand_ctx[view.seat, h]
    out = ln.call_w2[i]
    for j in range(m):
        code = legal[j]
        for h in range(hidden):  # the code's one-hot feature: its row, times 1
            ln.pre[h] = ln.pre_ctx[h] + w1[i, n + code, h]
        o = call_order(t, code)
        if o >= 0:
            for h in range(hidden):
                ln.pre[h] += ln.hand_bid[view.seat, o, h]
        ln.score[j] = _output(ln, out, ln.call_b2[i])
    return _first_best(ln, m)


@kernel_jit()
def learnt_card(ln, params, view, allowed):
    """The card the learnt bot plays from allowed seeing view."""
    t = ln.tables
    m = 0
    for c in range(t.n_cards):
        if (allowed >> np.uint64(c)) & ONE:
            ln.legal[m] = c
            m += 1
    if m == 1:
        return ln.legal[0]
    i = np.int64(params[LP_MODEL])
    width = ln.card_w1.shape[1]
    _clear(ln, m, width)
    sit = card_situation(t, view)
    n = card_context(t, view, sit, ln.x[0])
    for j in range(m):
        card_dynamic(t, sit, ln.legal[j], ln.x[j], n)
    _score_cards(ln, i, sit[1], n, m)
    return ln.legal[_first_best(ln, m)]
