"""Exact double-dummy solving, the Python face: `solve` a position, `DealSolver` for one position
in many deals (pimc's worlds), and `brute_force`, a plain minimax for the tests.

The search itself is compiled (`kopsim.bots.search`, started from roots by
`kopsim.bots.roots`); what a finished hand is worth to it comes from the kernel's own steps
(`kopsim.bots.pricing`). A value is the old side's payout per old seat minus the young side's
per young seat. What the dealt hands fix is given with a position: the Laufende added to the
price (`laufende_added`), and the called card while its duties hold (`Dealt`).

`brute_force` is an independent statement of the same thing on the reference engine's rules
(`kopsim.engine.reference.legal_cards`, `called_card_duties`, `CardOrder`,
`kopsim.engine.scoring.score`), without pruning or table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..rules.codes import N_PRICED_TIERS, TALON_OLD_SIDE, TIER_NAMES, WIN_NOBODY, WINNER_NAMES
from ..engine.jit import built_call
from ..engine.steps import count_doubles, instant_result, laufende_value, pay_out
from ..rules.cache import compiled, table
from ..rules.compile import CompiledRules
from .pricing import (P_DIRECTION, P_PAY_OLD, P_PAY_YOUNG, P_UNSCALED, P_VALUES, P_WIDTH,
                      fill_row, point_sums, pricing_row, pricing_store, slot_of)
from .roots import (line_payouts_of_deals, move_values_of_deals, solve_position,
                    values_of_deals)
from .search import (SearchContext, kept_table_bits, new_table, play_tables, ply_room,
                     root_arrays)


class Dealt(NamedTuple):
    """What a position's cards do not show, which the deal fixed: the hands as dealt (masks;
    they fix the Laufende), and the called card while its duties hold (its suit not led yet;
    None: no card on duty); with a talon, its cards (a mask), the game played hand or not, and
    the value it was bid at (None: not bid by value), which `solve` and `brute_force` read."""

    hands: tuple | list | None = None
    called: int | None = None
    talon: int = 0
    hand_game: bool = False
    bid_value: int | None = None


@dataclass
class SolveResult:
    value: float
    best_line: list[int]
    move_values: dict[int, float]
    nodes: int = 0  # positions searched (trick boundaries and last tricks), over every search
    to_move: int | None = None  # the seat whose cards move_values prices


def side_value(pay, old_mask: int) -> float:
    """Old side's payout per old seat minus the young side's per young seat."""
    old = [pay[s] for s in range(len(pay)) if (old_mask >> s) & 1]
    young = [pay[s] for s in range(len(pay)) if not (old_mask >> s) & 1]
    return (sum(old) / len(old) if old else 0.0) - (sum(young) / len(young) if young else 0.0)


def search_tables(cr: CompiledRules) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ruleset's (play_ints, order_masks, order_floats), built once."""
    return table(cr.rules, "search tables", lambda: play_tables(cr))


def pricing(cr: CompiledRules, contract: int, old_mask: int, double_seats,
            added: float = 0.0, hand: bool = False, bid_value: int = 0) -> np.ndarray:
    """The pricing row (`kopsim.bots.pricing`) of a contract played by these sides under these
    doubles, the Laufende `added` to its price; hand: played without the talon (its hand value
    added); bid_value: the value it was bid at (0: not bid by value; an overbid loses)."""
    t = cr.tables
    seats = np.array([int(x) for x in double_seats] or [0], np.int64)
    counted, last = count_doubles(seats, len(double_seats), int(old_mask),
                                  int(t.c_max_doubles[contract]))
    row = np.zeros(P_WIDTH, np.float64)
    sums = table(cr.rules, "point sums", lambda: point_sums(t.card_points))
    added = float(added) + (float(t.c_hand_value[contract]) if hand else 0.0)
    fill_row(t, int(contract), bin(int(old_mask) & _all_seats(cr)).count("1"), int(counted),
             int(last), added, np.int64(bid_value), sums, np.zeros(t.n_seats), row)
    return row


