"""The learnt bot's decisions, compiled: the batch kernel's learnt kind, and `LearntBot.act` in
the reference engine, through the very same calls (so both engines decide alike).

A decision writes the features of its legal actions (`kopsim.bots.features`) and scores each
with the bot's network: the decision's context enters the hidden layer once, each action's own
features after it, and only the features that are not 0 are read (most are one-hot). The
legal action of the highest score is taken, the first of equal ones: calls in the order the
kernel lists them, cards in card order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE
from ..engine.jit import kernel_jit
from .features import (FeatureTables, call_action, call_context, card_action, card_context,
                       card_situation, feature_sizes, feature_tables)

LP_MODEL = 0  # a learnt bot's kernel parameter row: the index of its models in LearntNets
# the nets' numbers in play: single precision halves what a decision reads and doubles what a
# vector instruction holds; the models are trained and stored in double precision
REAL = np.float32


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
    x: np.ndarray  # [action, feature] the decision's feature rows
    nonzero: np.ndarray  # [feature] which features of a row are not 0
    legal: np.ndarray  # [action] the legal cards of a card decision
    pre_ctx: np.ndarray  # [hidden] the context's part of the hidden layer
    pre: np.ndarray  # [hidden]
    score: np.ndarray  # [action]


def learnt_nets(cr, models: list) -> LearntNets:
    """The nets of `models` (LearntModels, in line-up order), stacked for the kernel; with no
    models, empty nets (the kernel holds them all the same)."""
    fs = feature_sizes(cr.tables)
    hidden = max([m.call.w1.shape[1] for m in models] + [m.card.w1.shape[1] for m in models]
                 + [1])
    n = len(models)

    def stack(kind: str, width: int):
        w1, b1 = np.zeros((n, width, hidden), REAL), np.zeros((n, hidden), REAL)
        w2, b2 = np.zeros((n, hidden), REAL), np.zeros(n, REAL)
        for i, m in enumerate(models):
            net = getattr(m, kind)
            h = net.w1.shape[1]
            w1[i, :, :h], b1[i, :h], w2[i, :h], b2[i] = net.w1, net.b1, net.w2, net.b2[0]
        return [w1, b1, w2, b2]
    actions = max(cr.n_cards // 4, len(cr.call_names))
    return LearntNets(feature_tables(cr.tables), *stack("call", fs.call),
                      *stack("card", fs.card),
                      np.zeros((actions, max(fs.call, fs.card)), REAL),
                      np.zeros(max(fs.call, fs.card), np.int64),
                      np.zeros(actions, np.int64), np.zeros(hidden, REAL), np.zeros(hidden, REAL),
                      np.zeros(actions, REAL))


@kernel_jit(inline='always')
def _add_rows(w1, i, xrow, lo, hi, acc, nonzero):
    """acc += xrow[f] * w1[i, f] for the non-zero xrow[f], lo <= f < hi, in the order of f
    (elementwise, so the sum does not depend on how the machine vectorizes it). The non-zero
    features are listed first without a branch: which are 0 follows no pattern a branch
    predictor could learn."""
    n = 0
    for f in range(lo, hi):
        nonzero[n] = f
        n += xrow[f] != 0.0
    hidden = acc.shape[0]
    for j in range(n):
        f = nonzero[j]
        v = xrow[f]
        row = w1[i, f]
        for h in range(hidden):
            acc[h] += v * row[h]


@kernel_jit(inline='always')
def _score(w1, b1, w2, b2, i, ln, n_ctx, width, m):
    """ln.score[j] for the feature rows ln.x[:m] (context: the first n_ctx features, read from
    row 0) by model i of the nets given."""
    hidden = w1.shape[2]
    for h in range(hidden):
        ln.pre_ctx[h] = b1[i, h]
    _add_rows(w1, i, ln.x[0], 0, n_ctx, ln.pre_ctx, ln.nonzero)
    out = w2[i]
    for j in range(m):
        for h in range(hidden):
            ln.pre[h] = ln.pre_ctx[h]
        _add_rows(w1, i, ln.x[j], n_ctx, width, ln.pre, ln.nonzero)
        s = b2[i]
        for h in range(hidden):
            if ln.pre[h] > 0.0:
                s += ln.pre[h] * out[h]
        ln.score[j] = s


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


@kernel_jit()
def learnt_call(ln, params, view, legal, m):
    """The index in legal[:m] (call codes) of the call the learnt bot makes seeing view."""
    if m == 1:
        return 0
    t = ln.tables
    i = np.int64(params[LP_MODEL])
    width = ln.call_w1.shape[1]
    _clear(ln, m, width)
    n = call_context(t, view, ln.x[0])
    for j in range(m):
        call_action(t, view, legal[j], ln.x[j], n)
    _score(ln.call_w1, ln.call_b1, ln.call_w2, ln.call_b2, i, ln, n, width, m)
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
        card_action(t, sit, ln.legal[j], ln.x[j], n)
    _score(ln.card_w1, ln.card_b1, ln.card_w2, ln.card_b2, i, ln, n, width, m)
    return ln.legal[_first_best(ln, m)]
