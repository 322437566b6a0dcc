"""Training the `learnt` bot's models: small networks that score each legal action of a decision.

A model maps an action's feature row (`kopsim.bots.features`) through one hidden layer of
rectified units to a score; a decision takes the legal action of the highest score. It is
trained on teacher data (`kopsim.bots.teacher`) to give pimc's choice the highest probability
under the softmax of the scores over the decision's legal actions (cross-entropy), the target
softened towards pimc's values: a card pimc values nearly as high as its choice is not as wrong
as a card that loses the hand.

Plain numpy, on purpose: a network this small trains in a minute on two cores, and a library
that could (torch, jax) would add hundreds of megabytes to the install for it. Everything is
drawn from the training seed, so the same data and seed give the same model bytes.
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from .features import call_features, card_features, feature_sizes, feature_tables
from .teacher import KIND_CALL, Decisions, view_of


class TrainParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    hidden: int = Field(64, ge=1, le=1024, description="hidden units of each model")
    epochs: int = Field(30, ge=1, le=1000, description="passes over the teacher data")
    batch: int = Field(256, ge=8, le=65536, description="decisions per step")
    rate: float = Field(0.003, gt=0, le=1.0, description="Adam's step size")
    soft: float = Field(0.5, ge=0, le=1.0, description="weight of pimc's values in the target "
                                                          "(0: its choice alone)")
    temperature: float = Field(0.1, gt=0, description="of the values' softmax, as a share "
                                                         "of the decision's spread of values")
    weighted: bool = Field(True, description="weigh each decision by its spread of pimc's "
                                             "values: a card that can cost a zolo counts "
                                             "more than one that can cost a point")
    seed: int = Field(0, description="of the initial weights and the order of the data")


class Model(NamedTuple):
    """score(x) = w2 · relu(x @ w1 + b1) + b2, x an action's feature row."""

    w1: np.ndarray  # float64 [features, hidden]
    b1: np.ndarray  # [hidden]
    w2: np.ndarray  # [hidden]
    b2: np.ndarray  # [1]

    def sha256(self) -> str:
        h = hashlib.sha256()
        for a in self:
            h.update(np.ascontiguousarray(a, np.float64).tobytes())
        return h.hexdigest()


class Examples(NamedTuple):
    """Decisions of one kind as padded arrays (A: the most legal actions of any)."""

    x: np.ndarray  # float32 [decision, A, features]
    legal: np.ndarray  # bool [decision, A]
    chosen: np.ndarray  # int64 [decision]
    values: np.ndarray  # float64 [decision, A] (0 beyond the legal ones)


def examples(cr, d: Decisions, kind: int) -> Examples:
    """The teacher rows of `kind` (KIND_CALL or KIND_CARD) as feature arrays."""
    fs = feature_sizes(cr.tables)
    t = feature_tables(cr.tables)
    width = fs.call if kind == KIND_CALL else fs.card
    rows = np.flatnonzero(d.kind == kind)
    a = int(d.n_legal[rows].max()) if len(rows) else 1
    x = np.zeros((len(rows), a, width), np.float32)
    scratch = np.zeros((a, width))
    fill = call_features if kind == KIND_CALL else card_features
    for i, r in enumerate(rows):
        m = int(d.n_legal[r])
        scratch[:] = 0.0
        fill(t, view_of(d, r), d.legal[r, :m].astype(np.int64), m, scratch)
        x[i, :m] = scratch[:m]
    legal = np.arange(a)[None, :] < d.n_legal[rows][:, None]
    values = np.where(legal, np.nan_to_num(d.values[rows, :a]), 0.0)
    return Examples(x, legal, d.chosen[rows].astype(np.int64), values)


def scores(model: Model, x: np.ndarray) -> np.ndarray:
    """[..., action] scores of feature rows x [..., action, features]."""
    h = np.maximum(x @ model.w1 + model.b1, 0.0)
    return h @ model.w2 + model.b2[0]


