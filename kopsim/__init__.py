"""kopsim: card-game rulesets written in TOML, played by bots at scale, reported with polars.

The stages, in the order data flows: a ruleset is loaded, checked and compiled (`kopsim.rules`),
played (`kopsim.engine`, which knows no bot) by the bots seated at it (`kopsim.bots`), written as
hand records (`kopsim.records`), run as an experiment into a results folder
(`kopsim.experiments`) and read back for analysis (`kopsim.report`); a stage imports only the
stages before it. The names below are
the short way in; everything else lives in those packages.

    >>> import tempfile
    >>> import kopsim
    >>> rules = kopsim.load_ruleset("kop")
    >>> hands = kopsim.play_hands(rules, 1000, seed=7, bots=["heuristic"])
    >>> len(hands), bool(abs(hands.payouts.sum(axis=1)).max() < 1e-9)  # every hand is zero-sum
    (1000, True)
    >>> kopsim.batch_record(hands, 0).contract in rules.contracts
    True
    >>> exp = kopsim.experiment_from_dict({"name": "api-example", "deals": 4096, "seed": 1,
    ...     "bots": "random", "variants": [{"ruleset": "kop"}, {"ruleset": "baska"}]})
    >>> out = tempfile.TemporaryDirectory()
    >>> summary = kopsim.run_experiment(exp, out.name)
    >>> results = kopsim.load_results(out.name)
    >>> [v.label for v in results.variants], results.hands().select("variant").collect().height
    (['kop', 'baska'], 8192)
    >>> folder, files, analysis = kopsim.build_report(out.name, out=out.name + "/report")
    >>> sorted(f.name for f in files if f.suffix in (".html", ".md"))
    ['index.html', 'report.md']
    >>> out.cleanup()

Importing kopsim is cheap: numba, numpy and polars load when a name below is first used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from ._compiled_cache import use_source_keyed_cache

use_source_keyed_cache()

if TYPE_CHECKING:
    from .engine.kernel import BatchResult
    from .rules.model import Ruleset

__all__ = ["Ruleset", "load_ruleset", "play_hands", "batch_record", "load_experiment",
           "experiment_from_dict", "run_experiment", "load_results", "build_report"]

# public name -> the module that defines it, imported on first use
_HOMES = {
    "Ruleset": ".rules.model",
    "load_ruleset": ".rules.load",
    "batch_record": ".records.format",
    "load_experiment": ".experiments.spec",
    "experiment_from_dict": ".experiments.spec",
    "run_experiment": ".experiments.run",
    "load_results": ".report.read",
    "build_report": ".report",
}


def play_hands(rules: Ruleset, hands: int, seed: int = 0, bots: list | None = None
               ) -> BatchResult:
    """Play hands 0..hands-1 of a run seeded `seed` in the compiled kernel; hand i is dealt by
    seat i % n at a table of n seats (the ruleset's deck.players). `bots` are bot names or
    tables ({"name": "heuristic", ...}), one for every seat
    or one per seat (default: random). `batch_record(result, i)` is hand i as a hand record."""
    import numpy as np

    from .bots import bot_spec
    from .bots.seated import play_batch
    from .engine.layout import hand_seeds

    specs = [bot_spec(b, f"bots[{i}]") for i, b in enumerate(bots or ["random"])]
    return play_batch(rules, hand_seeds(seed, 0, hands), np.arange(hands) % rules.deck.players,
                      np.arange(hands), bots=specs)


def __dir__() -> list[str]:
    """The lazy names too, so help(kopsim) and tab completion show the whole API."""
    return sorted(set(globals()) | set(__all__))


def __getattr__(name: str):
    """A public name's module is imported on its first use, which keeps `import kopsim` cheap."""
    if name in _HOMES:
        return getattr(importlib.import_module(_HOMES[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
