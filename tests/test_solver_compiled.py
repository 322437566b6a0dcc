"""The compiled search as numba caches it: every entry point of the recursive search loads from
numba's cache in a fresh process and gives what it gave when compiled.

numba builds a second version of a recursive function handed a literal constant, and a caller
loading that version from the cache crashed the process (seen while writing the search): only a
new process loading every entry point shows it."""

import json
import os
import subprocess
import sys

from kopsim.bots import roots

SCRIPT = r"""
import json
import numpy as np
from kopsim.bots.solver import DealSolver, solve
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

cr = compiled(load_ruleset("kop"))
index = cr.card_index
hands = [sum(1 << index[c] for c in h.split())
         for h in "AH 10H QC QS | 10C AC JD JH | AS 10S QH QD | JC JS AD 10D".split("|")]
res = solve(cr, 0, 0b0101, hands, 0)
ds = DealSolver(cr)
held = np.array([hands], np.uint64)
rows = np.arange(1)
lead = ds.first_lead(0, 0b0101, [], 1)
values, payouts, moves = np.zeros(1), np.zeros(1), np.zeros((1, 4))
ds.first_lead_values(lead, held, rows, 0, values)
ds.first_lead_line_payouts(lead, held, rows, 0, payouts)
legal = np.array(sorted(res.move_values), np.int64)
ds.move_values(0, 0b0101, [], held, rows, (0, [], [0.0] * 4, [0] * 4), legal, moves)
print(json.dumps([res.value, res.best_line, res.move_values, values.tolist(),
                  payouts.tolist(), moves.tolist()]))
"""


def _run() -> list:
    env = dict(os.environ, PYTHONHASHSEED="0")
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                         env=env, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout)


def test_the_search_loads_from_the_cache_and_solves_alike():
    first = _run()  # compiles what is not cached yet, and caches it
    index = roots.solve_position._cache._cache_file._index_path
    assert os.path.exists(index), "numba did not cache the search: nothing would be loaded"
    second = _run()  # loads every entry point from the cache
    assert second == first
    value, line, moves, values, payouts, _ = first
    assert value == max(moves.values()) and len(line) == 16
    assert payouts[0] != 0.0 and values[0] != 0.0
