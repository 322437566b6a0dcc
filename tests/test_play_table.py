"""`kopsim play`'s table, driven by scripted answers: the hands it logs replay clean under the
rules, sessions are kept as the ruleset scores them, the seat is shown no card of another seat
before that card is played, and bad answers are asked again with the reason."""

import io
from pathlib import Path

import pytest

from kopsim.bots import bot_spec
from kopsim.cli import main
from kopsim.cli.play import split_bots
from kopsim.engine.layout import hand_seeds
from kopsim.engine.reference import Deal
from kopsim.records.format import parse_records, read_lines
from kopsim.records.replay import replay
from kopsim.rules.load import load_ruleset
from kopsim.rules.show import pretty_card
from kopsim.table.game import Table, read_choice

RAMSCH = Path(__file__).parent / "data" / "knobs" / "schafkopf-ramsch.toml"


def _table(rules, seat=0, answers=None, log=None, seed=7, bot="heuristic"):
    """A table whose person answers from `answers` (a list, or a function of the prompt;
    default: always "1"); what it says is kept."""
    said: list[str] = []
    feed = iter(answers) if isinstance(answers, list) else None

    def ask(prompt):
        said.append(prompt)
        if callable(answers):
            return answers(prompt)
        return "1" if feed is None else next(feed, None)

    spec = bot_spec(bot)
    bots = [None if s == seat else spec for s in range(4)]
    return Table(rules, seat, bots, seed, ask, said.append, log), said


def _records(path):
    return [d for _, d in parse_records(path, read_lines(path))]


@pytest.mark.parametrize("name", ["kop", "baska", "schafkopf", "kop-victory-cards"])
def test_logged_hands_replay_clean_and_totals_add_up(tmp_path, name):
    rules = load_ruleset(name)
    path = tmp_path / "t.jsonl"
    with open(path, "w", encoding="utf-8") as log:
        table, said = _table(rules, seat=2, log=log)
        assert table.play(hands=6) == 6
    n, found = replay(path)
    assert (n, found) == (6, [])
    recs = _records(path)
    assert all(r["dealer"] == r["hand_index"] % 4 for r in recs)
    if rules.session is None:  # deal k of the run seed, as simulate deals it
        assert [r["seed"] for r in recs] == [int(hand_seeds(7, k, 1)[0]) for k in range(6)]
    totals = [sum(r["payouts"][s] for r in recs) for s in range(4)]
    last_total = [line for line in said if line.startswith("running total:")][-1]
    assert last_total == "running total: " + "  ".join(f"seat {s} {t:+g}"
                                                       for s, t in enumerate(totals))


def test_a_ramsch_hand_is_played_and_replays(tmp_path):
    rules = load_ruleset(str(RAMSCH))
    path = tmp_path / "r.jsonl"
    with open(path, "w", encoding="utf-8") as log:
        # the person passes whenever he may speak, and plays his first legal card
        table, said = _table(rules, seat=1, log=log, seed=0,
                             answers=lambda p: "pass" if "call" in p else "1")
        table.play(hands=12)
    assert replay(path, str(RAMSCH)) == (12, [])
    ramsch = [r for r in _records(path) if r["contract"] == "ramsch"]
    assert ramsch, "no hand of twelve passed out into a Ramsch"
    over = [line for line in said if line.startswith("hand over: ramsch;")]
    assert len(over) == len(ramsch)
    for r, line in zip(ramsch, over):
        assert f"every seat plays for himself; seat {r['old_side'][0]}" in line
        assert "side wins" not in line


def test_a_bankroll_session_pays_only_what_a_loser_holds(tmp_path):
    rules = load_ruleset("kop-victory-cards")
    path = tmp_path / "v.jsonl"
    with open(path, "w", encoding="utf-8") as log:
        _table(rules, log=log)[0].play(hands=30)
    recs = _records(path)
    assert replay(path) == (30, [])
    assert recs[0]["bankroll"] == [5, 5, 5, 5] and recs[0]["session"] == 0
    for before, after in zip(recs, recs[1:]):
        left = [b + p for b, p in zip(before["bankroll"], before["payouts"])]
        if min(left) <= 0:  # a seat is out of cards: the next hand opens a new session
            assert after["session"] == before["session"] + 1 and after["hand_index"] == 0
            assert after["bankroll"] == [5, 5, 5, 5]
        else:
            assert after["bankroll"] == left


