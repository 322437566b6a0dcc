"""Report metrics against values worked out by hand from the rows of tests/data/results_fixtures.

The `tiny` folder: eight deals (dealer = deal % 4) of `kop`, and the same deals under `cheap`,
where deal 2's lost zolo du pays 4 instead of 10 and deal 4 is a won zolo instead of a cicha.
"""

import math
import statistics
import sys
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report.analysis import analyse  # noqa: E402
from kopsim.report.read import load_results  # noqa: E402
from kopsim.report.stats import mean_ci, moments, significant, wilson  # noqa: E402

Z = 1.959963984540054


@pytest.fixture(scope="module")
def an(tmp_path_factory):
    return analyse(load_results(fx.tiny(tmp_path_factory.mktemp("tiny") / "tiny")))


@pytest.fixture(scope="module")
def sess(tmp_path_factory):
    return analyse(load_results(fx.sessions(tmp_path_factory.mktemp("s") / "sessions")))


def row(df: pl.DataFrame, **where) -> dict:
    for k, v in where.items():
        df = df.filter(pl.col(k) == v)
    assert len(df) == 1, (where, df)
    return df.row(0, named=True)


def mean_and_ci(xs):
    m = statistics.fmean(xs)
    half = Z * statistics.stdev(xs) / math.sqrt(len(xs))
    return m, m - half, m + half


# ---------------------------------------------------------------------------------- statistics


def test_wilson_interval_by_hand():
    # 2 of 4: p = 1/2, centre 1/2, half-width z·sqrt(1/16 + z²/64) / (1 + z²/4)
    p, lo, hi = wilson(2, 4)
    half = Z * math.sqrt(0.25 / 4 + Z**2 / 64) / (1 + Z**2 / 4)
    assert p == 0.5 and lo == pytest.approx(0.5 - half) and hi == pytest.approx(0.5 + half)
    assert (round(lo, 3), round(hi, 3)) == (0.150, 0.850)
    # 0 of 10: the interval starts at 0 and is not degenerate
    p, lo, hi = wilson(0, 10)
    assert p == 0 and lo == 0 and hi == pytest.approx(Z**2 / 10 / (1 + Z**2 / 10))
    assert all(math.isnan(x) for x in wilson(0, 0))
    for n in (1, 3, 10, 49, 1000, 123457):  # the ends never fall on the wrong side of p
        for k in (0, n):
            p, lo, hi = wilson(k, n)
            assert 0 <= lo <= p <= hi <= 1


def test_mean_ci_and_moments():
    xs = [1, -30, -30, 8, 12, -1, -5, -6]
    m, sd = moments(len(xs), sum(xs), sum(x * x for x in xs))
    assert m == pytest.approx(-6.375) and sd == pytest.approx(statistics.stdev(xs))
    lo, hi = mean_ci(len(xs), m, sd)
    assert (lo, hi) == pytest.approx(mean_and_ci(xs)[1:])
    assert significant(0.1, 0.2) and significant(-0.2, -0.1) and not significant(-0.1, 0.1)
    assert not significant(math.nan, math.nan)


# -------------------------------------------------------------------------------------- hands


def test_variants_and_counts(an):
    assert an.variants == ["kop", "cheap"]
    assert an.overview["hands"].to_list() == [8, 8]
    assert an.overview["deals"].to_list() == [8, 8]
    assert row(an.overview, variant="cheap")["description"].endswith(fx.PAYLOAD)


def test_contract_shares_and_declarer_wins(an):
    # kop: normal on deals 0, 3, 5, 7; zolo 1, 6; zolo du 2; cicha 4; wesele never
    expect = {"normal": (4, 2), "zolo": (2, 1), "zolo du": (1, 0), "cicha": (1, 1),
              "wesele": (0, 0)}
    for contract, (n, won) in expect.items():
        r = row(an.contracts, variant="kop", contract=contract)
        assert (r["hands"], r["old_wins"]) == (n, won)
        assert r["share"] == pytest.approx(n / 8)
        assert (r["share_lo"], r["share_hi"]) == pytest.approx(wilson(n, 8)[1:])
        if n:
            assert r["win_rate"] == pytest.approx(won / n)
            assert (r["win_rate_lo"], r["win_rate_hi"]) == pytest.approx(wilson(won, n)[1:])
        else:
            assert math.isnan(r["win_rate"])
    r = row(an.contracts, variant="kop", contract="normal")
    assert (round(r["win_rate_lo"], 3), round(r["win_rate_hi"], 3)) == (0.150, 0.850)
    # cheap: deal 4 is a zolo, so 3 zolo (2 won) and no cicha
    assert row(an.contracts, variant="cheap", contract="zolo")["hands"] == 3
    assert row(an.contracts, variant="cheap", contract="zolo")["old_wins"] == 2
    assert row(an.contracts, variant="cheap", contract="cicha")["hands"] == 0
    assert an.contracts.filter(pl.col("variant") == "kop")["contract"].to_list() == [
        "normal", "cicha", "wesele", "zolo", "zolo du"]


