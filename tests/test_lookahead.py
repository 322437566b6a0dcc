"""The search bots' calls: a bid that loses in most worlds is never made while another call is
open, and with `lookahead` the rest of the auction is played by a model of good players."""

from kopsim.bots import bot_spec
from kopsim.bots.lookahead import AuctionModel, LookaheadParams
from kopsim.engine.reference import Deal, State
from kopsim.rules.load import load_ruleset

KOP = load_ruleset("kop")
SMALL = LookaheadParams(deals=2000, rounds=2)
# Dealer 1, forehand 2. Seat 2 holds A♥ 10♥ (the two highest trumps of As-Dycha) and bids zolo;
# seat 3 says kontra, seat 2 re, seat 3 bok. Seat 0 holds J♣ as his only trump: a zolo du of his
# (every trick) loses to any defence, yet it would cancel the three doubles on seat 2's zolo,
# which he loses at 5 x 8 per seat.
HANDS = (("AC", "JC", "10C", "AS"), ("QH", "QS", "AD", "QC"), ("JH", "JS", "AH", "10H"),
         ("10D", "JD", "QD", "10S"))
CALLS = ["zolo", "kontra", "pass", "pass", "re", "bok"]


def _state():
    st = State(KOP, Deal(1, HANDS))
    for call in CALLS:
        st.apply_action(call)
    assert st.current_player() == 0 and "zolo du" in st.legal_actions()
    return st


def test_a_bid_that_loses_to_any_defence_is_not_made():
    st = _state()
    myopic = bot_spec({"name": "cheat-dd", "sound_bids": False}).make(1, 0, KOP)
    sound = bot_spec("cheat-dd").make(1, 0, KOP)
    # priced as if the others then passed, the sacrifice looks cheaper than passing
    assert myopic.act_seeing_all(st) == "zolo du"
    assert sound.act_seeing_all(st) != "zolo du"


def test_the_model_ends_the_auction_by_the_rules():
    model = AuctionModel(KOP, SMALL)
    history = list(zip([2, 3, 0, 1, 2, 3], CALLS))
    end = model.ending(1, [list(h) for h in HANDS], history + [(0, "zolo du")])
    assert end.contract == "zolo du" and end.declarer == 0 and end.payouts is None
    # all four passing: seat 1 holds both black queens and plays cicha, the silent game
    end = model.ending(1, [list(h) for h in HANDS], [(2, "pass"), (3, "pass"), (0, "pass"),
                                                     (1, "pass")])
    assert (end.contract, end.declarer, end.double_seats) == ("cicha", 1, ())


def test_a_looking_ahead_cheat_prices_calls_through_the_model():
    st = _state()
    spec = bot_spec({"name": "cheat-dd", "lookahead": True,
                     "model": {"deals": 2000, "rounds": 2}})
    assert spec.make(1, 0, KOP).act_seeing_all(st) in st.legal_actions()
    assert spec.make(1, 0, KOP).act_seeing_all(st) != "zolo du"
