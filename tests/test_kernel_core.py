"""The compiled core: kernel bot kinds are declared, and the solver prices finished hands exactly
as the reference engine does."""

from __future__ import annotations

import numpy as np
import pytest

from kopsim.batch import play_batch
from kopsim.bots import BotSpec, bot_spec
from kopsim.bots.heuristic import HeuristicBot, HeuristicParams
from kopsim.bots.kernel import KERNEL_KINDS
from kopsim.compiled import compile_rules
from kopsim.ruleset import load_ruleset


class _UndeclaredKindBot(HeuristicBot):
    """A plug-in that claims a kernel kind nobody declared (it would once have played the
    heuristic's cards without a word)."""

    name = "undeclared-kind"
    kernel_kind = max(KERNEL_KINDS) + 1


def test_a_kernel_kind_that_is_not_declared_is_refused():
    spec = BotSpec(_UndeclaredKindBot, HeuristicParams(), "undeclared-kind")
    seeds = np.arange(4)
    with pytest.raises(ValueError, match="not a declared kernel kind"):
        play_batch(load_ruleset("kop"), seeds, seeds % 4, bots=[spec])


def test_every_declared_kind_is_a_bot_that_names_it():
    for kind, cls in KERNEL_KINDS.items():
        assert cls.kernel_kind == kind
        assert bot_spec(cls.name).kernel_kind == kind