def _all_seats(cr: CompiledRules) -> int:
    """The mask of every seat at the ruleset's table."""
    return (1 << cr.tables.n_seats) - 1


def _side_sums(cr: CompiledRules, old_mask: int, points, tricks) -> tuple[float, float, int, int]:
    """(old side's points, young side's, old side's tricks, young side's) from each seat's."""
    seats = range(cr.tables.n_seats)
    old = [s for s in seats if (old_mask >> s) & 1]
    young = [s for s in seats if not (old_mask >> s) & 1]
    return (sum(float(points[s]) for s in old), sum(float(points[s]) for s in young),
            sum(int(tricks[s]) for s in old), sum(int(tricks[s]) for s in young))


def direction(cr: CompiledRules, contract: int, old_mask: int) -> float:
    """+1 if more points and tricks never hurt the old side in the contract, -1 if they never
    help it, 0 if neither (the search bounds a position by what is left to take only then)."""
    return float(pricing(cr, contract, old_mask, ())[P_DIRECTION])


def laufende_added(cr: CompiledRules, contract: int, old_mask: int, dealt) -> float:
    """What the Laufende add to the contract's price on this deal (dealt: each seat's cards as
    dealt, masks), through the kernel's `laufende_value`."""
    t = cr.tables
    return float(laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, int(contract),
                                np.array([int(h) for h in dealt], np.uint64), int(old_mask)))


def _added(cr: CompiledRules, contract: int, old_mask: int, hands, trick, dealt) -> float:
    """The Laufende of a position: from the hands as dealt; a position nothing has been played
    from is its own deal; else the dealt hands must be given."""
    if not cr.tables.c_lauf_from[contract]:
        return 0.0
    if dealt is None:
        held = 0
        for h in hands:
            held |= int(h)
        if trick or held != (1 << cr.n_cards) - 1:
            raise ValueError(f"contract {cr.contract_names[contract]} adds Laufende: give the "
                             "hands as dealt (dealt=...)")
        dealt = hands
    return laufende_added(cr, contract, old_mask, dealt)


def terminal_outcome(cr: CompiledRules, contract: int, old_mask: int, double_seats, points,
                     tricks, dealt=None) -> tuple[str | None, str, tuple[float, ...], float]:
    """(winner, tier, payouts, value) of a finished hand, through the search's pricing (dealt:
    the hands as dealt, for the Laufende; without them none are added)."""
    added = 0.0 if dealt is None else laufende_added(cr, contract, old_mask, dealt)
    row = pricing(cr, contract, old_mask, double_seats, added)
    opts, ypts, otr, ytr = _side_sums(cr, old_mask, points, tricks)
    slot = int(slot_of(opts, ypts, otr, ytr, row, int(cr.tables.c_goal[contract])))
    w, t = slot // N_PRICED_TIERS + WIN_NOBODY, slot % N_PRICED_TIERS
    pay = tuple(float(row[(P_PAY_OLD if (old_mask >> s) & 1 else P_PAY_YOUNG) + slot])
                for s in range(cr.tables.n_seats))
    return WINNER_NAMES[w], TIER_NAMES[t], pay, float(row[P_UNSCALED + slot])


