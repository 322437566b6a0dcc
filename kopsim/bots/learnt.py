"""The `learnt` bot: calls and card play learnt for the ruleset being played, from pimc or rollouts.

Two small networks (`kopsim.bots.learn`), one scoring calls and one scoring cards, each trained
on teacher data: `kopsim.bots.teacher` (pimc bots' decisions over fresh deals of this
ruleset, with pimc's value of every legal action) or `kopsim.bots.rollout` (a fast line-up's
decisions, each legal action valued by playing it on in sampled worlds). A decision reads
the seat's view through `kopsim.bots.features` and takes the legal action of the highest
score (the first of equal ones). The models are trained on first use and cached by the
ruleset's sha256 and the parameters, in the user cache folder (`calibrate.cache_dir()`), each
file checked against its own sha256; the same parameters give the same model bytes whatever
the jobs.

Both engines decide by the same compiled calls (`kopsim.bots.learnt_kernel`): the batch kernel
as its learnt kind, `LearntBot.act` in the reference engine with the seat's observation read
into the view the kernel hands over.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zipfile
from pathlib import Path
from typing import Annotated, Any, Callable, Literal, NamedTuple

import numpy as np
from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..engine.codes import BOT_LEARNT
from ..engine.jit import built_call
from ..engine.reference import Observation
from ..rules.cache import compiled, table
from .learn import Model, TrainParams, accuracy, examples, train
from .learnt_kernel import learnt_call, learnt_card, learnt_nets
from .pimc import searchable
from .pimc_kernel import observed
from .rollout import RolloutParams, rollout_decisions
from .teacher import KIND_CALL, KIND_CARD, TeacherParams, teacher_decisions

VERSION = 2  # of the features and training: a new one invalidates every cached model


def _rollout_bot_table(value):
    """A table names ev or heuristic with that bot's own parameters (checked as any bot's
    are), its keys sorted so that the same bot always gives the same cache key."""
    if not isinstance(value, dict):
        return value
    if value.get("name") not in ("ev", "heuristic"):
        raise ValueError("a rollout bot is ev or heuristic, by name or as a table "
                         "{name = \"ev\", ...}")
    from ..errors import InputError
    from . import bot_spec

    try:
        bot_spec(value, value["name"])
    except InputError as e:
        raise ValueError("; ".join(str(p) for p in e.problems)) from None
    return dict(sorted(value.items()))


RolloutBot = Annotated[Literal["ev", "heuristic"] | dict[str, Any],
                       AfterValidator(_rollout_bot_table)]


class LearntParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    deals: int = Field(20_000, ge=10, le=10_000_000, description="teacher deals")
    teacher: Literal["pimc", "rollout"] = Field(
        "rollout", description="rollout (each action played on by fast bots in sampled "
                               "worlds: affordable on 32 cards, and the stronger teacher on "
                               "kop) or pimc (double-dummy values of sampled worlds)")
    samples: int = Field(24, ge=1, le=4096, description="pimc's worlds per card")
    auction_samples: int = Field(24, ge=1, le=4096, description="pimc's worlds per call")
    worlds: int = Field(16, ge=1, le=4096, description="rollout: worlds per decision")
    rollout_bot: RolloutBot = Field(
        "ev", description="rollout: the bot that plays the first round's deals and worlds on "
                          "(ev or heuristic; a table such as {name = \"ev\", deals = 2000} "
                          "gives its parameters)",
        json_schema_extra={"kind": "name or table"})
    rounds: int = Field(1, ge=1, le=16, description="rollout: rounds; each after the first "
                                                    "plays on with the last round's models")
    hidden: int = Field(64, ge=1, le=1024, description="hidden units of each network")
    epochs: int = Field(20, ge=1, le=1000, description="training passes over the teacher data")
    seed: int = Field(0, description="of the teacher deals and the training")

    def key_json(self) -> str:
        """The parameters that shape the models: the other teacher's are left out (so adding
        the rollout teacher kept the keys of every model pimc taught)."""
        other = (("teacher", "worlds", "rollout_bot", "rounds") if self.teacher == "pimc"
                 else ("samples", "auction_samples"))
        return self.model_dump_json(exclude=set(other))

    def rollout(self, bot: dict) -> RolloutParams:
        return RolloutParams(deals=self.deals, seed=self.seed, worlds=self.worlds, bot=bot)

    def rollout_bot_spec(self) -> dict:
        """The bot that plays this round's deals and worlds on: the last round's learnt one,
        or in the first round the rollout_bot."""
        if self.rounds == 1:
            return (dict(self.rollout_bot) if isinstance(self.rollout_bot, dict)
                    else {"name": self.rollout_bot})
        return {"name": "learnt", **self.model_dump(exclude_defaults=True),
                "rounds": self.rounds - 1}

    def pimc_teacher(self) -> TeacherParams:
        return TeacherParams(deals=self.deals, seed=self.seed, samples=self.samples,
                             auction_samples=self.auction_samples)

    def training(self) -> TrainParams:
        return TrainParams(hidden=self.hidden, epochs=self.epochs, seed=self.seed)


class LearntModels(NamedTuple):
    call: Model
    card: Model
    key: str  # the cache key: version, ruleset sha256, parameters
    sha256: str  # of both models' bytes
    summary: dict | None = None  # how the training went (`training_summary`); not hashed


# core-seconds of pimc teacher play per deal, at 24 + 24 samples, by deck size (measured:
# kop 20,000 deals in 88 s on 2 cores; schafkopf-kurz 4,000 deals at 12 + 12 samples in
# 1,408 s on one), and seconds of training per decision and epoch at 64 hidden units (kop:
# about a decision per card dealt, 20 epochs in 90 s). The 32-card figure is a guess (not
# measured): two more tricks make each position dearer to solve.
TEACHER_RATE = {16: 0.0088, 24: 0.7, 32: 5.0}
TRAIN_RATE = 14e-6
# core-seconds of rollout teacher play per deal and world, by deck size, with the ev line-up
# (measured at 16 worlds: kop 128 deals in 1.0 s, schafkopf-kurz in 1.7 s, schafkopf in 3.0 s)
ROLLOUT_RATE = {16: 0.0005, 24: 0.0009, 32: 0.0015}


_MEMORY: dict[str, LearntModels] = {}


def cache_key(cr, params: LearntParams) -> str:
    text = f"learnt v{VERSION}|{cr.sha256}|{params.key_json()}"
    return hashlib.sha256(text.encode()).hexdigest()


def _digest(call: Model, card: Model) -> str:
    return hashlib.sha256((call.sha256() + card.sha256()).encode()).hexdigest()


def learnt_models(cr, params: LearntParams, jobs: int = 1,
                  say: Callable[[str], None] | None = None) -> LearntModels:
    """The models of these rules and parameters: from memory, the cache folder, or trained now
    (and stored), which `say` announces."""
    from .calibrate import cache_dir

    key = cache_key(cr, params)
    if key in _MEMORY:
        return _MEMORY[key]
    path = cache_dir() / "learnt" / f"{key}.npz"
    found = _load(path, key)
    if found is None:
        found = _learn(cr, params, jobs, say, key)
        _save(path, found)
    _MEMORY[key] = found
    return found


def is_cached(cr, params: LearntParams) -> bool:
    """Whether these rules' and parameters' models are at hand without training."""
    from .calibrate import cache_dir

    key = cache_key(cr, params)
    return key in _MEMORY or _load(cache_dir() / "learnt" / f"{key}.npz", key) is not None


def _learn(cr, params: LearntParams, jobs: int, say, key: str) -> LearntModels:
    """Teacher play, then both networks' training, each with a progress bar (rate and ETA) on
    stderr when `say` is given and progress is shown."""
    from ..terminal import progress_bar

    if params.teacher == "rollout":
        _prepare_rollout_bot(cr, params, jobs, say)
    start = time.perf_counter()
    if say:
        by = ("pimc" if params.teacher == "pimc" else
              f"rollouts of {params.rollout_bot_spec()['name']} (round {params.rounds})")
        say(f"learning from {by} for {cr.rules.name}: {params.deals:,} teacher deals, "
            f"{jobs} job{'s' * (jobs != 1)}, about {estimated_seconds(cr, params, jobs):,.0f} s")
    with progress_bar(params.deals, "teacher play", " deals", force=False if not say else None
                      ) as bar:
        d = _teacher_decisions(cr, params, jobs, bar.update)
    played = time.perf_counter() - start
    if say:
        say(f"  {len(d):,} decisions in {played:.0f} s; training")
    calls, cards = examples(cr, d, KIND_CALL), examples(cr, d, KIND_CARD)
    with progress_bar(2 * params.epochs, "training", " epochs", force=False if not say else None
                      ) as bar:
        call = train(calls, params.training(), lambda epoch, loss: bar.update(1))
        card = train(cards, params.training(), lambda epoch, loss: bar.update(1))
    took = time.perf_counter() - start
    if say:
        say(f"  trained in {took:.0f} s")
    teacher = ("pimc's play" if params.teacher == "pimc" else
               f"rollouts of {params.rollout_bot_spec()['name']} (round {params.rounds})")
    summary = {"deals": params.deals, "teacher": teacher, "jobs": jobs,
               "call_decisions": len(calls.chosen),
               "card_decisions": len(cards.chosen), "call_agreement": accuracy(call, calls),
               "card_agreement": accuracy(card, cards), "teacher_seconds": round(played, 1),
               "seconds": round(took, 1)}
    return LearntModels(call, card, key, _digest(call, card), summary)


def _prepare_rollout_bot(cr, params: LearntParams, jobs: int, say) -> None:
    """The rollout line-up's tables or models, made before its play where the cache lacks
    them, so that the processes that play find them in the cache."""
    from . import bot_spec
    from .calibrate import prepare

    spec = bot_spec(params.rollout_bot_spec())
    if spec.cls is LearntBot:
        learnt_models(cr, spec.params, jobs, say)
    else:
        prepare(cr, [spec], jobs, say)


def _teacher_decisions(cr, params: LearntParams, jobs: int, advance):
    if params.teacher == "pimc":
        return teacher_decisions(cr.rules, params.pimc_teacher(), jobs, advance)
    return rollout_decisions(cr.rules, params.rollout(params.rollout_bot_spec()), jobs, advance)


def estimated_seconds(cr, params: LearntParams, jobs: int) -> float:
    """About how long training takes on this many jobs (teacher play shares the jobs, the
    networks' training does not)."""
    if params.teacher == "pimc":
        per_deal = TEACHER_RATE.get(cr.n_cards, TEACHER_RATE[32]) * (
            params.samples + params.auction_samples) / 48
    else:
        per_deal = ROLLOUT_RATE.get(cr.n_cards, ROLLOUT_RATE[32]) * params.worlds
    decisions = params.deals * cr.n_cards  # about: the cards with a choice, and the calls
    return (params.deals * per_deal / max(1, min(jobs, 64))
            + decisions * params.epochs * params.hidden / 64 * TRAIN_RATE)


def _save(path: Path, m: LearntModels) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    arrays = {f"{kind}_{i}": a for kind, model in (("call", m.call), ("card", m.card))
              for i, a in enumerate(model)}
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays, meta=np.array(json.dumps(
            {"key": m.key, "sha256": m.sha256, "summary": m.summary})))
    os.replace(tmp, path)