def test_schneider_schwarz_and_ties(an):
    for outcome in ("schneider", "schwarz", "52:52"):  # deals 3, 7 and 5
        r = row(an.tiers, variant="kop", outcome=outcome)
        assert r["hands"] == 1 and r["rate"] == pytest.approx(1 / 8)
        assert (r["rate_lo"], r["rate_hi"]) == pytest.approx(wilson(1, 8)[1:])


def test_doubling_levels(an):
    d = an.doubles.filter(pl.col("variant") == "kop")
    assert d["name"].to_list() == ["none", "kontra", "re"]
    assert d["hands"].to_list() == [5, 2, 1]
    assert d["share"].to_list() == pytest.approx([5 / 8, 2 / 8, 1 / 8])
    s = row(an.stakes, variant="kop")
    xs = [0, 1, 0, 2, 0, 0, 0, 1]
    assert (s["doubles_mean"], s["doubles_mean_lo"], s["doubles_mean_hi"]) == pytest.approx(
        mean_and_ci(xs))


def test_old_side_card_points(an, sess):
    xs = [60, 30, 0, 20, 70, 52, 60, 104]  # old side's points, deal by deal
    r = row(an.old_points, variant="kop")
    assert r["played"] == 8 and r["win_points"] == 53
    assert (r["mean"], r["mean_lo"], r["mean_hi"]) == pytest.approx(mean_and_ci(xs))
    assert r["sd"] == pytest.approx(statistics.stdev(xs))
    hist = an.old_points_hist.filter(pl.col("variant") == "kop")
    assert dict(zip(hist["points"].to_list(), hist["hands"].to_list())) == {
        0: 1, 20: 1, 30: 1, 52: 1, 60: 2, 70: 1, 104: 1}
    # the instant KOP hand (no play) is left out: 80 and 12 points in the two played hands
    r = row(sess.old_points, variant="sp")
    assert r["played"] == 2 and r["mean"] == pytest.approx(46)


def test_payout_by_seat_position(an):
    # position p of a hand is seat (dealer + 1 + p) % 4; read off the rows of kop_hands
    expect = {"forehand": [1, -30, -30, 8, 12, -1, -5, -6],
              "second": [-1, 10, 10, -8, -4, 1, 15, -6],
              "third": [-1, 10, 10, 8, -4, -1, -5, 6],
              "dealer": [1, 10, 10, -8, -4, 1, -5, 6]}
    for pos, xs in expect.items():
        r = row(an.seats, variant="kop", position=pos)
        assert r["hands"] == 8
        assert (r["mean"], r["mean_lo"], r["mean_hi"]) == pytest.approx(mean_and_ci(xs))
    assert row(an.seats, variant="kop", position="forehand")["mean"] == pytest.approx(-6.375)
    assert row(an.seats, variant="kop", position="dealer")["mean"] == pytest.approx(1.375)


def test_payout_by_bot(an):
    seat = {s: [h[f"payout_{s}"] for h in fx.kop_hands("kop", "kop")] for s in range(4)}
    for bot, xs in (("alice", seat[0]), ("bob", seat[1]), ("random", seat[2] + seat[3])):
        r = row(an.bots, variant="kop", bot=bot)
        assert r["seat_hands"] == len(xs)
        assert (r["mean"], r["mean_lo"], r["mean_hi"]) == pytest.approx(mean_and_ci(xs))
    assert row(an.bots, variant="kop", bot="alice")["mean"] == pytest.approx(33 / 8)
    assert row(an.bots, variant="kop", bot="random")["mean"] == pytest.approx(-3.0)


