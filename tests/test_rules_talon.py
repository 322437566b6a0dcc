"""The talon: cards dealt to no seat (Skat's skat), written from docs/rules/SKAT.md and the
talon's statement in docs/rulesets.md. SK = docs/rules/SKAT.md, HR = docs/rules/HAND-RECORD.md
(numbered items: "SK §1.5" is item 1.5).

The test ruleset tests/data/talon/skat-talon.toml seats three with Skat's 32 cards, ten each
and two to the talon; the talon's points count for the declarer in clubs and grand, for nobody
in null, and for the last trick's winner in the Ramsch played when nobody bids."""

import json

import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_hand
from kopsim.engine.reference import Deal, State
from kopsim.errors import InputError
from kopsim.records.format import record_from_state
from kopsim.records.replay import check_record
from kopsim.rules.load import load_ruleset

from talon_tables import (TALON, engine_records, points_of, problems_of as problems_over,
                          to_the_end, trick_points)  # tests/talon_tables.py

RULES = load_ruleset(TALON)


def problems_of(tmp_path, text: str) -> list[str]:
    return problems_over(TALON, tmp_path, text)


# ------------------------------------------------------------------------------------ the deal


def test_thirty_two_cards_ten_each_and_two_to_the_talon():
    # SK §1.3-1.5: 32 cards, ten to each of three players, two to the skat; 120 card points
    assert len(RULES.cards()) == 32 and points_of(RULES.cards()) == 120
    for seed in range(200):
        d = Deal.from_seed(RULES, seed, seed % 3)
        assert [len(h) for h in d.hands] == [10, 10, 10] and len(d.talon) == 2
        assert sorted([c for h in d.hands for c in h] + list(d.talon)) == sorted(RULES.cards())


def test_the_talon_is_the_last_two_cards_dealt():
    # docs/rulesets.md (talon): the seats' cards go one at a time round the table from the
    # dealer's left, then the talon's; a deal in deck order, dealt by seat 2
    perm = list(range(32))
    d = Deal.dealt(RULES, perm, 2)
    cards = RULES.cards()
    assert d.talon == (cards[30], cards[31])
    assert d.hands[0] == tuple(cards[i] for i in range(0, 30, 3))  # forehand: seat 0
    assert d.hands[2] == tuple(cards[i] for i in range(2, 30, 3))


def test_without_a_talon_thirty_two_cards_do_not_deal_to_three(tmp_path):
    # SK §1.5: 32 = 3 x 10 + 2; without the skat the deck does not deal out evenly
    msgs = problems_of(tmp_path, """\
        [inherit]
        remove = ["talon", "contracts.null.talon_points", "contracts.ramsch.talon_points"]
        """)
    assert any("deck" in m and "32 cards cannot be dealt evenly to 3 players" in m for m in msgs)


# ------------------------------------------------------------------------------ validation


def test_a_talon_of_the_whole_deck_is_refused(tmp_path):
    msgs = problems_of(tmp_path, """\
        [talon]
        cards = 32
        """)
    assert any("talon.cards" in m and "none of the 32" in m for m in msgs)


def test_a_talon_that_does_not_leave_an_even_deal_is_refused(tmp_path):
    msgs = problems_of(tmp_path, """\
        [talon]
        cards = 3
        """)
    assert any("less the talon's 3 cannot be dealt evenly" in m for m in msgs)


@pytest.mark.parametrize("team", ["holders", "called"])
def test_a_side_formed_by_its_cards_is_refused_with_a_talon(tmp_path, team):
    # a team card may lie in the talon, unheld: the side would have no holder
    msgs = problems_of(tmp_path, f"""\
        [contracts.grand]
        team = "{team}"
        team_cards = ["JC"]
        """)
    assert any("contracts.grand.team" in m and "talon" in m for m in msgs)


def test_laufende_need_the_talon_with_the_old_side(tmp_path):
    # a card in the talon counts with the old side (SK §6.3): its points must go there too
    msgs = problems_of(tmp_path, """\
        [contracts.null]
        laufende = { from = 1, value = 23, cards = ["AC", "AS"] }
        """)
    assert any("contracts.null.laufende" in m and "old_side" in m for m in msgs)


def test_a_ramsch_has_no_old_side_to_take_the_talon(tmp_path):
    msgs = problems_of(tmp_path, """\
        [contracts.ramsch]
        talon_points = "old_side"
        """)
    assert any("contracts.ramsch.talon_points" in m and "no old side" in m for m in msgs)


def test_a_ramsch_has_no_declarer_to_lay_his_cards_open(tmp_path):
    # SK §2.7: the declarer lays his cards open; each for himself, nobody declares
    msgs = problems_of(tmp_path, '[contracts.ramsch]\nopen_hand = true\n')
    assert any("contracts.ramsch.open_hand" in m and "has none" in m for m in msgs)


