"""Exact double-dummy solver: the value of a position when every hand is open and both sides play
perfectly (the old side maximises, the young side minimises).

The value of a position is the old side's payout per old seat minus the young side's payout per
young seat at the end of the hand. Payouts are a non-linear function of the card points and tricks
each side has taken (win threshold, ties, schneider/schwarz tiers, doubles, multipliers), so the
search carries both sides' points and tricks down to the end of the hand and prices the leaves
exactly as the batch kernel (`kopsim.engine.kernel`) scores a hand.

The search is a fail-soft alpha-beta minimax over single cards, written as one iterative numba
function with an explicit stack (no calls, hence no reference counting in the hot loop), with a
transposition table probed at trick boundaries. A table entry is keyed by the whole state that the
rest of the hand depends on: the cards still out (which fixes every hand, since the deal is known),
the leader, and both sides' points and tricks so far; it holds a lower and an upper bound.

Legal cards, trick winners and scoring all come from the `CompiledRules` tables, in the batch
kernel's arithmetic. `brute_force` is a plain-Python minimax over the reference engine's rules
(`kopsim.engine.reference.legal_cards`, `CardOrder`, `kopsim.engine.scoring.score`) for the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..engine.bits import ONE, ZERO, allowed_cards, lowbit_index, popcount
from ..engine.codes import (N_PRICED_TIERS, TIER_NAMES, TIER_OUT, WIN_NOBODY, WIN_OLD,
                            WIN_YOUNG, WINNER_NAMES)
from ..engine.steps import (classify, count_doubles, outcome_slot, pay_out, play_to_trick, price,
                            tie_winner)
from ..rules.cache import compiled, table
from ..rules.compile import CompiledRules

HMUL1 = np.uint64(0x9E3779B97F4A7C15)
HMUL2 = np.uint64(0xBF58476D1CE4E5B9)
U29 = np.uint64(29)
U32 = np.uint64(32)
INF = np.inf

# integer stack columns
I_SEAT, I_POS, I_LEADER, I_LED, I_WCARD, I_WSEAT, I_OTR, I_YTR, I_NM, I_MI, I_BMOVE, I_SLOT, \
    I_MAX = range(13)
N_I = 13
# float stack columns
F_TPTS, F_OPTS, F_YPTS, F_ALPHA, F_BETA, F_A0, F_B0, F_BEST = range(8)
N_F = 8


# ------------------------------------------------------------------------------ scalar helpers


@njit(cache=True)
def _classify_many(opts, ypts, otr, ytr, tparams, out):
    win_points = tparams[0]
    smax = tparams[1]
    all_tricks = tparams[2] != 0.0
    tie_code = np.int64(tparams[3])
    lone_won = tparams[4] != 0.0
    lone_lost = tparams[5] != 0.0
    for i in range(opts.shape[0]):
        w, t = classify(opts[i], ypts[i], otr[i], ytr[i], win_points, smax, all_tricks, tie_code,
                        lone_won, lone_lost)
        out[i, 0] = w
        out[i, 1] = t


# ----------------------------------------------------------------------------------- the search


@njit(cache=True)
def _search(root_i, root_f, root_rem, alpha0, beta0, hands, old_mask,
            suit, suit_mask, beat, cpts, strength, play_rules, tparams, vtab,
            tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi,
            s_rem, s_i, s_f, s_mv, s_key, stats):
    """Fail-soft alpha-beta value of the root position within (alpha0, beta0)."""
    follow = play_rules[0] == 1
    trump_void = play_rules[1] == 1
    must_beat = play_rules[2] == 1
    win_points = tparams[0]
    smax = tparams[1]
    all_tricks = tparams[2] != 0.0
    tie_code = np.int64(tparams[3])
    lone_won = tparams[4] != 0.0
    lone_lost = tparams[5] != 0.0
    trump_mask = suit_mask[0]
    tt_bits = tt_rem.shape[0] - 1
    h0 = hands[0]
    h1 = hands[1]
    h2 = hands[2]
    h3 = hands[3]

    for j in range(N_I):
        s_i[0, j] = root_i[j]
    for j in range(N_F):
        s_f[0, j] = root_f[j]
    s_rem[0] = root_rem
    s_f[0, F_ALPHA] = alpha0
    s_f[0, F_BETA] = beta0

    d = 0
    mode = 0  # 0 enter a node, 1 try its next move, 2 return v to the parent
    v = 0.0
    nodes = 0
    while True:
        if mode == 0:
            nodes += 1
            rem = s_rem[d]
            pos = s_i[d, I_POS]
            s_i[d, I_SLOT] = -1
            if pos == 0:
                n = popcount(rem)
                if n == 0:
                    w, t = classify(s_f[d, F_OPTS], s_f[d, F_YPTS], s_i[d, I_OTR], s_i[d, I_YTR],
                                    win_points, smax, all_tricks, tie_code, lone_won, lone_lost)
                    v = vtab[outcome_slot(w, t)]
                    mode = 2
                    continue
                if n == 4:
                    # the last trick plays itself
                    leader = s_i[d, I_LEADER]
                    wseat = leader
                    wcard = 0
                    led = 0
                    tp = 0.0
                    for i in range(4):
                        seat = (leader + i) % 4
                        if seat == 0:
                            c = lowbit_index(h0 & rem)
                        elif seat == 1:
                            c = lowbit_index(h1 & rem)
                        elif seat == 2:
                            c = lowbit_index(h2 & rem)
                        else:
                            c = lowbit_index(h3 & rem)
                        tp += cpts[c]
                        led, wcard, wseat = play_to_trick(i, c, seat, suit[c], beat[led, wcard],
                                                          led, wcard, wseat)
                    opts = s_f[d, F_OPTS]
                    ypts = s_f[d, F_YPTS]
                    otr = s_i[d, I_OTR]
                    ytr = s_i[d, I_YTR]
                    if (old_mask >> wseat) & 1:
                        opts += tp
                        otr += 1
                    else:
                        ypts += tp
                        ytr += 1
                    w, t = classify(opts, ypts, otr, ytr, win_points, smax, all_tricks,
                                    tie_code, lone_won, lone_lost)
                    v = vtab[outcome_slot(w, t)]
                    mode = 2
                    continue
                # transposition table: trick boundaries with two or more tricks to go
                aux = s_i[d, I_LEADER] | (s_i[d, I_OTR] << 2) | (s_i[d, I_YTR] << 10)
                opts = s_f[d, F_OPTS]
                ypts = s_f[d, F_YPTS]
                hk = (rem ^ (np.uint64(aux) * HMUL1)
                      ^ (np.uint64(np.int64(opts * 16.0)) * HMUL2)
                      ^ np.uint64(np.int64(ypts * 16.0)))
                hk = (hk ^ (hk >> U29)) * HMUL1
                slot = np.int64((hk >> U32) & np.uint64(tt_bits))
                s_i[d, I_SLOT] = slot
                if (tt_rem[slot] == rem and tt_aux[slot] == aux and tt_op[slot] == opts
                        and tt_yp[slot] == ypts):
                    lo = tt_lo[slot]
                    hi = tt_hi[slot]
                    if lo >= s_f[d, F_BETA] or lo == hi:
                        v = lo
                        mode = 2
                        continue
                    if hi <= s_f[d, F_ALPHA]:
                        v = hi
                        mode = 2
                        continue
                    if lo > s_f[d, F_ALPHA]:
                        s_f[d, F_ALPHA] = lo
                    if hi < s_f[d, F_BETA]:
                        s_f[d, F_BETA] = hi
            s_f[d, F_A0] = s_f[d, F_ALPHA]
            s_f[d, F_B0] = s_f[d, F_BETA]
            # --- legal cards, ordered
            seat = s_i[d, I_SEAT]
            if seat == 0:
                hand = h0 & rem
            elif seat == 1:
                hand = h1 & rem
            elif seat == 2:
                hand = h2 & rem
            else:
                hand = h3 & rem
            led = s_i[d, I_LED]
            wcard = s_i[d, I_WCARD]
            is_max = (old_mask >> seat) & 1
            s_i[d, I_MAX] = is_max
            if pos == 0:
                allowed = hand
                bw = ZERO
                partner_wins = False
            else:
                bw = beat[led, wcard]
                allowed = allowed_cards(hand, pos, suit_mask[led], trump_mask, bw,
                                   follow, trump_void, must_beat)
                partner_wins = ((old_mask >> s_i[d, I_WSEAT]) & 1) == is_max
            nm = 0
            m = allowed
            while m:
                lb = m & (~m + ONE)
                c = popcount(lb - ONE)
                m ^= lb
                if pos == 0:
                    k = strength[c]
                elif partner_wins:
                    # partner holds the trick: smear points, keep strength
                    k = cpts[c] * 64.0 - strength[c]
                elif (bw >> np.uint64(c)) & ONE:
                    k = 10000.0 + strength[c]
                else:
                    k = -cpts[c] * 64.0 - strength[c]
                j = nm
                while j > 0 and s_key[d, j - 1] < k:
                    s_key[d, j] = s_key[d, j - 1]
                    s_mv[d, j] = s_mv[d, j - 1]
                    j -= 1
                s_key[d, j] = k
                s_mv[d, j] = c
                nm += 1
            s_i[d, I_NM] = nm
            s_i[d, I_MI] = 0
            s_i[d, I_BMOVE] = -1
            s_f[d, F_BEST] = -INF if is_max else INF
            mode = 1
        elif mode == 1:
            mi = s_i[d, I_MI]
            if mi >= s_i[d, I_NM]:
                v = s_f[d, F_BEST]
                slot = s_i[d, I_SLOT]
                if slot >= 0:
                    rem = s_rem[d]
                    aux = s_i[d, I_LEADER] | (s_i[d, I_OTR] << 2) | (s_i[d, I_YTR] << 10)
                    opts = s_f[d, F_OPTS]
                    ypts = s_f[d, F_YPTS]
                    if not (tt_rem[slot] == rem and tt_aux[slot] == aux and tt_op[slot] == opts
                            and tt_yp[slot] == ypts):
                        tt_rem[slot] = rem
                        tt_aux[slot] = aux
                        tt_op[slot] = opts
                        tt_yp[slot] = ypts
                        tt_lo[slot] = -INF
                        tt_hi[slot] = INF
                    if v <= s_f[d, F_A0]:
                        if v < tt_hi[slot]:
                            tt_hi[slot] = v
                    elif v >= s_f[d, F_B0]:
                        if v > tt_lo[slot]:
                            tt_lo[slot] = v
                    else:
                        tt_lo[slot] = v
                        tt_hi[slot] = v
                mode = 2
                continue
            c = s_mv[d, mi]
            s_i[d, I_MI] = mi + 1
            # --- play card c: the child at d + 1
            e = d + 1
            seat = s_i[d, I_SEAT]
            pos = s_i[d, I_POS]
            s_rem[e] = s_rem[d] & ~(ONE << np.uint64(c))
            tp = s_f[d, F_TPTS] + cpts[c]
            leader = s_i[d, I_LEADER]
            led = s_i[d, I_LED]
            wcard = s_i[d, I_WCARD]
            led, wcard, wseat = play_to_trick(pos, c, seat, suit[c], beat[led, wcard], led, wcard,
                                              s_i[d, I_WSEAT])
            opts = s_f[d, F_OPTS]
            ypts = s_f[d, F_YPTS]
            otr = s_i[d, I_OTR]
            ytr = s_i[d, I_YTR]
            if pos == 3:
                if (old_mask >> wseat) & 1:
                    opts += tp
                    otr += 1
                else:
                    ypts += tp
                    ytr += 1
                s_i[e, I_POS] = 0
                s_i[e, I_SEAT] = wseat
                s_i[e, I_LEADER] = wseat
                s_f[e, F_TPTS] = 0.0
            else:
                s_i[e, I_POS] = pos + 1
                s_i[e, I_SEAT] = (seat + 1) % 4
                s_i[e, I_LEADER] = leader
                s_f[e, F_TPTS] = tp
            s_i[e, I_LED] = led
            s_i[e, I_WCARD] = wcard
            s_i[e, I_WSEAT] = wseat
            s_i[e, I_OTR] = otr
            s_i[e, I_YTR] = ytr
            s_f[e, F_OPTS] = opts
            s_f[e, F_YPTS] = ypts
            s_f[e, F_ALPHA] = s_f[d, F_ALPHA]
            s_f[e, F_BETA] = s_f[d, F_BETA]
            d = e
            mode = 0
        else:
            if d == 0:
                stats[0] += nodes
                return v
            d -= 1
            if s_i[d, I_MAX]:
                if v > s_f[d, F_BEST]:
                    s_f[d, F_BEST] = v
                    s_i[d, I_BMOVE] = s_mv[d, s_i[d, I_MI] - 1]
                    if v > s_f[d, F_ALPHA]:
                        s_f[d, F_ALPHA] = v
            else:
                if v < s_f[d, F_BEST]:
                    s_f[d, F_BEST] = v
                    s_i[d, I_BMOVE] = s_mv[d, s_i[d, I_MI] - 1]
                    if v < s_f[d, F_BETA]:
                        s_f[d, F_BETA] = v
            if s_f[d, F_ALPHA] >= s_f[d, F_BETA]:
                s_i[d, I_MI] = s_i[d, I_NM]  # cut off
            mode = 1


@njit(cache=True)
def _solve_all(root_i, root_f, root_rem, hands, old_mask,
               suit, suit_mask, beat, cpts, strength, play_rules, tparams, vtab,
               tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi,
               s_rem, s_i, s_f, s_mv, s_key, stats, move_vals, pv, want_moves, want_pv):
    """Root value; with want_moves each legal card's value (move_vals[card]); with want_pv a
    principal variation in pv (-1 after its end). Returns the root value."""
    follow = play_rules[0] == 1
    trump_void = play_rules[1] == 1
    must_beat = play_rules[2] == 1
    trump_mask = suit_mask[0]
    value = _search(root_i, root_f, root_rem, -INF, INF, hands, old_mask, suit, suit_mask, beat,
                    cpts, strength, play_rules, tparams, vtab, tt_rem, tt_aux, tt_op, tt_yp,
                    tt_lo, tt_hi, s_rem, s_i, s_f, s_mv, s_key, stats)
    if not want_moves and not want_pv:
        return value
    cur_i = root_i.copy()
    cur_f = root_f.copy()
    rem = root_rem
    target = value
    ply = 0
    while rem != ZERO and (want_pv or ply == 0):
        seat = cur_i[I_SEAT]
        pos = cur_i[I_POS]
        led = cur_i[I_LED]
        wcard = cur_i[I_WCARD]
        hand = hands[seat] & rem
        bw = beat[led, wcard] if pos > 0 else ZERO
        allowed = allowed_cards(hand, pos, suit_mask[led], trump_mask, bw, follow, trump_void,
                           must_beat)
        is_max = (old_mask >> seat) & 1
        chosen = -1
        chosen_i = cur_i.copy()
        chosen_f = cur_f.copy()
        m = allowed
        while m:
            lb = m & (~m + ONE)
            c = popcount(lb - ONE)
            m ^= lb
            ci = cur_i.copy()
            cf = cur_f.copy()
            tp = cf[F_TPTS] + cpts[c]
            ci[I_LED], ci[I_WCARD], ci[I_WSEAT] = play_to_trick(pos, c, seat, suit[c],
                                                                beat[led, wcard], led, wcard,
                                                                cur_i[I_WSEAT])
            if pos == 3:
                ws = ci[I_WSEAT]
                if (old_mask >> ws) & 1:
                    cf[F_OPTS] += tp
                    ci[I_OTR] += 1
                else:
                    cf[F_YPTS] += tp
                    ci[I_YTR] += 1
                ci[I_POS] = 0
                ci[I_SEAT] = ws
                ci[I_LEADER] = ws
                cf[F_TPTS] = 0.0
            else:
                ci[I_POS] = pos + 1
                ci[I_SEAT] = (seat + 1) % 4
                cf[F_TPTS] = tp
            crem = rem & ~(ONE << np.uint64(c))
            if ply == 0 and want_moves:
                cv = _search(ci, cf, crem, -INF, INF, hands, old_mask, suit, suit_mask, beat,
                             cpts, strength, play_rules, tparams, vtab, tt_rem, tt_aux, tt_op,
                             tt_yp, tt_lo, tt_hi, s_rem, s_i, s_f, s_mv, s_key, stats)
                move_vals[c] = cv
                hit = cv == target
            elif chosen < 0:
                # a null window around the target: does this card keep the value?
                if is_max:
                    cv = _search(ci, cf, crem, target - 1e-9, target + 1e-9, hands, old_mask,
                                 suit, suit_mask, beat, cpts, strength, play_rules, tparams,
                                 vtab, tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi,
                                 s_rem, s_i, s_f, s_mv, s_key, stats)
                    hit = cv >= target
                else:
                    cv = _search(ci, cf, crem, target - 1e-9, target + 1e-9, hands, old_mask,
                                 suit, suit_mask, beat, cpts, strength, play_rules, tparams,
                                 vtab, tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi,
                                 s_rem, s_i, s_f, s_mv, s_key, stats)
                    hit = cv <= target
            else:
                hit = False
            if hit and chosen < 0:
                chosen = c
                chosen_i = ci
                chosen_f = cf
                if not want_moves or ply > 0:
                    break
        if not want_pv or chosen < 0:
            break
        pv[ply] = chosen
        ply += 1
        cur_i = chosen_i
        cur_f = chosen_f
        rem = rem & ~(ONE << np.uint64(chosen))
    return value


# ---------------------------------------------------------------------------------- Python face


@dataclass
class SolveResult:
    value: float
    best_line: list[int]
    move_values: dict[int, float]
    nodes: int = 0  # nodes searched, over every search the call made
    to_move: int | None = None  # the seat whose cards move_values prices


@dataclass
class _Prepared:
    """Everything about a contract and its sides that does not change during the play."""

    tparams: np.ndarray  # win points, schneider max, all tricks, tie winner, lone won/lost
    vtab: np.ndarray  # value by outcome_slot(winner, tier)
    ptab: np.ndarray  # payouts [winner - WIN_NOBODY, tier, seat]
    counted: int
    last: int


def side_value(pay, old_mask: int) -> float:
    """Old side's payout per old seat minus the young side's per young seat."""
    old = [pay[s] for s in range(4) if (old_mask >> s) & 1]
    young = [pay[s] for s in range(4) if not (old_mask >> s) & 1]
    return (sum(old) / len(old) if old else 0.0) - (sum(young) / len(young) if young else 0.0)


def _prepare(cr: CompiledRules, contract: int, old_mask: int, double_seats) -> _Prepared:
    """The contract's outcome table: (winner, tier) -> payouts and value, through the compiled
    steps the kernel scores with (count_doubles, tie_winner, price, pay_out)."""
    t = cr.tables
    k = contract
    seats = np.array([int(x) for x in double_seats] or [0], np.int64)
    counted, last = count_doubles(seats, len(double_seats), old_mask, int(t.c_max_doubles[k]))
    n_old = bin(old_mask).count("1")
    tparams = np.array([t.win_points, t.schneider_max, 1.0 if t.c_all_tricks[k] else 0.0,
                        tie_winner(t.tie_nobody, counted, last),
                        1.0 if n_old == 1 and not t.c_won_tiered[k] else 0.0,
                        1.0 if n_old == 1 and not t.c_lost_tiered[k] else 0.0], np.float64)
    vtab = np.zeros(3 * N_PRICED_TIERS, np.float64)
    ptab = np.zeros((3, N_PRICED_TIERS, 4), np.float64)
    for w in (WIN_OLD, WIN_YOUNG):
        for tier in range(N_PRICED_TIERS):
            v = price(t.c_won, t.c_lost, t.c_mult, k, w, tier, counted, t.tie_value, t.factor)
            pay = np.zeros(4, np.float64)
            pay_out(pay, v, w, old_mask, t.zero_sum)
            ptab[w - WIN_NOBODY, tier] = pay
            vtab[outcome_slot(w, tier)] = side_value(pay, old_mask)
    return _Prepared(tparams, vtab, ptab, counted, last)




def terminal_outcome(cr: CompiledRules, contract: int, old_mask: int, double_seats,
                     points, tricks) -> tuple[str | None, str, tuple[float, ...], float]:
    """(winner, tier, payouts, value) of a finished hand, through the solver's leaf arithmetic."""
    prep = _prepare(cr, contract, old_mask, double_seats)
    opts = sum(float(points[s]) for s in range(4) if (old_mask >> s) & 1)
    ypts = sum(float(points[s]) for s in range(4) if not (old_mask >> s) & 1)
    otr = sum(int(tricks[s]) for s in range(4) if (old_mask >> s) & 1)
    ytr = sum(int(tricks[s]) for s in range(4) if not (old_mask >> s) & 1)
    out = np.zeros((1, 2), np.int64)
    _classify_many(np.array([opts]), np.array([ypts]), np.array([otr], np.int64),
                   np.array([ytr], np.int64), prep.tparams, out)
    w, t = int(out[0, 0]), int(out[0, 1])
    return (WINNER_NAMES[w], TIER_NAMES[t], tuple(float(x) for x in prep.ptab[w - WIN_NOBODY, t]),
            float(prep.vtab[outcome_slot(w, t)]))


