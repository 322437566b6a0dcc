"""An add-on announced with a bid (issue 11, item 3), as Pomeranian Baśka leagues play "du":
the player whose zolo (or gran) is the bid in force may add "du" (to take every trick, at the
du stake) and the doubles already said on his zolo stand; a du said by another player is a new,
higher bid, which cancels them as every higher bid does."""

from pathlib import Path

import pytest

from kopsim.errors import InputError
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

from deals import after_calls as after  # tests/deals.py

KNOB = Path(__file__).parent / "data" / "knobs" / "baska-du-add-on.toml"


def test_the_bidder_adds_du_and_keeps_the_doubles():
    rules = load_ruleset(KNOB)
    # seat 0 zolo, seat 1 kontra, 2 and 3 pass, seat 0 adds du: the kontra stands
    st = after(rules, ["zolo", "kontra", "pass", "pass"])
    assert st.current_player() == 0 and "zolo du" in st.legal_actions()
    st.apply_action("zolo du")
    assert st.bid == "zolo du" and st.double_seats == [1]
    # in plain baska the same du is a new bid and the kontra is gone
    st = after(load_ruleset("baska"), ["zolo", "kontra", "pass", "pass", "zolo du"])
    assert st.bid == "zolo du" and st.double_seats == []


def test_a_du_by_another_player_cancels_the_doubles():
    st = after(load_ruleset(KNOB), ["zolo", "kontra", "zolo du"])  # seat 2 bids zolo du
    assert st.bid == "zolo du" and st.bidder == 2 and st.double_seats == []


def test_an_add_on_must_be_a_higher_bid_of_a_known_contract():
    data, _ = load_raw(KNOB)
    data["contracts"]["zolo du"]["add_on_to"] = "nonsense"
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any(p.where == 'contracts."zolo du".add_on_to' for p in e.value.problems)
    data["contracts"]["zolo du"]["add_on_to"] = "baśka"  # ranks above zolo du
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any("higher" in p.message for p in e.value.problems)
