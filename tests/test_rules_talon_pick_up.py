"""Picking the talon up and laying cards away, written from docs/rules/SKAT.md (SK) and the
talon's statement in docs/rulesets.md: the declarer picks the skat up and lays two cards away,
any two, the skat's own too (SK §4.1), or plays hand without it (SK §4.2); the cards laid away
count for him in a suit game or grand, for nobody in null, where he still picks up (SK §4.3);
his matadors are counted over his twelve cards (SK §6.3). HR = docs/rules/HAND-RECORD.md.

The ruleset is the talon's test table, tests/data/talon/skat-talon.toml (talon.pick_up =
"declarer_may"), seat 0 forehand and declarer in the hand-built deals."""

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.engine.reference import Deal, IllegalAction, State
from kopsim.errors import InputError
from kopsim.records.format import batch_record, record_from_state
from kopsim.records.replay import check_record
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

from talon_tables import TALON, engine_records, points_of, to_the_end  # tests/talon_tables.py
from talon_tables import derived as derived_from, trick_points

RULES = load_ruleset(TALON)

HANDS = (  # dealer 2: seat 0 is forehand and speaks first (SK §1.2)
    ("JC", "JS", "JH", "JD", "AC", "10C", "AS", "10S", "AH", "10H"),
    ("KC", "QC", "9C", "8C", "KS", "QS", "9S", "KH", "QH", "9H"),
    ("7C", "8S", "7S", "8H", "7H", "AD", "KD", "QD", "9D", "8D"),
)
SKAT = ("10D", "7D")  # 10 points


def derived(text: str, tmp_path, name: str = "derived"):
    """The talon's test table with `text` added: the rules, or its validation's problems."""
    return derived_from(TALON, tmp_path, text, name)


def after(actions: list[str], deal: Deal = Deal(2, HANDS, SKAT), rules=RULES) -> State:
    st = State(rules, deal)
    for a in actions:
        st.apply_action(a)
    return st


def play_out(actions: list[str], deal: Deal = Deal(2, HANDS, SKAT), rules=RULES) -> State:
    """The given actions, then the first legal action each time."""
    return to_the_end(after(actions, deal, rules))


def played_by(st: State, seat: int) -> set[str]:
    return {c for t in st.tricks for c, s in zip(t.cards, t.players(3)) if s == seat}


# ------------------------------------------------------------------------ the declarer's choice


def test_the_declarer_chooses_to_pick_up_or_play_hand():
    # SK §4.1, §4.2: once the game is his, the declarer picks the skat up or plays hand
    st = after(["grand", "pass", "pass"])
    assert (st.phase, st.current_player()) == ("talon", 0)
    assert st.legal_actions() == ["pick_up", "hand"]
    with pytest.raises(IllegalAction):
        st.apply_action("AC")  # no card is played before he has chosen


def test_picked_up_he_holds_twelve_and_may_lay_back_the_skats_own_cards():
    # SK §4.1: twelve cards; he lays any two away, one or both of the skat's own too
    st = after(["grand", "pass", "pass", "pick_up"])
    assert sorted(st.legal_actions()) == sorted(HANDS[0] + SKAT)
    st.apply_action("10D")
    assert len(st.legal_actions()) == 11 and "10D" not in st.legal_actions()
    st.apply_action("AH")
    assert st.phase == "play" and st.current_player() == 0  # forehand leads (SK §5)
    assert sorted(st.held[0]) == sorted(set(HANDS[0] + SKAT) - {"10D", "AH"})
    assert st.talon == ("10D", "AH")


def test_the_cards_laid_away_count_for_the_declarer_in_a_grand():
    # SK §4.1: the two laid away are his (21 points); the skat's 7D he kept is played
    st = play_out(["grand", "pass", "pass", "pick_up", "AH", "10H"])
    taken = trick_points(st)
    assert st.points == [taken[0] + 21, taken[1], taken[2]]
    assert sum(st.points) == 120
    assert "7D" in played_by(st, 0) and not {"AH", "10H"} & played_by(st, 0)


