"""Bid classes (issue 11, item 11), from the rule as Schafkopf states it: the declarations rank
Rufspiel < Wenz < Solo, a later player can only take the game with a higher class, and between
two players wanting the same class the earlier one keeps it."""

import pytest

from kopsim.errors import InputError
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict
from kopsim.rules.show import show
from pathlib import Path

from deals import after_calls as after  # tests/deals.py

KNOB = Path(__file__).parent / "data" / "knobs" / "kop-bid-classes.toml"
# dealer 3, forehand 0; nobody holds both black queens (no wesele)


def test_a_later_seat_cannot_take_a_class_an_earlier_seat_holds():
    rules = load_ruleset(KNOB)
    st = after(rules, ["zolo"])  # seat 0 says zolo (class 2)
    assert "zolo du" not in st.legal_actions()  # seat 1: zolo du is class 2 too
    # without classes, zolo du outbids zolo
    assert "zolo du" in after(load_ruleset("kop"), ["zolo"]).legal_actions()
    # a higher class still outbids a lower one
    assert {"zolo", "zolo du"} <= set(after(rules, []).legal_actions())


def test_classes_are_shown_and_checked():
    text = show(load_ruleset(KNOB))
    assert "bid (rank 2, class 2)" in text
    data, _ = load_raw("kop")
    data["contracts"]["zolo"]["bid_class"] = 2  # only one contract with a class
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert {p.where for p in e.value.problems} == {'contracts.wesele.bid_class',
                                                    'contracts."zolo du".bid_class'}
    for name, k in (("wesele", 3), ("zolo du", 2)):
        data["contracts"][name]["bid_class"] = k
    with pytest.raises(InputError) as e:  # wesele ranks below zolo but would class above it
        ruleset_from_dict(data)
    assert [p.where for p in e.value.problems] == ["contracts.zolo.bid_class"]