class _Tables:
    """Per (ruleset, order) arrays for the search, kept in the rules cache."""

    def __init__(self, cr: CompiledRules, order: int):
        a = cr.tables
        nc = cr.n_cards
        self.suit = np.ascontiguousarray(a.suit[order].astype(np.int64))
        self.suit_mask = np.ascontiguousarray(a.suit_mask[order])
        self.beat = np.ascontiguousarray(a.beat_mask[order])
        self.cpts = np.ascontiguousarray(a.card_points, np.float64)
        # strength: how many cards of the deck this card beats when it leads (trumps above all)
        strength = np.zeros(nc, np.float64)
        for c in range(nc):
            s = self.suit[c]
            stronger = bin(int(self.beat[s, c])).count("1")
            strength[c] = (nc - stronger) + (nc if s == 0 else 0)
        self.strength = strength
        p = cr.rules.play
        self.play_rules = np.array([p.follow_suit, p.trump_when_void, p.must_beat], np.int64)


def _tables(cr: CompiledRules, order: int) -> _Tables:
    return table(cr.rules, ("solver", order), lambda: _Tables(cr, order))


def _check_position(cr, hands, leader, trick) -> None:
    nc = cr.n_cards
    if len(hands) != 4:
        raise ValueError(f"expected 4 hands, got {len(hands)}")
    if not 0 <= leader < 4:
        raise ValueError(f"leader {leader} is not a seat 0-3")
    if len(trick) > 3:
        raise ValueError("the current trick holds at most 3 cards; score a complete trick first")
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
    played = {(leader + i) % 4 for i in range(len(trick))}
    n = counts[leader] + (1 if trick else 0)
    for s in range(4):
        want = n - (1 if s in played else 0)
        if counts[s] != want:
            raise ValueError(f"seat {s} holds {counts[s]} cards, expected {want} "
                             f"(leader {leader}, {len(trick)} cards in the trick)")


