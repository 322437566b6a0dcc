"""The double-dummy search at tables of three and five: a trick is as many cards as the table
has seats, every seat's hand is searched and keyed, and the value agrees with the plain
minimax on the reference engine's rules (`solver.brute_force`), whole and card by card; its
best line is legal in the reference engine and ends the hand at the value found."""

import copy
import random
from pathlib import Path

import pytest

from kopsim.bots import solver
from kopsim.bots.solver import brute_force, side_value, solve
from kopsim.engine.reference import Deal, State
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

SEATS = Path(__file__).parent / "data" / "seats"
TABLES = {"three-handed": 3, "five-handed": 5}


@pytest.fixture(scope="module", params=sorted(TABLES))
def table(request):
    cr = compile_rules(load_ruleset(SEATS / f"{request.param}.toml"))
    assert cr.tables.n_seats == TABLES[request.param]
    return cr


def _forced(cr, rng):
    """A random deal at the table, a contract forced on it (no auction), a random declarer."""
    rules, n = cr.rules, cr.tables.n_seats
    cards = list(rules.cards())
    rng.shuffle(cards)
    size = len(cards) // n
    deal = Deal(rng.randrange(n), tuple(tuple(cards[size * s:size * (s + 1)])
                                        for s in range(n)))
    st = State(rules, deal)
    names = [k for k in cr.contract_names if not rules.contracts[k].instant]
    st.bid = st.bidder = None
    st.double_seats = []
    st._start(rng.choice(names), rng.randrange(n))
    return st


def _position(cr, rng):
    st = _forced(cr, rng)
    n = cr.tables.n_seats
    for _ in range(rng.randrange(0, cr.n_cards - 1)):
        st.apply_action(rng.choice(st.legal_actions()))
    if rng.random() < 0.5:
        old_mask = sum(1 << s for s in st.old_side)
    else:  # any split of the table
        old_mask = rng.randrange(1, (1 << n) - 1)
    idx = cr.card_index
    pos = dict(contract=cr.contract_names.index(st.contract), old_mask=old_mask,
               hands=[sum(1 << idx[c] for c in h) for h in st.held], leader=st.leader,
               trick=[idx[c] for c in st.trick], points=list(st.points),
               tricks=list(st.tricks_won),
               double_seats=[rng.randrange(n) for _ in range(rng.choice([0, 0, 1, 2]))])
    return st, pos


def test_the_search_agrees_with_plain_minimax_at_other_tables(table):
    cr, n = table, table.tables.n_seats
    rng = random.Random(36 + n)
    open_tricks = whole = 0
    for _ in range(40):
        st, pos = _position(cr, rng)
        res = solve(cr, **pos)
        want, want_moves = brute_force(cr, **pos, with_moves=True)
        assert res.value == pytest.approx(want, abs=1e-9), pos
        assert res.move_values.keys() == want_moves.keys()
        for c, v in want_moves.items():
            assert res.move_values[c] == pytest.approx(v, abs=1e-9), (pos, c)
        with pytest.MonkeyPatch.context() as mp:  # a tiny table: entries collide all the time
            mp.setattr(solver, "table_bits", lambda n_left, n_seats: 2)
            assert solve(cr, **pos, line=False).value == pytest.approx(want, abs=1e-9)
        line = copy.deepcopy(st)
        line.old_side = [s for s in range(n) if (pos["old_mask"] >> s) & 1]
        line.double_seats = list(pos["double_seats"])
        for c in res.best_line:
            line.apply_action(cr.cards[c])
        assert line.is_terminal()
        assert side_value(line.outcome.payouts, pos["old_mask"]) == pytest.approx(res.value)
        open_tricks += bool(pos["trick"])
        whole += sum(bin(h).count("1") for h in pos["hands"]) == cr.n_cards
    assert open_tricks > 10 and whole >= 1


def test_a_position_with_the_wrong_number_of_hands_is_refused(table):
    n = table.tables.n_seats
    hands = [0] * (n + 1)
    with pytest.raises(ValueError, match=f"expected {n} hands"):
        solve(table, 0, 1, hands, 0)
