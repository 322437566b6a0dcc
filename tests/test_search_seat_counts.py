"""The double-dummy search at tables of three and five: a trick is as many cards as the table
has seats, every seat's hand is searched and keyed, and the value agrees with the plain
minimax on the reference engine's rules (`solver.brute_force`), whole and card by card; its
best line is legal in the reference engine and ends the hand at the value found."""

import random
from pathlib import Path

import pytest

from kopsim.bots import solver
from kopsim.bots.solver import brute_force, solve
from kopsim.engine.reference import Deal, State
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset
from test_solver import assert_line_achieves_value

SEATS = Path(__file__).parent / "data" / "seats"
TABLES = {"three-handed": 3, "five-handed": 5}
OUT_AT_MOST = 15


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
    # (at most OUT_AT_MOST cards still out: the plain minimax tries every line)
    for _ in range(rng.randrange(max(0, cr.n_cards - OUT_AT_MOST), cr.n_cards - 1)):
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
    open_tricks = boundaries = 0
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
        assert_line_achieves_value(st, cr, pos, res)
        open_tricks += bool(pos["trick"])
        boundaries += not pos["trick"]
    assert open_tricks > 10 and boundaries > 5


def test_a_position_with_the_wrong_number_of_hands_is_refused(table):
    n = table.tables.n_seats
    hands = [0] * (n + 1)
    with pytest.raises(ValueError, match=f"expected {n} hands"):
        solve(table, 0, 1, hands, 0)


THREE_HANDS = "AC 10C KC QC JC 9C | AS 10S KS QS JS 9S | AH 10H KH QH JH 9H"


def test_kopsim_solve_takes_a_hand_a_seat_of_the_rulesets_table(capsys):
    from kopsim.cli import main

    path = str(SEATS / "three-handed.toml")
    assert main(["solve", path, "--hands", THREE_HANDS, "--contract", "solo",
                 "--declarer", "2", "--dealer", "1"]) == 0
    out = capsys.readouterr().out
    tricks = [line for line in out.splitlines() if line.strip().startswith("trick ")]
    assert len(tricks) == 6 and "trick 1: seat 2 leads" in tricks[0]
    assert all(len(t.split("leads")[1].split("->")[0].split()) == 3 for t in tricks)
    cr = compile_rules(load_ruleset(path))
    idx = cr.card_index
    hands = [sum(1 << idx[c] for c in h.split()) for h in THREE_HANDS.split("|")]
    want = solve(cr, cr.contract_names.index("solo"), 0b100, hands, 2)
    assert f"value: {want.value:+g}" in out


@pytest.mark.parametrize("argv, says", [
    (["--hands", "AC 10C | AS 10S", "--contract", "solo", "--declarer", "0"], "expected 3 hands"),
    (["--hands", THREE_HANDS, "--contract", "solo", "--declarer", "3"], "--declarer"),
    (["--hands", THREE_HANDS, "--contract", "normal", "--leader", "3"], "--leader"),
])
def test_kopsim_solve_refuses_seats_beyond_the_table(capsys, argv, says):
    from kopsim.cli import main

    assert main(["solve", str(SEATS / "three-handed.toml"), *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_kopsim_play_seats_a_bot_in_each_other_seat(monkeypatch, capsys):
    import io

    from kopsim.cli import main

    path = str(SEATS / "five-handed.toml")
    assert main(["play", path, "--seat", "5"]) == 2
    assert "--seat" in capsys.readouterr().err
    assert main(["play", path, "--bots", "heuristic,random"]) == 2
    assert "expected one bot or 4" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", path, "--seat", "4", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "you are seat 4" in out and "seat 3 heuristic" in out and "0 hands played" in out
