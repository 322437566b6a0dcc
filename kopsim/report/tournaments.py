"""Tournament standings: series played as the rounds of tournaments, each player ranked over
the rounds of his tournament, and each bot's final standings over many tournaments.

A player is a place of the experiment's line-up (the bot there); the run re-seats the players
each round (`kopsim.engine.layout.tournament_seating`, a function of the run seed, which the
manifest records with the tournament's rounds and plan), so the seats of a session row tell who
played it. Only tournaments whose every round is complete are ranked.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from ..engine.layout import tournament_seating
from ..rules.model import MAX_SEATS, MIN_SEATS, TIE_BREAKS
from .stats import mean_ci, moments, wilson


def tournament_settings(manifest: dict, seats: int
                        ) -> dict[str, tuple[int, tuple | None, list[str]]]:
    """variant label -> (rounds, plan or None, tie-break order) for the variants the run played
    as tournaments at a table of `seats`;
    a manifest entry that does not read as one is left out (the report then has no standings
    for it, rather than wrong ones)."""
    out = {}
    for v in manifest.get("variants") or []:
        t = _member(_member(v, "session"), "tournament")
        if not isinstance(t, dict):
            continue
        rounds, plan = t.get("rounds"), t.get("plan")
        if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= 1000:
            continue
        if plan is not None and not (isinstance(plan, list) and plan and all(
                isinstance(row, list) and sorted(row) == list(range(seats)) for row in plan)):
            continue
        out[str(v.get("label"))] = (rounds, None if plan is None else tuple(map(tuple, plan)),
                                    _ranking(v), _team_best(v, seats))
    return out


def _team_best(variant: dict, seats: int) -> int | None:
    k = _member(_member(_member(_member(variant, "ruleset"), "session"), "tournament"),
                "team_best")
    return k if isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= seats else None


def standings(sessions: pl.DataFrame, manifest: dict, lineup: list[str]) -> pl.DataFrame | None:
    """Per variant and bot: tournaments played, final rank (mean, 95% CI), share of
    tournaments won (a first place shared by k players counts 1/k to each, so the shares of the
    players add up to one; Wilson 95%), and placement points per tournament. `lineup` is the
    bot of each seat: a player a seat."""
    seats = len(lineup)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        return None
    settings = tournament_settings(manifest, seats)
    seed = manifest.get("seed")
    if not settings or not isinstance(seed, int) or not 0 <= seed < 2**63:
        return None
    rows = []
    for label, (rounds, plan, ranking, best) in settings.items():
        s = sessions.filter(pl.col("variant") == label).sort("session")
        if len(s) == 0:
            continue
        ranks, pp = _final_ranks(s, seed, rounds, plan, ranking, seats)
        teams = _team_firsts(pp, lineup, best)
        won = _split_firsts(ranks == 1)
        for bot in dict.fromkeys(lineup):
            players = [p for p in range(seats) if lineup[p] == bot]
            r, points = ranks[:, players].reshape(-1), pp[:, players].reshape(-1)
            rows.append(_summary(label, bot, r, points, float(won[:, players].sum()))
                        | teams.get(bot, {}))
    if not rows:
        return None
    return pl.DataFrame(rows)


def _final_ranks(s: pl.DataFrame, seed: int, rounds: int, plan, ranking: list[str],
                 seats: int):
    """([tournament, player] final rank, 1 = best, ties share the better rank; [tournament,
    player] placement points), over the complete tournaments."""
    session = s["session"].to_numpy().astype(np.int64)
    complete = s["complete"].to_numpy()
    total = np.stack([s[f"total_{k}"].to_numpy() for k in range(seats)], axis=1)
    place_pts = np.stack([s[f"place_points_{k}"].fill_null(0.0).to_numpy()
                          for k in range(seats)], axis=1)
    seated = tournament_seating(seed, session, rounds, plan, seats)  # [row, seat] player
    tour = session // rounds
    ids, counts = np.unique(tour[complete], return_counts=True)
    whole = ids[counts == rounds]
    keep = np.isin(tour, whole) & complete
    t_index = np.searchsorted(whole, tour[keep])
    n_t = len(whole)
    by_player = np.zeros((n_t, seats, 2 + seats))  # placement points, total, places 1..n
    seat_place = 1 + (total[keep][:, None, :] > total[keep][:, :, None]).sum(axis=2)
    for seat in range(seats):
        player = seated[keep, seat]
        np.add.at(by_player, (t_index, player, 0), place_pts[keep, seat])
        np.add.at(by_player, (t_index, player, 1), total[keep, seat])
        np.add.at(by_player, (t_index, player, 1 + seat_place[:, seat]), 1)
    keys = _ranking_keys(by_player, ranking)
    better = np.zeros((n_t, seats), np.int64)
    for p in range(seats):
        for q in range(seats):
            if p != q:
                better[:, p] += _lex_greater(keys[:, q], keys[:, p])
    return 1 + better, by_player[:, :, 0]


def _ranking(variant: dict) -> list[str]:
    """The variant's tie-break order, from its ruleset as the manifest holds it (the default
    order where it cannot be read)."""
    ranking = _member(_member(_member(_member(variant, "ruleset"), "session"), "tournament"),
                      "ranking")
    if isinstance(ranking, list):
        ranking = [k for k in ranking if k in TIE_BREAKS]
        if ranking:
            return ranking
    return list(TIE_BREAKS)


def _member(data, key: str):
    """data[key] if data is a table (a manifest is read as untrusted JSON), else None."""
    return data.get(key) if isinstance(data, dict) else None


def _ranking_keys(by_player: np.ndarray, ranking: list[str]) -> np.ndarray:
    """[tournament, player, key]: the comparison keys in ranking order (higher is better)."""
    seats = by_player.shape[1]
    columns = {"placement_points": [0], "total": [1], "places": list(range(2, 2 + seats))}
    return by_player[:, :, [c for k in ranking for c in columns[k]]]


def _lex_greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a > b row by row, comparing keys in order."""
    out = np.zeros(len(a), bool)
    undecided = np.ones(len(a), bool)
    for j in range(a.shape[1]):
        out |= undecided & (a[:, j] > b[:, j])
        undecided &= a[:, j] == b[:, j]
    return out


