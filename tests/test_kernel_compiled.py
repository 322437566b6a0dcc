"""The batch kernel and the kernel bots' decisions as numba builds them: no reference counting.

They are compiled by `kopsim.engine.jit.kernel_jit`, without numba's reference counts, which
otherwise cost two atomic instructions per array per helper call (the heuristic line-up ran 60%
slower with them). Only the machine code shows a count that creeps back, not any value: the
tests read the builds numba cached (compiling the kernel afresh to read its LLVM took a minute)."""

import glob
import os
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from kopsim import load_ruleset
from kopsim.bots import bot_spec, endgame, ev, heuristic, seated
from kopsim.bots.calibrate import prepare
from kopsim.engine import kernel, loop, steps
from kopsim.rules.cache import compiled

COMPILED_CORE = [loop._play_batch, loop._play_batch_endgame, loop._play_batch_pimc,
                 loop._play_batch_pimc_endgame, steps.eval_preds, heuristic.heur_call,
                 heuristic.relations,
                 heuristic.heur_card, heuristic.strength, ev.ev_call, ev.hand_key, ev.call_order,
                 endgame._solve_endgame]


def test_the_kernel_and_the_kernel_bots_are_compiled_without_reference_counts():
    for dispatcher in COMPILED_CORE:
        assert dispatcher.targetoptions.get("_nrt") is False, dispatcher.py_func.__qualname__


def cached_builds(dispatcher) -> list[bytes]:
    """The machine code numba cached for each build of a cache=True function (its data files
    beside the cache index: the object code, with the names of the symbols it calls)."""
    index = dispatcher._cache._cache_file._index_path
    return [Path(p).read_bytes() for p in glob.glob(index[:-len(".nbi")] + ".*.nbc")]


def test_the_kernel_machine_code_holds_no_reference_count_and_plays_the_same():
    cr = compiled(load_ruleset("kop"))
    seeds = np.arange(50, dtype=np.int64)
    dealers = seeds % 4
    played = seated.play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    builds = cached_builds(loop._play_batch)
    assert builds
    for code in builds:
        assert b"_play_batch" in code and b"NRT_incref" not in code and b"NRT_decref" not in code
    again = seated.play_batch(cr, seeds, dealers, bots=[bot_spec("heuristic")])
    assert (again.cards == played.cards).all() and (again.payouts == played.payouts).all()


COUNTING = """
import numpy as np
from numba import njit

@njit(cache=True)
def copied_sum(a):
    b = a.copy()
    return b.sum()
"""


def test_a_cached_build_that_counts_references_shows_it(tmp_path):
    """The check above can fail: numba's reference counts leave their names in the machine
    code it caches."""
    (tmp_path / "counting.py").write_text(COUNTING)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(tmp_path))
    run = ("import sys, numpy as np, counting; sys.path.insert(0, sys.argv[1]); "
           "from test_kernel_compiled import cached_builds; counting.copied_sum(np.ones(3)); "
           "c = cached_builds(counting.copied_sum); print(bool(c) and all(b'NRT_incref' in x for x in c))")
    out = subprocess.run([sys.executable, "-c", run, str(Path(__file__).parent)], env=env,
                         cwd=tmp_path, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr[-2000:]


EV = {"name": "ev", "deals": 2000, "rounds": 1}


# ev bots without an endgame (the default) play in the plain kernel; with one, in the endgame's
@pytest.mark.parametrize("kernel_name, bot", [("_play_batch", "heuristic"), ("_play_batch", EV),
                                              ("_play_batch_endgame",
                                               {**EV, "endgame_tricks": 2})])
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
    seated.play_batch(cr, seeds, seeds % 4, bots=pair[:1])  # broadcast: read-only
    seated.play_batch(cr, seeds, seeds % 4, bots=pair * 2)  # bot s in seat s, tiled
    seated.play_batch(cr, seeds, seeds % 4, bots=pair, seat_bot=np.array([0, 1, 0, 1]))  # copied
    assert len(types) == 3 and types[0] == types[1] == types[2]