def test_talon_points_without_a_talon_are_refused(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('extends = "kop"\nname = "bad"\n[contracts.normal]\ntalon_points = "nobody"\n',
                 encoding="utf-8")
    with pytest.raises(InputError) as e:
        load_ruleset(str(p))
    assert any("contracts.normal.talon_points" in str(x) and "no talon" in str(x)
               for x in e.value.problems)


# ------------------------------------------------------------------ where the talon's points go


def play_out(deal: Deal, calls: list[str], rules=RULES) -> State:
    """The deal played with the given calls, then the first legal action each time."""
    st = State(rules, deal)
    for c in calls:
        st.apply_action(c)
    return to_the_end(st)


HANDS = (  # dealer 2: seat 0 is forehand and speaks first (SK §1.2)
    ("JC", "JS", "JH", "JD", "AC", "10C", "AS", "10S", "AH", "10H"),
    ("KC", "QC", "9C", "8C", "KS", "QS", "9S", "KH", "QH", "9H"),
    ("7C", "8S", "7S", "8H", "7H", "AD", "KD", "QD", "9D", "8D"),
)
SKAT = ("10D", "7D")  # 10 points


def test_the_skat_counts_for_the_declarer_in_a_grand():
    # SK §4.2: played hand, the skat untouched still counts for the declarer
    st = play_out(Deal(2, HANDS, SKAT), ["grand", "pass", "pass", "hand"])
    assert st.contract == "grand" and st.declarer == 0
    taken = trick_points(st)
    assert st.points == [taken[0] + 10, taken[1], taken[2]]
    assert sum(st.points) == 120


def test_the_skat_counts_for_nobody_in_null():
    st = play_out(Deal(2, HANDS, SKAT), ["null", "pass", "pass", "hand"])
    assert st.contract == "null"
    assert st.points == trick_points(st) and sum(st.points) == 110


def test_the_skat_goes_with_the_last_trick_in_the_ramsch():
    # SK §10.1 (a house rule): in a Ramsch the skat goes to the last trick's taker
    st = play_out(Deal(2, HANDS, SKAT), ["pass", "pass", "pass"])
    assert st.contract == "ramsch"
    last = st.tricks[-1].winner
    expected = trick_points(st)
    expected[last] += 10
    assert st.points == expected and sum(st.points) == 120


# ------------------------------------------------------------------------- both engines, records


@pytest.mark.parametrize("lineup", ["random", "heuristic"])
def test_both_engines_play_the_talon_identically(lineup):
    records = engine_records(RULES, [bot_spec(lineup)] * 3, 900 if lineup == "random" else 300,
                             7)
    assert all(len(r["talon"]) == 2 for r in records)
    if lineup == "random":  # every talon destination was played
        assert {r["contract"] for r in records} == set(RULES.contracts)


def test_replay_finds_a_talon_that_is_not_the_deal():
    # HR: the talon is logged; a record whose talon is not its seed's deal is caught
    st = play_out(Deal.from_seed(RULES, 11, 2), ["grand", "pass", "pass", "hand"])
    d = record_from_state(st, 11, 2).to_dict()
    assert check_record(RULES, d) is None
    seat0 = d["hands"][0]
    d["talon"], d["hands"][0] = [seat0[0], d["talon"][1]], [d["talon"][0]] + seat0[1:]
    assert check_record(RULES, d).startswith("hands: not the deal of seed")
    d2 = record_from_state(st, 11, 2).to_dict()
    del d2["talon"]
    assert check_record(RULES, d2).startswith("talon: expected the 2 cards")


def test_a_record_without_a_talon_has_no_talon_field():
    kop = load_ruleset("kop")
    d = record_from_state(play_out(Deal.from_seed(kop, 3, 0), [], kop), 3, 0).to_dict()
    assert "talon" not in d


@pytest.mark.parametrize("bot", ["ev", "pimc", "cheat-dd", "learnt"])
def test_bots_that_deal_the_unseen_cards_to_seats_refuse_a_talon(bot):
    with pytest.raises(InputError) as e:
        play_hand(RULES, 1, 0, [bot_spec(bot)] + [bot_spec("random")] * 2)
    assert "talon" in str(e.value.problems[0])


def test_rules_show_and_diff_describe_the_talon(tmp_path, capsys):
    from kopsim.cli import main
    assert main(["rules", "show", str(TALON)]) == 0
    assert "10 cards each, 2 to the talon" in capsys.readouterr().out
    child = tmp_path / "child.toml"
    child.write_text(f"extends = {json.dumps(str(TALON))}\nname = \"child\"\n"
                     "[contracts.null]\ntalon_points = \"old_side\"\n", encoding="utf-8")
    assert main(["rules", "diff", str(TALON), str(child)]) == 0
    assert "null: the talon's points count for the old side instead of nobody" in \
        capsys.readouterr().out
