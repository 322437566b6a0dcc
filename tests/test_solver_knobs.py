"""The solver on the issue-11 knobs: the called card's duties (Schafkopf's Rufsau) in its search,
and the Laufende in its prices.

The duties, from the rule: until a trick has been led in the called card's suit, its holder
must play it when that suit is led, may not throw it on another suit, and may lead the suit only
with it unless he holds `run_away_with` or more cards of the suit; a duty never leaves him
without a card. The solver must search only the moves the reference engine allows, so every
value here is checked against `brute_force` (plain minimax over the reference engine's legal
cards and scoring), and the legal cards at a position against the reference engine itself."""

from __future__ import annotations

import copy
import random

import pytest

from kopsim.bots import solver
from kopsim.bots.solver import Dealt, brute_force, laufende_added, side_value, solve
from kopsim.engine.reference import State
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset
from test_rules_called_card import rules as ace_call_rules
from test_solver import start_forced


@pytest.fixture(scope="module")
def schafkopf():
    return compiled(load_ruleset("schafkopf"))


def _ace_call_24(run_away_with: int | None):
    """test_rules_called_card's 24-card "ace call" (calling A♣), priced by tier and with
    Laufende of the three top queens from 2; run_away_with None: without the duties."""
    tiers = {"out": 2, "schneider": 4, "schwarz": 6}
    duties = {} if run_away_with is not None else {"called_card_rules": None}
    return compiled(ace_call_rules(run_away_with or 4, payout={"won": tiers, "lost": tiers},
                                   laufende={"from": 2, "value": 1, "cards": ["QC", "QS", "QH"]},
                                   **duties))


def _mask(cr, cards):
    index = {c: i for i, c in enumerate(cr.cards)}
    return sum(1 << index[c] for c in cards)


def _end_position(cr, contract, held: str, leader: int, trick: str, points, tricks):
    """A hand-built position of `contract` (seats 0 and 1 the old side): held, four hands
    separated by "|"; the cards not held nor in the trick were dealt so as to fill every
    hand, in deck order (they fix the Laufende)."""
    hands = [h.split() for h in held.split("|")]
    played = trick.split()
    out = [c for c in cr.cards if not any(c in h for h in hands) and c not in played]
    per_seat = cr.n_cards // 4
    dealt = []
    for s in range(4):
        mine = hands[s] + [played[i] for i in range(len(played)) if (leader + i) % 4 == s]
        take = per_seat - len(mine)
        dealt.append(mine + out[:take])
        out = out[take:]
    index = {c: i for i, c in enumerate(cr.cards)}
    return dict(contract=cr.contract_names.index(contract), old_mask=0b0011,
                hands=[_mask(cr, h) for h in hands], leader=leader,
                trick=[index[c] for c in played], points=points, tricks=tricks,
                dealt=Dealt([_mask(cr, h) for h in dealt], index["AC"]))


def _legal_names(cr, values):
    return sorted(cr.cards[c] for c in values)


# seat 1 holds the called A♣ in each; seat 0 (the caller) and seat 1 play against 2 and 3
FORCED = [
    # clubs led: he must play A♣, not 9♣ (following suit alone would allow both)
    ("JD 8H | AC 9C QH | 8C 9S AH | 7D 9D KH", 0, "7C", ["AC"]),
    # diamonds led, he is void: he may not throw A♣ on it
    ("7S QS | AC KS 10S | 8D 9S AH | 7D 9D KH", 0, "AD", ["10S", "KS"]),
    # on lead with fewer than four clubs: clubs only with the ace
    ("7C JD 8H | AC 9C QH | 8C 9S AH | 7D 9D KH", 1, "", ["AC", "QH"]),
]


@pytest.mark.parametrize("held, leader, trick, legal", FORCED)
def test_the_called_aces_holder_is_held_to_his_duties(schafkopf, held, leader, trick, legal):
    pos = _end_position(schafkopf, "sauspiel eichel", held, leader, trick, (40, 0, 30, 20),
                        (2, 0, 2, 1))
    res = solve(schafkopf, **pos)
    want, want_moves = brute_force(schafkopf, **pos, with_moves=True)
    assert _legal_names(schafkopf, res.move_values) == _legal_names(schafkopf, want_moves)
    assert _legal_names(schafkopf, res.move_values) == sorted(legal)
    assert res.value == pytest.approx(want)
    for c, v in want_moves.items():
        assert res.move_values[c] == pytest.approx(v)
    # once the suit has been led the duties are over: every card follow suit allows
    free = solve(schafkopf, **{**pos, "dealt": pos["dealt"]._replace(called=None)})
    assert len(free.move_values) > len(legal)