def _team_firsts(pp: np.ndarray, lineup: list[str], best: int | None) -> dict:
    """Per bot (its players a team; a team is a bot label, so one bot under two labels is two
    teams): the share of tournaments its best `best` players' summed placement points lead (k
    teams tied in the lead each count 1/k), with its Wilson 95%."""
    if best is None or len(pp) == 0:
        return {}
    bots = list(dict.fromkeys(lineup))
    totals = np.stack([np.sort(pp[:, [p for p in range(len(lineup)) if lineup[p] == b]],
                               axis=1)[:, ::-1][:, :best].sum(axis=1) for b in bots], axis=1)
    leads = _split_firsts(totals == totals.max(axis=1, keepdims=True))
    out = {}
    for i, b in enumerate(bots):
        share, lo, hi = wilson(float(leads[:, i].sum()), len(pp))
        out[b] = {"team_best": best, "team_first": share, "team_first_lo": lo,
                  "team_first_hi": hi}
    return out


def _split_firsts(first: np.ndarray) -> np.ndarray:
    """[tournament, player or team] 1/k where k of them share the first place, else 0: a shared
    win is split, so the shares of a tournament's winners add up to one."""
    return first / np.maximum(first.sum(axis=1, keepdims=True), 1)


def _summary(label: str, bot: str, ranks: np.ndarray, points: np.ndarray, won: float) -> dict:
    """`won`: the tournaments the bot's players won, a shared first place split among the
    players sharing it."""
    n = len(ranks)
    mean, sd = moments(n, float(ranks.sum()), float((ranks ** 2).sum()))
    lo, hi = mean_ci(n, mean, sd)
    won, won_lo, won_hi = wilson(won, n)
    pmean, psd = moments(n, float(points.sum()), float((points ** 2).sum()))
    plo, phi = mean_ci(n, pmean, psd)
    return {"variant": label, "bot": bot, "tournaments": n, "rank_mean": mean, "rank_lo": lo,
            "rank_hi": hi, "first": won, "first_lo": won_lo, "first_hi": won_hi,
            "place_points_mean": pmean, "place_points_lo": plo, "place_points_hi": phi}