def test_a_series_ends_with_placement_points():
    rules = load_ruleset("kop-sportowy")
    length = rules.session.hands
    table, said = _table(rules)
    table.play(hands=length + 1)
    assert sum(line.startswith("series over: placement points") for line in said) == 1


def _cards_shown(line: str, cards: set[str]) -> set[str]:
    return {c for c in cards if pretty_card(c) in line.replace(":", " ").split()}


@pytest.mark.parametrize("seat", [0, 3])
def test_the_seat_sees_no_card_of_another_before_it_is_played(seat):
    rules = load_ruleset("schafkopf")
    table, said = _table(rules, seat=seat)
    table.play(hands=4)
    k = -1
    for line in said:
        if line.strip().startswith("=== hand"):
            k += 1
            deal = Deal.from_seed(rules, int(hand_seeds(7, k, 1)[0]), k % 4)
            others = {c for s in range(4) if s != seat for c in deal.hands[s]}
        if line.startswith("hand over"):
            others = set()  # the hand is over: every card has been played
        shown = _cards_shown(line, others)
        if shown:  # only a play line shows another seat's card: "  seat 1 (forehand): Q♣"
            assert line.startswith("  seat ") and len(shown) == 1, line
            card = shown.pop()
            holder = next(s for s in range(4) if card in deal.hands[s])
            assert line.startswith(f"  seat {holder} "), line


def test_bad_answers_are_asked_again_with_the_reason():
    assert read_choice("2", ["pass", "zolo"]) == ("zolo", "")
    assert read_choice(" ZOLO ", ["pass", "zolo"]) == ("zolo", "")
    assert read_choice("q♣", ["QC", "AS"]) == ("QC", "")
    assert read_choice("3", ["pass", "zolo"])[1] == "3 is not a choice here: choose 1 to 2"
    assert "'gran' is not legal now" in read_choice("gran", ["pass", "zolo"])[1]
    assert read_choice("", ["pass"])[0] is None
    rules = load_ruleset("kop")
    table, said = _table(rules, answers=["0", "x", "1"])
    assert table.play(hands=1) == 0  # the answers ran out within the hand
    assert "0 is not a choice here" in " ".join(said) and "'x' is not legal now" in " ".join(said)
    assert said[-1] == "\n(end of input: the hand under way is not counted)"


def test_quit_keeps_the_hands_finished(tmp_path):
    rules = load_ruleset("kop")
    path = tmp_path / "q.jsonl"
    said: list[str] = []

    def answer(prompt):  # "1" until two hands are over, then quit in the third
        return "q" if sum(line.startswith("hand over") for line in said) == 2 else "1"

    with open(path, "w", encoding="utf-8") as log:
        table, said = _table(rules, answers=answer, log=log)
        assert table.play() == 2
    assert said[-1] == "\n(stopped: the hand under way is not counted)"
    assert replay(path) == (2, [])


def test_bots_split_at_commas_that_separate_bots():
    assert split_bots("ev") == ["ev"]
    assert split_bots("ev,pimc:samples=16,seed=3,heuristic") == [
        "ev", "pimc:samples=16,seed=3", "heuristic"]
    assert split_bots("{name='heuristic', zolo=0.5},ev, random") == [
        "{name='heuristic', zolo=0.5}", "ev", "random"]


@pytest.mark.parametrize("argv, says", [
    (["--bots", "ev,heuristic"], "expected one bot or 3"),
    (["--bots", "cheat-dd"], "bound of perfect information"),
    (["--bots", "nosuch"], "no bot named 'nosuch'"),
    (["--seat", "4"], "--seat"),
])
def test_bad_options_exit_2_with_a_located_message(capsys, argv, says):
    assert main(["play", "kop", *argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "Traceback" not in err


def test_end_of_input_at_once_exits_0(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(["play", "kop", "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "0 hands played" in out
