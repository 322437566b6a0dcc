"""The double-dummy solver: exact against plain minimax, its leaves priced as `scoring.score`
prices a hand, its best lines legal, and the `kopsim solve` command."""

import copy
import random

import pytest

from kopsim.cli import main
from kopsim.rules.compile import compile_rules
from kopsim.engine.reference import Deal, State
from kopsim.rules.load import load_ruleset
from kopsim.engine.scoring import score
from kopsim.bots import solver
from kopsim.bots.solver import brute_force, side_value, solve, terminal_outcome

RULESETS = ["kop", "baska", "kop-sportowy", "kop-catsatcards"]


@pytest.fixture(scope="module")
def compiled():
    return {name: compile_rules(load_ruleset(name)) for name in RULESETS}


def _playable(cr, rng, contract=None):
    names = [n for n in cr.contract_names if not cr.rules.contracts[n].instant]
    return contract if contract is not None else rng.choice(names)


def start_forced(cr, rng, contract=None, declarer=None):
    """A random deal with a contract forced on it (no auction): the team rule sets the old side.
    declarer: a function of the deal choosing him (default: a random seat)."""
    rules = cr.rules
    cards = list(rules.cards())
    rng.shuffle(cards)
    hs = len(cards) // 4
    deal = Deal(rng.randrange(4), tuple(tuple(cards[hs * s:hs * s + hs]) for s in range(4)))
    st = State(rules, deal)
    name = _playable(cr, rng, contract)
    st.bid = st.bidder = None
    st.double_seats = []
    st._start(name, rng.randrange(4) if declarer is None else declarer(deal))
    return st


def _position(st, cr, old_mask, doubles):
    idx = {c: i for i, c in enumerate(cr.cards)}
    return dict(contract=cr.contract_names.index(st.contract), old_mask=old_mask,
                hands=[sum(1 << idx[c] for c in h) for h in st.held], leader=st.leader,
                trick=[idx[c] for c in st.trick], points=list(st.points),
                tricks=list(st.tricks_won), double_seats=doubles)


def _random_position(cr, rng, min_plays):
    st = start_forced(cr, rng)
    n = cr.n_cards
    for _ in range(rng.randrange(min_plays, n - 1)):
        st.apply_action(rng.choice(st.legal_actions()))
    if rng.random() < 0.5:  # the team rule's old side, or any other split of the table
        old_mask = sum(1 << s for s in st.old_side)
    else:
        old_mask = rng.randrange(1, 15)
    doubles = [rng.randrange(4) for _ in range(rng.choice([0, 0, 1, 2, 3, 5]))]
    return st, _position(st, cr, old_mask, doubles)


def assert_line_achieves_value(st, cr, pos, res):
    """The solver's best line from st is legal, goes to the end of the hand and achieves its
    value for the old side of pos."""
    line = copy.deepcopy(st)
    line.old_side = [s for s in range(len(st.held)) if (pos["old_mask"] >> s) & 1]
    line.double_seats = list(pos["double_seats"])
    for c in res.best_line:
        line.apply_action(cr.cards[c])
    assert line.is_terminal()
    assert side_value(line.outcome.payouts, pos["old_mask"]) == pytest.approx(res.value)