def test_stakes_and_payout_distribution(an):
    xs = [2, 30, 30, 16, 12, 2, 15, 12]  # what the winners receive, deal by deal
    r = row(an.stakes, variant="kop")
    assert (r["mean"], r["mean_lo"], r["mean_hi"]) == pytest.approx(mean_and_ci(xs))
    assert r["max"] == 30 and r["share_zero"] == 0
    h = an.payout_hist.filter(pl.col("variant") == "kop")
    counts = dict(zip(h["payout"].to_list(), h["seat_hands"].to_list()))
    assert counts[10.0] == 6 and counts[-30.0] == 2 and sum(counts.values()) == 32
    assert h["share"].sum() == pytest.approx(1)


def test_paired_differences_by_hand(an):
    p = an.paired.filter(pl.col("variant") == "cheap")
    assert set(p["baseline"].to_list()) == {"kop"} and set(p["deals"].to_list()) == {8}
    # cheap − kop per deal: only deals 2 and 4 differ
    expect = {"stake per hand": [0, 0, -18, 0, 3, 0, 0, 0],
              "payout, forehand": [0, 0, 18, 0, 3, 0, 0, 0],
              "payout, dealer": [0, 0, -6, 0, -1, 0, 0, 0]}
    for metric, xs in expect.items():
        r = row(p, metric=metric)
        assert (r["diff"], r["diff_lo"], r["diff_hi"]) == pytest.approx(mean_and_ci(xs))
        assert r["significant"] is False
    r = row(p, metric="stake per hand")
    assert r["baseline_mean"] == pytest.approx(119 / 8)
    assert r["variant_mean"] == pytest.approx(104 / 8)
    r = row(p, metric="old side (declarer) wins")  # the same side wins every deal
    assert (r["diff"], r["diff_lo"], r["diff_hi"], r["significant"]) == (0, 0, 0, False)


def test_rule_differences_in_the_report(an):
    changes = an.rule_diffs["cheap"]
    assert [c.text for c in changes] == ["zolo du lost pays 4 instead of 10"]
    assert an.rule_diff_frame()["change"].to_list() == ["zolo du lost pays 4 instead of 10"]


# ----------------------------------------------------------------------------------- sessions


def test_victory_card_sessions(sess):
    r = row(sess.sessions, variant="vc")
    assert (r["kind"], r["sessions"], r["incomplete"]) == ("bankroll", 3, 1)
    assert (r["len_mean"], r["len_mean_lo"], r["len_mean_hi"]) == pytest.approx(
        mean_and_ci([3, 5, 10]))
    assert r["len_max"] == 10
    h = sess.session_length_hist.filter(pl.col("variant") == "vc")
    assert h["hands"].to_list() == [3, 5, 10] and h["sessions"].to_list() == [1, 1, 1]
    wins = {0: 2, 1: 1, 2: 0, 3: 1}  # ties stand: session 2 is won by seats 0 and 1
    for seat, k in wins.items():
        s = row(sess.session_seats, variant="vc", seat=seat)
        assert (s["sessions"], s["wins"]) == (3, k)
        assert (s["win_rate"], s["win_rate_lo"], s["win_rate_hi"]) == pytest.approx(wilson(k, 3))
        assert s["pp_n"] == 0
    b = row(sess.session_bots, variant="vc", bot="random")
    assert (b["seat_sessions"], b["wins"]) == (6, 1)


def test_series_placement_points(sess):
    r = row(sess.sessions, variant="sp")
    assert (r["kind"], r["sessions"], r["len_mean"]) == ("series", 2, 32)
    pp = {0: [6.5, 3.0], 1: [4.5, 1.0], 2: [1.0, 3.0], 3: [0.0, 8.0]}
    for seat, xs in pp.items():
        s = row(sess.session_seats, variant="sp", seat=seat)
        assert (s["pp_mean"], s["pp_mean_lo"], s["pp_mean_hi"]) == pytest.approx(
            mean_and_ci(xs))
    b = row(sess.session_bots, variant="sp", bot="random")
    assert b["pp_mean"] == pytest.approx((1.0 + 3.0 + 0.0 + 8.0) / 4)
    assert b["wins"] == 1


def test_tables_cover_every_section(an, sess):
    assert {"variants", "contracts", "outcomes", "doubling", "old_points", "payout_by_position",
            "payout_by_bot", "stakes", "paired_differences", "rule_differences"} <= set(
        an.tables())
    assert "sessions" not in an.tables()
    assert {"sessions", "session_seats", "session_bots", "session_length_histogram"} <= set(
        sess.tables())
