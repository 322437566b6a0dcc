"""A side doubling its own side's double (issue 11, item 2), from the rule as tournament
rulebooks state it: "a side may not double its own double". kopsim's default (`ignored`) lets the
double be said and not count (docs/rules: counted doubles alternate sides); `forbidden` does not
offer it. Sides are those the contract in force forms on the deal."""

import numpy as np

from kopsim.bots.seated import play_batch
from kopsim.rules.load import load_raw, ruleset_from_dict
from kopsim.rules.compile import compile_rules

from deals import PLAIN, make_deal  # tests/deals.py
from deals import after_calls as after

# dealer 3, forehand 0. Q♣ at 0 and Q♠ at 1: the normal game's old side is {0, 1}.


def kop(own_side: str):
    data, _ = load_raw("kop")
    data["doubling"] = {**data["doubling"], "own_side": own_side}
    return ruleset_from_dict(data)


def test_ignored_offers_the_partner_a_double_that_does_not_count():
    st = after(kop("ignored"), ["kontra"])  # seat 0 (old side of the normal game) doubles
    assert st.current_player() == 1 and "re" in st.legal_actions()
    st.apply_action("re")  # seat 1, 0's partner: said, and uses up the chain's second name
    for call in ["pass", "pass", "pass"]:
        st.apply_action(call)
    assert st.contract == "normal" and st.old_side == [0, 1]
    assert st.double_seats == [0, 1]


def test_forbidden_withholds_the_double_from_the_doublers_partner_only():
    rules = kop("forbidden")
    st = after(rules, ["kontra"])
    assert st.current_player() == 1 and st.legal_actions() == ["pass", "zolo", "zolo du"]
    st.apply_action("pass")
    assert st.current_player() == 2 and "re" in st.legal_actions()  # the other side answers
    st.apply_action("re")
    third = rules.doubling.names[2]
    assert st.current_player() == 3 and third not in st.legal_actions()  # 2's partner
    assert third in after(rules, ["kontra", "pass", "re", "pass"]).legal_actions()  # seat 0


def test_forbidden_follows_the_sides_of_the_bid_in_force():
    # seat 0 bids zolo: alone against 1, 2 and 3; seat 1 doubles, then 2 and 3 (his side) may
    # not, but the declarer may answer
    st = after(kop("forbidden"), ["zolo", "kontra"])
    assert st.current_player() == 2 and st.legal_actions() == ["pass", "zolo du"]
    st.apply_action("pass")
    assert st.legal_actions() == ["pass", "zolo du"]  # seat 3: no double
    st.apply_action("pass")
    assert st.current_player() == 0 and "re" in st.legal_actions()


def _offered_after_forehands_kontra(own_side: str) -> list[str]:
    """The calls the kernel offers seat 1 once seat 0 has said kontra on PLAIN."""
    cr = compile_rules(kop(own_side))
    deal = make_deal(3, PLAIN)
    index = {c: i for i, c in enumerate(cr.cards)}
    # the i-th card dealt goes to seat (dealer + 1 + i) % 4 = i % 4
    given = np.array([[index[deal.hands[i % 4][i // 4]] for i in range(16)]], np.int64)
    kontra = cr.call_names.index("kontra")
    res = play_batch(cr, np.array([1]), np.array([3]), given=given,
                     explore=np.array([[0, kontra]]))
    assert int(res.calls[0, 0]) == kontra and int(res.call_seat[0, 1]) == 1
    return [name for code, name in enumerate(cr.call_names) if int(res.options[0, 1]) >> code & 1]


def test_the_kernel_offers_the_same_calls():
    assert _offered_after_forehands_kontra("forbidden") == ["pass", "zolo", "zolo du"]
    assert _offered_after_forehands_kontra("ignored") == ["pass", "zolo", "zolo du", "re"]
