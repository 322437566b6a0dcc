"""Bankroll hands record what was paid (issue 8, section 4).

In kop-victory-cards every player starts with 5 victory cards; a team win takes 1 card from each
loser for each winner (+2 / -2), a solo pays +6 / -2 each won and -6 / +2 each lost; "a loser who
cannot pay in full pays what he has, one card at a time, to the winners in turn, going clockwise
from his left" (docs/rules/BUNDLED.md §7.3, kop-victory-cards). Seats are numbered clockwise, so a seat's left
is the next seat. The expected amounts below are worked out from that text by hand.
"""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopsim.cli import main
from kopsim.experiments.spec import experiment_from_dict
from kopsim.records.replay import replay
from kopsim.experiments.results_folder import read_hands, read_sessions
from kopsim.rules.load import load_ruleset
from kopsim.experiments.run import CARRY0, run_experiment
from kopsim.engine.sessions import BankrollSession
from kopsim.engine.session_rows import bankroll_scan
from kopsim.experiments.simulate import simulate

RULES = load_ruleset("kop-victory-cards")
SPEC = RULES.session
START = 5.0

# Sessions written by hand: each hand is (cards held before it, the rules' price, what is paid).
SESSIONS = [
    [  # seats 0 and 2 win a team game; then seat 1, holding 3, loses a solo owing 2 to each of
        # seats 2, 3, 0: one card to each, in that order, and he is out
        ([5, 5, 5, 5], [2, -2, 2, -2], [2, -2, 2, -2]),
        ([7, 3, 7, 3], [2, -6, 2, 2], [1, -3, 1, 1]),
    ],
    [  # seat 0 wins a solo; 0 and 3 beat 1 and 2; then 0 and 2 beat 1 and 3: seat 1 holds 1 card
        # for two debts of 1 and it goes to seat 2, on his left; seat 3 pays both in full
        ([5, 5, 5, 5], [6, -2, -2, -2], [6, -2, -2, -2]),
        ([11, 3, 3, 3], [2, -2, -2, 2], [2, -2, -2, 2]),
        ([13, 1, 1, 5], [2, -2, 2, -2], [1, -1, 2, -2]),
    ],
    [  # seat 2 wins three solos; at the third each opponent owes 2 but holds 1, and pays it
        ([5, 5, 5, 5], [-2, -2, 6, -2], [-2, -2, 6, -2]),
        ([3, 3, 11, 3], [-2, -2, 6, -2], [-2, -2, 6, -2]),
        ([1, 1, 17, 1], [-2, -2, 6, -2], [-1, -1, 3, -1]),
    ],
    [  # the example: seat 1 holds 5 and loses a solo (6 owed); his cards go to seats
        # 2, 3, 0, 2, 3, so seat 0 gets one card, seats 2 and 3 two each
        ([5, 5, 5, 5], [2, -6, 2, 2], [1, -5, 2, 2]),
    ],
]


@pytest.mark.parametrize("hands", SESSIONS)
def test_a_short_loser_pays_what_he_has_in_turn_clockwise(hands):
    bank = BankrollSession.start(SPEC, 4)
    for held, nominal, paid in hands:
        assert not bank.over
        assert bank.balance == held
        assert bank.play(nominal) == paid
    assert bank.over  # each sequence ends with a seat out of cards


@pytest.mark.parametrize("loser", range(4))
@pytest.mark.parametrize("held", range(1, 6))
def test_a_lost_solo_pays_one_card_at_a_time_from_the_losers_left(loser, held):
    """Holding fewer than the 6 he owes, the lone loser's k-th card goes to the winner k places
    round from his left (never more than the 2 he owes each)."""
    balance = [5.0] * 4
    balance[loser] = float(held)
    nominal = [2.0] * 4
    nominal[loser] = -6.0
    expected = [0.0] * 4
    expected[loser] = -held
    for k in range(held):
        expected[(loser + 1 + k % 3) % 4] += 1
    bank = BankrollSession(SPEC, balance)
    assert bank.play(nominal) == expected