def test_a_holder_who_ran_away_may_throw_the_ace_later(schafkopf):
    """With four clubs he leads a low one; clubs have been led, so on the next trick he may
    discard A♣. The search must carry that (the duty ended) past the trick."""
    pos = _end_position(schafkopf, "sauspiel eichel", "7D KS QS AS | AC 10C 9C 8C | "
                        "7C KC 9S 8S | 7H 8H 9H KH", 1, "", (30, 0, 0, 10), (3, 0, 0, 1))
    res = solve(schafkopf, **pos)
    assert "9C" in _legal_names(schafkopf, res.move_values)  # running away
    assert res.value == pytest.approx(brute_force(schafkopf, **pos))


def _called_on_duty(st: State, cr) -> int | None:
    """The called card if its duties still hold: no finished trick led in its suit."""
    c = st.rules.contracts[st.contract]
    card = next((x for x in c.team_cards if x not in st.deal.hands[st.declarer]), None)
    if card is None:
        return None
    suit = st.order.suit[card]
    if any(st.order.suit[t.cards[0]] == suit for t in st.tricks):
        return None
    return cr.cards.index(card)


def _random_position(cr, contract, rng, plays, ace="AC"):
    """A reference-engine State of a random deal in `contract` (declared by a seat lacking the
    called card `ace`), after `plays` random legal cards, and the solver's view of it."""
    st = start_forced(cr, rng, contract,
                      declarer=lambda deal: next(s for s in range(4) if ace not in deal.hands[s]))
    for _ in range(plays):
        legal = st.legal_actions()
        # the holder of the ace leads a low card of its suit whenever he may (runs away), most
        # of the time
        away = [c for c in legal if not st.trick and ace in st.held[st.turn]
                and c[-1] == ace[-1] and c != ace]
        st.apply_action(rng.choice(away if away and rng.random() < 0.8 else legal))
    index = {c: i for i, c in enumerate(cr.cards)}
    pos = dict(contract=cr.contract_names.index(contract),
               old_mask=sum(1 << s for s in st.old_side),
               hands=[_mask(cr, h) for h in st.held], leader=st.leader,
               trick=[index[c] for c in st.trick], points=list(st.points),
               tricks=list(st.tricks_won), double_seats=[],
               dealt=Dealt([_mask(cr, h) for h in st.deal.hands],
                           _called_on_duty(st, cr)))
    return st, pos


@pytest.mark.parametrize("run_away_with", [2, 4])
def test_random_positions_agree_with_brute_force_and_the_reference_engine(run_away_with):
    cr = _ace_call_24(run_away_with)
    rng = random.Random(run_away_with)
    many = solver.DealSolver(cr)  # pimc's: one table kept across positions and deals
    on_duty = ran_away = with_laufende = 0
    for _ in range(60):
        st, pos = _random_position(cr, "ace call", rng, rng.randrange(12, 22))
        res = solve(cr, **pos)
        want, want_moves = brute_force(cr, **pos, with_moves=True)
        assert res.value == pytest.approx(want), pos
        _assert_many_deals_agree(many, cr, pos, want_moves)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(solver, "table_bits", lambda n_left, n_seats: 2)
            assert solve(cr, **pos, line=False).value == pytest.approx(want)
        # the root's cards are the reference engine's legal cards, duties included
        assert _legal_names(cr, res.move_values) == sorted(st.legal_actions())
        for c, v in want_moves.items():
            assert res.move_values[c] == pytest.approx(v), (pos, c)
        # the best line is legal in the reference engine and pays the value
        line = copy.deepcopy(st)
        for c in res.best_line:
            line.apply_action(cr.cards[c])
        assert line.is_terminal()
        assert side_value(line.outcome.payouts, pos["old_mask"]) == pytest.approx(res.value)
        ac = cr.cards.index("AC")
        held = any((h >> ac) & 1 for h in pos["hands"])
        on_duty += pos["dealt"].called is not None and held
        ran_away += pos["dealt"].called is None and held
        with_laufende += laufende_added(cr, pos["contract"], pos["old_mask"],
                                        pos["dealt"].hands) != 0
    assert on_duty >= 10 and with_laufende >= 5
    if run_away_with == 2:
        assert ran_away >= 2  # the ace still out after its suit was led: a holder ran away


