"""pimc: perfect-information Monte Carlo, and the double-dummy cheat that bounds it.

At each decision pimc deals the cards it cannot see to the other seats, many times, consistently
with everything public: each seat's number of cards, the cards played, what failing to follow,
trump or beat revealed, and every call made (a wesele bid shows both black queens, a cicha-ban
restriction shows what a silent hand cannot hold, ...). A sample is kept only if the whole public
history replays legally on it through the reference engine, so no inference is left out. Each
sample is solved exactly by the double-dummy solver and the move with the best mean wins.

In the auction each call is valued the same way: the contract it would lead to if the others
passed, solved from the first lead in every sample, in this seat's own payout.

`cheat-dd` sees all four hands (it is marked so in every label) and plays the double-dummy
move: an upper bound for fair bots, never a fair opponent.
"""

from __future__ import annotations

import random

from pydantic import BaseModel, ConfigDict, Field

from ..engine.reference import Deal, IllegalAction, Observation, State, old_side_of
from ..engine.rng import Stream
from ..engine.scoring import score
from ..engine.steps import play_to_trick
from ..rules.cache import compiled
from ..rules.compile import CompiledRules, card_mask


class PimcParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    samples: int = Field(24, ge=1, le=4096, description="samples per card decision")
    auction_samples: int = Field(12, ge=1, le=4096, description="samples per auction decision")
    seed: int = Field(0, description="varies the samples, not the deal")
    max_tries: int = Field(200, ge=1, description="attempts per sample before giving up")


class CheatParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)


def public_history(obs: Observation) -> list[tuple[int, str]]:
    """Every public action so far, in order: the calls, then the cards."""
    out = [(s, c) for s, c in obs.auction]
    for t in obs.tricks:
        out += [((t.leader + j) % 4, c) for j, c in enumerate(t.cards)]
    return out


def replay(rules, dealer: int, hands: list[list[str]], history) -> State | None:
    """The state after `history` on this deal, or None if the deal contradicts it."""
    state = State(rules, Deal(dealer, tuple(tuple(h) for h in hands)))
    for seat, action in history:
        if state.current_player() != seat:
            return None
        try:
            state.apply_action(action)
        except IllegalAction:
            return None
    return state


class _Sampler:
    """Deals the unseen cards to the other seats, consistently with the public history."""

    def __init__(self, rules, obs: Observation, rng: random.Random, max_tries: int):
        self.rules, self.obs, self.rng, self.max_tries = rules, obs, rng, max_tries
        self.history = public_history(obs)
        per_seat = len(rules.cards()) // 4
        played = {s: [] for s in range(4)}
        for t in obs.tricks:
            for j, c in enumerate(t.cards):
                played[(t.leader + j) % 4].append(c)
        self.played = played
        seen = set(obs.dealt) | {c for cs in played.values() for c in cs}
        self.unseen = [c for c in rules.cards() if c not in seen]
        self.need = {s: per_seat - len(played[s]) for s in range(4) if s != obs.seat}
        self.forbid = self._forbidden()

    def _forbidden(self) -> dict[int, set[str]]:
        """Cards a seat cannot hold now: it failed to follow, to trump or to beat with them.
        (Only a speed-up: replaying the history is the real test of a sample.)"""
        forbid = {s: set() for s in self.need}
        obs = self.obs
        if not obs.tricks:
            return forbid
        state = self._any_state()
        if state is None or state.contract is None:
            return forbid
        order = state.order
        p = self.rules.play
        for t in obs.tricks:
            led = order.suit[t.cards[0]]
            best = order.strength(t.cards[0], led)
            for j, c in enumerate(t.cards[1:], start=1):
                seat = (t.leader + j) % 4
                strength = order.strength(c, led)
                if seat in forbid:
                    same = [x for x in self.unseen if order.suit[x] == led]
                    trumps = [x for x in self.unseen if order.suit[x] is None]
                    if order.suit[c] != led and p.follow_suit:
                        forbid[seat].update(same)
                        if order.suit[c] is not None and p.trump_when_void:
                            forbid[seat].update(trumps)
                    if p.must_beat and strength <= best:
                        pool = same if order.suit[c] == led else trumps
                        forbid[seat].update(x for x in pool if order.strength(x, led) > best)
                best = max(best, strength)
        return forbid

    def _any_state(self) -> State | None:
        for _ in range(self.max_tries):
            hands = self._deal(use_forbid=False)
            if hands is not None:
                st = replay(self.rules, self.obs.dealer, hands, self.obs.auction)
                if st is not None:
                    return st
        return None

    def _deal(self, use_forbid: bool = True) -> list[list[str]] | None:
        pool = list(self.unseen)
        self.rng.shuffle(pool)
        seats = sorted(self.need, key=lambda s: -len(self.forbid[s]) if use_forbid else 0)
        hands = {}
        for s in seats:
            ok = [c for c in pool if not (use_forbid and c in self.forbid[s])]
            if len(ok) < self.need[s]:
                return None
            take = ok[: self.need[s]]
            hands[s] = take
            taken = set(take)
            pool = [c for c in pool if c not in taken]
        out = []
        for s in range(4):
            if s == self.obs.seat:
                out.append(list(self.obs.dealt))
            else:
                out.append(self.played[s] + hands[s])
        return out

    def sample(self, history) -> tuple[list[list[str]], State] | None:
        for _ in range(self.max_tries):
            hands = self._deal()
            if hands is None:
                continue
            st = replay(self.rules, self.obs.dealer, hands, history)
            if st is not None:
                return hands, st
        return None