def accuracy(model: Model, ex: Examples) -> float:
    """The share of decisions on which the model picks pimc's action."""
    s = np.where(ex.legal, scores(model, ex.x), -np.inf)
    return float((s.argmax(axis=1) == ex.chosen).mean()) if len(ex.chosen) else 1.0


def targets(ex: Examples, params: TrainParams) -> np.ndarray:
    """[decision, action] the probabilities the model is trained towards."""
    n, a = ex.legal.shape
    hard = np.zeros((n, a))
    hard[np.arange(n), ex.chosen] = 1.0
    if params.soft == 0:
        return hard
    v = np.where(ex.legal, ex.values, -np.inf)
    spread = np.where(ex.legal, ex.values, np.nan)
    width = np.nanmax(spread, axis=1) - np.nanmin(spread, axis=1)
    scale = params.temperature * np.maximum(width, 1e-9)[:, None]
    z = np.exp((v - v.max(axis=1, keepdims=True)) / scale)
    soft = z / z.sum(axis=1, keepdims=True)
    return (1 - params.soft) * hard + params.soft * soft


def _init(n_features: int, params: TrainParams, rng) -> list[np.ndarray]:
    h = params.hidden
    return [rng.normal(0, np.sqrt(2.0 / n_features), (n_features, h)), np.zeros(h),
            rng.normal(0, np.sqrt(1.0 / h), h), np.zeros(1)]


def weights(ex: Examples, params: TrainParams) -> np.ndarray:
    """[decision] the weight of each decision in the loss, 1 on average."""
    if not params.weighted or not len(ex.chosen):
        return np.ones(len(ex.chosen))
    hi = np.where(ex.legal, ex.values, -np.inf).max(axis=1)
    lo = np.where(ex.legal, ex.values, np.inf).min(axis=1)
    spread = hi - lo
    mean = spread.mean()
    return spread / mean if mean > 0 else np.ones(len(ex.chosen))


def _gradients(w, x, legal, target):
    """(loss, gradients) of the cross-entropy on one batch (target: weighted probabilities)."""
    w1, b1, w2, b2 = w
    pre = x @ w1 + b1  # [n, a, h]
    h = np.maximum(pre, 0.0)
    s = np.where(legal, h @ w2 + b2[0], -np.inf)
    s = s - s.max(axis=1, keepdims=True)
    p = np.exp(s)
    p /= p.sum(axis=1, keepdims=True)
    n = x.shape[0]
    loss = -float(np.sum(target * np.where(legal, np.log(np.maximum(p, 1e-300)), 0.0))) / n
    ds = np.where(legal, p * target.sum(axis=1, keepdims=True) - target, 0.0) / n  # [n, a]
    dh = ds[..., None] * w2 * (pre > 0)
    g = [np.einsum("naf,nah->fh", x, dh), dh.sum(axis=(0, 1)), np.einsum("nah,na->h", h, ds),
         np.array([ds.sum()])]
    return loss, g


def train(ex: Examples, params: TrainParams, progress=None) -> Model:
    """A model trained on ex (Adam; `progress(epoch, loss)` after each epoch)."""
    rng = np.random.default_rng(params.seed)
    w = _init(ex.x.shape[2], params, rng)
    m = [np.zeros_like(a) for a in w]
    v = [np.zeros_like(a) for a in w]
    target = targets(ex, params) * weights(ex, params)[:, None]
    x64 = ex.x.astype(np.float64)
    step = 0
    for epoch in range(params.epochs):
        order = rng.permutation(len(ex.chosen))
        total = 0.0
        for start in range(0, len(order), params.batch):
            b = order[start:start + params.batch]
            loss, g = _gradients(w, x64[b], ex.legal[b], target[b])
            total += loss * len(b)
            step += 1
            for i in range(4):
                m[i] = 0.9 * m[i] + 0.1 * g[i]
                v[i] = 0.999 * v[i] + 0.001 * g[i] ** 2
                w[i] -= (params.rate * (m[i] / (1 - 0.9 ** step))
                         / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8))
        if progress is not None:
            progress(epoch, total / max(len(order), 1))
    return Model(*w)