def _deals_of(sessions):
    """Deal ids and prices laying the sessions out as a run does: each session starts on a deal
    id divisible by 4; the deals between sessions are not played (their price is arbitrary)."""
    ids, prices, rows = [], [], []
    for hands in sessions:
        while len(ids) % 4:
            ids.append(len(ids))
            prices.append([6.0, -2.0, -2.0, -2.0])
        for held, nominal, paid in hands:
            rows.append((len(ids), held, paid))
            ids.append(len(ids))
            prices.append(nominal)
    return np.array(ids), np.array(prices, float), rows


@pytest.mark.parametrize("cuts", [[], [1], [2, 5, 6], list(range(1, 13))])
def test_the_compiled_scan_of_kopsim_run_pays_the_same(cuts):
    ids, prices, rows = _deals_of(SESSIONS)
    carry, got = CARRY0, []
    bounds = [0, *cuts, len(ids)]
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        scan = bankroll_scan(SPEC, carry, ids[lo:hi], prices[lo:hi], final=hi == len(ids))
        carry = scan.carry
        got += list(zip((scan.keep + lo).tolist(), scan.held.tolist(), scan.paid.tolist()))
    assert got == rows


# ------------------------------------------------------------------ a property over many hands

def _price(kind: int, a: int, b: int) -> list[float]:
    """A victory-card price: a team win of seats {a, b} (a != b), a solo won or lost by seat a."""
    if kind == 0:
        return [2.0 if s in (a, b) else -2.0 for s in range(4)]
    sign = 1.0 if kind == 1 else -1.0
    return [sign * (6.0 if s == a else -2.0) for s in range(4)]


hand_price = st.builds(_price, st.integers(0, 2), st.integers(0, 3), st.integers(0, 3)).filter(
    lambda p: sum(p) == 0)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.integers(1, 9), st.lists(hand_price, min_size=1, max_size=40))
def test_no_seat_pays_more_than_it_holds_and_the_bankroll_follows(start, prices):
    spec = SPEC.model_copy(update={"start": float(start)})
    ids = np.arange(len(prices))
    scan = bankroll_scan(spec, CARRY0, ids, np.array(prices), final=True)
    bank, held = BankrollSession.start(spec, 4), [float(start)] * 4
    for j, i in enumerate(scan.keep):
        if bank.over:
            bank, held = BankrollSession.start(spec, 4), [float(start)] * 4
            assert i % 4 == 0
        nominal = prices[i]
        paid = bank.play(nominal)
        assert scan.held[j].tolist() == held
        assert scan.paid[j].tolist() == paid  # both implementations agree exactly
        assert sum(paid) == 0
        for s in range(4):
            assert -paid[s] <= held[s]  # never more than he holds
            assert paid[s] * nominal[s] >= 0 and abs(paid[s]) <= abs(nominal[s])
            if nominal[s] < 0:  # a loser pays in full, or everything he has
                assert -paid[s] == min(-nominal[s], held[s])
        held = [h + p for h, p in zip(held, paid)]
        assert bank.balance == held
    assert scan.ended["balance"].tolist()[-1] == held


# ------------------------------------------------------- every place a bankroll hand is recorded

def _walk(records):
    """Check each session's records against the bankroll they imply; the count of hands in
    which a loser came up short."""
    short, held = 0, None
    for d in records:
        if d["hand_index"] == 0:
            held = [START] * 4
        assert d["bankroll"] == held
        assert sum(d["payouts"]) == 0
        assert all(-p <= h for p, h in zip(d["payouts"], held))
        short += d["payouts"] != d["nominal_payouts"]
        held = [h + p for h, p in zip(held, d["payouts"])]
    return short


@pytest.fixture(scope="module")
def sim_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("sim") / "victory.jsonl"
    simulate(RULES, 2600, seed=11, log_path=str(path), chunk=500)
    return path


def test_simulate_log_records_what_was_paid(sim_log):
    records = [json.loads(line) for line in sim_log.read_text().splitlines()]
    assert len(records) == 2600
    assert _walk(records) > 100  # the case is common: the check is worth something
    assert replay(sim_log) == (2600, [])


