"""Bidding by value (Skat's Reizen), written from docs/rules/SKAT.md (SK §3, §4.5) and the
auction's statement in docs/rulesets.md (style = "value").

The ruleset is tests/data/talon/skat-value.toml: the talon's test table (clubs, null, grand, a
Ramsch when nobody bids) bid by Skat's values up to 168. Dealer 2: seat 0 is forehand (F),
seat 1 middlehand (M), seat 2 rearhand (R) (SK §1.2)."""

import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_hand
from kopsim.engine.reference import Deal, IllegalAction, State
from kopsim.errors import InputError
from kopsim.records.format import record_from_state
from kopsim.records.replay import check_record
from kopsim.rules.load import load_ruleset

from talon_tables import VALUE, engine_records  # tests/talon_tables.py
from talon_tables import problems_of as problems_over

RULES = load_ruleset(VALUE)
F, M, R = 0, 1, 2
HANDS = (
    ("JC", "JS", "JH", "JD", "AC", "10C", "AS", "10S", "AH", "10H"),
    ("KC", "QC", "9C", "8C", "KS", "QS", "9S", "KH", "QH", "9H"),
    ("7C", "8S", "7S", "8H", "7H", "AD", "KD", "QD", "9D", "8D"),
)
DEAL = Deal(2, HANDS, ("10D", "7D"))


def bidding(calls: list[tuple[int, str]], deal: Deal = DEAL) -> State:
    """The calls said, each checked to come from the seat named."""
    st = State(RULES, deal)
    for seat, call in calls:
        assert st.current_player() == seat, f"{call}: seat {st.current_player()} speaks"
        st.apply_action(call)
    return st


def problems_of(tmp_path, text: str) -> list[str]:
    return problems_over(VALUE, tmp_path, text)


# ---------------------------------------------------------------------------- who bids to whom


def test_middlehand_bids_to_forehand_first():
    # SK §3.3.1: M names a value or passes; the lowest bid is 18 (SK §3.1)
    st = State(RULES, DEAL)
    assert st.current_player() == M
    assert st.legal_actions()[:4] == ["pass", "18", "20", "22"]
    st.apply_action("18")
    assert st.current_player() == F and st.legal_actions() == ["pass", "yes"]


def test_sk_3_4_first_example_rearhand_declares_at_24():
    # SK §3.4: M 18, F yes, M 20, F yes, M pass; R 22, F yes, R 23, F yes, R 24, F pass
    st = bidding([(M, "18"), (F, "yes"), (M, "20"), (F, "yes"), (M, "pass"), (R, "22"),
                  (F, "yes"), (R, "23"), (F, "yes"), (R, "24"), (F, "pass")])
    assert st.declarer == R and st.observation(F).bid_value == 24
    assert st.phase == "talon" and st.current_player() == R


def test_sk_3_4_second_example_forehand_declares_at_18():
    # SK §3.4: M pass; R 18, F yes, R pass: F declares at 18
    st = bidding([(M, "pass"), (R, "18"), (F, "yes"), (R, "pass")])
    assert st.declarer == F and st.observation(R).bid_value == 18


def test_sk_3_4_third_example_rearhand_declares_at_20():
    # SK §3.4: M 18, F pass; R 20, M pass: R declares at 20. M, left standing, is the
    # senior R bids to
    st = bidding([(M, "18"), (F, "pass"), (R, "20"), (M, "pass")])
    assert st.declarer == R and st.observation(M).bid_value == 20


def test_rearhand_must_bid_above_the_last_value_named():
    # SK §3.3.2: R's first value must be higher than the last value named in step 1
    st = bidding([(M, "18"), (F, "yes"), (M, "20"), (F, "pass")])
    assert st.current_player() == R and st.legal_actions()[:3] == ["pass", "22", "23"]
    with pytest.raises(IllegalAction):
        st.apply_action("20")


def test_a_bidder_may_jump():
    # SK §3.2: values need not be named in order
    st = bidding([(M, "30"), (F, "pass"), (R, "pass")])
    assert st.declarer == M and st.observation(M).bid_value == 30


def test_when_the_others_pass_forehand_may_still_bid_or_pass():
    # SK §3.5: M and R pass without bidding: forehand may play (at 18 or more) or pass
    st = bidding([(M, "pass"), (R, "pass")])
    assert st.current_player() == F and st.legal_actions()[:2] == ["pass", "18"]
    st.apply_action("18")
    assert st.declarer == F and st.observation(F).bid_value == 18


def test_all_three_passing_plays_the_ramsch():
    # SK §3.7 (a house rule, this table's): all pass, a Ramsch
    st = bidding([(M, "pass"), (R, "pass"), (F, "pass")])
    assert st.contract == "ramsch" and st.declarer is None and st.phase == "play"