def _load(path: Path, key: str) -> LearntModels | None:
    """The cached models, or None if absent or not exactly what was stored for this key."""
    try:
        with np.load(path, allow_pickle=False) as z:
            call = Model(*(z[f"call_{i}"] for i in range(4)))
            card = Model(*(z[f"card_{i}"] for i in range(4)))
            meta = json.loads(str(z["meta"]))
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if meta.get("key") != key or _digest(call, card) != meta.get("sha256"):
        return None
    return LearntModels(call, card, key, meta["sha256"], meta.get("summary"))


class LearntBot:
    """Calls and cards by the networks learnt from rollouts (or pimc), in the batch kernel or
    the reference engine (the same compiled decisions)."""

    name = "learnt"
    summary = ("calls and card play learnt for the ruleset being played, from rollouts of fast "
               "bots (or from pimc)")
    Params = LearntParams
    kernel_kind = BOT_LEARNT
    cannot_play = staticmethod(searchable)  # its teachers (pimc's search) see two sides

    def __init__(self, params: LearntParams, hand_seed: int, seat: int, rules=None):
        self.params, self.seat, self.rules = params, seat, rules

    @staticmethod
    def kernel_params(params: LearntParams) -> list[float]:
        return [0.0]  # LP_MODEL: set by the line-up (`kernel.learnt_lineup`)

    def act(self, obs: Observation) -> str:
        legal = list(obs.legal_actions)
        if len(legal) == 1:
            return legal[0]
        cr = compiled(self.rules)
        nets = table(self.rules, ("learnt nets", self.params.model_dump_json()),
                     lambda: learnt_nets(cr, [learnt_models(cr, self.params)]))
        view = observed(cr, obs)
        row = np.zeros(1)
        if obs.phase == "play":
            allowed = 0
            for c in legal:
                allowed |= 1 << cr.card_index[c]
            return cr.cards[built_call(learnt_card, nets, row, view,
                                       np.uint64(allowed))]
        codes = np.array([cr.call_names.index(c) for c in legal], np.int64)
        return legal[built_call(learnt_call, nets, row, view, codes, len(codes))]

def prepare(cr, bots, jobs: int = 1, say: Callable[[str], None] | None = None,
            variant: str | None = None) -> list[LearntModels]:
    """The models of a line-up's learnt bots, trained before play where the cache lacks them
    (said, naming the variant), so that the processes that play find them in the cache."""
    name = cr.rules.name if variant in (None, cr.rules.name) else \
        f"variant {variant} (ruleset {cr.rules.name})"
    tell = None if say is None else (lambda m: say(m.replace(f"for {cr.rules.name}:",
                                                             f"for {name}:", 1)))
    return [learnt_models(cr, b.params, jobs, tell) for b in bots if b.cls is LearntBot]
