"""The solver's compiled search as numba builds it: no reference counting in its hot loop.

numba counts a reference (an atomic add) for each array it hands to a helper, even an inlined one,
unless its pruning pass can pair the count away; a count left in the search loop halves the
solver's speed without changing any value, so only the machine code shows it."""

import re

import numpy as np
from numba import njit, typeof

from kopsim.bots import solver
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

HANDS = "AH 10H QC QS | 10C AC JD JH | AS 10S QH QD | JC JS AD 10D"


def _search_arguments(cr, contract: int, old_mask: int, hands: list[int], leader: int):
    """What `solve` hands the search for the first lead of a deal (no points, no tricks yet)."""
    tables = solver._solver_tables(cr, contract, old_mask, ())
    root_i, root_f = solver.root_rows(tables, old_mask, leader, (), (0.0,) * 4, (0,) * 4)
    rem = 0
    for h in hands:
        rem |= h
    return (root_i, root_f, np.uint64(rem), -np.inf, np.inf, np.array(hands, np.uint64),
            old_mask, tables, solver._transposition_table(12),
            solver._search_stack(cr.n_cards + 2, cr.n_cards), 0)  # the stamp of the deal


def _function_ir(library_ir: str, name: str) -> str:
    """The body of the compiled function itself, not of its Python or C wrappers."""
    for match in re.finditer(r"define [^@]*@(\S+?)\(.*?\n}\n", library_ir, re.S):
        symbol = match.group(1)
        if f"{len(name)}{name}" in symbol and not symbol.startswith(("cfunc.", "_ZN7cpython")):
            return match.group(0)
    raise AssertionError(f"{name} not in the compiled library")


def test_the_search_counts_no_references_and_still_solves():
    cr = compile_rules(load_ruleset("kop"))
    index = {c: i for i, c in enumerate(cr.cards)}
    hands = [sum(1 << index[c] for c in hand.split()) for hand in HANDS.split("|")]
    contract = cr.contract_names.index("normal")
    args = _search_arguments(cr, contract, 0b0101, hands, 0)
    # compiled afresh (numba shows no machine code of a function it loads from its cache)
    fresh = njit(solver._search.py_func)
    value = fresh(*args)
    assert value == solver.solve(cr, contract, 0b0101, hands, 0).value
    signature = tuple(typeof(a) for a in args)
    body = _function_ir(fresh.inspect_llvm(signature), "_search")
    counts = {call: body.count(f"@{call}") for call in ("NRT_incref", "NRT_decref")}
    assert counts == {"NRT_incref": 0, "NRT_decref": 0}
