"""pimc and cheat-dd on the issue-11 knobs: the Laufende the dealt hands fix, and the called
card's duties (Schafkopf's Rufsau), each world priced and searched with its own."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.pimc import card_values
from kopsim.bots.sampler import AuctionBook, draw_worlds
from kopsim.bots.solver import Dealt, laufende_added, side_value, solve
from kopsim.bots.seated import play_hand
from kopsim.engine.reference import Deal, State, called_card_of, old_side_of
from kopsim.engine.rng import hand_seed
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset
from test_solver_knobs import _ace_call_24

KNOBS = Path(__file__).parent / "data" / "knobs"


def _rules(name: str):
    if name == "ace-call-24":  # the duties with running away from two clubs, and Laufende
        return _ace_call_24(2).rules
    return load_ruleset(KNOBS / f"{name}.toml")


def _masks(cr, hands):
    index = {c: i for i, c in enumerate(cr.cards)}
    return [sum(1 << index[c] for c in h) for h in hands]


def _on_duty(st: State, hands) -> str | None:
    """The called card of the hand st plays on a deal of these hands, while its duties hold."""
    if st.rules.contracts[st.contract].called_card_rules is None:
        return None
    called = called_card_of(st.rules, Deal(st.deal.dealer, tuple(map(tuple, hands))),
                            st.contract, st.declarer)
    if called is None:
        return None
    suit = st.order.suit[called]
    return None if any(st.order.suit[t.cards[0]] == suit for t in st.tricks) else called


def _solve_state(cr, st: State, hands=None, old=None):
    """solve() of st's position on a deal of these hands (default: st's own)."""
    hands = [list(h) for h in (st.deal.hands if hands is None else hands)]
    old = sum(1 << s for s in st.old_side) if old is None else old
    held = [[c for c in h if not _played(st, c)] for h in hands]
    called = _on_duty(st, hands)
    return solve(cr, cr.contract_names.index(st.contract), old, _masks(cr, held), st.leader,
                 [cr.cards.index(c) for c in st.trick], st.points, st.tricks_won,
                 st.double_seats,
                 dealt=Dealt(_masks(cr, hands), None if called is None else cr.cards.index(called)))


def _played(st: State, card: str) -> bool:
    return any(card in t.cards for t in st.tricks) or card in st.trick


@pytest.mark.parametrize("name", ["kop-called-ace", "kop-laufende", "ace-call-24"])
def test_four_cheats_get_the_value_their_solver_promised_at_the_first_lead(name):
    """Each cheat-dd plays its side's double-dummy best, so the hand ends where the solver said
    it would from the first lead: the Laufende priced and only legal cards searched."""
    rules = _rules(name)
    cr = compiled(rules)
    # bidding whatever pays if the others pass (sacrifices too) reaches the knobs' contracts
    # more often; the play is what is checked
    spec = bot_spec({"name": "cheat-dd", "sound_bids": False})
    called = laufende = 0
    for i in range(20):
        seed = hand_seed(31, i)
        st = State(rules, Deal.from_seed(rules, seed, i % 4))
        bots = [spec.make(seed, s, rules) for s in range(4)]
        promised = None
        while not st.is_terminal():
            if st.phase == "play" and promised is None:
                promised = _solve_state(cr, st).value
            st.apply_action(bots[st.current_player()].act_seeing_all(st))
        if promised is None:  # won at once
            continue
        old = sum(1 << s for s in st.old_side)
        assert side_value(st.returns(), old) == pytest.approx(promised), i
        called += rules.contracts[st.contract].called_card_rules is not None
        laufende += rules.contracts[st.contract].laufende is not None
    assert called + laufende >= 4  # the knob's contracts were played


@pytest.mark.parametrize("name", ["kop-called-ace", "kop-laufende"])
def test_pimc_plays_whole_hands_through_the_reference_engine(name):
    rules = _rules(name)
    # unsound bids (sacrifices too) reach the knobs' contracts more often: the play is checked
    spec = bot_spec({"name": "pimc", "samples": 6, "auction_samples": 3, "sound_bids": False})
    played = 0
    for i in range(20):
        st = play_hand(rules, hand_seed(32, i), i % 4, [spec] * 4)
        assert st.is_terminal()  # every card it chose was legal: apply_action checks each
        played += rules.contracts[st.contract].called_card_rules is not None \
            or rules.contracts[st.contract].laufende is not None
    assert played >= 2


def _late_schafkopf_state(rules, seed: int, rng: random.Random, tricks: int) -> State:
    """Schafkopf after an auction in which the first seat that may call a Sauspiel does and
    the others pass, and `tricks` random tricks (and a card or two)."""
    st = State(rules, Deal.from_seed(rules, seed, 0))
    while st.phase == "auction":
        calls = st.legal_actions()
        sauspiel = [c for c in calls if c.startswith("sauspiel")]
        st.apply_action(sauspiel[0] if sauspiel and st.bid is None else "pass")
    for _ in range(4 * tricks + rng.randrange(3)):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        st.apply_action(legal[rng.randrange(len(legal))])
    return st


def test_card_values_on_schafkopf_agree_with_each_world_solved_alone():
    """pimc's worlds differ in their Laufende (who holds which Obers and Unters) and share the
    called ace's duties; solved together under one table, each gets its own solve()."""
    rules = load_ruleset("schafkopf")
    cr = compiled(rules)
    rng = random.Random(4)
    laufende = checked = 0
    for i in range(6):
        st = _late_schafkopf_state(rules, hand_seed(33, i), rng, 5)
        if st.is_terminal() or len(st.legal_actions()) < 2:
            continue
        seat = st.current_player()
        obs = st.observation(seat)
        worlds = draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 8,
                             np.uint64(i), 4000)
        values = card_values(cr, obs, worlds.hands, worlds.readings, seat)
        added = set()
        for w, row in enumerate(worlds.hands):
            hands = [[c for j, c in enumerate(cr.cards) if (int(h) >> j) & 1] for h in row]
            deal = Deal(obs.dealer, tuple(map(tuple, hands)))
            old = sum(1 << s for s in old_side_of(rules, deal, st.contract, st.declarer))
            res = _solve_state(cr, st, hands, old)
            sign = 1.0 if (old >> seat) & 1 else -1.0
            want = [sign * res.move_values[cr.cards.index(c)] for c in obs.legal_actions]
            assert values[w].tolist() == pytest.approx(want)
            checked += 1
            added.add(laufende_added(cr, cr.contract_names.index(st.contract), old, row))
        laufende += len(added) > 1
    assert checked >= 20 and laufende >= 1
