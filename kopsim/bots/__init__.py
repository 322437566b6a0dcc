"""Bots: registered by name with typed parameters, e.g. `{ name = "pimc", samples = 32 }`.

A bot is constructed per hand and seat as `Bot(params, hand_seed, seat, rules)` and answers
`act(observation) -> call or card`. It never receives the `State`, only `Observation`s, which hold
what its seat may know. A bot with a `kernel_kind` also runs inside the batch kernel, from the
same decision code; others (plug-ins written in plain Python) run through the reference engine.

Third-party bots register through the `kopsim.bots` entry-point group: the entry point names a
class with `name`, `Params` (a pydantic model), `kernel_kind = None` and `act`.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError

from ..errors import InputError, Problem, did_you_mean, plain_message
from .ev import EvBot
from .heuristic import HeuristicBot
from .learnt import LearntBot
from .pimc import CheatBot, PimcBot
from .random import RandomBot
from .split import SplitBot, split_lineup

REGISTRY: dict[str, type] = {b.name: b for b in (RandomBot, HeuristicBot, EvBot, PimcBot,
                                                 CheatBot, LearntBot, SplitBot)}


def register(cls: type) -> type:
    REGISTRY[cls.name] = cls
    return cls


def _load_plugins() -> None:
    try:
        eps = entry_points(group="kopsim.bots")
    except TypeError:  # pragma: no cover - Python < 3.10 API
        eps = entry_points().get("kopsim.bots", [])
    for ep in eps:
        if ep.name not in REGISTRY:
            REGISTRY[ep.name] = ep.load()


class BotSpec:
    """A bot name with validated parameters; `label` names it in results."""

    def __init__(self, cls: type, params: Any, label: str):
        self.cls, self.params, self.label = cls, params, label

    @property
    def name(self) -> str:
        return self.cls.name

    @property
    def kernel_kind(self) -> int | None:
        """The batch kernel's kind for this bot with these parameters (a class may say, by
        `kernel_kind_of(params)`), or None: it plays through the reference engine only."""
        by_params = getattr(self.cls, "kernel_kind_of", None)
        if by_params is not None:
            return by_params(self.params)
        return getattr(self.cls, "kernel_kind", None)

    def kernel_params(self) -> list[float]:
        return list(self.cls.kernel_params(self.params))

    def cannot_play(self, rules) -> str | None:
        """Why this bot cannot play the ruleset (a bot class may say: `cannot_play(rules)`, or
        by its parameters `cannot_play_of(params, rules)`), or None."""
        by_params = getattr(self.cls, "cannot_play_of", None)
        if by_params is not None:
            return by_params(self.params, rules)
        check = getattr(self.cls, "cannot_play", None)
        return check(rules) if check is not None else None

    def make(self, hand_seed: int, seat: int, rules=None):
        return self.cls(self.params, hand_seed, seat, rules)

    def __repr__(self) -> str:
        return f"BotSpec({self.label})"


def prepare_bots(cr, bots: list, jobs: int = 1, say=None, variant: str | None = None
                 ) -> dict[str, str]:
    """What a line-up's bots learn from the ruleset before they play (ev's table of call
    values, learnt's networks), learnt now where the cache lacks it: {bot label: sha256}."""
    from .calibrate import prepare as prepare_ev
    from .learnt import prepare as prepare_learnt
    from ..engine.codes import BOT_EV

    bots = split_lineup(bots)[0]  # a split bot's parts learn as themselves
    out = {b.label: t.sha256 for b, t in zip([b for b in bots if b.kernel_kind == BOT_EV],
                                             prepare_ev(cr, bots, jobs, say, variant))}
    learnt = [b for b in bots if b.cls is LearntBot]
    out.update({b.label: m.sha256 for b, m in zip(learnt, prepare_learnt(cr, bots, jobs, say,
                                                                         variant))})
    return out


def _parameter_problem(where: str, name: str, params: type, err: dict) -> Problem:
    """A bot parameter's error in kopsim's words; a misspelt one names the nearest."""
    key = ".".join(str(x) for x in err["loc"])
    if err["type"] == "extra_forbidden":
        known = list(params.model_fields)
        return Problem(where, key, f"{name} has no parameter {key!r}{did_you_mean(key, known)} "
                       f"(its parameters: {', '.join(known) or 'none'})")
    return Problem(where, key, plain_message(err))


def registered() -> dict[str, type]:
    """Every bot by name, the plug-ins' included."""
    _load_plugins()
    return dict(REGISTRY)


def bot_spec(spec: str | dict, where: str = "bot") -> BotSpec:
    """"random" or {name = "heuristic", zolo = 0.7, ...} -> BotSpec, with located errors."""
    _load_plugins()
    if isinstance(spec, str):
        spec = {"name": spec}
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise InputError([Problem(where, "name", "a bot is a name or a table with `name`")])
    data = dict(spec)
    name = data.pop("name")
    label = data.pop("label", None)
    cls = REGISTRY.get(name)
    if cls is None:
        raise InputError([Problem(where, "name", f"no bot named {name!r}"
                                  f"{did_you_mean(name, REGISTRY)} (known: "
                                  f"{', '.join(sorted(REGISTRY))}; `kopsim bots` lists them)")])
    try:
        params = cls.Params.model_validate(data)
    except ValidationError as e:
        raise InputError([_parameter_problem(where, name, cls.Params, err) for err in e.errors()])
    if label is None:
        shown = params.model_dump(exclude_defaults=True)
        label = name + ("" if not shown else
                        "(" + ", ".join(f"{k}={v}" for k, v in shown.items()) + ")")
    if getattr(cls, "sees_all", False) and "sees all" not in label:
        label += " [sees all hands]"
    return BotSpec(cls, params, label)