def _solve_moves(cr: CompiledRules, st: State) -> dict[str, float]:
    """Double-dummy value of each legal card (old side minus young side, per seat)."""
    from .solver import solve

    index = {c: i for i, c in enumerate(cr.cards)}
    hands = [card_mask(h, index) for h in st.held]
    res = solve(cr, cr.contract_names.index(st.contract), _seats_mask(st.old_side), hands,
                st.leader, [index[c] for c in st.trick], st.points, st.tricks_won,
                st.double_seats, moves=True, line=False)
    return {cr.cards[c]: v for c, v in res.move_values.items()}


def _seats_mask(seats) -> int:
    m = 0
    for s in seats:
        m |= 1 << s
    return m


def contract_after(st: State, seat: int, call: str) -> tuple[str, int | None, list[int]]:
    """(contract, declarer, double seats) if the auction ended right after `call`."""
    r = st.rules
    if call in r.contracts:
        return call, seat, []
    doubles = list(st.double_seats) + ([seat] if call in r.doubling.names else [])
    if st.bid is not None:
        return st.bid, st.bidder, doubles
    name, decl = st.implied_contract()
    return name, decl, doubles


def payout_of_contract(cr: CompiledRules, deal: Deal, contract: str, declarer: int | None,
                       doubles: list[int], seat: int) -> float:
    """Seat's payout when `contract` is played double-dummy from the first lead."""
    from .solver import solve

    rules = cr.rules
    old = old_side_of(rules, deal, contract, declarer)
    c = rules.contracts[contract]
    if c.instant:
        return score(rules, contract, old, [], [0] * 4, [0] * 4).payouts[seat]
    index = {x: i for i, x in enumerate(cr.cards)}
    hands = [card_mask(h, index) for h in deal.hands]
    k = cr.contract_names.index(contract)
    forehand = (deal.dealer + 1) % 4
    res = solve(cr, k, _seats_mask(old), hands, forehand, (), double_seats=doubles,
                moves=False, line=True)
    points, tricks = _line_result(cr, k, forehand, res.best_line)
    return score(rules, contract, old, doubles, points, tricks).payouts[seat]


def _line_result(cr: CompiledRules, k: int, leader: int, line: list[int]):
    a = cr.tables
    o = int(a.c_order[k])
    points = [0.0] * 4
    tricks = [0] * 4
    for t in range(0, len(line), 4):
        cards = line[t:t + 4]
        led = w = 0
        wseat = leader
        for j, c in enumerate(cards):
            led, w, wseat = (int(x) for x in play_to_trick(j, c, (leader + j) % 4, a.suit[o, c],
                                                           a.beat_mask[o, led, w], led, w, wseat))
        points[wseat] += sum(float(a.card_points[c]) for c in cards)
        tricks[wseat] += 1
        leader = wseat
    return points, tricks


class PimcBot:
    name = "pimc"
    Params = PimcParams
    kernel_kind = None  # plain Python: plays through the reference engine

    def __init__(self, params: PimcParams, hand_seed: int, seat: int, rules=None):
        self.params, self.seat, self.rules = params, seat, rules
        s = Stream((hand_seed + params.seed * 0x9E3779B97F4A7C15) & (2**64 - 1), 20 + seat)
        self.rng = random.Random(s.next())

    @staticmethod
    def kernel_params(params) -> list[float]:  # pragma: no cover - never in the kernel
        raise TypeError("pimc runs through the reference engine")

    def act(self, obs: Observation) -> str:
        legal = list(obs.legal_actions)
        if len(legal) == 1:
            return legal[0]
        cr = compiled(self.rules)
        sampler = _Sampler(self.rules, obs, self.rng, self.params.max_tries)
        history = public_history(obs)
        totals = {a: 0.0 for a in legal}
        n = 0
        if obs.phase == "play":
            for _ in range(self.params.samples):
                got = sampler.sample(history)
                if got is None:
                    continue
                _, st = got
                sign = 1.0 if self.seat in st.old_side else -1.0
                for card, v in _solve_moves(cr, st).items():
                    totals[card] += sign * v
                n += 1
        else:
            for _ in range(self.params.auction_samples):
                got = sampler.sample(history)
                if got is None:
                    continue
                hands, st = got
                deal = Deal(obs.dealer, tuple(tuple(h) for h in hands))
                seen: dict[tuple, float] = {}
                for call in legal:
                    key = contract_after(st, self.seat, call)
                    key = (key[0], key[1], tuple(key[2]))
                    if key not in seen:
                        seen[key] = payout_of_contract(cr, deal, key[0], key[1], list(key[2]),
                                                       self.seat)
                    totals[call] += seen[key]
                n += 1
        if n == 0:
            return legal[0]  # nothing consistent found: should not happen; play safe and legal
        return max(legal, key=lambda a: (totals[a], -legal.index(a)))


class CheatBot:
    """Sees every hand and plays double-dummy. Marked: an upper bound, not a fair bot."""

    name = "cheat-dd"
    Params = CheatParams
    kernel_kind = None
    sees_all = True  # `play_hand` gives it the whole state; no fair line-up should include it

    def __init__(self, params: CheatParams, hand_seed: int, seat: int, rules=None):
        self.seat, self.rules = seat, rules

    @staticmethod
    def kernel_params(params) -> list[float]:  # pragma: no cover
        raise TypeError("cheat-dd runs through the reference engine")

    def act_seeing_all(self, state: State) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        cr = compiled(self.rules)
        if state.phase == "play":
            values = _solve_moves(cr, state)
            sign = 1.0 if self.seat in state.old_side else -1.0
            return max(legal, key=lambda a: (sign * values[a], -legal.index(a)))
        best = {}
        for call in legal:
            c, d, dbl = contract_after(state, self.seat, call)
            best[call] = payout_of_contract(cr, state.deal, c, d, dbl, self.seat)
        return max(legal, key=lambda a: (best[a], -legal.index(a)))