@pytest.fixture(scope="module")
def run_out(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    exp = experiment_from_dict({"deals": 3000, "seed": 3, "chunk": 700, "sessions": True,
                                "rotate": True, "variants": ["kop-victory-cards"],
                                "bots": ["heuristic", "random", "heuristic", "random"]})
    run_experiment(exp, out, jobs=1, log=True)
    return out


def test_run_rows_and_logs_record_what_was_paid(run_out):
    hands = read_hands(run_out, "kop-victory-cards")
    logs = sorted((run_out / "logs" / "kop-victory-cards").glob("*.jsonl"))
    records = [json.loads(line) for p in logs for line in p.read_text().splitlines()]
    assert len(records) == len(hands)
    assert _walk(records) > 100
    for s in range(4):
        assert [r["payouts"][s] for r in records] == hands[f"payout_{s}"].to_list()
        assert [r["nominal_payouts"][s] for r in records] == \
            hands[f"nominal_payout_{s}"].to_list()
    # the sessions' final bankrolls are the start plus what was paid
    moved = hands.group_by("session").agg([pl.col(f"payout_{s}").sum() for s in range(4)])
    final = read_sessions(run_out, "kop-victory-cards").join(moved, on="session")
    for s in range(4):
        assert (final[f"total_{s}"] == START + final[f"payout_{s}"]).all()
    for p in logs:
        assert replay(p) == (sum(1 for _ in p.open()), [])  # a chunk may start mid-session


def test_both_engines_record_the_same_paid_amounts(tmp_path):
    rows = {}
    for engine in ("kernel", "reference"):
        exp = experiment_from_dict({"deals": 800, "seed": 8, "chunk": 96, "sessions": True,
                                    "engine": engine, "variants": ["kop-victory-cards"],
                                    "bots": ["heuristic", "random", "heuristic", "random"]})
        run_experiment(exp, tmp_path / engine, jobs=1, log=True)
        rows[engine] = read_hands(tmp_path / engine, "kop-victory-cards")
        logs = sorted((tmp_path / engine / "logs" / "kop-victory-cards").glob("*.jsonl"))
        rows[engine + " log"] = b"".join(p.read_bytes() for p in logs)
    assert rows["kernel"].equals(rows["reference"])
    assert rows["kernel log"] == rows["reference log"]
    short = rows["kernel"].filter(pl.col("payout_1") != pl.col("nominal_payout_1"))
    assert len(short) > 10


# ------------------------------------------------------------------ replay checks the amounts

def _lines(path):
    return path.read_text().splitlines()


def _replay_lines(tmp_path, lines, jobs=1):
    path = tmp_path / "edited.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return replay(path, jobs=jobs)[1]


def test_replay_rejects_nominal_amounts_logged_as_paid(sim_log, tmp_path):
    """What kopsim logged before: the rules' price where a loser could not pay it."""
    lines = _lines(sim_log)
    i = next(i for i, x in enumerate(lines)
             if json.loads(x)["payouts"] != json.loads(x)["nominal_payouts"])
    d = json.loads(lines[i])
    d["payouts"] = d["nominal_payouts"]
    lines[i] = json.dumps(d)
    found = _replay_lines(tmp_path, lines)
    assert [(x.line, x.message.split(":")[0]) for x in found] == [(i + 1, "payouts")]


def _movable(d):
    """Two winners of a hand mid-session, the first holding 2 or more: one card moved between
    them leaves what the hand pays as it is (winners pay nothing) and 4 × 5 cards in all."""
    if d["hand_index"] == 0:
        return None
    winners = [s for s in range(4) if d["payouts"][s] > 0]
    pairs = [(a, b) for a in winners for b in winners if a != b and d["bankroll"][a] >= 2]
    return pairs[0] if pairs else None


@pytest.mark.parametrize("line", [2000, 2001])  # the last of replay's first block, the first of
# its second (blocks of 2000 lines): the check runs across blocks, and reports a hand once
def test_replay_rejects_a_bankroll_that_does_not_follow_the_hand_before(sim_log, tmp_path, line):
    lines = _lines(sim_log)
    records = [json.loads(x) for x in lines]
    # drop the log's first hands so that a movable hand, followed by the next hand of its
    # session, falls on `line` (a log may start in the middle of a session)
    i = next(i for i in range(line - 1, len(records) - 1) if _movable(records[i])
             and records[i + 1]["hand_index"] == records[i]["hand_index"] + 1)
    lines, records = lines[i + 1 - line:], records[i + 1 - line:]
    d = records[line - 1]
    a, b = _movable(d)
    d["bankroll"][a] -= 1
    d["bankroll"][b] += 1
    lines[line - 1] = json.dumps(d)
    for jobs in (1, 2):
        found = _replay_lines(tmp_path, lines, jobs)
        assert [(x.line, x.message.split(":")[0]) for x in found] == [(line, "bankroll")]
        assert "the hand before leaves" in found[0].message


@pytest.mark.parametrize("edit, key", [
    (lambda d: d.pop("bankroll"), "bankroll"),
    (lambda d: d.update(nominal_payouts=[0, 0, 0, 0]), "nominal_payouts"),
    (lambda d: d.update(bankroll=[6, 4, 5, 5]), "bankroll"),  # a session's first hand: 5 each
])
def test_replay_requires_the_bankroll_fields_of_a_session_hand(sim_log, tmp_path, edit, key):
    lines = _lines(sim_log)[:10]
    d = json.loads(lines[0])
    assert d["hand_index"] == 0 and d["payouts"] != [0, 0, 0, 0]
    edit(d)
    lines[0] = json.dumps(d)
    found = _replay_lines(tmp_path, lines)
    assert [(x.line, x.message.split(":")[0]) for x in found] == [(1, key)]


def test_replay_command_reports_wrong_paid_amounts(sim_log, tmp_path, capsys):
    lines = _lines(sim_log)[:50]
    records = [json.loads(x) for x in lines]
    i = next(i for i, d in enumerate(records) if d["payouts"] != d["nominal_payouts"])
    records[i]["payouts"] = records[i]["nominal_payouts"]
    path = tmp_path / "wrong.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in records))
    assert main(["replay", str(path)]) == 1
    assert f"line {i + 1}" in capsys.readouterr().out


def test_replay_rejects_a_hand_logged_after_its_session_ended(sim_log, tmp_path):
    """A session ends after the hand in which a seat reaches 0: relabel the next session's first
    hand as one more hand of it (a session of 4k hands, so that the dealer still fits)."""
    lines = _lines(sim_log)
    records = [json.loads(x) for x in lines]
    i = next(i for i in range(len(records) - 1) if records[i + 1]["hand_index"] == 0
             and (records[i]["hand_index"] + 1) % 4 == 0)
    d = records[i + 1]
    d.update(session=records[i]["session"], hand_index=records[i]["hand_index"] + 1)
    lines[i + 1] = json.dumps(d)
    found = _replay_lines(tmp_path, lines)
    assert [(x.line, x.message.split(" ")[0]) for x in found] == [(i + 2, "session")]
    assert "ended with hand" in found[0].message


def test_a_bankroll_ruleset_played_without_sessions_pays_every_price(tmp_path):
    """`sessions = false` (the default) plays kop-victory-cards hand by hand: no bankroll, so
    the records carry no session, the prices are paid in full, and the log replays clean."""
    exp = experiment_from_dict({"deals": 200, "seed": 2, "variants": ["kop-victory-cards"],
                                "bots": "random"})
    run_experiment(exp, tmp_path, jobs=1, log=True)
    hands = read_hands(tmp_path, "kop-victory-cards")
    for s in range(4):
        assert (hands[f"payout_{s}"] == hands[f"nominal_payout_{s}"]).all()
    log = tmp_path / "logs" / "kop-victory-cards" / "chunk-000000.jsonl"
    first = json.loads(log.read_text().splitlines()[0])
    assert "session" not in first and "bankroll" not in first
    assert replay(log) == (200, [])
