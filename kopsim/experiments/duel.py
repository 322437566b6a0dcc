"""Duplicate matches: every deal played twice with the bots' seats swapped, so the cards' luck
cancels and what remains is the difference in skill.

Deal d is played with A in seats 0 and 2 and B in 1 and 3, then with B in 0 and 2 and A in 1
and 3. Its score is the mean over the two plays of (A's mean payout per seat − B's), and the
duel reports the mean over deals with a 95% confidence interval (normal approximation; deals
are independent). Same seed, same duel, whatever the number of jobs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from ..bots import BotSpec, bot_spec
from ..errors import InputError, Problem
from ..rules.load import tomllib
from ..rules.model import Ruleset
from ..engine.layout import DealLayout, Deals


@dataclass
class DuelResult:
    ruleset: str
    a: str
    b: str
    deals: int
    seed: int
    mean_diff: float
    ci_low: float
    ci_high: float
    a_mean: float  # A's mean payout per seat and hand
    b_mean: float

    def to_json(self) -> dict:
        return asdict(self)

    def text(self) -> str:
        sig = "significant" if self.ci_low > 0 or self.ci_high < 0 else "not significant"
        return (f"{self.ruleset}: {self.deals:,} duplicate deals (seed {self.seed})\n"
                f"  A = {self.a}: {self.a_mean:+.4f} per seat and hand\n"
                f"  B = {self.b}: {self.b_mean:+.4f} per seat and hand\n"
                f"  A − B: {self.mean_diff:+.4f}  (95% CI {self.ci_low:+.4f} … {self.ci_high:+.4f},"
                f" {sig})")


def parse_bot(text: str, where: str) -> BotSpec:
    """"heuristic", "pimc:samples=16,seed=3" or an inline TOML table "{name='pimc', samples=16}"."""
    text = text.strip()
    if text.startswith("{"):
        try:
            spec = tomllib.loads(f"bot = {text}")["bot"]
        except tomllib.TOMLDecodeError as e:
            raise InputError([Problem(where, "", f"not a TOML inline table: {e}")])
    else:
        name, _, rest = text.partition(":")
        spec = {"name": name}
        for item in filter(None, rest.split(",")):
            key, eq, value = item.partition("=")
            if not eq:
                raise InputError([Problem(where, item, "expected key=value")])
            try:
                spec[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
            except tomllib.TOMLDecodeError:
                spec[key.strip()] = value.strip()
    return bot_spec(spec, where)


def _payout_diffs(pay_ab: np.ndarray, pay_ba: np.ndarray) -> np.ndarray:
    """Per deal: mean over both plays of (A per seat − B per seat)."""
    even, odd = slice(0, None, 2), slice(1, None, 2)  # the seats of the first bot, the second's
    a1 = pay_ab[:, even].mean(axis=1)
    b1 = pay_ab[:, odd].mean(axis=1)
    b2 = pay_ba[:, even].mean(axis=1)
    a2 = pay_ba[:, odd].mean(axis=1)
    return ((a1 - b1) + (a2 - b2)) / 2, (a1 + a2) / 2, (b1 + b2) / 2


def _kernel_payouts(rules: Ruleset, a: BotSpec, b: BotSpec, deals: Deals, chunk=65536):
    from ..engine.kernel import _play_batch
    from ..bots.seated import play_batch
    from ..rules.compile import compile_rules
    from ..terminal import compile_notice

    cr = compile_rules(rules)
    compile_notice(_play_batch)
    seeds, dealers, idx = deals.seed, deals.dealer, deals.hand_index
    n, seats = len(seeds), cr.tables.n_seats
    out_ab = np.empty((n, seats))
    out_ba = np.empty((n, seats))
    ab = np.arange(seats) % 2  # a and b seated alternately, then each in the other's seats
    ba = 1 - ab
    for s in range(0, n, chunk):
        e = min(n, s + chunk)
        out_ab[s:e] = play_batch(cr, seeds[s:e], dealers[s:e], idx[s:e], [a, b], ab).payouts
        out_ba[s:e] = play_batch(cr, seeds[s:e], dealers[s:e], idx[s:e], [a, b], ba).payouts
    return out_ab, out_ba


def _reference_deal(rules: Ruleset, a: BotSpec, b: BotSpec, seed: int, dealer: int):
    from ..bots.seated import play_hand

    seats = range(rules.deck.players)
    ab = play_hand(rules, seed, dealer, [(a, b)[s % 2] for s in seats]).returns()
    ba = play_hand(rules, seed, dealer, [(b, a)[s % 2] for s in seats]).returns()
    return ab, ba


def duel(rules: Ruleset, a: BotSpec, b: BotSpec, deals: int, seed: int, jobs: int = 1,
         progress: bool = False) -> DuelResult:
    import sys

    from ..bots import prepare_bots
    from ..rules.cache import compiled

    lineup = (0,) * rules.deck.players  # session scoring plays no part in a duel
    dealt = DealLayout(seed, lineup=lineup).deals(0, deals)
    # what the bots learn from the ruleset, learnt once here, before the workers look for it
    prepare_bots(compiled(rules), [a, b], jobs, lambda m: print(m, file=sys.stderr))
    if a.kernel_kind is not None and b.kernel_kind is not None:
        pay_ab, pay_ba = _kernel_payouts(rules, a, b, dealt)
    else:
        from joblib import Parallel, delayed

        tasks = (delayed(_reference_deal)(rules, a, b, int(s), int(d))
                 for s, d in zip(dealt.seed, dealt.dealer))
        results = Parallel(n_jobs=jobs, batch_size=4, verbose=5 if progress else 0)(tasks)
        pay_ab = np.array([r[0] for r in results], np.float64)
        pay_ba = np.array([r[1] for r in results], np.float64)
    diff, a_mean, b_mean = _payout_diffs(pay_ab, pay_ba)
    mean = float(diff.mean())
    half = 1.96 * float(diff.std(ddof=1)) / math.sqrt(deals) if deals > 1 else math.inf
    return DuelResult(rules.name, a.label, b.label, deals, seed, mean, mean - half, mean + half,
                      float(a_mean.mean()), float(b_mean.mean()))
