"""The fast session code of `kopsim run` gives exactly the floats of kopsim.engine.sessions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopsim.bots.seated import play_batch
from kopsim.rules.load import load_ruleset
from kopsim.rules.model import MAX_SEATS, MIN_SEATS
from kopsim.engine.layout import hand_seeds
from kopsim.engine.sessions import BankrollSession, bankroll_step, series_points
from kopsim.engine.session_rows import (BankrollCarry, _bankroll_step, bankroll_scan,
                                         series_place_points)

SERIES = load_ruleset("kop-sportowy").session
BANK = load_ruleset("kop-victory-cards").session
CARRY0 = BankrollCarry()

payout = st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 7.5, 10.0, 16.0, 1 / 3])


def zero_sum(n, winners, a, b):
    """A zero-sum hand at n seats: `winners` seats win a each from the others (a team game), or,
    with no winners drawn, a lone player wins b from each of the n - 1 others."""
    if winners:
        return [a * (n - winners)] * winners + [-a * winners] * (n - winners)
    return [(n - 1) * b] + [-b] * (n - 1)


@st.composite
def bankroll_hands(draw):
    """(balances, payouts) of one hand at a table of 3 to 6 seats, the payouts in any seat
    order."""
    n = draw(st.integers(MIN_SEATS, MAX_SEATS))
    balance = draw(st.lists(st.floats(0, 12, allow_nan=False).map(lambda x: round(x * 4) / 4),
                            min_size=n, max_size=n))
    pay = zero_sum(n, draw(st.integers(0, n - 1)), draw(payout), draw(payout))
    return balance, [pay[i] for i in draw(st.permutations(range(n)))]


@settings(max_examples=500, deadline=None)
@given(bankroll_hands())
def test_bankroll_step_is_exact(hand):
    balance, pay = hand
    new, left = np.zeros(len(pay)), np.zeros(len(pay))
    _bankroll_step(np.array(balance, float), np.array(pay, float), new, left)
    assert new.tolist() == bankroll_step(list(balance), pay)


@settings(max_examples=400, deadline=None)
@given(st.integers(MIN_SEATS, MAX_SEATS).flatmap(lambda n: st.lists(
    st.sampled_from([-12.0, -5.0, -2.0, -1.0, 0.0, 1.0, 2.0, 2.5, 5.0, 12.0]),
    min_size=n, max_size=n)))
def test_series_place_points_are_series_points(totals):
    points = [5.0, 3.0, 1.5, 1 / 3, 0.25, 0.0][:len(totals)]  # a place a seat
    spec = SERIES.model_copy(update={"placement_points": points})
    got = series_place_points(np.array([totals]), spec)[0]
    assert got.tolist() == series_points(totals, spec)


def test_bankroll_scan_matches_bankroll_sessions_across_chunk_splits():
    res = play_batch(load_ruleset("kop-victory-cards"), hand_seeds(4, 0, 5000),
                     np.arange(5000) % 4)
    deals, pay = np.arange(5000), res.payouts

    def whole(splits):
        carry, rows, ends = CARRY0, [], []
        for lo, hi in zip(splits[:-1], splits[1:]):
            scan = bankroll_scan(BANK, carry, deals[lo:hi], pay[lo:hi], final=hi == 5000)
            carry, ended = scan.carry, scan.ended
            rows += list(zip((scan.keep + lo).tolist(), scan.session.tolist(),
                             scan.hand_index.tolist(), scan.held.tolist(), scan.paid.tolist()))
            ends += list(zip(ended["session"].tolist(), ended["hands"].tolist(),
                             ended["balance"].tolist(), ended["complete"].tolist()))
        return rows, ends

    rows, ends = whole([0, 5000])
    assert (rows, ends) == whole([0, 7, 8, 1000, 1001, 2500, 4999, 5000])
    # the same sessions, played hand by hand with BankrollSession: the same cards held before
    # each hand, the same amounts paid
    i, s = 0, 0
    expected_rows, expected_ends = [], []
    while i < 5000:
        if i % 4:
            i += 1
            continue
        bank = BankrollSession.start(BANK, 4)
        while i < 5000 and not bank.over:
            row = (i, s, bank.hands, list(bank.balance))
            expected_rows.append(row + (bank.play(pay[i].tolist()),))
            i += 1
        expected_ends.append((s, bank.hands, bank.balance, bank.over))
        s += 1
    assert rows == expected_rows
    assert ends == expected_ends


def test_resume_state_is_rebuilt_from_the_written_hands(tmp_path):
    from kopsim.experiments.spec import experiment_from_dict
    from kopsim.experiments.run import _carry_from_files, run_experiment

    exp = experiment_from_dict({"deals": 2000, "seed": 4, "chunk": 8, "sessions": True,
                                "bots": "random", "variants": ["kop-victory-cards"]})
    run_experiment(exp, tmp_path, jobs=1)
    res = play_batch(load_ruleset("kop-victory-cards"), hand_seeds(4, 0, 2000),
                     np.arange(2000) % 4)
    carry = CARRY0
    for k in range(exp.chunks):
        assert _carry_from_files(tmp_path, exp.variants[0], k) == carry, k
        lo, hi = 8 * k, 8 * k + 8
        *_, carry = bankroll_scan(BANK, carry, np.arange(lo, hi), res.payouts[lo:hi], False)


@pytest.mark.parametrize("ruleset", ["kop-sportowy", "kop-victory-cards"])
def test_simulate_and_run_lay_out_the_same_hands(tmp_path, ruleset):
    """The same ruleset and seed: `kopsim simulate` (random bots) and `kopsim run` deal the same
    hands to the same sessions, with the same results."""
    import numpy as np
    import polars as pl

    from kopsim.rules.compile import compile_rules
    from kopsim.experiments.spec import experiment_from_dict
    from kopsim.experiments.run import run_experiment
    from kopsim.rules.load import load_ruleset
    from kopsim.experiments.simulate import iter_run

    exp = experiment_from_dict({"deals": 400, "seed": 5, "bots": "random", "sessions": True,
                                "variants": [ruleset], "name": "same"})
    run_experiment(exp, tmp_path, jobs=1, progress=False)
    rows = (pl.read_parquet(str(tmp_path / "hands" / ruleset / "*.parquet"))
            .sort("deal_id"))
    n = rows.height
    chunks = list(iter_run(compile_rules(load_ruleset(ruleset)), 5, n, chunk=128))
    seeds = np.concatenate([c.result.seeds for c in chunks])
    sessions = np.concatenate([c.session for c in chunks])
    index = np.concatenate([c.result.hand_index for c in chunks])
    payouts = np.concatenate([c.result.payouts for c in chunks])
    assert (rows["seed"].to_numpy() == seeds).all()
    assert (rows["session"].to_numpy() == sessions).all()
    assert (rows["hand_index"].to_numpy() == index).all()
    assert (rows.select([f"payout_{s}" for s in range(4)]).to_numpy() == payouts).all()