def test_terminal_payouts_match_scoring(compiled):
    """The solver's leaf arithmetic against scoring.score: played-out hands and forced ties."""
    rng = random.Random(11)
    checked = ties = 0
    for name, cr in compiled.items():
        rules = cr.rules
        for i in range(400):
            st = start_forced(cr, rng)
            if i % 2 == 0:
                while not st.is_terminal():
                    st.apply_action(rng.choice(st.legal_actions()))
                points, tricks = list(st.points), list(st.tricks_won)
            else:  # synthetic totals, to reach 52:52, the schneider edge and schwarz
                total = rules.total_points()
                opts = rng.choice([0, 25, 26, 52, total / 2, 53, total, rng.randrange(int(total) + 1)])
                tricks = [0] * 4
                for _ in range(cr.n_cards // 4):
                    tricks[rng.randrange(4)] += 1
                points = [0.0] * 4
                old = st.old_side
                young = [s for s in range(4) if s not in old]
                points[rng.choice(old)] += opts
                points[rng.choice(young)] += total - opts
            old_mask = (sum(1 << s for s in st.old_side) if rng.random() < 0.7
                        else rng.randrange(1, 15))
            old_side = [s for s in range(4) if (old_mask >> s) & 1]
            doubles = [rng.randrange(4) for _ in range(rng.choice([0, 1, 2, 3, 4, 6]))]
            k = cr.contract_names.index(st.contract)
            want = score(rules, st.contract, old_side, doubles, points, tricks)
            winner, tier, payouts, value = terminal_outcome(cr, k, old_mask, doubles, points,
                                                            tricks)
            assert (winner, tier) == (want.winner, want.tier), (name, st.contract, points, tricks)
            assert payouts == pytest.approx(want.payouts, abs=1e-12)
            assert value == pytest.approx(side_value(want.payouts, old_mask), abs=1e-12)
            checked += 1
            ties += tier == "tie"
    assert checked == 1600 and ties > 50


@pytest.mark.parametrize("name", RULESETS)
def test_solver_agrees_with_brute_force(compiled, name):
    cr = compiled[name]
    rng = random.Random(hash(name) % 1000)
    mid = dbl = 0
    for _ in range(60):
        st, pos = _random_position(cr, rng, min_plays=2)
        res = solve(cr, **pos)
        want, want_moves = brute_force(cr, **pos, with_moves=True)
        assert res.value == pytest.approx(want, abs=1e-9), pos
        # a tiny table: entries collide and get replaced all the time
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(solver, "table_bits", lambda n_left, n_seats: 2)
            assert solve(cr, **pos, line=False).value == pytest.approx(want, abs=1e-9)
        assert res.move_values.keys() == want_moves.keys()
        for c, v in want_moves.items():
            assert res.move_values[c] == pytest.approx(v, abs=1e-9), (pos, c)
        assert_line_achieves_value(st, cr, pos, res)
        mid += bool(pos["trick"])
        dbl += bool(pos["double_seats"])
    assert mid > 15 and dbl > 15


def test_full_deals_agree_with_brute_force(compiled):
    rng = random.Random(5)
    for name in RULESETS:
        cr = compiled[name]
        for _ in range(4):
            st = start_forced(cr, rng)
            old_mask = (sum(1 << s for s in st.old_side) if rng.random() < 0.5
                        else rng.randrange(1, 15))
            pos = _position(st, cr, old_mask, [rng.randrange(4) for _ in range(rng.randrange(3))])
            assert solve(cr, **pos).value == pytest.approx(brute_force(cr, **pos)), pos


def test_gran_is_played_in_the_gran_order(compiled):
    cr = compiled["baska"]
    rng = random.Random(3)
    for _ in range(20):
        st = start_forced(cr, rng, contract="gran")
        for _ in range(rng.randrange(4, 12)):
            st.apply_action(rng.choice(st.legal_actions()))
        pos = _position(st, cr, sum(1 << s for s in st.old_side), [])
        assert solve(cr, **pos).value == pytest.approx(brute_force(cr, **pos))


def test_terminal_and_instant_positions(compiled):
    cr = compiled["kop-sportowy"]
    kop = cr.contract_names.index("kop")
    res = solve(cr, kop, 0b0001, [0, 0, 0, 0], 0)
    assert res.value == pytest.approx(3 * 10 - (-10)) and res.best_line == []
    normal = cr.contract_names.index("normal")
    res = solve(cr, normal, 0b0101, [0, 0, 0, 0], 0, points=(60, 10, 0, 34), tricks=(2, 1, 0, 1))
    assert res.value == 2.0 and res.best_line == [] and res.move_values == {}


def test_inconsistent_positions_are_refused(compiled):
    cr = compiled["kop"]
    with pytest.raises(ValueError):
        solve(cr, 0, 0b0101, [0b1111, 0b1111 << 4, 0b1111 << 8, 0b111 << 12], 0)
    with pytest.raises(ValueError):
        solve(cr, 0, 0b0101, [0b1111, 0b1111, 0b1111 << 8, 0b1111 << 12], 0)


HANDS = "AH 10H QC QS | 10C AC JD JH | AS 10S QH QD | JC JS AD 10D"


def test_cli_solve(capsys):
    assert main(["solve", "kop", "--hands", HANDS, "--contract", "normal", "--dealer", "3"]) == 0
    out = capsys.readouterr().out
    assert "old side: seats 0" in out and "value:" in out
    assert out.count("trick ") == 4 and "opening cards (seat 0)" in out
    assert main(["solve", "kop", "--hands", HANDS, "--contract", "zolo", "--declarer", "2",
                 "--leader", "1"]) == 0
    assert "old side: seats 2;" in capsys.readouterr().out


def test_cli_solve_prices_the_outcome_as_its_value_laufende_included(capsys):
    # Schafkopf: the declarer holds all eight Obers and Unters (eight Laufende); the outcome
    # line and the value line are one scoring of the same deal
    hands = ("QC QS QH QD JC JS JH JD | AC 10C KC 9C 8C 7C AS 10S | KS 9S 8S 7S AH 10H KH 9H "
             "| 8H 7H AD 10D KD 9D 8D 7D")
    assert main(["solve", "schafkopf", "--hands", hands, "--contract", "solo herz",
                 "--declarer", "0"]) == 0
    out = capsys.readouterr().out
    value = float(out.split("value: ")[1].split()[0])
    pay = [float(x) for x in out.split("payouts ")[1].split("\n")[0].split()]
    assert pay[0] - pay[1] == value and sum(pay) == 0
    rules = load_ruleset("schafkopf")
    lauf = rules.contracts["solo herz"].laufende
    assert lauf is not None and pay[0] >= 3 * 8 * lauf.value  # the Laufende are paid


@pytest.mark.parametrize("argv, message", [
    (["--hands", HANDS.replace("JD", "XX"), "--contract", "normal"], "'XX' is not a card"),
    (["--hands", HANDS.replace("JD", "AH"), "--contract", "normal"], "AH is dealt in seats 0 and 1"),
    (["--hands", HANDS.replace(" JD", ""), "--contract", "normal"], "seat 1 holds 3 cards"),
    (["--hands", "AH 10H | QC", "--contract", "normal"], "expected 4 hands"),
    (["--hands", HANDS, "--contract", "grand"], "'grand' is not a contract"),
    (["--hands", HANDS, "--contract", "zolo"], "--declarer"),
    (["--hands", HANDS, "--contract", "normal", "--leader", "4"], "--leader"),
])
def test_cli_solve_bad_input_exits_2(capsys, argv, message):
    assert main(["solve", "kop"] + argv) == 2
    err = capsys.readouterr().err
    assert message in err and "command line" in err


def _kop_with(ranks: dict, extra_trumps: list, extra_plain: dict):
    from kopsim.rules.load import load_raw, ruleset_from_dict

    data, _ = load_raw("kop")
    data["name"] = "kop-big"
    data["deck"]["ranks"] = list(data["deck"]["ranks"]) + list(ranks)
    data["deck"]["points"] = {**data["deck"]["points"], **ranks}
    o = data["orders"]["as-dycha"]
    o["trumps"] = list(o["trumps"]) + extra_trumps
    o["plain"] = {s: list(cs) + extra_plain[s] for s, cs in o["plain"].items()}
    return compile_rules(ruleset_from_dict(data))


def test_a_24_card_deck():
    cr = _kop_with({"K": 4, "9": 0}, ["KH", "KD", "9H", "9D"],
                   {"C": ["KC", "9C"], "S": ["KS", "9S"]})
    assert cr.n_cards == 24
    rng = random.Random(24)
    for _ in range(25):
        st, pos = _random_position(cr, rng, min_plays=12)
        res = solve(cr, **pos)
        assert res.value == pytest.approx(brute_force(cr, **pos)), pos
        line = copy.deepcopy(st)
        line.old_side = [s for s in range(4) if (pos["old_mask"] >> s) & 1]
        line.double_seats = list(pos["double_seats"])
        for c in res.best_line:
            line.apply_action(cr.cards[c])
        assert side_value(line.outcome.payouts, pos["old_mask"]) == pytest.approx(res.value)


def _kop_priced(normal_won: dict):
    """kop with its normal game's won price replaced (tiers out, schneider, schwarz)."""
    from kopsim.rules.load import load_raw, ruleset_from_dict

    data, _ = load_raw("kop")
    data["name"] = "kop-odd-price"
    data["contracts"]["normal"]["payout"]["won"] = normal_won
    return compile_rules(ruleset_from_dict(data))


def _knob(name: str):
    from pathlib import Path

    return compile_rules(load_ruleset(Path(__file__).parent / "data" / "knobs" / f"{name}.toml"))


def test_the_direction_of_an_outcome_value():
    # more points and tricks never hurt the old side in kop's normal game; in a bettel (won by
    # taking no trick) they never help; a tariff paying a won schneider less than a won game
    # without one is neither, and the search must not bound by what is left to take
    kop = compile_rules(load_ruleset("kop"))
    bettel = _knob("kop-bettel")
    odd = _kop_priced({"out": 3, "schneider": 1, "schwarz": 2})
    direction = lambda cr, name, old: solver.direction(  # noqa: E731
        cr, cr.contract_names.index(name), old)
    assert direction(kop, "normal", 5) == 1 and direction(kop, "zolo", 1) == 1
    assert direction(bettel, "bettel", 2) == -1
    assert direction(odd, "normal", 5) == 0 and direction(odd, "zolo", 1) == 1


@pytest.mark.parametrize("which", ["bettel", "odd price"])
def test_solver_agrees_with_brute_force_whatever_the_direction(which):
    # the search stops early by the value's direction (or not at all); exact either way
    if which == "bettel":
        cr, contract = _knob("kop-bettel"), "bettel"
    else:
        cr, contract = _kop_priced({"out": 3, "schneider": 1, "schwarz": 2}), "normal"
    rng = random.Random(11)
    for _ in range(30):
        st = start_forced(cr, rng, contract)
        for _ in range(rng.randrange(0, 9)):
            st.apply_action(rng.choice(st.legal_actions()))
        old_mask = (sum(1 << s for s in st.old_side) if rng.random() < 0.7
                    else rng.randrange(1, 15))
        pos = _position(st, cr, old_mask, [rng.randrange(4) for _ in range(rng.randrange(3))])
        want, want_moves = brute_force(cr, **pos, with_moves=True)
        res = solve(cr, **pos, line=False)
        assert res.value == pytest.approx(want, abs=1e-9), pos
        for c, v in want_moves.items():
            assert res.move_values[c] == pytest.approx(v, abs=1e-9), (pos, c)


@pytest.mark.parametrize("name", ["kop", "schafkopf"])
def test_stored_pricing_prices_the_hand_as_the_doubles_said(name):
    # the store keeps one row per (contract, old seats, doubles counted, side of the last):
    # every sequence of up to three doubles, under every split of the table, finds a row that
    # prices and breaks ties as a row built for that very sequence; rows that share a search
    # id search alike (their scaled values and outcome rule are equal)
    import itertools

    import numpy as np

    from kopsim.bots.pricing import P_SCALE, P_SEARCHED, pricing_row, pricing_store

    cr = compile_rules(load_ruleset(name))
    store = pricing_store(cr)
    ks = [k for k, n in enumerate(cr.contract_names) if not cr.rules.contracts[n].instant][:4]
    shared = 0
    for k, old in itertools.product(ks, range(1, 16)):
        for n in range(4):
            for doubles in itertools.product(range(4), repeat=n):
                seats = np.array(list(doubles) or [0], np.int64)
                r = pricing_row(cr.tables, k, old, seats, n, 0.0, 0, -1, store)
                assert (store.rows[r] == solver.pricing(cr, k, old, doubles)).all(), doubles
    rows = store.count[0]
    searched = [i for i in range(P_SEARCHED) if i != P_SCALE]
    for a, b in itertools.combinations(range(rows), 2):
        if store.sid[a] == store.sid[b]:
            assert (store.rows[a, searched] == store.rows[b, searched]).all()
            shared += 1
    assert shared > 10 and len(set(store.sid[:rows].tolist())) > 10


def test_equal_cards_are_tried_once():
    # kop's queens are trumps of 3 points each, in a row (QC QS QH QD): two of them in one hand
    # are one choice while no queen between them is still held, nor winning the trick
    import numpy as np

    from kopsim.bots.search import SearchContext, _distinct, new_table, ply_room

    cr = compile_rules(load_ruleset("kop"))
    k = cr.contract_names.index("normal")
    ints, masks, floats = solver.search_tables(cr)
    o = int(cr.tables.c_order[k])
    i = cr.card_index
    mask = lambda *cs: sum(1 << i[c] for c in cs)  # noqa: E731

    def distinct(hand, out, wcard=None):
        pos = 0 if wcard is None else 1
        ctx = SearchContext(ints[k], masks[o], floats[o], np.zeros(1), new_table(4),
                            np.zeros(1, np.int64), *ply_room(cr.n_cards, cr.tables.n_seats))
        kept = _distinct(np.uint64(hand), pos, i[wcard] if wcard else 0, -1,
                         np.uint64(out | hand), ctx)
        return sorted(c for c in cr.cards if (int(kept) >> i[c]) & 1)

    hand = mask("QC", "QH", "AC")
    assert distinct(hand, mask("JC", "10C")) == ["AC", "QC"]  # QS and its match gone
    assert len(distinct(hand, mask("QS"))) == 3  # QS still out, between them
    assert len(distinct(hand, 0, wcard="QS")) == 3  # QS wins the trick: one beats it
    assert len(distinct(mask("QC", "JC"), 0)) == 2  # 3 points and 2: not equal
