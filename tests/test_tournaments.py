"""Tournaments (issue 11, item 7): several rounds of a series at one table, the players re-seated
between rounds by a plan or a draw, ranked over the rounds by placement points, then total
points, then the number of 1st, 2nd, ... places. Written from that statement of the rule."""

import hashlib

import numpy as np
import polars as pl
import pytest

from kopsim.engine.layout import DealLayout, tournament_seating
from kopsim.errors import InputError
from kopsim.experiments.run import run_experiment
from kopsim.experiments.spec import experiment_from_dict
from kopsim.report.analysis import analyse
from kopsim.report.read import load_results
from kopsim.report.tournaments import standings
from kopsim.rules.load import load_raw, ruleset_from_dict
from kopsim.rules.show import show

PLAN = [[0, 1, 2, 3], [1, 0, 3, 2], [2, 3, 0, 1]]


def sportowy(**tournament):
    data, _ = load_raw("kop-sportowy")
    data["session"] = {**data["session"], "hands": 16, "tournament": tournament}
    return data


# ------------------------------------------------------------------------------- the seating


def test_a_drawn_seating_is_a_fresh_permutation_each_round_and_the_same_in_any_process():
    series = np.arange(400)
    seated = tournament_seating(11, series, 5, None, 4)
    assert (np.sort(seated, axis=1) == np.arange(4)).all()
    assert len({tuple(r) for r in seated}) == 24  # every seating occurs
    # computed piecewise (as chunks do) it is the same
    parts = np.concatenate([tournament_seating(11, series[i:i + 37], 5, None, 4)
                            for i in range(0, 400, 37)])
    assert (parts == seated).all()
    assert not (tournament_seating(12, series, 5, None, 4) == seated).all()  # the seed decides


def test_a_planned_seating_follows_the_plan_row_of_each_round_repeating():
    seated = tournament_seating(0, np.arange(10), 5, tuple(map(tuple, PLAN)), 4)
    # series 0..4 are rounds 0..4 of the first tournament: plan rows 0, 1, 2, 0, 1
    assert seated[:5].tolist() == [PLAN[0], PLAN[1], PLAN[2], PLAN[0], PLAN[1]]
    assert seated[5:].tolist() == seated[:5].tolist()  # the next tournament starts over
    layout = DealLayout(0, "series", 16, (7, 8, 9, 6), None, 5, tuple(map(tuple, PLAN)))
    # deals 16..31 are the second series (round 1): seat s holds player PLAN[1][s]
    bots = layout.seat_bots(np.arange(16, 32))
    assert (bots == np.array([8, 7, 6, 9])).all()


# ----------------------------------------------------------------------------- the ranking


def _rows(rounds):
    """Session rows of one tournament: rounds[r] = (totals by seat, placement points by seat)."""
    out = []
    for r, (totals, pp) in enumerate(rounds):
        row = {"variant": "t", "session": r, "complete": True}
        row.update({f"total_{k}": float(totals[k]) for k in range(4)})
        row.update({f"place_points_{k}": float(pp[k]) for k in range(4)})
        out.append(row)
    return pl.DataFrame(out)


def _manifest(rounds, ranking=("placement_points", "total", "places")):
    plan = [[0, 1, 2, 3]] * rounds  # nobody moves: seat k is player k
    return {"seed": 1, "variants": [{"label": "t", "session": {
        "kind": "series", "tournament": {"rounds": rounds, "plan": plan}},
        "ruleset": {"session": {"tournament": {"ranking": list(ranking)}}}}]}


def _final(rounds, lineup=("a", "b", "c", "d"), **kw):
    df = standings(_rows(rounds), _manifest(len(rounds), **kw), list(lineup))
    return {r["bot"]: r["rank_mean"] for r in df.iter_rows(named=True)}


def test_placement_points_rank_first():
    # b scores the most placement points over the two rounds although a has more points
    ranks = _final([((90, 10, -50, -50), (5, 3, 1, 0)), ((-5, 4, 1, 0), (0, 5, 3, 1))])
    assert ranks == {"b": 1, "a": 2, "c": 3, "d": 4}