def test_in_null_he_picks_up_and_the_cards_laid_away_count_for_nobody():
    # SK §4.3: with the skat the null player still picks it up and lays two away; its
    # points count for nobody
    st = play_out(["null", "pass", "pass", "pick_up", "AS", "AH"])
    assert st.points == trick_points(st) and sum(st.points) == 120 - 22


def test_played_hand_nothing_is_laid_away_and_the_skat_stays():
    # SK §4.2: a hand game: the skat as dealt counts for him at the end
    st = play_out(["grand", "pass", "pass", "hand"])
    assert st.talon_taken is False and st.laid_away == [] and st.talon == SKAT
    assert st.points[0] == trick_points(st)[0] + points_of(SKAT)


def test_the_ramsch_has_nobody_to_pick_the_talon_up():
    # docs/rulesets.md (talon.pick_up): a contract played each for himself never picks it up
    st = after(["pass", "pass", "pass"])
    assert st.contract == "ramsch" and st.phase == "play" and st.talon_taken is None


def test_a_declarer_who_must_pick_up_is_not_asked(tmp_path):
    rules = derived('[talon]\ncards = 2\npick_up = "declarer_must"\n', tmp_path)
    st = after(["clubs", "pass", "pass"], rules=rules)
    assert st.phase == "talon" and st.talon_taken is True
    assert sorted(st.legal_actions()) == sorted(HANDS[0] + SKAT)


def test_a_contract_may_say_otherwise(tmp_path):
    rules = derived('[contracts.null]\ntalon_pick_up = "never"\n', tmp_path)
    assert after(["null", "pass", "pass"], rules=rules).phase == "play"
    assert after(["grand", "pass", "pass"], rules=rules).phase == "talon"


def test_matadors_count_a_jack_he_laid_away(tmp_path):
    # SK §6.3: the matadors are counted over his twelve cards, the two laid away included:
    # JC from the skat laid away, JS JH in hand: clubs "with 3", (3 + 1 + tiers) x 12.
    # On a score sheet (SK §8.1) only he is scored, a lost game twice.
    sheet = derived('[scoring]\nstyle = "old_side_only"\n', tmp_path, "sheet")
    mine = ("JS", "JH", "AC", "10C", "KC", "AS", "10S", "AH", "10H", "7H")
    rest = [c for c in RULES.cards() if c not in mine + ("JC", "8D")]
    deal = Deal(2, (mine, tuple(rest[:10]), tuple(rest[10:])), ("JC", "8D"))
    st = play_out(["clubs", "pass", "pass", "pick_up", "JC", "7H"], deal, sheet)
    d, td = st.points[0], st.tricks_won[0]
    tiers = (d >= 90 or d <= 30) + (td == 0 or td == 10)  # schneider, schwarz (SK §6.4)
    value = 12 * (3 + 1 + tiers)
    assert st.returns() == ((value if d >= 61 else -2 * value), 0.0, 0.0)


# ------------------------------------------------------------------------------ what is seen


def test_only_the_declarer_sees_the_skat_and_what_he_laid_away():
    # SK §4.1: he picks it up without showing it; the table knows only that he did
    st = after(["grand", "pass", "pass", "pick_up", "AH"])
    mine, other = st.observation(0), st.observation(1)
    assert mine.talon_seen == SKAT and mine.laid_away == ("AH",)
    assert other.talon_seen == () and other.laid_away == ()
    assert mine.talon_taken is True and other.talon_taken is True
    assert after(["grand", "pass", "pass"]).observation(0).talon_seen == ()


# -------------------------------------------------------------------------------- validation


def test_a_contract_without_a_declarer_cannot_pick_up(tmp_path):
    msgs = derived('[contracts.ramsch]\ntalon_pick_up = "declarer_may"\n', tmp_path)
    assert any("contracts.ramsch.talon_pick_up" in m and "no declarer" in m for m in msgs)


