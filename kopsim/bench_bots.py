"""Bot benchmarks: the solver on full positions and pimc per card decision (heuristic line-ups
are rows of `kopsim.bench` itself).

Medians, not means: a decision's cost varies with the position (early leads search far more
than last-trick follows), and the issue's targets are stated as medians.
"""

from __future__ import annotations

import statistics
import time

import numpy as np


def solver_full_positions(ruleset: str = "kop", positions: int = 200, seed: int = 1) -> dict:
    """Median time to solve a whole hand (4 tricks, 16 cards) from the first lead."""
    from .compiled import compile_rules
    from .game import Deal, old_side_of
    from .rng import hand_seed
    from .ruleset import load_ruleset
    from .solver import solve

    rules = load_ruleset(ruleset)
    cr = compile_rules(rules)
    index = {c: i for i, c in enumerate(cr.cards)}
    k = cr.contract_names.index("normal")
    times = []
    for i in range(positions + 5):
        deal = Deal.from_seed(rules, hand_seed(seed, i), i % 4)
        hands = [sum(1 << index[c] for c in h) for h in deal.hands]
        old = sum(1 << s for s in old_side_of(rules, deal, "normal", None))
        t0 = time.perf_counter()
        solve(cr, k, old, hands, (deal.dealer + 1) % 4, moves=True, line=True)
        if i >= 5:  # the first solves compile or load the kernels
            times.append(time.perf_counter() - t0)
    return {"bench": "solver_full_position", "ruleset": ruleset, "positions": positions,
            "median_ms": round(1000 * statistics.median(times), 3),
            "p90_ms": round(1000 * float(np.percentile(times, 90)), 3)}


def pimc_card_decisions(ruleset: str = "kop", hands: int = 30, seed: int = 1,
                        samples: int | None = None) -> dict:
    """Median time of pimc's card decisions with a real choice (two or more legal cards), over
    whole hands of pimc against heuristic bots."""
    from .bots import bot_spec
    from .game import Deal, State
    from .rng import hand_seed
    from .ruleset import load_ruleset

    rules = load_ruleset(ruleset)
    spec = bot_spec({"name": "pimc"} if samples is None else {"name": "pimc", "samples": samples})
    heur = bot_spec("heuristic")
    times = []
    for i in range(hands):
        hs = hand_seed(seed, i)
        state = State(rules, Deal.from_seed(rules, hs, i % 4))
        bots = [spec.make(hs, s, rules) if s % 2 == 0 else heur.make(hs, s, rules)
                for s in range(4)]
        while not state.is_terminal():
            seat = state.current_player()
            obs = state.observation(seat)
            t0 = time.perf_counter()
            action = bots[seat].act(obs)
            dt = time.perf_counter() - t0
            if seat % 2 == 0 and state.phase == "play" and len(obs.legal_actions) > 1 and i > 0:
                times.append(dt)
            state.apply_action(action)
    return {"bench": "pimc_card_decision", "ruleset": ruleset, "samples": spec.params.samples,
            "decisions": len(times), "median_ms": round(1000 * statistics.median(times), 2),
            "p90_ms": round(1000 * float(np.percentile(times, 90)), 2)}
