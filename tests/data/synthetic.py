"""Random-play results folders for the report's tests, written by the real writer: an experiment
(kopsim.experiments.spec) over the given rulesets, played by `run_experiment` into a results
folder exactly as `kopsim run` writes one (docs/results.md). Rulesets are passed as models, so a
test may play rules that exist only in memory.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from kopsim.experiments.run import run_experiment
from kopsim.experiments.spec import experiment_from_dict, variant_of
from kopsim.rules.model import Ruleset


def write_results(out: str | Path, variants: list[tuple[str, Ruleset]], hands: int,
                  seed: int = 1, chunk: int | None = None, bots="random",
                  experiment: dict | None = None) -> Path:
    """Play `hands` deals of every (label, rules) variant on the same deals (each ruleset's own
    sessions included) into the results folder `out`; `experiment` may set its name and
    description."""
    about = {"name": "synthetic", "description": "synthetic random-play results",
             **(experiment or {})}
    placeholder = experiment_from_dict({"name": "synthetic", "deals": hands, "seed": seed,
                                        "bots": bots, "sessions": True, "variants": ["kop"]},
                                       chunk=chunk)
    exp = dataclasses.replace(
        placeholder, name=about["name"], description=about["description"],
        variants=[variant_of(label, rules, rules.name, {}, sessions=True)
                  for label, rules in variants])
    run_experiment(exp, out)
    return Path(out)
