"""A doubling round after a single declaration round (issue 11, item 11), from Schafkopf's
order of play: each player declares once, in turn from forehand; then, on the game declared,
Kontra and Re may be given before play. Here: from forehand each seat passes or says the next
double, until (end_after_passes) passes follow a double, or four passes none."""

from pathlib import Path

import numpy as np

from kopsim.bots.seated import play_batch
from kopsim.engine.reference import State
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

from deals import make_deal  # tests/deals.py

KNOB = Path(__file__).parent / "data" / "knobs" / "victory-cards-kontra.toml"
# dealer 3: forehand 0 holds both black queens, the only seat with a declaration to make
BLACK_QUEENS = {0: ["QC", "QS", "AH", "10H"], 1: ["JC", "JS", "AC", "10C"],
                2: ["QH", "QD", "AS", "10S"], 3: ["JH", "JD", "AD", "10D"]}


def test_after_the_declarations_each_seat_may_double_in_turn():
    rules = load_ruleset(KNOB)
    st = State(rules, make_deal(3, BLACK_QUEENS))
    first = st.legal_actions()
    assert "kontra" not in first  # no double while the declarations go round
    assert first == ["pass", "wesele", "solo"]
    bid = "solo"
    st.apply_action(bid)  # seat 0 declares; nobody else has a declaration to make
    assert st.doubling_round and st.current_player() == 0  # the round starts at forehand
    assert st.legal_actions() == ["pass"]  # the declarer may not give the first double
    st.apply_action("pass")
    assert st.legal_actions() == ["pass", "kontra"]
    st.apply_action("kontra")  # seat 1
    assert st.current_player() == 2 and "re" in st.legal_actions()
    for _ in range(3):
        st.apply_action("pass")  # three passes after a double end it
    assert st.phase == "play" and st.contract == bid and st.double_seats == [1]


def test_four_passes_end_a_doubling_round_without_a_double():
    rules = load_ruleset(KNOB)
    st = State(rules, make_deal(3, BLACK_QUEENS))
    st.apply_action("solo")
    assert st.doubling_round
    for _ in range(4):
        assert st.phase == "auction"
        st.apply_action("pass")
    assert st.phase == "play" and st.double_seats == []


def test_the_kernel_plays_the_doubling_round():
    cr = compile_rules(load_ruleset(KNOB))
    res = play_batch(cr, np.arange(2000), np.arange(2000) % 4)
    kontra = cr.call_names.index("kontra")
    assert (res.calls == kontra).any() and (res.doubles > 0).any()
