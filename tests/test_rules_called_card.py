"""The called card's duties (issue 11, item 9), from Schafkopf's rule of the called ace
(Rufsau): until its suit has been led, its holder must play it when the suit is led, may not
throw it on another suit, and may not lead the suit except with it, unless he holds four or more
of the suit ("running away"). Once the suit has been led the duties end. Checked in the
reference engine on a 24-card pack (clubs A 10 K 9 plain), and the kernel on the same deals."""

import numpy as np
import pytest

from kopsim.bots.seated import play_batch
from kopsim.engine.reference import Deal, State
from kopsim.errors import InputError
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import ruleset_from_dict
from kopsim.records.format import batch_record


TRUMPS = ["AH", "10H", "QC", "QS", "QH", "QD", "JC", "JS", "JH", "JD", "AD", "10D"]


def rules(run_away_with=4, **contract):
    return ruleset_from_dict({
        "name": "ace-call-24", "deck": {"ranks": ["A", "10", "K", "Q", "J", "9"],
                                        "suits": ["C", "S", "H", "D"],
                                        "points": {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2,
                                                   "9": 0}},
        "orders": {"o": {"trumps": TRUMPS, "plain": {
            "C": ["AC", "10C", "KC", "9C"], "S": ["AS", "10S", "KS", "9S"],
            "H": ["KH", "9H"], "D": ["KD", "9D"]}}},
        "play": {"follow_suit": True, "trump_when_void": False, "must_beat": False},
        "auction": {"no_bid": ["normal"]},
        "contracts": {
            "normal": {"team": "holders", "team_cards": ["QC", "QS"], "order": "o",
                       "payout": {"won": 1, "lost": 1}},
            "ace call": {"bid_rank": 1, "team": "called", "team_cards": ["AC"], "order": "o",
                         "eligible": {"holds_none": ["AC"]}, "payout": {"won": 2, "lost": 2},
                         "called_card_rules": {"run_away_with": run_away_with}, **contract}}})


# dealer 3, forehand 0 calls A♣, held by seat 1
HANDS = {0: ["10C", "QC", "AS", "JD", "KH", "9D"], 1: ["AC", "KC", "AH", "QS", "JH", "9H"],
         2: ["9C", "10S", "KS", "QH", "JC", "AD"], 3: ["9S", "10H", "QD", "JS", "10D", "KD"]}


def make_deal(dealer, hands):
    return Deal(dealer=dealer, hands=tuple(tuple(hands[s]) for s in range(4)))


def called(r, hands=HANDS):
    st = State(r, make_deal(3, hands))
    for call in ["ace call", "pass", "pass", "pass"]:
        st.apply_action(call)
    assert st.contract == "ace call" and st.old_side == [0, 1]
    return st


def play(st, cards):
    for c in cards:
        st.apply_action(c)
    return st


def test_the_holder_plays_the_called_ace_when_its_suit_is_led():
    st = play(called(rules()), ["10C"])
    assert st.current_player() == 1 and st.legal_actions() == ["AC"]  # not K♣


def test_the_called_ace_is_not_thrown_on_another_suit():
    st = play(called(rules()), ["KH"])  # hearts plain K H: seat 1 must follow with 9♥
    assert st.legal_actions() == ["9H"]
    st = play(called(rules()), ["9D"])  # diamonds: seat 1 is void and may play anything but A♣
    assert "AC" not in st.legal_actions() and "KC" in st.legal_actions()


def test_the_holder_leads_clubs_only_with_the_ace_unless_he_runs_away():
    # seat 1 wins the first trick and leads: K♣ is barred, A♣ is allowed
    st = play(called(rules()), ["9D", "AH", "AD", "KD"])
    assert st.current_player() == 1
    assert "KC" not in st.legal_actions() and "AC" in st.legal_actions()
    # with four clubs he may run away with a small one (run_away_with = 4)
    four = {0: ["QC", "QS", "AS", "JD", "KH", "9D"], 1: ["AC", "KC", "9C", "10C", "AH", "9H"],
            2: ["10S", "KS", "QH", "JC", "AD", "JH"], 3: ["9S", "10H", "QD", "JS", "10D", "KD"]}
    st = play(called(rules(), four), ["9D", "AH", "AD", "KD"])
    assert st.current_player() == 1 and "KC" in st.legal_actions()


def test_the_duties_end_once_the_suit_has_been_led():
    st = play(called(rules()), ["AS", "KC", "10S", "9S"])  # seat 1 void in spades: plays K♣
    assert st.tricks[0].cards == ("AS", "KC", "10S", "9S")
    # clubs have not been led (a club was thrown on spades): the duties still hold
    st2 = play(called(rules()), ["10C", "AC", "9C", "9S"])  # clubs led: duties end
    # seat 1 won with A♣ and now leads anything
    assert st2.current_player() == 1 and "KC" in st2.legal_actions()


def test_running_away_with_enough_of_the_suit():
    r = rules(run_away_with=2)  # seat 1 holds A♣ K♣: two clubs, enough to run away here
    st = play(called(r), ["9D", "AH", "AD", "KD"])
    assert "KC" in st.legal_actions()


def test_duties_need_a_called_team_and_a_plain_card():
    with pytest.raises(InputError) as e:
        rules(team="alone", team_cards=[])
    assert any(p.where == 'contracts."ace call".called_card_rules' for p in e.value.problems)
    with pytest.raises(InputError) as e:
        rules(team_cards=["AH"])
    assert any(p.where == 'contracts."ace call".team_cards[0]' for p in e.value.problems)


def test_the_kernel_keeps_the_same_duties():
    r = rules()
    cr = compile_rules(r)
    index = {c: i for i, c in enumerate(cr.cards)}
    deal = make_deal(3, HANDS)
    given = np.array([[index[deal.hands[i % 4][i // 4]] for i in range(24)]] * 300, np.int64)
    call = cr.call_names.index("ace call")
    res = play_batch(cr, np.arange(300), np.full(300, 3), given=given,
                     explore=np.tile([0, call], (300, 1)))
    for i in range(300):
        rec = batch_record(res, i)
        if rec.contract != "ace call":
            continue
        st = State(r, make_deal(3, HANDS))
        for a in rec.auction:
            assert a["call"] in st.legal_actions()
            st.apply_action(a["call"])
        for t in rec.tricks:
            for c in t["cards"]:
                assert c in st.legal_actions(), (i, c, st.legal_actions())
                st.apply_action(c)


def test_only_the_opponents_may_say_the_first_double():
    r = ruleset_from_dict({**rules().model_dump(by_alias=True, exclude_none=True),
                           "doubling": {"names": ["kontra", "re"]}})
    st = State(r, make_deal(3, HANDS))
    st.apply_action("ace call")  # seat 0 calls A♣: seat 1 is his partner
    assert "kontra" in st.legal_actions()  # seat 1 may, without the rule
    data = r.model_dump(by_alias=True, exclude_none=True)
    data["contracts"]["ace call"]["first_double_young_only"] = True
    st = State(ruleset_from_dict(data), make_deal(3, HANDS))
    st.apply_action("ace call")
    assert st.current_player() == 1 and "kontra" not in st.legal_actions()
    st.apply_action("pass")
    assert "kontra" in st.legal_actions()  # seat 2, an opponent
