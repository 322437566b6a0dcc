"""Tables of three and five seats (issue 36): the seat count is the ruleset's `deck.players`, and
a game that deals all its cards to 3 or 5 seats plays identically in both engines with the bots
that play any table (random, heuristic, ev, learnt; pimc in tests/test_pimc_seat_counts.py)."""

from __future__ import annotations

import math
from pathlib import Path

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kopsim.bots import bot_spec
from kopsim.cli import main
from kopsim.bots.seated import play_batch
from kopsim.engine.layout import hand_seeds
from kopsim.bots.seated import play_hand
from kopsim.engine.scoring import rest_of as reference_rest_of
from kopsim.engine.steps import rest_of as kernel_rest_of
from kopsim.errors import InputError
from kopsim.records.format import batch_record, record_from_state
from kopsim.rules.compile import compile_rules
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

SEATS = Path(__file__).parent / "data" / "seats"
TABLES = {"three-handed": 3, "five-handed": 5}
# ev with a small self-play calibration, solving the last two tricks
EV = {"name": "ev", "deals": 2000, "rounds": 2, "endgame_tricks": 2, "endgame_worlds": 60}


@pytest.mark.parametrize("bot", ["random", "heuristic", EV], ids=["random", "heuristic", "ev"])
@pytest.mark.parametrize("name", sorted(TABLES))
def test_a_table_of_n_seats_plays_the_same_hands_in_both_engines(name, bot):
    rules = load_ruleset(SEATS / f"{name}.toml")
    n = TABLES[name]
    assert rules.deck.players == n
    hands = 400
    bots = [bot_spec(bot)] * n
    seeds = hand_seeds(11, 0, hands)
    dealers = np.arange(hands) % n
    batch = play_batch(rules, seeds, dealers, bots=bots)
    assert batch.payouts.shape == (hands, n)
    assert np.abs(batch.payouts.sum(axis=1)).max() < 1e-9  # every hand zero-sum
    contracts = set()
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i).to_dict()
        assert batch_record(batch, i).to_dict() == ref, f"hand {i} differs"
        assert [len(h) for h in ref["hands"]] == [len(rules.cards()) // n] * n
        contracts.add((ref["contract"], ref["doubles"]))
    assert len(contracts) >= 2  # the comparison covered more than one game or doubling


def _three_handed(**deck_or_contracts) -> dict:
    data, _ = load_raw(SEATS / "three-handed.toml")
    for key, value in deck_or_contracts.items():
        data[key] = {**data[key], **value}
    return data


def test_the_four_seat_table_is_compiled_apart_and_every_other_size_shares_one_build():
    """The kernel's compiled type holds the seat count of a four-seat table (its loops unrolled)
    and nothing of the others': tables of three and five play one build, not one a size."""
    types = {n: numba.typeof(compile_rules(load_ruleset(SEATS / f"{name}.toml")).tables)
             for name, n in TABLES.items()}
    types[4] = numba.typeof(compile_rules(load_ruleset("kop")).tables)
    assert types[3] == types[5]
    assert types[4] != types[3]
    four = compile_rules(load_ruleset("kop")).tables
    assert len(four.seat_ids) == four.n_seats == 4


def test_a_position_the_table_lacks_is_refused_where_it_is_written():
    data = _three_handed(contracts={"solo": {**load_raw(SEATS / "three-handed.toml")[0][
        "contracts"]["solo"], "eligible": {"not": {"position": "third"}}}})
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data, "three")
    text = str(e.value)
    assert "contracts.solo.eligible.not.position" in text and "'third'" in text
    assert "forehand, second, dealer" in text


def test_the_dealer_is_the_last_position_at_any_table():
    """A contract only the dealer may bid is bid by the dealer alone, at a table of three."""
    raw = load_raw(SEATS / "three-handed.toml")[0]
    data = _three_handed(contracts={"solo": {**raw["contracts"]["solo"],
                                             "eligible": {"position": "dealer"}}})
    rules = ruleset_from_dict(data, "three")
    batch = play_batch(rules, hand_seeds(3, 0, 600), np.arange(600) % 3,
                       bots=[bot_spec("random")])
    solo = batch.compiled.contract_names.index("solo")
    mine = batch.contract == solo
    assert mine.any()
    assert (batch.declarer[mine] == (np.arange(600) % 3)[mine]).all()


@pytest.mark.parametrize("players", [2, 7])
def test_a_seat_count_outside_three_to_six_is_refused(players):
    data = _three_handed(deck={"players": players})
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data, "bad")
    assert "deck.players" in str(e.value)