def _assert_many_deals_agree(many, cr, pos, want_moves):
    """pimc's solver of many deals values each legal card of the position as brute force does
    (the position's deal given twice, among others: its rows must not see the others')."""
    import numpy as np

    other = [pos["hands"][1], pos["hands"][0], pos["hands"][3], pos["hands"][2]]
    held = np.array([other, pos["hands"], other, pos["hands"]], np.uint64)
    rows = np.array([1, 3], np.int64)
    moves = np.array(sorted(want_moves), np.int64)
    out = np.full((4, len(moves)), np.nan)
    dealt = pos["dealt"]
    many.move_values(pos["contract"], pos["old_mask"], pos["double_seats"], held, rows,
                     (pos["leader"], pos["trick"], pos["points"], pos["tricks"]), moves, out,
                     laufende_added(cr, pos["contract"], pos["old_mask"], dealt.hands),
                     -1 if dealt.called is None else dealt.called)
    for j, c in enumerate(moves.tolist()):
        assert out[1, j] == pytest.approx(want_moves[c]) and out[3, j] == out[1, j], (pos, c)
    assert np.isnan(out[[0, 2]]).all()


def test_many_deals_keep_the_duties_of_the_called_card_itself():
    # pimc's solver once searched the positions after each legal card with card 0 of the deck
    # as the called card (AC), whatever the contract called: in a Sauspiel calling AS or AD the
    # holder's duties were wrong in its worlds (values against `solve`, itself checked against
    # brute force above)
    kurz = compiled(load_ruleset("schafkopf-kurz"))
    rng = random.Random(24)
    many = solver.DealSolver(kurz)
    on_duty = 0
    for contract, ace in [("sauspiel gras", "AS"), ("sauspiel schellen", "AD")] * 15:
        st, pos = _random_position(kurz, contract, rng, rng.randrange(2, 12), ace)
        _assert_many_deals_agree(many, kurz, pos, solve(kurz, **pos, line=False).move_values)
        on_duty += pos["dealt"].called is not None
    assert on_duty >= 15


def test_a_position_after_play_needs_the_dealt_hands_for_its_laufende(schafkopf):
    pos = _end_position(schafkopf, "sauspiel eichel", FORCED[0][0], 0, "7C", (40, 0, 30, 20),
                        (2, 0, 2, 1))
    pos["dealt"] = pos["dealt"]._replace(hands=None)
    with pytest.raises(ValueError, match="dealt"):
        solve(schafkopf, **pos)


def test_kopsim_solve_prices_the_laufende_and_keeps_the_duties(schafkopf, capsys):
    """`kopsim solve` on a whole deal: the deal is its own dealt hands (Laufende: seat 0 holds
    the three top Obers) and the called ace's duties hold from the first lead."""
    from kopsim.cli import main

    hands = ("QC QS QH JD 10C KC 9S 8S | AC 9C AH 10H KH 7D 8D 9D | "
             "QD JC JS JH 7C 8C AS 10S | KS 7S 9H 8H 7H AD 10D KD")
    assert main(["solve", "schafkopf", "--hands", hands, "--contract",
                 "sauspiel eichel", "--declarer", "0", "--dealer", "3"]) == 0
    out = capsys.readouterr().out
    masks = [_mask(schafkopf, h.split()) for h in hands.split("|")]
    k = schafkopf.contract_names.index("sauspiel eichel")
    assert laufende_added(schafkopf, k, 0b0011, masks) == 30
    want = solve(schafkopf, k, 0b0011, masks, 0, dealt=Dealt(masks, schafkopf.cards.index("AC")),
                 moves=False, line=False).value
    assert f"value: {want:+g} " in out
