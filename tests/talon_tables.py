"""What the talon's and bidding by value's rule tests share (tests/test_rules_talon.py,
test_rules_talon_pick_up.py, test_rules_value_bidding.py, test_rules_game_value.py): their
test tables, Skat's card points (docs/rules/SKAT.md §1.4), a child of a table with a few keys
changed, a hand played out, and the two engines' records of one batch side by side."""

import json
import textwrap
from pathlib import Path

import numpy as np

from kopsim.bots.seated import play_batch, play_hand
from kopsim.engine.layout import hand_seeds
from kopsim.engine.reference import State
from kopsim.errors import InputError
from kopsim.records.format import batch_record, record_from_state
from kopsim.records.replay import check_record
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset

TABLES = Path(__file__).parent / "data" / "talon"
TALON = TABLES / "skat-talon.toml"  # the talon's table: three games and a Ramsch, open auction
VALUE = TABLES / "skat-value.toml"  # the same, bid by value
POINTS = {"A": 11, "10": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}  # SK §1.4


def points_of(cards) -> int:
    return sum(POINTS[c[:-1]] for c in cards)


def derived(base: Path, tmp_path, text: str, name: str = "derived"):
    """The table `base` with `text` added (a child ruleset): the rules, or the problems its
    validation finds, as strings."""
    p = tmp_path / f"{name}.toml"
    p.write_text(f"extends = {json.dumps(str(base))}\nname = \"{name}\"\n"
                 + textwrap.dedent(text), encoding="utf-8")
    try:
        return load_ruleset(str(p))
    except InputError as e:
        return [str(x) for x in e.problems]


def problems_of(base: Path, tmp_path, text: str) -> list[str]:
    """The problems validation finds in `base` with `text` added (it must find some)."""
    found = derived(base, tmp_path, text, "bad")
    assert isinstance(found, list), "the change validated"
    return found


def to_the_end(st: State) -> State:
    """st played on, the first legal action each time, to the end of the hand."""
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
    return st


def trick_points(st: State) -> list[int]:
    """Each seat's points read from the tricks it won, the talon left out."""
    won = [0] * len(st.deal.hands)
    for t in st.tricks:
        won[t.winner] += points_of(t.cards)
    return won


def engine_records(rules, bots: list, hands: int, seed: int) -> list[dict]:
    """The records of `hands` hands of seed, dealers in turn, as the batch kernel plays them;
    each the same as the reference engine's and replaying clean."""
    seeds = hand_seeds(seed, 0, hands)
    dealers = np.arange(hands) % len(bots)
    batch = play_batch(compile_rules(rules), seeds, dealers, bots=bots)
    out = []
    for i in range(hands):
        ref = record_from_state(play_hand(rules, int(seeds[i]), int(dealers[i]), bots),
                                int(seeds[i]), i).to_dict()
        got = batch_record(batch, i).to_dict()
        assert got == ref, f"hand {i} differs"
        assert check_record(rules, got) is None
        out.append(got)
    return out