def test_equal_placement_points_are_settled_by_total_points_then_by_first_places():
    # a and b: 8 placement points each; a has more total points
    ranks = _final([((30, 20, -25, -25), (5, 3, 0, 1)), ((1, 2, -1, -2), (3, 5, 1, 0))])
    assert ranks["a"] == 1 and ranks["b"] == 2
    # a and b equal in placement points (6) and total points (20); b has two 1st places (the
    # last round is a four-way tie for 1st), a one
    ranks = _final([((10, 20, 0, -30), (3, 5, 1, 0)), ((10, 0, 20, -30), (3, 1, 4, 0)),
                    ((0, 0, 0, 0), (0, 0, 0, 0))])
    assert ranks["b"] == 1 and ranks["a"] == 2
    # and on a tie on every key, both share the better rank
    ranks = _final([((10, 10, -10, -10), (4, 4, 0.5, 0.5))])
    assert ranks == {"a": 1, "b": 1, "c": 3, "d": 3}


def test_the_rulesets_ranking_order_is_followed():
    rounds = [((90, 10, -50, -50), (5, 3, 1, 0)), ((-5, 4, 1, 0), (0, 5, 3, 1))]
    assert _final(rounds, ranking=("total",))["a"] == 1


def test_an_incomplete_tournament_is_not_ranked():
    rows = _rows([((1, 0, 0, -1), (5, 3, 1, 0))] * 2)
    rows = rows.with_columns(pl.Series("complete", [True, False]))
    assert standings(rows, _manifest(2), list("abcd"))["tournaments"].to_list() == [0] * 4


# ------------------------------------------------------------------- the ruleset and the run


def test_a_tournament_is_validated_and_shown():
    r = ruleset_from_dict(sportowy(rounds=3, seating="plan", plan=PLAN))
    assert "Tournament: 3 series as rounds, seats by the plan 0123, 1032, 2301" in show(r)
    for bad, where in [({"rounds": 3, "seating": "plan"}, "session.tournament.plan"),
                       ({"rounds": 3, "seating": "plan", "plan": [[0, 1, 1, 3]]},
                        "session.tournament.plan[0]"),
                       ({"rounds": 3, "plan": PLAN}, "session.tournament.plan"),
                       ({"rounds": 0}, "session.tournament.rounds")]:
        with pytest.raises(InputError) as e:
            ruleset_from_dict(sportowy(**bad))
        assert any(p.where == where for p in e.value.problems), e.value.problems


def _experiment(deals=16 * 3 * 4, **more):
    data = {"name": "t", "deals": deals, "seed": 3, "sessions": True, "tournaments": True,
            "bots": ["heuristic", "random", "heuristic", "random"],
            "variants": [{"ruleset": "kop-sportowy", "label": "tour", "overrides": {
                "session": {"hands": 16, "tournament": {"rounds": 3}}}}], "chunk": 32}
    data.update(more)
    return experiment_from_dict(data)


def test_the_experiment_refuses_what_a_tournament_cannot_be():
    for more, where in [({"sessions": False}, "tournaments"), ({"rotate": True}, "rotate"),
                        ({"variants": ["kop-sportowy"]}, "tournaments")]:
        with pytest.raises(InputError) as e:
            _experiment(**more)
        assert any(p.where == where for p in e.value.problems), (more, e.value.problems)


def _digest(folder):
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*.parquet"))}