def test_a_holders_team_that_could_seat_the_whole_table_is_refused():
    raw = load_raw(SEATS / "three-handed.toml")[0]
    data = _three_handed(contracts={"normal": {**raw["contracts"]["normal"],
                                               "team_cards": ["QC", "QS", "QH"]}})
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data, "three")
    assert "all 3 players on the old side" in str(e.value)


# learnt, trained on a few deals rolled out by the heuristic: small, but a whole training
LEARNT = {"name": "learnt", "deals": 40, "worlds": 2, "hidden": 8, "epochs": 2,
          "rollout_bot": "heuristic"}


@pytest.mark.parametrize("name", sorted(TABLES))
def test_learnt_trains_and_plays_the_same_hands_in_both_engines_at_other_tables(name):
    """Its features count the seats round the table (positions, who bid, doubled, took each
    trick, played a team card, showed a void): the batch kernel's learnt kind and the
    reference engine's bot decide alike at three and five seats."""
    rules = load_ruleset(SEATS / f"{name}.toml")
    n = TABLES[name]
    bots = [bot_spec(LEARNT)] + [bot_spec("heuristic")] * (n - 1)
    assert bots[0].cannot_play(rules) is None
    hands = 60
    seeds = hand_seeds(13, 0, hands)
    dealers = np.arange(hands) % n
    batch = play_batch(rules, seeds, dealers, bots=bots)
    for i in range(hands):
        state = play_hand(rules, int(seeds[i]), int(dealers[i]), bots)
        ref = record_from_state(state, int(seeds[i]), i).to_dict()
        assert batch_record(batch, i).to_dict() == ref, f"hand {i} differs"


def test_the_cli_plays_a_table_of_five_with_every_bot(capsys):
    path = str(SEATS / "five-handed.toml")
    assert main(["simulate", path, "--hands", "500", "--bot", "heuristic"]) == 0
    out = capsys.readouterr().out
    assert "seat 4:" in out and "seat 5:" not in out
    ev = "{name='ev', deals=2000, rounds=2}"  # a small calibration
    assert main(["simulate", path, "--hands", "200", "--bot", ev]) == 0
    out = capsys.readouterr().out
    assert "seat 4:" in out and "seat 5:" not in out


def _three_seat_experiment(tmp_path, deals: int = 600) -> Path:
    """Two variants at three seats (the second pays double for a solo), a bot a seat rotating
    every round, and the rulesets' series of nine hands scored as sessions."""
    table = SEATS / "three-handed.toml"
    series = ('session = { kind = "series", hands = 9, placement_points = [3, 1, 0] }')
    exp = tmp_path / "e.toml"
    exp.write_text(f'name = "e"\ndeals = {deals}\nseed = 3\nsessions = true\nrotate = true\n'
                   'bots = ["heuristic", "random", "random"]\n'
                   f'[[variants]]\nruleset = "{table}"\nlabel = "base"\n'
                   f'overrides = {{ {series} }}\n'
                   f'[[variants]]\nruleset = "{table}"\nlabel = "dear-solo"\n'
                   f'overrides = {{ {series}, contracts = {{ solo = {{ payout = {{ won = 6, '
                   'lost = 6 } } } }\n')
    return exp


def test_an_experiment_at_three_seats_writes_a_column_a_seat_and_reports_three_positions(
        tmp_path):
    """The results folder of a table of three holds seats 0..2 (no fourth column), the deal's
    dealer is deal_id % 3, rotation turns the line-up one seat every three deals, and the
    report's tables count three positions: forehand, second and the dealer."""
    import polars as pl

    from kopsim.experiments.results_folder import read_hands, read_sessions
    from kopsim.report.analysis import analyse
    from kopsim.report.read import load_results

    out = tmp_path / "out"
    assert main(["run", str(_three_seat_experiment(tmp_path)), "--out", str(out)]) == 0
    hands = read_hands(out, seats=3)
    assert len(hands) == 1200
    assert {"payout_2", "bot_2", "old_2"} <= set(hands.columns)
    assert not any(c.endswith("_3") for c in hands.columns)
    assert (hands["dealer"].to_numpy() == hands["deal_id"].to_numpy() % 3).all()
    pay = hands.select([f"payout_{s}" for s in range(3)]).to_numpy()
    assert np.abs(pay.sum(axis=1)).max() < 1e-9  # zero-sum at three
    first = hands.filter(pl.col("variant") == "base").sort("deal_id")
    seat_of_heuristic = [[first[f"bot_{s}"][d] for s in range(3)].index("heuristic")
                         for d in range(9)]
    assert seat_of_heuristic == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    sessions = read_sessions(out, seats=3)
    assert not any(c.endswith("_3") for c in sessions.columns)
    assert len(sessions) == 2 * 67 and sessions["complete"].sum() == 2 * 66  # 600 = 66 * 9 + 6
    placed = sessions.filter(pl.col("complete")).select(
        [f"place_points_{s}" for s in range(3)]).to_numpy()
    assert (np.sort(placed, axis=1) == [0, 1, 3]).all(axis=1).mean() > 0.5  # ties share
    res = load_results(out)
    assert res.seats == 3
    an = analyse(res)
    assert an.seats.filter(pl.col("variant") == "base")["position"].to_list() == [
        "forehand", "second", "dealer"]
    positions = an.paired.filter(pl.col("metric").str.starts_with("payout, "))
    assert sorted(set(positions["metric"].to_list())) == [
        "payout, dealer", "payout, forehand", "payout, second"]
    solo = an.paired.filter((pl.col("metric") == "stake per hand"))
    assert solo["diff"][0] > 0  # a dearer solo raises the stake, deal by deal
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 0
    md = (tmp_path / "report" / "report.md").read_text()
    assert "table: **three seats**" in md and "every round of three deals" in md
    assert "seat 2" in md and "seat 3" not in md


