"""pimc's sampler on the called card's duties (Schafkopf's Rufsau): a seat that followed the
called card's suit with another card while its duties held, or led it with another card without
enough of the suit to run away, did not hold the called card; the sampler draws only worlds on
which the whole history replays in the reference engine, each about equally often."""

from __future__ import annotations

import random

import numpy as np

from kopsim.bots.sampler import replay
from test_endgame import _history
from test_endgame_knobs import _ace_call_positions
from test_sampler import _consistent_deals, assert_drawn_uniformly
from test_solver_knobs import _ace_call_24


def test_worlds_that_break_the_called_aces_duties_are_never_drawn():
    cr = _ace_call_24(4)
    rules = cr.rules
    no_duties = _ace_call_24(None).rules
    rng = random.Random(8)
    narrowed = 0
    for i, state in enumerate(_ace_call_positions(rules, 4, 60, rng, True)):
        seat = state.current_player()
        obs = state.observation(seat)
        truth = _consistent_deals(rules, state, seat)
        assert_drawn_uniformly(cr, obs, truth, np.uint64(i))
        # the play alone (no duties) would allow more
        plain = _consistent_deals(no_duties, _replayed(no_duties, state), seat)
        narrowed += len(plain) > len(truth)
    assert narrowed >= 2


def _replayed(rules, state):
    """The state's history replayed under other rules."""
    return replay(rules, state.deal.dealer, [list(h) for h in state.deal.hands],
                  _history(state))
