"""The batch kernel and the kernel bots' decisions as numba builds them: no reference counting.

They are compiled by `kopsim.engine.jit.kernel_jit`, without numba's reference counts, which
otherwise cost two atomic instructions per array per helper call (the heuristic line-up ran 60%
slower with them). Only the machine code shows a count that creeps back, not any value."""

import numba
import numpy as np
import pytest
from numba import njit

from kopsim import load_ruleset
from kopsim.bots import bot_spec, endgame, ev, heuristic
from kopsim.bots.calibrate import prepare
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


@pytest.mark.parametrize("kernel_name, bot", [("_play_batch", "heuristic"),
                                              ("_play_batch_ev", {"name": "ev", "deals": 2000,
                                                                  "rounds": 1})])
def test_every_form_of_seat_bot_calls_the_same_kernel_build(monkeypatch, kernel_name, bot):
    """numba builds a kernel per argument type, and a read-only array is a type of its own: a
    seat_bot broadcast from one row once made a second 40-second build of each kernel."""
    cr = compiled(load_ruleset("kop"))
    seeds = np.arange(8, dtype=np.int64)
    pair = [bot_spec(bot), bot_spec("random")]
    prepare(cr, pair)  # the ev table learnt beforehand: its calibration plays in the kernel too
    types = []
    monkeypatch.setattr(kernel, kernel_name, lambda *args: types.append(numba.typeof(args)))
    monkeypatch.setattr(kernel, "compile_once", lambda dispatcher, args: None)
    kernel.play_batch(cr, seeds, seeds % 4, bots=pair[:1])  # broadcast: read-only
    kernel.play_batch(cr, seeds, seeds % 4, bots=pair * 2)  # bot s in seat s, tiled
    kernel.play_batch(cr, seeds, seeds % 4, bots=pair, seat_bot=np.array([0, 1, 0, 1]))  # copied
    assert len(types) == 3 and types[0] == types[1] == types[2]
