"""Bot benchmarks: the solver on full positions, and a pimc bot in every seat (hands per second
in the batch kernel, each decision's time through the reference engine); heuristic and ev
line-ups are rows of `kopsim.bench.engine` itself.

Medians, not means: a decision's cost varies with the position (early leads search far more
than last-trick follows), and the issue's targets are stated as medians.
"""

from __future__ import annotations

import statistics
import time

import numpy as np


def solver_full_positions(ruleset: str = "kop", positions: int = 2000, seed: int = 7) -> dict:
    """Milliseconds to solve whole hands (every trick, move values and best line included) from
    the first lead: random deals, random playable contracts, old sides and doubles."""
    import random

    from ..rules.compile import compile_rules
    from ..rules.load import load_ruleset
    from ..bots.solver import solve

    cr = compile_rules(load_ruleset(ruleset))
    rng = random.Random(seed)
    ks = [k for k in range(len(cr.contract_names)) if not cr.arrays["c_instant"][k]]
    n = cr.tables.n_seats
    nc, hs = cr.n_cards, cr.n_cards // n

    def deal():
        p = list(range(nc))
        rng.shuffle(p)
        return [sum(1 << c for c in p[hs * s:hs * s + hs]) for s in range(n)]

    solve(cr, ks[0], 5, deal(), 0)  # compile or load the cache
    times = []
    for _ in range(positions):
        args = (cr, rng.choice(ks), rng.randrange(1, 15), deal(), rng.randrange(n))
        doubles = [rng.randrange(n) for _ in range(rng.randrange(3))]
        t0 = time.perf_counter()
        solve(*args, double_seats=doubles, moves=True, line=True)
        times.append(time.perf_counter() - t0)
    return {"bench": "solver_full_position", "ruleset": ruleset, "positions": positions,
            "median_ms": round(1000 * statistics.median(times), 3),
            "p90_ms": round(1000 * float(np.percentile(times, 90)), 3),
            "max_ms": round(1000 * max(times), 3)}


def pimc_card_decisions(ruleset: str = "kop", hands: int = 600, seed: int = 1,
                        samples: int | None = None, reference_hands: int = 200) -> dict:
    """A pimc bot in every seat: hands per second in the batch kernel (`hands_per_s`, everything
    included), and through the reference engine (`reference_hands_per_s`) the time of each
    decision with a real choice (two or more legal actions), card decisions and calls apart
    (the compiled decision and its Python face: reading the observation, calling in). The
    first batch, and the first hand, are played before the clocks start (they load the
    compiled code)."""
    from ..bots import bot_spec
    from ..bots.seated import play_batch
    from ..engine.layout import hand_seeds
    from ..engine.reference import Deal, State
    from ..engine.rng import hand_seed
    from ..rules.load import load_ruleset

    rules = load_ruleset(ruleset)
    spec = bot_spec({"name": "pimc"} if samples is None else {"name": "pimc", "samples": samples})
    seats = rules.deck.players
    play_batch(rules, hand_seeds(seed + 1, 0, seats), np.arange(seats), bots=[spec])
    t0 = time.perf_counter()
    play_batch(rules, hand_seeds(seed, 0, hands), np.arange(hands) % seats, bots=[spec])
    kernel_dt = time.perf_counter() - t0
    cards: list[float] = []
    calls: list[float] = []

    def play(i: int) -> None:
        hs = hand_seed(seed, i)
        state = State(rules, Deal.from_seed(rules, hs, i % seats))
        bots = [spec.make(hs, s, rules) for s in range(seats)]
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            t0 = time.perf_counter()
            action = bots[seat].act(obs)
            dt = time.perf_counter() - t0
            if len(obs.legal_actions) > 1:
                (cards if state.phase == "play" else calls).append(dt)
            state.apply_action(action)

    play(0)
    cards.clear()
    calls.clear()
    t0 = time.perf_counter()
    for i in range(1, reference_hands + 1):
        play(i)
    dt = time.perf_counter() - t0
    return {"bench": "pimc_card_decision", "ruleset": ruleset, "lineup": "pimc",
            "engine": "batch", "samples": spec.params.samples,
            "auction_samples": spec.params.auction_samples, "hands": hands,
            "hands_per_s": round(hands / kernel_dt, 1), "reference_hands": reference_hands,
            "reference_hands_per_s": round(reference_hands / dt, 1), "decisions": len(cards),
            **_percentiles_ms("", cards), "calls": len(calls), **_percentiles_ms("call_", calls)}


def _percentiles_ms(prefix: str, times: list[float]) -> dict:
    return {f"{prefix}median_ms": round(1000 * statistics.median(times), 3),
            f"{prefix}p90_ms": round(1000 * float(np.percentile(times, 90)), 3)}
