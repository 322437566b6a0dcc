"""A wesele announced after a silent first round (issue 11, item 4), as Wielkopolska tournament
Kop plays it: when all four pass without a call, the auction reopens once; from forehand each
seat passes or (the holder of both black queens) announces wesele; the announcement is the bid
in force of an auction restarted from forehand, ending as any once every seat has answered it;
if nobody announces, cicha or the normal game is played as before."""

from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.errors import InputError
from kopsim.records.replay import check_record
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

from deals import after_calls as after  # tests/deals.py
from kopsim.records.format import batch_record

KNOB = Path(__file__).parent / "data" / "knobs" / "kop-wesele-reopened.toml"
# dealer 3, forehand 0; seat 1 (second) holds both black queens: wesele's (and cicha's) player
WEDDING = {0: ["AH", "10H", "AC", "10C"], 1: ["QC", "QS", "JH", "JD"],
           2: ["QH", "QD", "AS", "10S"], 3: ["JC", "JS", "AD", "10D"]}


def kop_reopened(**auction):
    """kop with wesele announced after a silent first round (and the auction keys given)."""
    data, _ = load_raw("kop")
    data["auction"]["reopen_after_silent_round"] = {"announce": ["wesele"]}
    data["auction"].update(auction)
    return ruleset_from_dict(data)


def test_all_pass_then_the_black_queens_announce_wesele_and_the_auction_restarts():
    st = after(kop_reopened(), ["pass"] * 4, given=WEDDING)
    assert st.phase == "auction" and st.current_player() == 0  # reopened, from forehand
    assert st.legal_actions() == ["pass"]  # forehand has nothing to announce
    st.apply_action("pass")
    assert st.legal_actions() == ["pass", "wesele"]  # only the listed announcement, no zolo
    st.apply_action("wesele")
    assert (st.bid, st.bidder, st.current_player()) == ("wesele", 1, 0)  # forehand speaks next
    assert st.legal_actions() == ["pass", "zolo", "zolo du", "kontra"]  # an ordinary auction
    for _ in range(3):  # forehand, the announcer himself, third
        st.apply_action("pass")
    # three passes in a row, but the dealer has not answered the announcement yet
    assert st.phase == "auction" and st.current_player() == 3
    st.apply_action("pass")
    assert (st.phase, st.contract, st.declarer) == ("play", "wesele", 1)
    assert [s for s, _ in st.auction] == [0, 1, 2, 3, 0, 1, 0, 1, 2, 3]


def test_after_the_announcement_anyone_may_overbid_and_the_usual_passes_end_it():
    st = after(kop_reopened(), ["pass"] * 5 + ["wesele", "zolo"], given=WEDDING)
    assert st.bid == "zolo" and st.current_player() == 1
    assert "zolo du" in st.legal_actions()  # the announcer may bid higher in his turn
    for _ in range(3):
        st.apply_action("pass")
    assert (st.phase, st.contract, st.declarer) == ("play", "zolo", 0)


def test_nobody_announces_and_cicha_is_played_as_before():
    st = after(kop_reopened(), ["pass"] * 8, given=WEDDING)
    assert (st.phase, st.contract, st.declarer) == ("play", "cicha", 1)
    assert len(st.auction) == 8  # every seat speaks in the reopening: a pass shows nothing


def test_a_seat_that_may_not_bid_wesele_cannot_announce_it():
    st = after(kop_reopened(), ["pass"] * 4)  # the plain deal: nobody holds both black queens
    for seat in (0, 1, 2, 3):
        assert st.current_player() == seat and st.legal_actions() == ["pass"]
        st.apply_action("pass")
    assert (st.phase, st.contract) == ("play", "normal")


def test_without_the_setting_four_passes_end_the_auction():
    st = after(load_ruleset("kop"), ["pass"] * 4, given=WEDDING)
    assert (st.phase, st.contract, st.declarer) == ("play", "cicha", 1)


def test_the_announcement_is_a_bid_a_restriction_can_forbid():
    forbid = [{"forbid": ["wesele"], "bid_in_force": False, "first_call": False}]
    st = after(kop_reopened(restrictions=forbid), ["pass"] * 5, given=WEDDING)
    assert st.current_player() == 1 and st.legal_actions() == ["pass"]


def test_the_ask_style_reopens_after_forehands_ask_and_the_passes():
    rules = kop_reopened(style="ask", end_after_passes=4)
    st = after(rules, ["ask", "pass", "pass", "pass", "pass"], given=WEDDING)
    assert st.phase == "auction" and st.current_player() == 0
    assert st.legal_actions() == ["pass"]  # forehand's ask duty does not come back
    st.apply_action("pass")
    assert st.legal_actions() == ["pass", "wesele"]


def _kernel_hands(n=1500):
    cr = compile_rules(load_ruleset(KNOB))
    res = play_batch(cr, hand_seeds(5, 0, n), np.arange(n) % 4, bots=[bot_spec("heuristic")])
    return cr, res


def test_the_kernel_reopens_and_restarts_from_forehand():
    cr, res = _kernel_hands()
    reopened = announced = 0
    for h in range(len(res.contract)):
        rec = batch_record(res, h)
        calls = [(c["seat"], c["call"]) for c in rec.auction]
        forehand = (rec.dealer + 1) % 4
        if len(calls) <= 4 or any(c != "pass" for _, c in calls[:4]):
            continue
        reopened += 1
        assert calls[4][0] == forehand  # the reopening round starts at forehand
        said = [i for i in range(4, min(8, len(calls))) if calls[i][1] != "pass"]
        if not said:
            assert len(calls) == 8 and rec.contract in ("cicha", "normal")
            continue
        i, (seat, call) = said[0], calls[said[0]]
        announced += 1
        assert call == "wesele" and {"QC", "QS"} <= set(rec.hands[seat])
        assert calls[i + 1][0] == forehand and len(calls) >= i + 5  # every seat answers it
        assert check_record(cr.rules, rec.to_dict()) is None
    assert reopened > 50 and announced > 10