# ---------------------------------------------------------------------------------- declaring


def test_the_declarer_declares_after_picking_up_and_laying_away():
    # SK §4.1: he picks the skat up, lays two away, and only then announces his game
    st = bidding([(M, "pass"), (R, "pass"), (F, "18")])
    st.apply_action("pick_up")
    st.apply_action("AH")
    assert st.phase == "talon"
    st.apply_action("10H")
    assert st.phase == "declare" and st.current_player() == F
    assert st.legal_actions() == ["clubs", "null", "grand"]
    st.apply_action("grand")
    assert (st.contract, st.declarer, st.phase) == ("grand", F, "play")
    assert st.observation(M).bid == "grand"  # the game declared is public


def test_a_null_cannot_be_declared_above_its_value():
    # SK §4.5, §6.5, §9 E12c: null is worth 23, null hand 35: after picking up, null may be
    # declared at 23, not at 24; played hand, at 24 too (not at 36)
    def declarable(bid: str, talon: list[str]) -> list[str]:
        return bidding([(M, bid), (F, "pass"), (R, "pass")] + [(M, a) for a in talon]) \
            .legal_actions()
    assert declarable("23", ["pick_up", "7D", "9H"]) == ["clubs", "null", "grand"]
    assert declarable("24", ["pick_up", "7D", "9H"]) == ["clubs", "grand"]
    assert declarable("24", ["hand"]) == ["clubs", "null", "grand"]
    assert declarable("36", ["hand"]) == ["clubs", "grand"]


# -------------------------------------------------------------------------------- validation


@pytest.mark.parametrize("text, key, says", [
    ("[auction]\nvalues = [18, 20, 20, 22]\n", "auction.values[2]", "must rise"),
    # the table's games are worth at most 192 (grand hand schwarz with 4: 72 + 4 x 24 + 24)
    ("[auction]\nvalues = [18, 192, 193]\n", "auction.values[2]", "worth 193"),
    ('[auction]\nstyle = "open"\n', "auction.values", 'style = "value"'),  # values: by value
    ('[doubling]\nnames = ["kontra"]\n', "doubling.names", "not built"),  # Kontra: not yet
])
def test_bidding_by_value_is_validated(tmp_path, text, key, says):
    assert any(key in m and says in m for m in problems_of(tmp_path, text))


# ------------------------------------------------------------------------- records and engines


SEEDED = Deal.from_seed(RULES, 5, 2)


def test_records_log_values_and_holds_and_replay_checks_the_declaration():
    st = State(RULES, SEEDED)
    for a in ["18", "yes", "36", "pass", "pass", "hand", "clubs"]:
        st.apply_action(a)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    d = record_from_state(st, 5, 2).to_dict()
    assert [c["call"] for c in d["auction"]] == ["18", "yes", "36", "pass", "pass"]
    assert d["declarer"] == M and d["contract"] == "clubs" and d["talon_taken"] is False
    assert check_record(RULES, d) is None
    d["contract"] = "null"  # null hand is worth 35, below the bid of 36 (SK §4.5)
    assert check_record(RULES, d).startswith("contract: 'null' is not legal")


@pytest.mark.parametrize("bot, why", [("ev", "talon"), ("pimc", "each for himself")])
def test_bots_that_cannot_play_the_ruleset_refuse_it(bot, why):
    # ev bids contracts and deals every unseen card to a seat; pimc plays a talon and bidding
    # by value, but its search plays two sides, and this ruleset's Ramsch has three
    with pytest.raises(InputError) as e:
        play_hand(RULES, 1, 0, [bot_spec(bot)] + [bot_spec("random")] * 2)
    assert why in str(e.value.problems[0])


@pytest.mark.parametrize("lineup", ["random", "heuristic"])
def test_both_engines_bid_by_value_identically(lineup):
    bots = [bot_spec(lineup if lineup == "random" else {"name": "heuristic", "solo": 1.5})] * 3
    declared, overbid = set(), 0
    for got in engine_records(RULES, bots, 300, 23):
        declared.add(got["contract"])
        decl = got["declarer"]  # a game lost with 61 or more: overbid (SK §7.1)
        overbid += (got["contract"] != "ramsch" and got["winner"] == "young"
                    and got["points"][decl] >= 61)
    assert {"clubs", "grand"} <= declared
    assert overbid > 0 or lineup == "heuristic"


def test_a_game_naming_a_missing_order_is_reported_not_a_crash(tmp_path):
    # found by the fuzz: validation reads what each game can be worth (its Laufende over its
    # order's trumps); a game whose order is missing is reported where it is named
    msgs = problems_of(tmp_path, '[inherit]\nremove = ["orders.clubs"]\n')
    assert any("contracts.clubs.order" in m and "no card order named 'clubs'" in m
               for m in msgs)