def solve(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
          points=(0, 0, 0, 0), tricks=(0, 0, 0, 0), double_seats=(), *, moves: bool = True,
          line: bool = True, tt_bits: int | None = None) -> SolveResult:
    """Exact double-dummy value of a position (see the module docstring). `hands` are the uint64
    masks of the cards each seat still holds; `trick` the cards already played to the current
    trick, led by `leader`. `moves=False` / `line=False` skip move values / the best line."""
    cr = compiled(cr)
    a = cr.tables
    contract = int(contract)
    old_mask = int(old_mask) & 15
    prep = _prepare(cr, contract, old_mask, double_seats)
    points = [float(x) for x in points]
    tricks = [int(x) for x in tricks]
    opts = sum(points[s] for s in range(4) if (old_mask >> s) & 1)
    ypts = sum(points[s] for s in range(4) if not (old_mask >> s) & 1)
    otr = sum(tricks[s] for s in range(4) if (old_mask >> s) & 1)
    ytr = sum(tricks[s] for s in range(4) if not (old_mask >> s) & 1)
    if a.c_instant[contract]:
        # won at once, without play: at the out price, without doubles or multipliers
        pay = np.zeros(4, np.float64)
        pay_out(pay, a.c_won[contract, TIER_OUT], WIN_OLD, old_mask, a.zero_sum)
        v = side_value(pay, old_mask)
        return SolveResult(v, [], {}, 0, None)
    trick = [int(c) for c in trick]
    hands_arr = np.array([int(h) for h in hands], np.uint64)
    _check_position(cr, hands_arr, int(leader), trick)
    t = _tables(cr, int(a.c_order[contract]))
    # --- the root state: replay the open trick
    seat = leader = int(leader)
    led = wcard = 0
    wseat = leader
    tpts = 0.0
    for i, c in enumerate(trick):
        tpts += t.cpts[c]
        led, wcard, wseat = (int(x) for x in play_to_trick(i, c, seat, t.suit[c],
                                                           t.beat[led, wcard], led, wcard, wseat))
        seat = (seat + 1) % 4
    root_i = np.zeros(N_I, np.int64)
    root_i[[I_SEAT, I_POS, I_LEADER, I_LED, I_WCARD, I_WSEAT, I_OTR, I_YTR]] = \
        [seat, len(trick), leader, led, wcard, wseat, otr, ytr]
    root_f = np.zeros(N_F, np.float64)
    root_f[F_TPTS], root_f[F_OPTS], root_f[F_YPTS] = tpts, opts, ypts
    rem = 0
    for h in hands_arr:
        rem |= int(h)
    n_left = bin(rem).count("1")
    if tt_bits is None:
        tt_bits = min(22, max(10, 3 * (n_left // 4) + 2))
    size = 1 << tt_bits
    tt_rem = np.zeros(size, np.uint64)
    tt_aux = np.full(size, -1, np.int64)
    tt_op = np.zeros(size, np.float64)
    tt_yp = np.zeros(size, np.float64)
    tt_lo = np.zeros(size, np.float64)
    tt_hi = np.zeros(size, np.float64)
    D = n_left + 2
    s_rem = np.zeros(D, np.uint64)
    s_i = np.zeros((D, N_I), np.int64)
    s_f = np.zeros((D, N_F), np.float64)
    # the moves of one node, ordered: at most a hand, which is at most the deck
    s_mv = np.zeros((D, cr.n_cards), np.int64)
    s_key = np.zeros((D, cr.n_cards), np.float64)
    stats = np.zeros(1, np.int64)
    move_vals = np.full(cr.n_cards, np.nan, np.float64)
    pv = np.full(max(n_left, 1), -1, np.int64)
    value = _solve_all(root_i, root_f, np.uint64(rem), hands_arr, old_mask,
                       t.suit, t.suit_mask, t.beat, t.cpts, t.strength, t.play_rules,
                       prep.tparams, prep.vtab, tt_rem, tt_aux, tt_op, tt_yp, tt_lo, tt_hi,
                       s_rem, s_i, s_f, s_mv, s_key, stats, move_vals, pv, moves, line)
    mv = {int(c): float(move_vals[c]) for c in range(cr.n_cards) if not np.isnan(move_vals[c])}
    best = [int(c) for c in pv if c >= 0] if line else []
    return SolveResult(float(value), best, mv, int(stats[0]), seat if rem else None)


# ------------------------------------------------------------------------- plain reference search


class _Position:
    """The cards still held and the current trick, with the reference engine's legal cards."""

    def __init__(self, rules, contract_name, held, trick):
        from ..engine.reference import card_orders, deck_index

        self.play = rules.play
        self.held = held
        self.trick = trick
        self.order = card_orders(rules)[rules.contracts[contract_name].order]
        self.deck_index = deck_index(rules)

    def legal(self, seat):
        from ..engine.reference import legal_cards

        hand = sorted(self.held[seat], key=self.deck_index.__getitem__)
        return legal_cards(self.play, self.order, hand, self.trick)


def brute_force(cr: CompiledRules, contract: int, old_mask: int, hands, leader: int, trick=(),
                points=(0, 0, 0, 0), tricks=(0, 0, 0, 0), double_seats=(),
                with_moves: bool = False):
    """Plain minimax, no pruning and no table, on the reference engine's rules: legal cards from
    `kopsim.engine.reference.legal_cards`, trick winners from `CardOrder`, payouts from
    `kopsim.engine.scoring.score`. Returns the value (and, with_moves, {card index: value})."""
    from ..engine.scoring import score

    rules = cr.rules
    name = cr.contract_names[contract]
    names = cr.cards
    idx = {c: i for i, c in enumerate(names)}
    old_side = [s for s in range(4) if (old_mask >> s) & 1]
    held = [[names[c] for c in range(cr.n_cards) if (int(h) >> c) & 1] for h in hands]
    if rules.contracts[name].instant:
        out = score(rules, name, old_side, list(double_seats), list(points), list(tricks))
        return (side_value(out.payouts, old_mask), {}) if with_moves else \
            side_value(out.payouts, old_mask)
    cur = [names[c] for c in trick]
    shim = _Position(rules, name, held, cur)
    pts = [float(x) for x in points]
    trk = [int(x) for x in tricks]
    pt = rules.points_of

    def rec(leader: int):
        if not shim.trick and not any(shim.held):
            out = score(rules, name, old_side, list(double_seats), pts, trk)
            return side_value(out.payouts, old_mask), None
        seat = (leader + len(shim.trick)) % 4
        maximise = (old_mask >> seat) & 1
        best = None
        vals = {}
        for card in shim.legal(seat):
            shim.held[seat].remove(card)
            shim.trick.append(card)
            if len(shim.trick) == 4:
                played = list(shim.trick)
                w = (leader + shim.order.winner_index(played)) % 4
                gain = sum(pt(c) for c in played)
                pts[w] += gain
                trk[w] += 1
                shim.trick.clear()
                v, _ = rec(w)
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