def test_a_tournament_run_resumes_and_its_report_ranks_the_bots(tmp_path):
    whole = tmp_path / "whole"
    run_experiment(_experiment(), whole, jobs=1)
    seen = []

    def stop(r):
        seen.append(r)
        if len(seen) == 2:
            raise KeyboardInterrupt

    part = tmp_path / "part"
    with pytest.raises(KeyboardInterrupt):
        run_experiment(_experiment(), part, jobs=1, on_chunk=stop)
    run_experiment(_experiment(), part, jobs=2)
    assert _digest(part) == _digest(whole)
    sessions = pl.read_parquet(list((whole / "sessions").rglob("*.parquet")))
    # the seats change between rounds: each series' bots are its drawn seating of the line-up
    lineup = ["heuristic", "random", "heuristic", "random"]
    # each series row says which tournament and which round of it it is (3 rounds)
    assert sessions["tournament"].to_list() == [k // 3 for k in sessions["session"]]
    assert sessions["round"].to_list() == [k % 3 for k in sessions["session"]]
    seated = tournament_seating(3, sessions["session"].to_numpy(), 3, None, 4)
    for row, seats in zip(sessions.iter_rows(named=True), seated):
        assert [row[f"bot_{s}"] for s in range(4)] == [lineup[p] for p in seats]
    an = analyse(load_results(whole))
    t = {r["bot"]: r for r in an.tournaments.iter_rows(named=True)}
    assert t["heuristic"]["tournaments"] == 2 * 4  # 4 tournaments, two heuristic players
    assert t["heuristic"]["rank_mean"] < t["random"]["rank_mean"]
    assert t["heuristic"]["first"] + t["random"]["first"] >= 0.5


def test_a_team_counts_its_best_players():
    # players a and c are team "x", b and d team "y"; best 1 of 2: x's best is 8 (a), y's 6 (b)
    rounds = [((30, 20, -25, -25), (5, 3, 0, 1)), ((1, 2, -1, -2), (3, 3, 1, 0))]
    manifest = _manifest(2)
    manifest["variants"][0]["ruleset"]["session"]["tournament"]["team_best"] = 1
    df = standings(_rows(rounds), manifest, ["x", "y", "x", "y"])
    won = {r["bot"]: r["team_first"] for r in df.iter_rows(named=True)}
    assert won == {"x": 1.0, "y": 0.0}
    # a 8, b 6, c 0, d 5: the best one of x (8) leads, the best two of y (11) lead
    deep = [((30, 20, -25, -25), (5, 3, 0, 2)), ((1, 2, -1, -2), (3, 3, 0, 3))]
    manifest["variants"][0]["ruleset"]["session"]["tournament"]["team_best"] = 1
    df = standings(_rows(deep), manifest, ["x", "y", "x", "y"])
    assert {r["bot"]: r["team_first"] for r in df.iter_rows(named=True)} == {"x": 1.0, "y": 0.0}
    manifest["variants"][0]["ruleset"]["session"]["tournament"]["team_best"] = 2
    df = standings(_rows(deep), manifest, ["x", "y", "x", "y"])
    assert {r["bot"]: r["team_first"] for r in df.iter_rows(named=True)} == {"x": 0.0, "y": 1.0}
    assert "team_first" not in standings(_rows(rounds), _manifest(2), list("abcd")).columns


def test_a_shared_first_place_is_split_so_the_shares_add_up_to_one():
    # a and b tie on every key in both tournaments' one round: each wins half of it
    rounds = [((10, 10, -5, -15), (4, 4, 1, 0))]
    df = standings(_rows(rounds), _manifest(1), list("abcd"))
    won = {r["bot"]: r["first"] for r in df.iter_rows(named=True)}
    assert won == {"a": 0.5, "b": 0.5, "c": 0.0, "d": 0.0}
    # two players of one bot sharing the first place: the bot wins the whole tournament
    df = standings(_rows(rounds), _manifest(1), ["x", "x", "y", "z"])
    won = {r["bot"]: r["first"] for r in df.iter_rows(named=True)}
    assert won["x"] * 2 == 1.0 and won["y"] == won["z"] == 0.0  # x's two player-tournaments


def test_teams_tied_in_the_lead_split_the_tournament():
    # team x (a, c) and team y (b, d) lead with 5 placement points each at best 1
    rounds = [((10, 10, -5, -15), (5, 5, 1, 0))]
    manifest = _manifest(1)
    manifest["variants"][0]["ruleset"]["session"]["tournament"]["team_best"] = 1
    df = standings(_rows(rounds), manifest, ["x", "y", "x", "y"])
    assert {r["bot"]: r["team_first"] for r in df.iter_rows(named=True)} == {"x": 0.5, "y": 0.5}