def test_an_experiment_refuses_variants_of_two_table_sizes_and_a_line_up_of_another(
        tmp_path, capsys):
    exp = tmp_path / "e.toml"
    exp.write_text(f'name = "e"\ndeals = 100\nbots = "random"\n'
                   f'variants = ["kop", {{ ruleset = "{SEATS / "three-handed.toml"}" }}]\n')
    assert main(["run", str(exp), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "variants" in err and "kop 4, three-handed 3" in err and "Traceback" not in err
    exp.write_text(f'name = "e"\ndeals = 100\nbots = ["random", "random", "random", "random"]\n'
                   f'variants = [{{ ruleset = "{SEATS / "three-handed.toml"}" }}]\n')
    assert main(["run", str(exp), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "one bot per seat (3" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_a_results_folder_claiming_an_impossible_table_is_refused_where_it_says_so(
        tmp_path, capsys):
    import json

    out = tmp_path / "out"
    assert main(["run", str(_three_seat_experiment(tmp_path, 90)), "--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["experiment"]["seats"] = 9
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert main(["report", str(out), "--out", str(tmp_path / "report")]) == 2
    err = capsys.readouterr().err
    assert "experiment.seats" in err and "Traceback" not in err


def test_unequal_sides_under_a_zero_sum_settlement_are_refused():
    """At five seats the holders of two cards are two against three: each winner receiving what
    each loser pays would not add up to zero, and no setting says how they settle yet."""
    data, _ = load_raw(SEATS / "five-handed.toml")
    data["contracts"]["normal"] = {**data["contracts"]["normal"], "team_cards": ["QC", "QS"]}
    with pytest.raises(InputError) as e:
        ruleset_from_dict(data, "five")
    assert "contracts.normal.team" in str(e.value) and "2 against 3" in str(e.value)


def test_the_fourth_seat_of_five_never_plays_a_game_barred_from_it():
    rules = load_ruleset(SEATS / "five-handed.toml")
    hands = 3000
    batch = play_batch(rules, hand_seeds(8, 0, hands), np.arange(hands) % 5,
                       bots=[bot_spec("random")])
    du = batch.contract == batch.compiled.contract_names.index("zolo du")
    position = (batch.declarer - np.arange(hands) % 5 - 1) % 5  # 0: forehand .. 4: dealer
    assert du.sum() > 20
    assert set(position[du].tolist()) == {0, 1, 2, 4}  # all but the fourth


@settings(max_examples=500, deadline=None)
@given(st.floats(1e-6, 1e6, allow_nan=False), st.integers(3, 6), st.booleans())
def test_a_lone_settlement_adds_up_to_zero_exactly_at_any_table(v, n, once):
    """The lone player's amount against n - 1 shares, the last opponent taking the residue:
    the real sum is zero (at five seats, 0.8 in all made 0.2 shares whose residue was off by a
    rounding before), and the kernel computes the very floats the reference does."""
    share = v / (n - 1) if once else v
    whole = v if once else (n - 1) * share
    last = reference_rest_of(whole, share, n - 2)
    assert math.fsum([-whole] + [share] * (n - 2) + [last]) == 0
    assert kernel_rest_of(whole, share, n - 2) == last
    if n <= 4:  # the shares' sum is exact: the plain difference, as before
        assert last == whole - (n - 2) * share