def test_replay_refuses_an_announcement_the_rules_do_not_allow():
    cr, res = _kernel_hands(400)
    doctored = 0
    for h in range(len(res.contract)):
        d = batch_record(res, h).to_dict()
        calls = d["auction"]
        if len(calls) < 8 or any(c["call"] != "pass" for c in calls[:4]):
            continue
        said = [i for i in range(4, 8) if calls[i]["call"] != "pass"]
        if said:  # zolo is no announcement
            calls[said[0]]["call"] = "zolo"
            assert "not legal" in check_record(cr.rules, d)
            doctored += 1
        elif not {"QC", "QS"} <= set(d["hands"][calls[4]["seat"]]):  # nobody announced
            calls[4]["call"] = "wesele"  # forehand may not: he lacks a black queen
            assert "not legal" in check_record(cr.rules, d)
            doctored += 1
    assert doctored >= 10


@pytest.mark.parametrize("announce, where", [
    (["wesle"], "auction.reopen_after_silent_round.announce[0]"),  # no such contract
    (["normal"], "auction.reopen_after_silent_round.announce[0]"),  # not a bid
    ([], "auction.reopen_after_silent_round.announce"),
])
def test_the_announcements_must_be_known_bids(announce, where):
    data, _ = load_raw("kop")
    data["auction"]["reopen_after_silent_round"] = {"announce": announce}
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert [p.where for p in e.value.problems] == [where]


def test_a_single_declaration_round_cannot_reopen():
    data, _ = load_raw("kop-victory-cards")
    data["auction"]["reopen_after_silent_round"] = {"announce": ["wesele"]}
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert [p.where for p in e.value.problems] == ["auction.reopen_after_silent_round"]


def test_a_first_call_only_contract_cannot_be_announced():
    data, _ = load_raw("kop-sportowy")  # wesele only as a seat's first call
    data["auction"]["reopen_after_silent_round"] = {"announce": ["wesele"]}
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data)
    assert any("first call" in p.message for p in e.value.problems)


@pytest.mark.parametrize("calls", [
    ["pass"] * 5 + ["wesele"] + ["pass"] * 4,  # seat 1 announced wesele after a silent round
    ["pass"] * 8,  # nobody announced: cicha if a seat holds both black queens, else normal
])
def test_pimc_worlds_follow_a_silent_round_and_the_reopening(calls):
    from kopsim.bots.sampler import AuctionBook, draw_worlds
    from kopsim.rules.cache import compiled

    rules = kop_reopened()
    cr = compiled(rules)
    st = after(rules, calls, given=WEDDING)
    obs = st.observation(0)
    worlds = draw_worlds(cr, obs, AuctionBook(rules, obs.dealer, obs.auction), 12,
                         np.uint64(3), 8000)
    assert len(worlds.readings) == 12
    qc, qs = (np.uint64(1 << cr.cards.index(c)) for c in ("QC", "QS"))
    for row, reading in zip(worlds.hands, worlds.readings):
        both = [s for s in range(4) if row[s] & qc and row[s] & qs]
        if st.bid == "wesele":  # he passed in the first round, then announced
            assert both == [1] and (reading.contract, reading.declarer) == ("wesele", 1)
        else:
            assert (reading.contract, reading.declarer) == (("cicha", both[0]) if both
                                                            else ("normal", None))
    assert len({r.contract for r in worlds.readings}) == (1 if st.bid else 2)


def test_ev_learns_the_reopening_round_as_a_context_of_its_own_and_both_engines_agree():
    from kopsim.bots.calibrate import calibrated
    from kopsim.bots.ev import EvParams, reopening_context
    from kopsim.bots.seated import play_hand
    from kopsim.records.format import record_from_state

    rules = load_ruleset(KNOB)
    cr = compile_rules(rules)
    spec = {"name": "ev", "deals": 2000, "rounds": 1}
    table = calibrated(cr, EvParams(**{k: v for k, v in spec.items() if k != "name"}))
    context = reopening_context(len(cr.contract_names), cr.tables.n_chain)
    assert table.values.shape[2] == context + 1
    wesele = cr.call_names.index("wesele")
    learnt = table.values[:, :, context, wesele]
    assert (learnt > -1e8).any()  # valued from payouts, for some hands and positions
    bots = [bot_spec(b) for b in [spec, "heuristic"] * 2]
    seeds, n = hand_seeds(11, 0, 300), 300
    batch = play_batch(cr, seeds, np.arange(n) % 4, bots=bots)
    reopened = 0
    for i in range(n):
        got = batch_record(batch, i)
        if len(got.auction) > 4 and all(c["call"] == "pass" for c in got.auction[:4]):
            reopened += 1
            ref = record_from_state(play_hand(rules, int(seeds[i]), i % 4, bots), int(seeds[i]), i)
            assert got.to_dict() == ref.to_dict(), f"hand {i} differs"
    assert reopened > 20


def test_rules_show_and_diff_say_the_reopening():
    from kopsim.rules.diff import diff_rules
    from kopsim.rules.show import show

    kop, reopened = load_ruleset("kop"), kop_reopened()
    assert "pass or announce wesele" in show(reopened) and "announce" not in show(kop)
    there = [c.text for c in diff_rules(kop, reopened)]
    back = [c.text for c in diff_rules(reopened, kop)]
    assert there == ["a silent first round reopens the auction for wesele"]
    assert back == ["a silent first round ends the auction (no reopening)"]
