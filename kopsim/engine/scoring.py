"""From the end of play to payouts: who won, the tier, counted doubles and what each seat gets.

Shared by the reference engine and `replay`; the batch kernel implements the same arithmetic on
compiled tables and is cross-checked against this module by the tests.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..rules.model import Ramsch, Ruleset


@dataclass(frozen=True)
class Outcome:
    winner: str | None  # "old", "young" or None
    tier: str  # out / schneider / schwarz / lone / tie / instant
    doubles: int  # counted doubles that price the hand
    payouts: tuple[float, ...]


def counted_doubles(double_seats: list[int], old_side: list[int], cap: int) -> tuple[int, str | None]:
    """Alternating doubles, capped: (how many count, side of the last counted one).

    A double counts only if it comes from the other side than the previous counted one; the
    first always counts. Sides are only known now, after the auction, which is the point.
    """
    count, last = 0, None
    for seat in double_seats:
        side = "old" if seat in old_side else "young"
        if count == cap:
            break
        if side != last:
            count += 1
            last = side
    return count, last


def losing_tier(rules: Ruleset, points: float, tricks: int, side: str = "young") -> str:
    """The losing side's tier: schwarz without a trick, schneider with at most its side's
    schneider maximum of points (the old side's may differ), else out."""
    s = rules.scoring
    most = s.schneider_max_points
    if side == "old" and s.old_side_schneider_max_points is not None:
        most = s.old_side_schneider_max_points
    if tricks == 0:
        return "schwarz"
    if points <= most:
        return "schneider"
    return "out"


def distribute(rules: Ruleset, v: float, winner: str | None, old_side: list[int]) -> tuple[float, ...]:
    """Payments of value v. When one side is a single player, his game is priced per opponent
    (he receives v from each, or pays v to each); otherwise each winner receives v and, in
    zero-sum rulesets, each loser pays v."""
    n = rules.deck.players
    pay = [0.0] * n
    if winner is None or v == 0:
        return tuple(pay)
    if rules.scoring.style == "old_side_only":  # Skat's score sheet: nobody else is scored
        for s in old_side:
            pay[s] = v if winner == "old" else -v
        return tuple(pay)
    young = [s for s in range(n) if s not in old_side]
    winners, losers = (old_side, young) if winner == "old" else (young, old_side)
    zero_sum = rules.scoring.style == "zero_sum"
    if len(old_side) == 1 or len(young) == 1:
        lone = old_side[0] if len(old_side) == 1 else young[0]
        lone_won = lone in winners
        # settled with each opponent (v each), or once (v in all, shared equally); the lone
        # player's amount is exactly what his opponents' add up to: the last of them from his
        # left takes the rounding residue (`rest_of`: exactly whole - (n - 2) * share)
        once = rules.scoring.lone_settlement == "once"
        share = v / (n - 1) if once else v
        whole = v if once else (n - 1) * share
        parts = {(lone + k) % n: share for k in range(1, n - 1)}
        parts[(lone + n - 1) % n] = rest_of(whole, share, n - 2)
        sign = 1.0 if lone_won else -1.0
        for s, part in parts.items():
            if zero_sum or not lone_won:
                pay[s] -= sign * part
        if zero_sum or lone_won:
            pay[lone] += sign * whole
    else:
        for s in winners:
            pay[s] += v
        if zero_sum:
            for s in losers:
                pay[s] -= v
    return tuple(pay)


def laufende(rules: Ruleset, contract: str, hands, old_side: list[int]) -> float:
    """What the contract's Laufende add: the counted cards (high to low) one side holds from
    the top without a gap, each worth the contract's value, once there are enough of them. A
    card no seat was dealt lies in the talon, and counts with the old side (Skat's matadors,
    docs/rules/SKAT.md §6.3)."""
    c = rules.contracts[contract]
    if c.laufende is None or hands is None:
        return 0.0
    sides = []
    for card in c.laufende_cards(rules.orders):
        holder = next((s for s, hand in enumerate(hands) if card in hand), None)
        sides.append(holder is None or holder in old_side)
    run = 0
    while run < len(sides) and sides[run] == sides[0]:
        run += 1
    return run * c.laufende.value if run >= c.laufende.from_ else 0.0


def score(rules: Ruleset, contract: str, old_side: list[int], double_seats: list[int],
          points: list[float], tricks_won: list[int], hands=None, hand_game: bool = False,
          bid_value: float | None = None) -> Outcome:
    """The outcome of a finished hand; `hands` (the cards dealt) price the Laufende, if the
    contract has them; a hand game (played without picking the talon up) adds the contract's
    hand value; a game bid by value (`bid_value`) worth less than the bid is lost (`overbid`)."""
    c = rules.contracts[contract]
    if c.thrown_in:  # nobody plays: nobody wins, nothing is paid
        return Outcome(None, "thrown_in", 0, (0.0,) * rules.deck.players)
    if c.instant:
        v = c.payout.won.value("out")
        return Outcome("old", "instant", 0, distribute(rules, v, "old", old_side))
    young = [s for s in range(rules.deck.players) if s not in old_side]
    old_pts = sum(points[s] for s in old_side)
    old_tricks = sum(tricks_won[s] for s in old_side)
    young_pts = sum(points[s] for s in young)
    young_tricks = sum(tricks_won[s] for s in young)
    doubles, last_side = counted_doubles(double_seats, old_side, rules.max_doubles(contract))

    tie = False
    if c.goal == "all_tricks":
        winner = "old" if young_tricks == 0 else "young"
    elif c.goal == "no_tricks":
        winner = "old" if old_tricks == 0 else "young"
    elif old_pts >= rules.win_points_of(contract):
        winner = "old"
    elif old_pts == young_pts:
        tie = True
        if rules.scoring.tie == "nobody_wins":
            winner = None
        elif doubles and rules.scoring.tie == "last_double_loses":
            winner = "young" if last_side == "old" else "old"
        else:
            winner = "young"
    else:
        winner = "young"

    price = c.payout.won if winner == "old" else c.payout.lost
    assert price is not None
    if tie:
        tier = "tie"
    elif len(old_side) == 1 and not price.tiered:
        tier = "lone"
    elif winner == "old":
        tier = losing_tier(rules, young_pts, young_tricks)
    else:
        tier = losing_tier(rules, old_pts, old_tricks, "old")
    if winner is None:
        return Outcome(None, tier, doubles, distribute(rules, 0, None, old_side))

    # the added parts summed first, as the kernel adds them (the same bits)
    v = price.value(tier) + (laufende(rules, contract, hands, old_side)
                             + ((c.hand_value or 0.0) if hand_game else 0.0))
    if bid_value is not None and v < bid_value:  # overbid: lost, at the bid's value
        winner, tie, v = "young", False, overbid(bid_value, c.base_value)
        tier = losing_tier(rules, old_pts, old_tricks, "old")
    if tie and doubles == 0 and rules.scoring.tie_value_without_double is not None:
        v = rules.scoring.tie_value_without_double
    for _ in range(doubles):  # one product at a time, as the kernel multiplies: the same bits
        v *= rules.doubling.factor
    v = multiplied(rules, contract, v, winner, tie)
    return Outcome(winner, tier, doubles, distribute(rules, v, winner, old_side))


def overbid(bid_value: float, base: float | None) -> float:
    """The value a game lost by overbidding is entered at: the least multiple of the base
    value that reaches the bid (docs/rules/SKAT.md §7.3), or the bid without a base."""
    if not base:
        return float(bid_value)
    return base * math.ceil(bid_value / base)


def multiplied(rules: Ruleset, contract: str, v: float, winner: str, tie: bool) -> float:
    """v times the ruleset's multipliers that apply to this outcome: the product of those of
    the side that won (in ruleset order), then the product of those of a tie, in the order the
    kernel applies its tables, so that both engines compute the same bits."""
    side = {"young": "old_side_lost", "old": "old_side_won"}.get(winner)
    for when in (side, "tie" if tie else None):
        product = 1.0
        for m in rules.scoring.multipliers:
            if m.when == when and (m.contracts is None or contract in m.contracts):
                product *= m.factor
        v *= product
    return v


def each_alone(rules: Ruleset, contract: str, points: list[float], tricks_won: list[int],
               played_by: dict[str, int], forehand: int) -> tuple[list[int], Outcome]:
    """(old side, outcome) of a hand played each for himself (Ramsch), played_by[card]: the
    seat that played it. A Durchmarsch (every trick, or the ruleset's points) wins alone;
    otherwise the seat with the most points loses alone and pays each of the others, doubled
    for each seat without a trick under Jungfrau."""
    c = rules.contracts[contract]
    ramsch = c.ramsch or Ramsch()
    n = rules.deck.players
    n_tricks = rules.hand_size()
    for s in range(n):
        if ((ramsch.durchmarsch == "all_tricks" and tricks_won[s] == n_tricks)
                or (isinstance(ramsch.durchmarsch, float) and points[s] >= ramsch.durchmarsch)):
            v = multiplied(rules, contract, c.payout.won.value("out"), "old", False)
            return [s], Outcome("old", "lone", 0, distribute(rules, v, "old", [s]))
    loser = _each_alone_loser(rules, contract, ramsch, points, tricks_won, played_by, forehand)
    v = c.payout.lost.value("out")
    if ramsch.jungfrau == "double":
        v *= 2.0 ** sum(1 for t in tricks_won if t == 0)
    v = multiplied(rules, contract, v, "young", False)
    return [loser], Outcome("young", "lone", 0, distribute(rules, v, "young", [loser]))


def _each_alone_loser(rules: Ruleset, contract: str, ramsch: Ramsch, points, tricks_won,
                      played_by: dict[str, int], forehand: int) -> int:
    """The seat with the most points; of seats tied on them (with loser "most_tricks" the
    ones of them with the most tricks) the one who played the highest trump, or with no trump
    among them the first from forehand."""
    n = rules.deck.players
    tied = [s for s in range(n) if points[s] == max(points)]
    if ramsch.loser == "most_tricks":
        tied = [s for s in tied if tricks_won[s] == max(tricks_won[t] for t in tied)]
    for card in rules.orders[rules.contracts[contract].order].trumps:  # high to low
        if played_by.get(card) in tied:
            return played_by[card]
    return next(s for s in ((forehand + i) % n for i in range(n)) if s in tied)


def rest_of(whole: float, share: float, k: int) -> float:
    """whole - k * share, exactly: k shares summed with their rounding errors kept apart
    (Knuth's two-sum), whole minus their rounded sum (exact: the two lie within a factor of
    two), then the errors. The same float operations as the kernel's `steps.rest_of`."""
    if k == 0:
        return whole
    total, err = share, 0.0
    for _ in range(k - 1):
        s = total + share
        b = s - total
        err += (total - (s - b)) + (share - b)
        total = s
    return (whole - total) - err
