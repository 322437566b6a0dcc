"""Laufende (issue 11, item 8), from Schafkopf's rule: the top trumps one side holds without a
gap, counted from the highest (held "with" it, or "without" it by the other side), add a price
each once there are at least the minimum; they add to the value before any doubling. The kernel
must price them as the reference does (both engines are checked on every deal)."""

from pathlib import Path

import numpy as np
import pytest

from kopsim.bots.seated import play_batch
from kopsim.engine.scoring import laufende, score
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_ruleset
from kopsim.records.format import batch_record

KNOB = Path(__file__).parent / "data" / "knobs" / "kop-laufende.toml"
# kop's trumps, high to low: AH 10H QC QS QH QD JC JS JH JD AD 10D
WITH_FOUR = [["AH", "10H", "QC", "JD"], ["QS", "AC", "10C", "AS"], ["QH", "JC", "10S", "AD"],
             ["QD", "JS", "JH", "10D"]]


def test_a_run_of_top_trumps_held_by_one_side_counts_from_the_minimum():
    rules = load_ruleset(KNOB)
    # old side 0 and 1 (the black queens) hold AH 10H QC QS, then QH is seat 2's: 4 Laufende
    assert laufende(rules, "normal", WITH_FOUR, [0, 1]) == 4
    # "without": the young side holds the top; the run is theirs, and counts the same
    assert laufende(rules, "normal", WITH_FOUR, [2, 3]) == 4
    # a gap after two: fewer than the minimum of 3, nothing added
    gap = [["AH", "10H", "QH", "JD"], ["QS", "AC", "10C", "AS"], ["QC", "JC", "10S", "AD"],
           ["QD", "JS", "JH", "10D"]]
    assert laufende(rules, "normal", gap, [0, 1]) == 0
    # zolo counts the queens only, from 2, at 2 each: QC QS at seats 0 and 1, QH at seat 2
    assert laufende(rules, "zolo", WITH_FOUR, [0]) == 0  # QC alone, then QS is the other side's
    assert laufende(rules, "zolo", WITH_FOUR, [1]) == 0  # the run QC of the side "without" QS
    assert laufende(rules, "zolo", [["QC", "QS", "AH", "10H"], ["QH", "QD", "JC", "JS"],
                                    ["JH", "JD", "AD", "10D"], ["AC", "10C", "AS", "10S"]],
                    [0]) == 4


def test_laufende_add_to_the_value_before_doubling():
    rules = load_ruleset(KNOB)
    # normal game won by the old side (0, 1) out, kontra said by seat 2 and counted: (1 + 4) x 2
    out = score(rules, "normal", [0, 1], [2], [60, 0, 44, 0], [3, 0, 1, 0], WITH_FOUR)
    assert out.winner == "old" and out.payouts == (10, 10, -10, -10)
    plain = score(load_ruleset("kop"), "normal", [0, 1], [2], [60, 0, 44, 0], [3, 0, 1, 0])
    assert plain.payouts == (2, 2, -2, -2)


def test_the_kernel_adds_the_same_laufende():
    rules = load_ruleset(KNOB)
    cr = compile_rules(rules)
    index = {c: i for i, c in enumerate(cr.cards)}
    # dealer 3: the i-th card dealt goes to seat i % 4
    given = np.array([[index[WITH_FOUR[i % 4][i // 4]] for i in range(16)]] * 64, np.int64)
    res = play_batch(cr, np.arange(64), np.full(64, 3), given=given)
    normal = cr.contract_names.index("normal")
    played = np.flatnonzero(res.contract == normal)
    assert len(played) > 0
    for i in played:
        rec = batch_record(res, int(i))
        ref = score(rules, "normal", rec.old_side, [a["seat"] for a in rec.auction
                                                    if a["call"] in rules.doubling.names],
                    rec.points, rec.tricks_won, WITH_FOUR)
        assert list(res.payouts[i]) == pytest.approx(ref.payouts)
        if rec.winner is not None and rec.tier != "tie":
            assert abs(res.payouts[i]).max() >= 5  # (1 + 4 Laufende) x 2^doubles at least
