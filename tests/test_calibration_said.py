"""Issue 31 (silent surprises): ev calibration, the longest step of a first run, says what it calibrates (the
variant by name, not only by hash), follows its deals (a bar with an ETA on a terminal), ends with
a verdict against the stopping rule of bots/calibrate.py (a policy change under SETTLED), and
`run --check` says beforehand which calibrations are pending and about what they cost."""

import json

import numpy as np

import pytest

from kopsim.bots import bot_spec
from kopsim.bots.calibrate import (SETTLED, cache_dir, calibrated, deals_per_round,
                                   estimated_seconds, is_cached, verdict)
from kopsim.bots.ev import EvParams
from kopsim.cli import main
from kopsim.rules.cache import compiled
from kopsim.rules.load import load_ruleset

TINY = {"deals": 1000, "rounds": 2, "shrink": 2}


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("KOPSIM_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_the_verdict_follows_the_stopping_rule():
    params = EvParams(deals=5000)
    settled = verdict({"rounds": [{"policy_changed": 0.2}, {"policy_changed": SETTLED / 2}]},
                      params)
    assert settled.startswith("settled after 2 rounds") and f"under {SETTLED:.1%}" in settled
    open_ = verdict({"rounds": [{"policy_changed": 0.3}] * 7
                               + [{"policy_changed": 0.052, "gap": 0.0812}]}, params)
    assert open_.startswith("not settled after 8 rounds") and "5.2%" in open_
    assert "worth 0.08 apart" in open_ and "rounds = 16 or deals = 20000" in open_


def test_the_gap_is_what_the_new_best_call_gains_over_the_old_on_flipped_decisions():
    from kopsim.bots.calibrate import flip_gap, policy_change
    old = np.array([[1.0, 0.9, 0.0], [2.0, 0.0, 0.0], [0.0, 1.0, 0.5]])
    new = np.array([[1.0, 1.3, 0.0], [2.5, 0.0, 0.0], [0.0, 0.4, 0.6]])
    count = np.array([[3, 1, 0], [5, 0, 0], [1, 1, 2]], float)  # weights 4, 5, 4
    assert policy_change(old, new, count) == pytest.approx(8 / 13)  # rows 0 and 2 flipped
    # row 0: 1.3 - 1.0; row 2: 0.6 - 0.4; equal weights
    assert flip_gap(old, new, count) == pytest.approx((0.3 + 0.2) / 2)
    assert flip_gap(old, old, count) is None


def test_a_calibration_names_its_variant_follows_its_deals_and_ends_with_a_verdict(own_cache):
    cr = compiled(load_ruleset("kop"))
    said, advanced = [], []
    params = EvParams(**TINY, seed=7)
    from kopsim.bots import calibrate as C
    real = C.calibrate

    def counting(cr, params, jobs, progress=None, advance=None):
        return real(cr, params, jobs, progress, lambda n: (advanced.append(n), advance(n)))
    C.calibrate = counting
    try:
        table = calibrated(cr, params, 1, said.append, "ev(deals=1000)", "kop-no-zolo")
    finally:
        C.calibrate = real
    assert said[0].startswith("calibrating ev(deals=1000) for variant kop-no-zolo (ruleset kop)")
    # kop's keys are exact: a round plays every (hand, position) equally often, 7,280 deals
    per_round = deals_per_round(cr, params)
    assert per_round >= 1000 and per_round % (1820 * 4) == 0
    assert f"up to 2 rounds of {per_round:,} self-play deals" in said[0] and "s at most" in said[0]
    rounds = len(table.summary["rounds"])
    assert sum(advanced) == rounds * per_round  # every deal played reaches the bar
    assert said[-1].strip().startswith(("settled after", "not settled after"))
    rates = json.loads((cache_dir() / "ev" / "rates.json").read_text())
    assert rates["16"] > 0  # the next estimate reads this machine's own speed
    assert estimated_seconds(cr, params, 1) == pytest.approx(2 * per_round / rates["16"])


def test_run_check_says_which_calibrations_are_pending(own_cache, tmp_path, capsys):
    exp = tmp_path / "e.toml"
    exp.write_text('deals = 100\nbots = [{ name = "ev", deals = 1000, rounds = 2 }, "heuristic", '
                   '"heuristic", "heuristic"]\nvariants = ["kop", { ruleset = "kop", label = '
                   '"kop-again", overrides = { contracts.zolo.payout.won = 6 } }]\n')
    assert main(["run", str(exp), "--check", "--jobs", "2", "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "calibration pending: ev(deals=1000, rounds=2) on variant kop, about" in out
    assert "calibration pending: ev(deals=1000, rounds=2) on variant kop-again" in out
    assert "with 2 jobs" in out
    calibrated(compiled(load_ruleset("kop")), bot_spec({"name": "ev", "deals": 1000,
                                                        "rounds": 2}).params)
    assert main(["run", str(exp), "--check", "--out", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert "on variant kop," not in out and "on variant kop-again" in out
    assert is_cached(compiled(load_ruleset("kop")), EvParams(deals=1000, rounds=2))
