"""`kopsim replay FILE --show N`: one logged hand drawn from its record alone (the deal by
seat and position, the auction, each trick with its leader, cards and taker, the sides, points
and payouts), from logs built by hand: a solo (kop's zolo, one against three) and a Ramsch
(every seat for himself)."""

import json
from pathlib import Path

from kopsim.cli import main

RAMSCH_RULES = Path(__file__).parent / "data" / "knobs" / "schafkopf-ramsch.toml"

SOLO = {
    "ruleset": "kop", "ruleset_sha256": "x", "seed": 12, "hand_index": 3, "dealer": 3,
    "hands": [["AC", "AS", "AH", "AD"], ["10C", "QC", "JC", "10S"],
              ["QS", "JS", "10H", "QH"], ["JH", "10D", "QD", "JD"]],
    "auction": [{"seat": 0, "call": "zolo"}, {"seat": 1, "call": "pass"},
                {"seat": 2, "call": "pass"}, {"seat": 3, "call": "double"}],
    "contract": "zolo", "declarer": 0, "old_side": [0], "doubles": 1,
    "tricks": [{"leader": 0, "cards": ["AC", "10C", "QS", "JH"], "winner": 0},
               {"leader": 0, "cards": ["AS", "QC", "JS", "10D"], "winner": 0},
               {"leader": 0, "cards": ["AH", "JC", "10H", "QD"], "winner": 0},
               {"leader": 0, "cards": ["AD", "10S", "QH", "JD"], "winner": 0}],
    "points": [104, 0, 0, 0], "tricks_won": [4, 0, 0, 0], "winner": "old", "tier": "lone",
    "payouts": [30, -10, -10, -10],
}
RAMSCH = {
    "ruleset": "schafkopf-ramsch", "ruleset_sha256": "y", "seed": 5, "hand_index": 0,
    "dealer": 0, "hands": [["QC", "AS"], ["QS", "AH"], ["JC", "AD"], ["JS", "10D"]],
    "auction": [{"seat": s, "call": "pass"} for s in (1, 2, 3, 0)],
    "contract": "ramsch", "declarer": None, "old_side": [0], "doubles": 0,
    "tricks": [{"leader": 1, "cards": ["QS", "JC", "JS", "QC"], "winner": 0},
               {"leader": 0, "cards": ["AS", "AH", "AD", "10D"], "winner": 0}],
    "points": [60, 0, 0, 0], "tricks_won": [2, 0, 0, 0], "winner": "young", "tier": "lone",
    "payouts": [-30, 10, 10, 10],
}


def _show(tmp_path, capsys, records, n, *more):
    log = tmp_path / "h.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    code = main(["replay", str(log), "--show", str(n), *more])
    return code, capsys.readouterr()


def test_a_solo_hand_is_drawn_trick_by_trick(tmp_path, capsys):
    code, io = _show(tmp_path, capsys, [RAMSCH, SOLO], 2)
    assert code == 0
    lines = io.out.splitlines()
    assert lines[0] == "hand 2: kop, seed 12, hand 3, dealer seat 3"
    # seat 0 sits at the dealer's left: forehand; the dealer is seat 3
    assert any(line.startswith("  seat 0 (forehand)") and "A♣ A♠ A♥ A♦" in line
               for line in lines)
    assert any(line.startswith("  seat 3 (dealer)") for line in lines)
    assert "auction: seat 0: zolo · seat 1: pass · seat 2: pass · seat 3: double" in lines
    assert ("contract: zolo by seat 0, doubled 1 time; old side seat 0 against seat 1, "
            "seat 2, seat 3") in lines
    tricks = [line for line in lines if line.startswith("   ") and "leads:" in line]
    assert len(tricks) == 4
    assert tricks[0] == "   1. seat 0 leads: A♣(s0) 10♣(s1) Q♠(s2) J♥(s3)  -> seat 0 takes it"
    assert "payouts: seat 0 +30  seat 1 -10  seat 2 -10  seat 3 -10" in lines
    assert any("old side wins (lone)" in line for line in lines)


def test_a_ramsch_hand_says_who_settles_alone(tmp_path, capsys):
    # as the engine records a Ramsch: old_side is the one seat that settles alone, here the
    # seat with the most points, who loses and pays each of the others
    code, io = _show(tmp_path, capsys, [RAMSCH, SOLO], 1, "--rules", str(RAMSCH_RULES))
    assert code == 0
    out = io.out
    assert ("contract: ramsch; every seat plays for himself; seat 0, with the most points, "
            "loses alone") in out
    assert "by seat" not in out.split("contract:")[1].splitlines()[0]
    # the first trick led by seat 1: the cards' seats follow round from the leader
    assert "seat 1 leads: Q♠(s1) J♣(s2) J♠(s3) Q♣(s0)  -> seat 0 takes it" in out
    assert "side wins" not in out and "payouts: seat 0 -30" in out
    assert "not at hand" not in out


def test_without_its_ruleset_a_hand_is_drawn_as_its_record_says(tmp_path, capsys):
    code, io = _show(tmp_path, capsys, [RAMSCH], 1)
    assert code == 0
    assert "old side seat 0 against seat 1, seat 2, seat 3" in io.out
    assert "ruleset 'schafkopf-ramsch' not at hand" in io.out


def test_a_hand_past_the_end_is_a_located_error(tmp_path, capsys):
    code, io = _show(tmp_path, capsys, [SOLO], 3)
    assert code == 2 and "fewer than 3 hands" in io.err and "Traceback" not in io.err
    bad = dict(SOLO, payouts=[1, 2])
    code, io = _show(tmp_path, capsys, [bad], 1)
    assert code == 2 and "line 1" in io.err and "payouts" in io.err
