"""Equal cards (issue 36): a deck may hold every card more than once (deck.copies, Doppelkopf's
48 cards are 24 twice). The copies are separate cards of equal rank, dealt and played apart; a
rule that names a card means every copy of it; of equal cards in one trick the first played
wins, unless the ruleset says the last does (docs/rules/EQUAL-CARDS.md).

The trick winners are checked against a reading of the order written here from the TOML's
lists (not the engines' tables), over the records both engines write."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.bots.seated import play_batch, play_hand
from kopsim.engine.layout import hand_seeds
from kopsim.errors import InputError
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

DOUBLED = Path(__file__).parent / "data" / "knobs" / "doubled-deck.toml"
HANDS = 300


def _rules(**play):
    data, _ = load_raw(DOUBLED)
    data["play"] = {**data["play"], **play}
    return ruleset_from_dict(data, "doubled")


def _face(card: str) -> str:
    return card.split("#")[0]


def _winner(trick: list[str], order: dict, last: bool) -> int:
    """The trick's winner by the order's lists: a trump over any plain card, the higher of the
    suit led over the rest; of equal cards the first played, or the last."""
    trumps, plain = order["trumps"], order["plain"]
    suit_of = {c: s for s, group in plain.items() for c in group}

    def strength(card: str) -> int:
        f = _face(card)
        if f in trumps:
            return 100 + len(trumps) - trumps.index(f)
        led = _face(trick[0])
        if led not in trumps and suit_of[f] == suit_of[led]:
            return len(plain[suit_of[f]]) - plain[suit_of[f]].index(f)
        return -1

    s = [strength(c) for c in trick]
    best = [i for i, x in enumerate(s) if x == max(s)]
    return best[-1] if last else best[0]


@pytest.mark.parametrize("which", ["first", "last"])
def test_of_equal_cards_the_first_played_wins_unless_the_ruleset_says_the_last(which):
    rules = _rules(equal_cards=which) if which == "last" else _rules()
    order = load_raw(DOUBLED)[0]["orders"]["trumps"]
    bots = [bot_spec("random")] * 4
    seeds = hand_seeds(5, 0, HANDS)
    batch = play_batch(rules, seeds, np.arange(HANDS) % 4, bots=bots)
    ties = 0
    for i in range(HANDS):
        rec = batch_record(batch, i)
        ref = record_from_state(play_hand(rules, int(seeds[i]), i % 4, bots), int(seeds[i]), i)
        assert rec.to_dict() == ref.to_dict(), f"hand {i}: the engines differ"
        for t in rec.tricks:
            w = _winner(t["cards"], order, which == "last")
            assert t["winner"] == (t["leader"] + w) % 4, (i, t)
            faces = [_face(c) for c in t["cards"]]
            top = faces[w]
            ties += faces.count(top) > 1
    assert ties > 50  # equal cards met at the top of a trick often enough to tell the rules apart


def test_a_rule_naming_a_card_means_every_copy_of_it():
    """The holders of a club queen (either copy) play together; five nines counted copy by copy
    throw the hand in; one seat holding both club queens plays alone."""
    rules = load_ruleset(DOUBLED)
    batch = play_batch(rules, hand_seeds(9, 0, 2000), np.arange(2000) % 4,
                       bots=[bot_spec("random")])
    seen = set()
    for i in range(2000):
        rec = batch_record(batch, i)
        hands = [[_face(c) for c in h] for h in rec.hands]
        nines = [sum(c.startswith("9") for c in h) for h in hands]
        queens = [h.count("QC") for h in hands]
        if max(nines) >= 5:
            assert rec.contract == "thrown in" and rec.payouts == [0, 0, 0, 0]
        elif rec.contract == "normal":
            assert rec.old_side == [s for s in range(4) if queens[s]] and len(rec.old_side) == 2
        elif rec.contract == "silent":
            assert rec.old_side == [queens.index(2)]
        seen.add(rec.contract)
        assert sorted(c for h in rec.hands for c in h) == sorted(rules.cards())
    assert seen >= {"thrown in", "normal", "silent", "solo"}


def test_the_deck_as_dealt_holds_each_card_twice_under_its_own_name():
    rules = load_ruleset(DOUBLED)
    cards = rules.cards()
    assert len(cards) == 48 and len(set(cards)) == 48
    assert cards[:4] == ["AC", "AC#2", "AS", "AS#2"]
    assert rules.total_points() == 240 and rules.points_of("10H#2") == 10
    assert rules.face_of("QC#2") == "QC" and rules.copies_of("QC") == ["QC", "QC#2"]


@pytest.mark.parametrize("change,where", [
    ({"contracts": {"solo": {"team": "called", "team_cards": ["AC"]}}}, "contracts.solo.team"),
    ({"contracts": {"solo": {"laufende": {"from": 2, "value": 1}}}}, "contracts.solo.laufende"),
    ({"deck": {"suits": ["C", "S", "H", "D", "C#2"]}}, "deck"),
])
def test_rules_with_no_reading_for_equal_cards_are_refused_where_written(change, where):
    data, _ = load_raw(DOUBLED)
    for key, value in change.items():
        for sub, inner in value.items():
            base = data[key].get(sub, {}) if isinstance(data[key].get(sub), dict) else {}
            data[key] = {**data[key], sub: {**base, **inner} if isinstance(inner, dict) else inner}
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data, "doubled")
    assert any(p.where.startswith(where) for p in e.value.problems), str(e.value)


@pytest.mark.parametrize("bot", ["ev", "pimc", "cheat-dd"])
def test_the_searching_bots_are_refused_before_play_on_equal_cards(bot):
    rules = load_ruleset(DOUBLED)
    spec = bot_spec(bot)
    assert "distinct cards" in spec.cannot_play(rules)
    with pytest.raises(InputError, match="distinct cards"):
        if spec.kernel_kind is not None:
            play_batch(rules, hand_seeds(0, 0, 2), np.arange(2), bots=[spec])
        else:
            play_hand(rules, 1, 0, [spec] * 4)
