"""The ev bot's endgame on the called card's duties (Schafkopf's Rufsau) and the Laufende: its
deals are those on which the whole history replays legally in the reference engine (a seat that
kept the called ace back when its suit was led did not hold it), and each is played out by the
reference engine's legal cards, duties included, and paid with its Laufende. Checked against
the plain-Python statement of tests/test_endgame.py."""

from __future__ import annotations

import random

import numpy as np
import pytest

from kopsim.bots.endgame import P_ENDGAME, P_WORLDS, endgame_choice
from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import hand_seed
from kopsim.bots.pimc import replay
from test_endgame import _card_values, _consistent_deals, _history
from test_solver_knobs import _ace_call_24


def _prm(tricks: int = 2, worlds: int = 100) -> np.ndarray:
    """An ev parameter row with only its endgame window set (the endgame reads nothing else)."""
    prm = np.zeros(max(P_ENDGAME, P_WORLDS) + 1, np.float64)
    prm[P_ENDGAME], prm[P_WORLDS] = tricks, worlds
    return prm


def _ace_call_positions(rules, n: int, seed: int, rng: random.Random, club_led: bool):
    """States two tricks before the end of an "ace call" (called by the first seat that may,
    the others passing), played at random with the holder of A♣ leading a low club when he may
    (running away); the seat to play has a choice; with club_led, it follows a club lead and
    has not seen A♣ after a seat followed it with a club (so that seat does not hold A♣)."""
    found, i = [], 0
    while len(found) < n and i < 400 * n:
        st = State(rules, Deal.from_seed(rules, hand_seed(seed, i), i % 4))
        i += 1
        while st.phase == "auction":
            calls = st.legal_actions()
            st.apply_action("ace call" if "ace call" in calls and st.bid is None else "pass")
        if st.contract != "ace call":
            continue
        while not st.is_terminal() and (len(st.held[st.current_player()]) > 2
                                        or (club_led and len(st.trick) < 2)):
            st.apply_action(_club_led_choice(st, rng) if club_led else _away_choice(st, rng))
        if st.is_terminal() or len(st.legal_actions()) < 2:
            continue
        seen = set(st.held[st.turn]) | {c for t in st.tricks for c in t.cards} | set(st.trick)
        if not club_led or (st.trick[0].endswith("C") and st.trick[1].endswith("C")
                            and "AC" not in seen):
            found.append(st)
    return found


def _away_choice(st: State, rng: random.Random) -> str:
    """A random card; the holder of A♣ leads a low club when he may, most of the time."""
    legal = st.legal_actions()
    away = [c for c in legal if not st.trick and "AC" in st.held[st.turn] and c.endswith("C")
            and c != "AC"]
    return rng.choice(away if away and rng.random() < 0.7 else legal)


def _club_led_choice(st: State, rng: random.Random) -> str:
    """A random card, but A♣ only when it must be played, and clubs led only in the
    second-to-last trick (when the leader holds two cards), then whenever he can."""
    legal = st.legal_actions()
    keep = [c for c in legal if c != "AC"] or legal
    if not st.trick:
        clubs = [c for c in keep if c.endswith("C")]
        others = [c for c in keep if not c.endswith("C")]
        keep = (clubs or keep) if len(st.held[st.turn]) == 2 else (others or keep)
    return rng.choice(keep)


@pytest.mark.parametrize("run_away_with", [2, 4])
def test_endgame_deals_and_cards_respect_the_called_aces_duties(run_away_with):
    cr = _ace_call_24(run_away_with)
    rules = cr.rules
    no_duties = _ace_call_24(None).rules
    rng = random.Random(run_away_with)
    removed = 0
    positions = (_ace_call_positions(rules, 4, 40 + run_away_with, rng, False)
                 + _ace_call_positions(rules, 4, 50 + run_away_with, rng, True))
    assert len(positions) == 8
    for st in positions:
        seat = st.current_player()
        card, deals = endgame_choice(cr, st.observation(seat), _prm())
        totals, expected = _card_values(st, seat)
        assert deals == expected
        assert card >= 0 and totals[cr.cards[card]] == pytest.approx(max(totals.values()))
        # the same history without the duties: more deals fit it
        plain = replay(no_duties, st.deal.dealer, [list(h) for h in st.deal.hands], _history(st))
        removed += len(_consistent_deals(plain, seat)) > expected
    assert removed >= 1  # the duties ruled deals out
