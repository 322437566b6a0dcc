"""Session scoring: a fixed-length series with placement points, or a bankroll played to zero."""

from __future__ import annotations

from dataclasses import dataclass

from ..rules.model import Session


def series_points(totals: list[float], s: Session) -> list[float]:
    """Placement points for the totals of one series; tied places share their points equally,
    and the bonus is shared equally by the players who end with a positive total."""
    n = len(totals)
    out = [0.0] * n
    order = sorted(range(n), key=lambda i: -totals[i])
    place = 0
    while place < n:
        tied = [i for i in order if totals[i] == totals[order[place]]]
        share = sum(s.placement_points[place:place + len(tied)]) / len(tied)
        for i in tied:
            out[i] = share
        place += len(tied)
    positive = [i for i in range(n) if totals[i] > 0]
    for i in positive:
        out[i] += s.positive_bonus / len(positive)
    return out


def pairwise_debts(payouts: list[float]) -> dict[tuple[int, int], float]:
    """(loser, winner) -> amount, from one hand's zero-sum payouts: each loser's payment is split
    among the winners in proportion to what they receive (a team loser pays each winner the
    same; a lone loser pays each of three; each of three pays a lone winner)."""
    winners = [s for s, p in enumerate(payouts) if p > 0]
    gain = sum(payouts[s] for s in winners)
    debts = {}
    for loser, p in enumerate(payouts):
        if p < 0:
            for w in winners:
                debts[(loser, w)] = -p * payouts[w] / gain
    return debts


def bankroll_step(balance: list[float], payouts: list[float]) -> list[float]:
    """Apply one hand to the bankroll. A loser who cannot pay in full pays what he has, one unit
    at a time to the winners in turn clockwise from his left, never more than he owes each."""
    n = len(balance)
    new = list(balance)
    debts = pairwise_debts(payouts)
    for loser in range(n):
        owed = {w: a for (l, w), a in debts.items() if l == loser}
        if not owed:
            continue
        total = sum(owed.values())
        if new[loser] >= total:
            new[loser] -= total
            for w, a in owed.items():
                new[w] += a
            continue
        turn = [(loser + k) % n for k in range(1, n) if (loser + k) % n in owed]
        left = dict(owed)
        while new[loser] > 0 and any(v > 0 for v in left.values()):
            for w in turn:
                if new[loser] <= 0:
                    break
                unit = min(1.0, left[w], new[loser])
                if unit <= 0:
                    continue
                new[loser] -= unit
                new[w] += unit
                left[w] -= unit
    return new


def paid_amounts(balance: list[float], payouts: list[float]) -> list[float]:
    """What each seat actually gains (negative: pays) on a hand priced at `payouts`, holding
    `balance` before it: the nominal payouts, cut down where a loser cannot pay in full."""
    return [after - before for after, before in zip(bankroll_step(balance, payouts), balance)]


@dataclass
class BankrollSession:
    """Victory cards: balances move hand by hand until a player reaches zero."""

    spec: Session
    balance: list[float]
    hands: int = 0
    over: bool = False

    @classmethod
    def start(cls, spec: Session, players: int) -> "BankrollSession":
        assert spec.start is not None
        return cls(spec, [float(spec.start)] * players)

    def play(self, payouts: list[float]) -> list[float]:
        """Play a hand priced at the nominal `payouts`; returns what actually moved."""
        assert not self.over
        before = self.balance
        self.balance = bankroll_step(before, payouts)
        self.hands += 1
        self.over = min(self.balance) <= 0
        return [after - b for after, b in zip(self.balance, before)]

    def winners(self) -> list[int]:
        """Most cards wins; ties stand."""
        best = max(self.balance)
        return [s for s, b in enumerate(self.balance) if b == best]
