"""The layout of deals (kopsim/engine/layout.py) is the one every command plays, and bankroll
sessions are scored once."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from kopsim.engine.layout import DealLayout
from kopsim.engine.rng import hand_seed
from kopsim.engine.sessions import BankrollSession
from kopsim.experiments.simulate import simulate
from kopsim.experiments.run import run_experiment
from kopsim.experiments.spec import experiment_from_dict
from kopsim.rules.inherit import merge_tables
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict
from kopsim.rules.model import Ruleset

sys.path.insert(0, str(Path(__file__).parent / "data"))
from synthetic import write_results  # noqa: E402  tests/data/synthetic.py


def _hands(folder, label: str) -> pl.DataFrame:
    return pl.read_parquet(str(folder / "hands" / label / "*.parquet")).sort("deal_id")


@pytest.mark.parametrize("ruleset", ["kop", "kop-sportowy"])
def test_run_plays_the_deals_of_its_layout(tmp_path, ruleset):
    exp = experiment_from_dict({"deals": 130, "seed": 9, "chunk": 40, "sessions": True,
                                "rotate": True, "bots": ["random", "heuristic", "random",
                                                         "random"],
                                "variants": [ruleset], "name": "layout"})
    run_experiment(exp, tmp_path, jobs=1)
    rows = _hands(tmp_path, ruleset)
    deals = exp.layout(exp.variants[0]).deals(0, exp.deals)
    assert rows["deal_id"].to_list() == deals.deal_id.tolist()
    assert rows["seed"].to_list() == deals.seed.tolist()
    assert rows["dealer"].to_list() == deals.dealer.tolist()
    assert rows["hand_index"].to_list() == deals.hand_index.tolist()
    no_sessions = [None] * len(rows)
    assert rows["session"].to_list() == (no_sessions if deals.session is None
                                         else deals.session.tolist())
    labels = exp.labels()
    for s in range(4):
        assert rows[f"bot_{s}"].to_list() == [labels[i] for i in deals.seat_bot[:, s]]


def test_series_hands_lie_on_whole_series_slots():
    layout = DealLayout(3, "series", 6, (0, 0, 0, 0))  # slots of 8 deals, the last 2 not played
    deals = layout.hands(0, 14)
    assert deals.deal_id.tolist() == [0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 16, 17]
    assert deals.session.tolist() == [0] * 6 + [1] * 6 + [2] * 2
    assert deals.hand_index.tolist() == [0, 1, 2, 3, 4, 5] * 2 + [0, 1]
    assert layout.deals(0, 18).deal_id.tolist() == deals.deal_id.tolist()
    assert deals.seed.tolist() == [hand_seed(3, d) for d in deals.deal_id.tolist()]


def _series_of_six() -> Ruleset:
    """kop-sportowy with series of 6 hands: slots of 8 deals, 2 of them not played."""
    data, _ = load_raw("kop-sportowy")
    data = merge_tables(data, {"name": "sportowy-6", "session": {"hands": 6,
                                                                  "hands_options": [6]}})
    return ruleset_from_dict(data, "sportowy-6")


@pytest.mark.parametrize("ruleset", ["sportowy-6", "kop-victory-cards"])
def test_synthetic_results_label_each_hand_with_the_deal_it_was_dealt_from(tmp_path, ruleset):
    rules = _series_of_six() if ruleset == "sportowy-6" else load_ruleset(ruleset)
    write_results(tmp_path / "r", [(ruleset, rules)], hands=300, seed=4, chunk=128)
    rows = _hands(tmp_path / "r", ruleset)
    deal_ids = rows["deal_id"].to_list()
    assert rows["seed"].to_list() == [hand_seed(4, d) for d in deal_ids]
    assert rows["dealer"].to_list() == [d % 4 for d in deal_ids]
    starts = rows.filter(pl.col("hand_index") == 0)["deal_id"].to_list()
    assert len(starts) > 1 and all(d % 4 == 0 for d in starts)


def test_simulate_scores_each_bankroll_session_once(tmp_path, monkeypatch):
    """The bankroll scan ends the sessions; simulate takes them from it rather than walking
    every session again, and counts what a walk of the logged hands gives."""
    log = tmp_path / "log.jsonl"
    walks = []
    real_play = BankrollSession.play
    monkeypatch.setattr(BankrollSession, "play", lambda self, p: walks.append(1))
    got = simulate(load_ruleset("kop-victory-cards"), 1500, 2, str(log), chunk=512)
    assert walks == []
    monkeypatch.setattr(BankrollSession, "play", real_play)

    spec = load_ruleset("kop-victory-cards").session
    banks: dict[int, BankrollSession] = {}
    for line in log.read_text("utf-8").splitlines():
        rec = json.loads(line)
        bank = banks.setdefault(rec["session"], BankrollSession.start(spec, 4))
        assert bank.balance == rec["bankroll"]
        bank.play(rec["nominal_payouts"])
    over = [b for b in banks.values() if b.over]
    wins = np.zeros(4)
    for b in over:
        wins[b.winners()] += 1
    assert got.sessions_done == len(over) > 3
    assert got.session_lengths == [b.hands for b in over]
    assert got.session_wins.tolist() == wins.tolist()


@pytest.mark.parametrize("seats", [3, 5, 6])
def test_a_table_of_n_seats_deals_round_it_and_starts_sessions_on_multiples_of_n(seats):
    """Deal d is dealt by seat d % n; a series slot is its length rounded up to a multiple of n,
    so every series starts with the first seat dealing; a rotation moves one seat of n."""
    layout = DealLayout(5, "series", 7, tuple(range(seats)), period=2)
    deals = layout.hands(0, 21)
    stride = -(-7 // seats) * seats
    assert (deals.dealer == deals.deal_id % seats).all()
    assert deals.deal_id[deals.hand_index == 0].tolist() == [0, stride, 2 * stride]
    assert deals.seat_bot.shape == (21, seats)
    for row, d in zip(deals.seat_bot, deals.deal_id):
        turn = (d // 2) % seats
        assert row.tolist() == [(s - turn) % seats for s in range(seats)]


@pytest.mark.parametrize("seats", [3, 5])
def test_a_drawn_tournament_seating_of_n_seats_is_a_permutation_of_the_players(seats):
    layout = DealLayout(2, "series", 4, tuple(range(10, 10 + seats)), rounds=3)
    bots = layout.seat_bots(np.arange(0, 40 * layout.stride()))
    assert (np.sort(bots, axis=1) == np.arange(10, 10 + seats)).all()
    assert len({tuple(r) for r in bots}) > 1


def test_a_line_up_outside_the_seat_counts_is_refused():
    with pytest.raises(ValueError, match="line-up"):
        DealLayout(0, lineup=(0, 0))
