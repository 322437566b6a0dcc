"""An observation holds only what its seat may know: its own cards and what was said or played."""

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopsim.engine.reference import Deal, State
from kopsim.engine.rng import Stream
from kopsim.rules.load import bundled_names, load_ruleset

RULES = {name: load_ruleset(name) for name in bundled_names()}


def cards_in(obj, deck):
    """Every card name anywhere inside an observation (recursing through tuples/dataclasses)."""
    found = set()
    if isinstance(obj, str):
        if obj in deck:
            found.add(obj)
    elif dataclasses.is_dataclass(obj):
        for f in dataclasses.fields(obj):
            found |= cards_in(getattr(obj, f.name), deck)
    elif isinstance(obj, (tuple, list, set)):
        for x in obj:
            found |= cards_in(x, deck)
    return found


@pytest.mark.parametrize("name", sorted(RULES))
@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), dealer=st.integers(0, 3), stop=st.integers(0, 40))
def test_observation_shows_no_hidden_card(name, seed, dealer, stop):
    rules = RULES[name]
    deck = set(rules.cards())
    n = rules.deck.players
    state = State(rules, Deal.from_seed(rules, seed, dealer % n))
    rng = Stream(seed, 7)
    for _ in range(stop):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.choice(len(legal))])
    played = {c for t in state.tricks for c in t.cards} | set(state.trick)
    for seat in range(n):
        obs = state.observation(seat)
        visible = cards_in(obs, deck)
        own = set(state.deal.hands[seat])
        if state.talon_taken and seat == state.declarer:  # he picked the talon up
            own |= set(state.deal.talon)
        if (state.phase in ("play", "done") and state.contract is not None
                and rules.contracts[state.contract].open_hand):  # laid open (SKAT.md §2.7)
            assert set(obs.open_hand) == set(state.held[state.declarer])
            own |= set(obs.open_hand)
        assert visible <= own | played, f"seat {seat} sees {visible - own - played}"
        assert set(obs.hand) == set(state.held[seat])
        if state.turn != seat:
            assert obs.legal_actions == ()


def test_cicha_is_not_revealed_to_the_others():
    """A silent game looks like a normal one to everyone but the holder of both black queens."""
    rules = RULES["kop"]
    deal = Deal(0, (("QC", "QS", "AH", "JD"), ("10H", "QH", "QD", "JC"),
                    ("JS", "JH", "AD", "10D"), ("AC", "10C", "AS", "10S")))
    state = State(rules, deal)
    for _ in range(4):
        state.apply_action("pass")
    assert state.contract == "cicha"
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.bid is None and obs.bidder is None
        assert "cicha" not in repr(obs)
