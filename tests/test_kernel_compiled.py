"""The batch kernel and the kernel bots' decisions as numba builds them: no reference counting.

They are compiled by `kopsim.engine.jit.kernel_jit`, without numba's reference counts, which
otherwise cost two atomic instructions per array per helper call (the heuristic line-up ran 60%
slower with them). Only the machine code shows a count that creeps back, not any value."""

import numpy as np
from numba import njit

from kopsim import load_ruleset
from kopsim.bots import bot_spec, endgame, ev, heuristic
from kopsim.engine import kernel, loop, steps
from kopsim.rules.cache import compiled

COMPILED_CORE = [loop._play_batch, loop._play_batch_ev, steps.eval_preds, heuristic.heur_call,
                 heuristic.relations,
                 heuristic.heur_card, heuristic.strength, ev.ev_call, ev.hand_key, ev.call_order,
                 endgame._solve_endgame]


def test_the_kernel_and_the_kernel_bots_are_compiled_without_reference_counts():
    for dispatcher in COMPILED_CORE:
        assert dispatcher.targetoptions.get("_nrt") is False, dispatcher.py_func.__qualname__


def test_the_kernel_machine_code_holds_no_reference_count_and_plays_the_same():
    cr = compiled(load_ruleset("kop"))
    seeds = np.arange(50, dtype=np.int64)
    dealers = seeds % 4
    played = kernel.play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    signature = loop._play_batch.signatures[0]
    # compiled afresh with the kernel's options (numba shows no machine code of cached functions)
    options = {k: v for k, v in loop._play_batch.targetoptions.items() if k not in ("cache", "nopython")}
    fresh = njit(**options)(loop._play_batch.py_func)
    fresh.compile(signature)
    body = fresh.inspect_llvm(signature)
    assert "_play_batch" in body and "NRT_incref" not in body and "NRT_decref" not in body
    again = kernel.play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    assert (again.cards == played.cards).all() and (again.payouts == played.payouts).all()