def test_a_pick_up_without_a_talon_is_refused(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('extends = "kop"\nname = "bad"\n[contracts.normal]\n'
                 'talon_pick_up = "declarer_may"\n', encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_ruleset(str(p))
    assert any("contracts.normal.talon_pick_up" in str(x) and "no talon" in str(x)
               for x in e.value.problems)


# ------------------------------------------------------------------------------------ records


SEEDED = Deal.from_seed(RULES, 11, 2)  # logged as hand 2 of seed 11 (dealer 2)


def logged(actions: list[str]) -> dict:
    return record_from_state(play_out(actions, SEEDED), 11, 2).to_dict()


def test_records_log_the_pick_up_and_the_cards_laid_away():
    # HR §2.23, §2.24: whether he picked up, and the cards he laid away, in the order laid
    lay = sorted(SEEDED.hands[0] + SEEDED.talon, key=RULES.cards().index)[-2:]
    d = logged(["grand", "pass", "pass", "pick_up"] + lay)
    assert d["talon_taken"] is True and d["laid_away"] == lay
    assert d["talon"] == list(SEEDED.talon) and check_record(RULES, d) is None
    h = logged(["grand", "pass", "pass", "hand"])
    assert h["talon_taken"] is False and "laid_away" not in h
    assert check_record(RULES, h) is None
    r = logged(["pass", "pass", "pass"])
    assert "talon_taken" not in r and "laid_away" not in r


def test_replay_finds_a_card_laid_away_that_he_did_not_hold():
    d = logged(["grand", "pass", "pass", "pick_up"])
    seat1 = d["hands"][1][0]
    d["laid_away"][0] = seat1
    assert check_record(RULES, d).startswith(f"laid_away[0]: {seat1!r} is not legal")


def test_replay_finds_a_pick_up_missing_or_where_there_is_none():
    d = logged(["grand", "pass", "pass", "hand"])
    del d["talon_taken"]
    assert check_record(RULES, d).startswith("talon_taken: missing")
    r = logged(["pass", "pass", "pass"])
    r["talon_taken"] = False
    assert check_record(RULES, r).startswith("talon_taken: nobody picks the talon up")
    p = logged(["grand", "pass", "pass", "pick_up"])
    p["talon_taken"] = False
    assert check_record(RULES, p).startswith("laid_away: logged for a hand played without")


# --------------------------------------------------------------------------------------- bots


def test_the_heuristic_lays_away_no_trump_while_it_has_other_cards():
    # docs/rulesets.md (talon): the heuristic keeps trumps and masters; a grand's trumps are
    # the four jacks. Seat 0 holds all four: he lays away plain cards
    bots = [bot_spec({"name": "heuristic", "solo": 1.5})] * 3
    cr = compile_rules(RULES)
    seeds = hand_seeds(3, 0, 2000)
    res = play_batch(cr, seeds, np.arange(2000) % 3, bots=bots)
    picked = np.flatnonzero(res.taken == 1)
    assert len(picked) > 100
    for i in picked:
        k = cr.contract_names[int(res.contract[i])]
        trumps = set(RULES.orders[RULES.contracts[k].order].trumps)
        laid = {cr.cards[c] for c in res.laid[i]}
        rec = batch_record(res, int(i))
        twelve = set(rec.hands[rec.declarer]) | set(rec.talon)
        assert len(laid) == 2 and laid <= twelve
        if len(twelve - trumps) >= 2:
            assert not laid & trumps, f"hand {i} laid a trump away: {laid}"


@pytest.mark.parametrize("lineup", ["random", "heuristic"])
def test_both_engines_pick_up_and_lay_away_identically(lineup):
    bots = [bot_spec(lineup if lineup == "random" else {"name": "heuristic", "solo": 1.5})] * 3
    records = engine_records(RULES, bots, 600 if lineup == "random" else 300, 17)
    choices = {r.get("talon_taken") for r in records}
    # the random bot both picks up and plays hand; the heuristic picks up
    assert {None, True} <= choices and (False in choices) == (lineup == "random")