def table_bits(n_left: int, n_seats: int) -> int:
    """The size of `solve`'s transposition table (2 ** bits entries) for n_left cards still
    out at a table of n_seats: larger for deeper searches (the tests shrink it to make entries
    collide)."""
    return min(22, max(10, 3 * (n_left // n_seats) + 2))


def _check_position(cr, hands, leader, trick) -> None:
    nc, n = cr.n_cards, cr.tables.n_seats
    if len(hands) != n:
        raise ValueError(f"expected {n} hands, got {len(hands)}")
    if not 0 <= leader < n:
        raise ValueError(f"leader {leader} is not a seat 0-{n - 1}")
    if len(trick) > n - 1:
        raise ValueError(f"the current trick holds at most {n - 1} cards; score a complete "
                         "trick first")
    seen = 0
    for h in hands:
        h = int(h)
        if h >> nc:
            raise ValueError("a hand holds a card beyond the deck")
        if seen & h:
            raise ValueError("a card is held by two seats")
        seen |= h
    for c in trick:
        if (seen >> int(c)) & 1:
            raise ValueError(f"card {cr.cards[c]} is both played and held")
    counts = [bin(int(h)).count("1") for h in hands]
    played = {(leader + i) % n for i in range(len(trick))}
    held = counts[leader] + (1 if trick else 0)
    for s in range(n):
        want = held - (1 if s in played else 0)
        if counts[s] != want:
            raise ValueError(f"seat {s} holds {counts[s]} cards, expected {want} "
                             f"(leader {leader}, {len(trick)} cards in the trick)")


def _duty(cr: CompiledRules, contract: int, called) -> tuple[int, int]:
    """(called card, its suit group) while the contract gives it duties, else (-1, -1)."""
    t = cr.tables
    if called is None or called < 0 or not t.c_run_away[contract]:
        return -1, -1
    return int(called), int(t.suit[t.c_order[contract], called])


def _search_args(cr: CompiledRules, contract: int, old_mask: int, called: int, sid: int,
                 row: np.ndarray, tt: np.ndarray, stats: np.ndarray) -> tuple:
    """What a root function reads after the root and the deals: (side, context) (see
    `kopsim.bots.roots`)."""
    ints, masks, floats = search_tables(cr)
    o = int(cr.tables.c_order[contract])
    side = (np.int64(old_mask), np.int64(called), np.int64(sid))
    return side, SearchContext(ints[contract], masks[o], floats[o], row, tt, stats,
                               *ply_room(cr.n_cards, cr.tables.n_seats))


def solve(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
          points=None, tricks=None, double_seats=(), *, moves: bool = True,
          line: bool = True, dealt: Dealt = Dealt()) -> SolveResult:
    """Exact double-dummy value of a position (see the module docstring). `hands` are the uint64
    masks of the cards each seat still holds; `trick` the cards already played to the current
    trick, led by `leader`; `dealt` what the deal fixed (see `Dealt`: the hands as dealt are
    needed for a contract with Laufende once cards have been played; a talon's cards count with
    the old side where the contract says so; points and tricks: each seat's taken so far, none
    if not given). `moves=False` / `line=False` skip move values / the best line."""
    cr = compiled(cr)
    a = cr.tables
    contract = int(contract)
    old_mask = int(old_mask) & _all_seats(cr)
    points, tricks = _taken_so_far(cr, points, tricks)
    if a.c_instant[contract]:
        pay = np.zeros(a.n_seats, np.float64)
        winner, _, _, v = instant_result(a.c_won, a.c_thrown_in, contract)
        pay_out(pay, v, winner, old_mask, a.settle, a.lone_once, a.n_seats)
        return SolveResult(side_value(pay, old_mask), [], {}, 0, None)
    trick = [int(c) for c in trick]
    hands_arr = np.array([int(h) for h in hands], np.uint64)
    _check_position(cr, hands_arr, int(leader), trick)
    row = pricing(cr, contract, old_mask, double_seats,
                  _added(cr, contract, old_mask, hands_arr, trick, dealt.hands),
                  dealt.hand_game, dealt.bid_value or 0)
    points = _with_talon(cr, contract, old_mask, points, dealt.talon)
    called, duty = _duty(cr, contract, dealt.called)
    ri, rf = root_arrays(cr, contract, old_mask, int(leader), trick, points, tricks, duty)
    seat = int(ri[0])
    n_left = int(sum(bin(int(h)).count("1") for h in hands_arr))
    move_vals = np.full(cr.n_cards, np.nan, np.float64)
    pv = np.full(max(n_left, 1), -1, np.int64)
    stats = np.zeros(1, np.int64)
    args = _search_args(cr, contract, old_mask, called, 0, row,
                        new_table(table_bits(n_left, a.n_seats)), stats)
    value = built_call(solve_position, ri, rf, hands_arr.copy(), *args, move_vals, pv, moves,
                       line)
    value = _unscaled(row, value)
    mv = {int(c): float(move_vals[c]) for c in range(cr.n_cards) if not np.isnan(move_vals[c])}
    best = [int(c) for c in pv if c >= 0] if line else []
    return SolveResult(value, best, mv, int(stats[0]), seat if n_left else None)


def _with_talon(cr: CompiledRules, contract: int, old_mask: int, points, talon: int) -> tuple:
    """Each seat's points, the talon's cards counted with the old side where the contract
    gives them to it (as the kernel's pimc counts them: `pimc_kernel._card_root`)."""
    t = cr.tables
    if not talon or t.c_talon_to[contract] != TALON_OLD_SIDE:
        return points
    first = next(s for s in range(t.n_seats) if old_mask >> s & 1)
    extra = sum(float(t.card_points[c]) for c in range(cr.n_cards) if talon >> c & 1)
    return tuple(float(p) + (extra if s == first else 0.0) for s, p in enumerate(points))


def _taken_so_far(cr: CompiledRules, points, tricks) -> tuple[tuple, tuple]:
    """Each seat's points and tricks taken so far, as given, or none taken."""
    n = cr.tables.n_seats
    return (tuple(points) if points is not None else (0.0,) * n,
            tuple(tricks) if tricks is not None else (0,) * n)


def _unscaled(row: np.ndarray, v: float) -> float:
    """The value of the outcome whose scaled value v is."""
    slots = np.flatnonzero(row[P_VALUES:P_VALUES + 3 * N_PRICED_TIERS] == v)
    return float(row[P_UNSCALED + slots[0]])


class FirstLead(NamedTuple):
    """A contract's search from the first lead, for one seat: deals searched under equal keys
    have equal values (doubles that only scale the price search alike)."""

    search: tuple  # the key: (search id, old side, called card)
    contract: int
    row: np.ndarray  # the pricing row (a copy)
    old_mask: int
    called: int  # the called card, whose duties the play keeps (-1 none)
    seat_pay: np.ndarray  # the seat's payout by outcome slot
    pay: dict[float, float] | None  # the seat's payout by scaled value; None if it cannot tell


def _pay_of_value(values: np.ndarray, seat_pay: np.ndarray) -> dict[float, float] | None:
    """{value: seat's payout} if the value of an outcome tells the seat's payout (as it does
    when the sides split every payment evenly), else None."""
    pay: dict[float, float] = {}
    for v, p in zip(values.tolist(), seat_pay.tolist()):
        if pay.setdefault(v, p) != p:
            return None
    return pay


class DealSolver:
    """Solves one position in many deals (pimc's sampled worlds) under one transposition table,
    kept from decision to decision (its entries are keyed by the hands, so an entry serves
    every deal that reaches its position), with one store of pricing rows."""

    def __init__(self, cr: CompiledRules):
        self.cr = compiled(cr)
        # (smaller than the kernel's: decision by decision from Python, a kop table of 2 ** 11
        # entries searched fastest)
        self.tt = new_table(kept_table_bits(self.cr.n_cards, self.cr.tables.n_seats) - 3)
        self.store = pricing_store(self.cr)
        self.stats = np.zeros(1, np.int64)
        self.rows: dict[tuple, tuple[int, int]] = {}  # -> (the store's start, row)
        self.pv = np.full(self.cr.n_cards + 1, -1, np.int64)
        self.scratch = (np.zeros(8, np.int64), np.zeros(3, np.float64),
                        np.zeros(self.cr.tables.n_seats, np.uint64),
                        np.zeros(self.cr.n_cards, np.float64))

    def _row(self, contract: int, old_mask: int, doubles, added: float) -> int:
        """The store's row for the contract (looked up by the doubles as said: handing numba
        the ruleset's tables costs more than the lookup)."""
        key = (contract, old_mask, tuple(doubles), added)
        found = self.rows.get(key)
        if found is not None and found[0] == self.store.count[2]:  # the store's same start
            return found[1]
        seats = np.array([int(x) for x in doubles] or [0], np.int64)
        r = int(pricing_row(self.cr.tables, np.int64(contract), np.int64(old_mask), seats,
                            np.int64(len(doubles)), float(added), np.int64(0), np.int64(-1),
                            self.store))
        self.rows[key] = (int(self.store.count[2]), r)
        return r

    def move_values(self, contract: int, old_mask: int, doubles, held: np.ndarray,
                    rows: np.ndarray, position: tuple, moves: np.ndarray, out: np.ndarray,
                    added: float = 0.0, called: int = -1) -> None:
        """out[w, j]: the double-dummy value (old side minus young side) of playing moves[j]
        now, in each deal w of rows (held[w]: the cards each seat still holds); position:
        (leader, trick, points, tricks). The deals share what the dealt hands fix: the Laufende
        added to the price, and the called card while its duties hold (-1 none)."""
        r = self._row(contract, old_mask, doubles, added)
        called, duty = _duty(self.cr, contract, called)
        ri, rf = root_arrays(self.cr, contract, old_mask, *position, duty)
        args = _search_args(self.cr, contract, old_mask, called, int(self.store.sid[r]),
                            self.store.rows[r], self.tt, self.stats)
        built_call(move_values_of_deals, ri, rf, held, rows, moves, *args, out)

    def first_lead(self, contract: int, old_mask: int, doubles, seat: int, added: float = 0.0,
                   called: int = -1) -> FirstLead:
        """How seat's payout in the contract, played from the first lead, is searched and read
        (see `FirstLead`); added: the Laufende of the deals, called: their called card."""
        r = self._row(contract, old_mask, doubles, added)
        row = self.store.rows[r].copy()
        called, _ = _duty(self.cr, contract, called)
        seat_pay = row[(P_PAY_OLD if (old_mask >> seat) & 1 else P_PAY_YOUNG):][:3 * N_PRICED_TIERS]
        values = row[P_VALUES:P_VALUES + 3 * N_PRICED_TIERS]
        return FirstLead((int(self.store.sid[r]), old_mask, called), contract, row, old_mask,
                         called, seat_pay.copy(), _pay_of_value(values, seat_pay))

    def _first_root(self, lead: FirstLead, forehand: int) -> tuple:
        _, duty = _duty(self.cr, lead.contract, lead.called)
        n = self.cr.tables.n_seats
        ri, rf = root_arrays(self.cr, lead.contract, lead.old_mask, forehand, (), (0.0,) * n,
                             (0,) * n, duty)
        return ri, rf, _search_args(self.cr, lead.contract, lead.old_mask, lead.called,
                                    lead.search[0], lead.row, self.tt, self.stats)

    def first_lead_values(self, lead: FirstLead, held: np.ndarray, rows: np.ndarray,
                          forehand: int, out: np.ndarray) -> None:
        """out[w]: the value of lead's search in each deal w of rows (read it with lead.pay)."""
        ri, rf, args = self._first_root(lead, forehand)
        built_call(values_of_deals, ri, rf, held, rows, *args, out)

    def first_lead_line_payouts(self, lead: FirstLead, held: np.ndarray, rows: np.ndarray,
                                forehand: int, out: np.ndarray) -> None:
        """out[w]: the seat's payout at the end of a best line from the first lead, in each
        deal w of rows (when lead.pay cannot read it from the value)."""
        ri, rf, args = self._first_root(lead, forehand)
        built_call(line_payouts_of_deals, ri, rf, held, rows, *args, lead.seat_pay, self.scratch,
                   self.pv, out)
# ------------------------------------------------------------------------- plain reference search


class _Position:
    """The cards still held, the current trick and the called card while its duties hold, with
    the reference engine's legal cards."""

    def __init__(self, rules, contract_name, held, trick, called):
        from ..engine.reference import card_orders, deck_index

        c = rules.contracts[contract_name]
        self.play = rules.play
        self.held = held
        self.trick = trick
        self.order = card_orders(rules)[c.order]
        self.deck_index = deck_index(rules)
        self.run_away = c.called_card_rules.run_away_with if c.called_card_rules else 0
        self.called = called if self.run_away else None

    def legal(self, seat):
        from ..engine.reference import called_card_duties, legal_cards

        hand = sorted(self.held[seat], key=self.deck_index.__getitem__)
        allowed = legal_cards(self.play, self.order, hand, self.trick)
        if self.called is None or self.called not in hand:
            return allowed
        return called_card_duties(self.order, allowed, hand, self.trick, self.called,
                                  self.run_away)

    def trick_done(self, played) -> str | None:
        """The called card while its duties hold, before the complete trick played was
        scored; after it, the duties end if it was led in the called card's suit."""
        before = self.called
        if before is not None and self.order.suit[played[0]] == self.order.suit[before]:
            self.called = None
        return before


def brute_force(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
                points=None, tricks=None, double_seats=(),
                with_moves: bool = False, dealt: Dealt = Dealt()):
    """Plain minimax, no pruning and no table, on the reference engine's rules: legal cards from
    `kopsim.engine.reference.legal_cards` and `called_card_duties` (for dealt.called), trick
    winners from `CardOrder`, payouts from `kopsim.engine.scoring.score` (the Laufende from
    dealt.hands; a hand game, a game bid by value: dealt.hand_game, bid_value), the talon's
    cards (dealt.talon) counted for whom the ruleset says (`Ruleset.talon_points_of`; not the
    last trick's). Returns the value (and, with_moves, {card index: value})."""
    from ..engine.scoring import score

    rules = cr.rules
    name = cr.contract_names[contract]
    names = cr.cards
    idx = {c: i for i, c in enumerate(names)}
    n = cr.tables.n_seats
    points, tricks = _taken_so_far(cr, points, tricks)
    old_side = [s for s in range(n) if (old_mask >> s) & 1]
    held = [[names[c] for c in range(cr.n_cards) if (int(h) >> c) & 1] for h in hands]
    dealt_names = None if dealt.hands is None else [
        [names[c] for c in range(cr.n_cards) if (int(h) >> c) & 1] for h in dealt.hands]
    if rules.contracts[name].instant:
        out = score(rules, name, old_side, list(double_seats), list(points), list(tricks))
        return (side_value(out.payouts, old_mask), {}) if with_moves else \
            side_value(out.payouts, old_mask)
    cur = [names[c] for c in trick]
    shim = _Position(rules, name, held, cur,
                     None if dealt.called is None else names[dealt.called])
    pts = [float(x) for x in points]
    trk = [int(x) for x in tricks]
    pt = rules.points_of
    extra = [0.0] * n
    if dealt.talon and rules.talon_points_of(name) == "old_side":
        extra[old_side[0]] = sum(pt(names[c]) for c in range(cr.n_cards)
                                 if dealt.talon >> c & 1)

    def rec(leader: int):
        if not shim.trick and not any(shim.held):
            out = score(rules, name, old_side, list(double_seats),
                        [p + x for p, x in zip(pts, extra)], trk, dealt_names,
                        dealt.hand_game, dealt.bid_value)
            return side_value(out.payouts, old_mask), None
        seat = (leader + len(shim.trick)) % n
        maximise = (old_mask >> seat) & 1
        best = None
        vals = {}
        for card in shim.legal(seat):
            shim.held[seat].remove(card)
            shim.trick.append(card)
            if len(shim.trick) == n:
                played = list(shim.trick)
                w = (leader + shim.order.winner_index(played)) % n
                gain = sum(pt(c) for c in played)
                pts[w] += gain
                trk[w] += 1
                shim.trick.clear()
                duty = shim.trick_done(played)
                v, _ = rec(w)
                shim.called = duty
                pts[w] -= gain
                trk[w] -= 1
                shim.trick.extend(played)
            else:
                v, _ = rec(leader)
            shim.trick.pop()
            shim.held[seat].append(card)
            vals[idx[card]] = v
            if best is None or (v > best if maximise else v < best):
                best = v
        return best, vals

    v, vals = rec(int(leader))
    return (v, vals or {}) if with_moves else v
