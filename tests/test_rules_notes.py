"""Issue 31 (silent surprises): a ruleset that validates but plays otherwise than its author may expect says so.
Removing kop's cicha (docs/rules/KOP-FAMILY.md: the holder of both black queens who passes plays
alone, silently) leaves that holder in the normal game, whose team is the holders of the black
queens: he plays it alone at the normal game's prices (docs/rulesets.md, "Forbidding a contract")."""

import numpy as np
import pytest

from kopsim.bots import bot_spec
from kopsim.cli import main
from kopsim.bots.seated import play_batch
from kopsim.rules.load import bundled_names, load_ruleset
from kopsim.rules.notes import notes
from kopsim.records.format import batch_records

BASE = 'extends = "kop"\n[inherit]\nremove = ["contracts.cicha"]\n'
NO_CICHA = BASE + '[auction]\nno_bid = ["normal"]\n'


@pytest.fixture
def no_cicha(tmp_path):
    p = tmp_path / "no-cicha.toml"
    p.write_text(NO_CICHA)
    return p


def test_validate_and_diff_say_the_lone_holder_plays_normal(no_cicha, capsys):
    assert main(["rules", "validate", str(no_cicha)]) == 0
    out = capsys.readouterr().out
    assert "ok" in out and "note: when nobody bids and one player holds QC, QS" in out
    assert "he plays 'normal' alone against three" in out
    assert main(["rules", "diff", "kop", str(no_cicha)]) == 0
    out = capsys.readouterr().out
    assert "cicha removed" in out and "note (no-cicha): when nobody bids" in out


def test_what_the_note_says_is_what_the_engine_plays(no_cicha):
    rules = load_ruleset(no_cicha)
    n = 4000
    res = play_batch(rules, np.arange(n), np.arange(n) % 4, bots=[bot_spec("random")])
    lone = [r for r in batch_records(res) if r.contract == "normal" and len(r.old_side) == 1]
    assert lone  # random bots pass often enough: such deals come up in a few thousand
    for r in lone:
        assert {"QC", "QS"} <= set(r.hands[r.old_side[0]])


@pytest.mark.parametrize("name", bundled_names())
def test_no_bundled_ruleset_leaves_a_lone_holder_in_a_team_game(name):
    assert notes(load_ruleset(name)) == []


def test_a_condition_that_keeps_the_holding_out_silences_the_note(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text(BASE + '[contracts."lone normal"]\neligible = { holds_all = ["QC", "QS"] }\n'
                 'order = "as-dycha"\npayout = { won = 2, lost = 2 }\n'
                 '[auction]\nno_bid = ["lone normal", "normal"]\n')
    assert notes(load_ruleset(p)) == []
    p.write_text(BASE + '[contracts."lone normal"]\neligible = { all_of = [{ holds_all = '
                 '["QC", "QS"] }, { position = "dealer" }] }\norder = "as-dycha"\n'
                 'payout = { won = 2, lost = 2 }\n[auction]\nno_bid = ["lone normal", "normal"]\n')
    [note] = notes(load_ruleset(p))  # only the dealer's holding is taken: the others' is not
    assert "(on some such hands)" in note
