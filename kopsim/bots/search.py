"""The double-dummy search, compiled: the exact value of a position when every hand is open and
both sides play perfectly (the old side maximises, the young side minimises).

A value is the old side's payout per old seat minus the young side's per young seat at the end
of the hand, read from the outcome (winner, tier) the points and tricks make (`classify`), so the
search carries both sides' points and tricks down to the end and prices the leaves as the batch
kernel scores a hand.

The search is a fail-soft alpha-beta over single cards, at a table of any size: a trick is
played ply by ply (`ply_value`), each seat in turn one card, as many as the table has seats
(the play row's X_SEATS); the last trick plays itself. At each trick boundary with two tricks
or more to go (`_at_boundary`) it probes a transposition table keyed by the whole state the
rest of the hand depends on: each seat's cards still held, the leader, the points and tricks taken,
the old side, the called card and whether its duties still hold (its holder may have run away
with a low card of the suit and kept it), and the search's id (`PricingStore`). Keyed by the
hands rather than by a deal, an entry serves every deal and decision that reaches the position.

What the search reads comes in small arrays, so that a call hands over few words:
- a contract's play (`play_ints` row): the play rules, its goal, the run-away count, the suit
  group of each card in its order;
- its card order (`order_masks` row: the cards of each suit group, the cards beating each card
  in a trick led in each group; `order_floats` row: card points, and the move-ordering
  strength of each card);
- its pricing (a row of `kopsim.bots.pricing`): the outcome rule, the values by outcome, and
  the value's direction (more points and tricks never hurt, or never help, the old side), which
  lets a boundary stop once what is left to take cannot bring the value into the window.

A position travels in tuples of scalars (see below); `kopsim.bots.roots` starts searches from
one given as two small arrays (`root_arrays`).

Everything is compiled without reference counting (`kernel_jit`): the searches run inside the
batch kernel's loop, and allocate nothing. (A recursive function is never handed a literal
constant: numba then builds a second version of it, and loading that one from its cache
crashes.)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE, ZERO, lowbit_index, popcount
from ..engine.jit import kernel_jit
from ..engine.steps import duty_after_trick, legal_play, play_to_trick, trick_so_far
from ..engine.seats import after
from ..rules.model import MAX_SEATS
from .pricing import P_DIRECTION, P_DECK, outcome_value

INF = np.inf
HM1 = np.uint64(0x9E3779B97F4A7C15)
HM2 = np.uint64(0xBF58476D1CE4E5B9)
U29 = np.uint64(29)
U32 = np.uint64(32)

# a contract's play: play_ints[k, X_*], the suit groups of the cards from X_SUIT on
# (X_SEATS: the seats playing the hand, each one card to every trick)
X_FOLLOW, X_TRUMP_VOID, X_MUST_BEAT, X_RUN_AWAY, X_CARDS, X_GROUPS, X_GOAL, X_ORDER, X_SEATS = \
    range(9)
X_SUIT = 9
# a card order's floats: order_floats[o, card] points, [o, n_cards + card] strength
# a search's root: ints [R_*] and floats [trick points so far, old side's points, young's]
R_SEAT, R_POS, R_LED, R_WCARD, R_WSEAT, R_OTR, R_YTR, R_DUTY = range(8)

# an entry: each seat's cards still held (room for the largest table), the packed rest of the
# position (`_tt_key`), both sides' points, and the bounds on its value
TT_ENTRY = np.dtype([("h", np.uint64, (MAX_SEATS,)), ("aux", np.int64), ("opts", np.float64),
                     ("ypts", np.float64), ("lo", np.float64), ("hi", np.float64)], align=True)


class SearchContext(NamedTuple):
    """What a search reads besides its position: a contract's play (a `play_ints` row), its
    card order (`order_masks`, `order_floats` rows), its pricing row, the transposition table,
    [0] the positions searched, and the plies' room (`ply_room`)."""

    ci: np.ndarray
    cm: np.ndarray
    cf: np.ndarray
    pf: np.ndarray
    tt: np.ndarray
    stats: np.ndarray
    plies_u: np.ndarray
    plies_f: np.ndarray


# The search's state travels in small tuples of scalars (numba passes them as their scalars):
# hands: each seat's cards, an array a seat (read only), masked by the cards still out (rem);
# side: (old side's seats, the called card (-1 none), the search id of the pricing row);
# score: both sides' points and tricks taken (opts, ypts, otr, ytr);
# trick: the open trick, (seat to play, its place pos in the trick, the suit group led, the
#   card winning it, that card's seat, its points so far);
# duty: the called card's suit group while its duties hold (-1 none).


# ------------------------------------------------------------------------------- tables, once


def play_tables(cr) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(play_ints [k, X_*], order_masks [o, ...], order_floats [o, ...]) of a compiled ruleset:
    order_masks[o] holds the cards of each suit group, then the cards beating card w in a trick
    led in group g at groups + g * n_cards + w."""
    t = cr.tables
    nc, n_orders, groups = cr.n_cards, t.suit.shape[0], t.suit_mask.shape[1]
    ints = np.zeros((len(cr.contract_names), X_SUIT + nc), np.int64)
    for k in range(ints.shape[0]):
        o = int(t.c_order[k])
        ints[k, :X_SUIT] = [t.follow_suit, t.trump_when_void, t.must_beat, t.c_run_away[k], nc,
                            groups, t.c_goal[k], o, t.n_seats]
        ints[k, X_SUIT:] = t.suit[o]
    masks = np.zeros((n_orders, groups + groups * nc), np.uint64)
    floats = np.zeros((n_orders, 2 * nc), np.float64)
    for o in range(n_orders):
        masks[o, :groups] = t.suit_mask[o]
        masks[o, groups:] = t.beat_mask[o].reshape(-1)
        floats[o, :nc] = t.card_points
        for c in range(nc):  # how many cards of the deck it beats when it leads, trumps above
            s = int(t.suit[o, c])
            stronger = bin(int(t.beat_mask[o, s, c])).count("1")
            floats[o, nc + c] = (nc - stronger) + (nc if s == 0 else 0)
    return ints, masks, floats


def kept_table_bits(n_cards: int, n_seats: int) -> int:
    """The size (2 ** bits entries) of a transposition table kept across many searches (pimc's
    decisions, every seat's, a whole batch): positions recur across deals and decisions, and
    on kop 2 ** 14 entries (1.2 MB) played four pimc seats fastest (12: 455 hands/s, 14: 480,
    16: 440; a larger table spills out of the processor's caches)."""
    return min(18, 3 * (n_cards // n_seats) + 2)


def new_table(bits: int) -> np.ndarray:
    """A transposition table of 2 ** bits entries, empty."""
    tt = np.zeros(1 << bits, TT_ENTRY)
    tt["aux"] = -1
    return tt


# a ply of an open trick, its row in the plies' room: plies_u[row, U_*], plies_f[row, F_*]
U_LEFT, U_REM, U_SEAT, U_LED, U_WCARD, U_WSEAT = range(6)  # cards left to try, the trick so far
F_BEST, F_ALPHA, F_BETA, F_TP = range(4)


def ply_room(n_cards: int, n_seats: int) -> tuple[np.ndarray, np.ndarray]:
    """(plies_u, plies_f): a row for each place of each trick a search can have open at once
    (a trick with c cards out at its lead has rows c .. c + n_seats - 1)."""
    rows = n_cards + n_seats
    return np.zeros((rows, 6), np.uint64), np.zeros((rows, 4), np.float64)


def root_arrays(cr, contract: int, old_mask: int, leader: int, trick, points, tricks,
                duty: int) -> tuple[np.ndarray, np.ndarray]:
    """(ints, floats) of a root: the open trick, led by `leader`, replayed in the contract's
    order; both sides' points and tricks from each seat's; duty: the called card's suit group
    while its duties hold (-1 none)."""
    t = cr.tables
    o = int(t.c_order[contract])
    seats = range(t.n_seats)
    opts = sum(float(points[s]) for s in seats if (old_mask >> s) & 1)
    ypts = sum(float(points[s]) for s in seats if not (old_mask >> s) & 1)
    otr = sum(int(tricks[s]) for s in seats if (old_mask >> s) & 1)
    ytr = sum(int(tricks[s]) for s in seats if not (old_mask >> s) & 1)
    led, wcard, wseat, tp, seat = trick_so_far(np.asarray(trick, np.int64), 0,
                                               len(trick), leader, t.n_seats, o, t.suit,
                                               t.beat_mask, t.card_points)
    ints = np.array([seat, len(trick), led, wcard, wseat, otr, ytr, duty], np.int64)
    return ints, np.array([tp, opts, ypts], np.float64)


# ---------------------------------------------------------------------- the steps of a search


@kernel_jit(inline='always')
def allowed_of(hand, pos, led, wcard, duty, called, ctx):
    """The cards a seat holding `hand` may play (`legal_play`: the play rules, and the called
    card's duties while they hold, duty >= 0)."""
    ci, cm = ctx.ci, ctx.cm
    on = duty >= 0
    return legal_play(hand, pos, cm[led], cm[0], cm[ci[X_GROUPS] + led * ci[X_CARDS] + wcard],
                      (ci[X_FOLLOW] == 1, ci[X_TRUMP_VOID] == 1, ci[X_MUST_BEAT] == 1),
                      led == duty, called if on else -1, cm[ci[X_SUIT + called]] if on else ZERO,
                      ci[X_RUN_AWAY])


@kernel_jit(inline='always')
def _distinct(allowed, pos, wcard, duty, rem, ctx):
    """The allowed cards less those equal to one kept: of one suit group, as many points, and
    no card between them still out (rem) or winning the trick. Playing one or the other takes
    the same tricks and points, now and later, and leaves the same choices. The called card's
    suit keeps all its cards while its duties hold (which card runs away matters there)."""
    if not allowed & (allowed - ONE):
        return allowed
    ci, cm, cf = ctx.ci, ctx.cm, ctx.cf
    nc = ci[X_CARDS]
    groups = ci[X_GROUPS]
    live = rem | ((ONE << np.uint64(wcard)) if pos > 0 else ZERO)
    kept = ZERO
    m = allowed
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        g = ci[X_SUIT + c]
        same = False
        if g != duty:
            k = kept & cm[g]
            while k:
                kb = k & (~k + ONE)
                e = popcount(kb - ONE)
                k ^= kb
                if cf[e] != cf[c]:
                    continue
                low, high = (c, e) if cm[groups + g * nc + c] & kb else (e, c)
                between = (cm[groups + g * nc + low] & ~cm[groups + g * nc + high] & cm[g]
                           & ~(ONE << np.uint64(high)))
                if not between & live:
                    same = True
                    break
        if not same:
            kept |= lb
    return kept


@kernel_jit(inline='always')
def _kept(hand, pos, led, wcard, duty, called, rem, ctx):
    """The cards worth trying: the allowed ones, one of each set of equal ones."""
    return _distinct(allowed_of(hand, pos, led, wcard, duty, called, ctx), pos, wcard, duty, rem,
                     ctx)


@kernel_jit(inline='always')
def _pick(left, pos, partner_wins, bw, cf, nc):
    """The most promising card of `left` (bw: the cards beating the trick's winner): a strong
    lead; smearing points when partner holds the trick (keeping strength); winning the trick;
    else throwing the least."""
    best = -1
    best_key = -INF
    m = left
    while m:
        lb = m & (~m + ONE)
        c = popcount(lb - ONE)
        m ^= lb
        points = cf[c]
        strength = cf[nc + c]
        if pos == 0:
            key = strength
        elif partner_wins:
            key = points * 64.0 - strength
        elif (bw >> np.uint64(c)) & ONE:
            key = 10000.0 + strength
        else:
            key = -points * 64.0 - strength
        if key > best_key:
            best_key = key
            best = c
    return best


@kernel_jit(inline='always')
def _backed_up(is_max, v, best, alpha, beta):
    """(best, alpha, beta) of a node once a card proved worth v."""
    if is_max:
        if v > best:
            best = v
            if v > alpha:
                alpha = v
    elif v < best:
        best = v
        if v < beta:
            beta = v
    return best, alpha, beta


@kernel_jit(inline='always')
def _taken(old_mask, wseat, tp, score):
    """The score once seat wseat takes a trick worth tp."""
    opts, ypts, otr, ytr = score
    if (old_mask >> wseat) & 1:
        return opts + tp, ypts, otr + 1, ytr
    return opts, ypts + tp, otr, ytr + 1


@kernel_jit(inline='always')
def after_card(c, rem, trick, score, duty, old_mask, ctx):
    """(rem, trick, score, duty) after the seat to play plays card c, the trick taken when it
    is complete (the called suit led ends the duties)."""
    ci, cm = ctx.ci, ctx.cm
    seat, pos, led, wcard, wseat, tp = trick
    nc = ci[X_CARDS]
    bw = cm[ci[X_GROUPS] + led * nc + wcard]
    led, wcard, wseat = play_to_trick(pos, c, seat, ci[X_SUIT + c], bw, led, wcard, wseat)
    rem = rem & ~(ONE << np.uint64(c))
    tp = tp + ctx.cf[c]
    n = ci[X_SEATS]
    if pos < n - 1:
        return rem, (after(seat, 1, n), pos + 1, led, wcard, wseat, tp), score, duty
    # (no constants in the tuple: numba would type them as literals, and build again)
    return (rem, (wseat, pos - pos, led - led, wcard - wcard, wseat, tp - tp),
            _taken(old_mask, wseat, tp, score), duty_after_trick(duty, led))


@kernel_jit(inline='always')
def _last_trick(rem, leader, score, hands, old_mask, ctx):
    """The value once the last trick, in which each seat's one card plays itself, is taken."""
    ci, cm, cf = ctx.ci, ctx.cm, ctx.cf
    nc = ci[X_CARDS]
    groups = ci[X_GROUPS]
    wseat = leader
    wcard = 0
    led = 0
    tp = 0.0
    n = ci[X_SEATS]
    for i in range(n):
        seat = after(leader, i, n)
        c = lowbit_index(hands[seat] & rem)
        tp += cf[c]
        led, wcard, wseat = play_to_trick(i, c, seat, ci[X_SUIT + c],
                                          cm[groups + led * nc + wcard], led, wcard, wseat)
    opts, ypts, otr, ytr = _taken(old_mask, wseat, tp, score)
    return outcome_value(opts, ypts, otr, ytr, ctx.pf, ci[X_GOAL])


@kernel_jit(inline='always')
def _reachable(score, n, ctx):
    """(lowest, highest) value the hand can still end with from a trick boundary with n cards
    out: the old side taking every trick left, or none (in the value's direction)."""
    opts, ypts, otr, ytr = score
    pf, goal = ctx.pf, ctx.ci[X_GOAL]
    left = pf[P_DECK] - opts - ypts
    tricks = n // ctx.ci[X_SEATS]
    v_old = outcome_value(opts + left, ypts, otr + tricks, ytr, pf, goal)
    v_young = outcome_value(opts, ypts + left, otr, ytr + tricks, pf, goal)
    if pf[P_DIRECTION] > 0.0:
        return v_young, v_old
    return v_old, v_young


# ------------------------------------------------------------------- the transposition table


@kernel_jit(inline='always')
def _tt_key(rem, leader, otr, duty, side, hands, opts):
    """(aux, hash) of a trick-boundary position: leader, old side's tricks, whether the duties
    hold, old side, called card and search id packed; the hash mixes in the hands and points."""
    old_mask, called, sid = side
    aux = (leader | (otr << 3) | (np.int64(duty >= 0) << 10) | (old_mask << 11)
           | ((called + 1) << 17) | (sid << 24))
    hk = (np.uint64(aux) * HM2) ^ np.uint64(np.int64(opts * 16.0))
    for s in range(hands.shape[0]):  # each seat's cards, weighed apart
        hk ^= ((hands[s] & rem) << np.uint64(s)) * (HM1 if s & 1 else HM2)
    return aux, (hk ^ (hk >> U29)) * HM1


@kernel_jit(inline='always')
def _tt_holds(tt, slot, rem, aux, hands, opts, ypts):
    e = tt[slot]
    if e['aux'] != aux or e['opts'] != opts or e['ypts'] != ypts:
        return False
    for s in range(hands.shape[0]):
        if e['h'][s] != hands[s] & rem:
            return False
    return True


@kernel_jit(inline='always')
def _tt_store(tt, slot, rem, aux, hands, opts, ypts, v, a0, b0):
    """The bounds that a search within (a0, b0) finding v shows, kept in the slot (tightening
    those of the same position, replacing another's)."""
    lo, hi = -INF, INF
    if _tt_holds(tt, slot, rem, aux, hands, opts, ypts):
        lo, hi = tt[slot]['lo'], tt[slot]['hi']
    if v <= a0:
        hi = min(hi, v)
    elif v >= b0:
        lo = max(lo, v)
    else:
        lo = v
        hi = v
    e = tt[slot]
    for s in range(hands.shape[0]):
        e['h'][s] = hands[s] & rem
    e['aux'] = aux
    e['opts'] = opts
    e['ypts'] = ypts
    e['lo'] = lo
    e['hi'] = hi


# ----------------------------------------------------------------------------------- the search


@kernel_jit(inline='always')
def _at_boundary(rem, leader, score, duty, alpha, beta, hands, side, ctx):
    """What a trick boundary's position shows before its cards are searched: (done, value) when
    it needs no search (the hand over, the last trick playing itself, what is left to take
    unable to leave the window, the table's bounds), else (window, the table's slot and key).
    """
    ctx.stats[0] += 1
    n = popcount(rem)
    opts, ypts, otr, ytr = score
    nothing = (alpha, beta, np.int64(-1), np.int64(0))
    if n == 0:
        return True, outcome_value(opts, ypts, otr, ytr, ctx.pf, ctx.ci[X_GOAL]), nothing
    if n == ctx.ci[X_SEATS]:
        return True, _last_trick(rem, leader, score, hands, side[0], ctx), nothing
    if ctx.pf[P_DIRECTION] != 0.0:  # what is left to take cannot leave the window
        lo, hi = _reachable(score, n, ctx)
        if hi <= alpha or lo == hi:
            return True, hi, nothing
        if lo >= beta:
            return True, lo, nothing
    tt = ctx.tt
    aux, hk = _tt_key(rem, leader, otr, duty, side, hands, opts)
    slot = np.int64((hk >> U32) & np.uint64(tt.shape[0] - 1))
    if _tt_holds(tt, slot, rem, aux, hands, opts, ypts):
        lo, hi = tt[slot]['lo'], tt[slot]['hi']
        if lo >= beta or lo == hi:
            return True, lo, nothing
        if hi <= alpha:
            return True, hi, nothing
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    return False, alpha, (alpha, beta, slot, aux)


@kernel_jit()
def ply_value(rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """Fail-soft alpha-beta value, within (alpha, beta), of a position (see the tuples above):
    the open trick's plies are searched in one loop (`_trick_plies`), and at a trick boundary
    the transposition table is probed first and told what the search found (`_at_boundary`).
    The only recursion is this function's own, once a trick (numba caches a self-recursive
    function; two calling each other crashed when loaded from its cache)."""
    slot, aux = np.int64(-1), np.int64(0)
    if trick[1] == 0:
        done, v, window = _at_boundary(rem, trick[0], score, duty, alpha, beta, hands, side,
                                       ctx)
        if done:
            return v
        alpha, beta, slot, aux = window
    v = _trick_plies(rem, trick, score, duty, alpha, beta, hands, side, ctx)
    if slot >= 0:
        _tt_store(ctx.tt, slot, rem, aux, hands, score[0], score[1], v, alpha, beta)
    return v


@kernel_jit(inline='always')
def _ply_saved(r, ply, ctx):
    """Row r of the plies' room holds ply, a ply's state (see `_trick_plies`)."""
    left, rem, seat, led, wcard, wseat, tp, best, alpha, beta = ply
    u, f = ctx.plies_u, ctx.plies_f
    u[r, U_LEFT], u[r, U_REM], u[r, U_SEAT] = left, rem, seat
    u[r, U_LED], u[r, U_WCARD], u[r, U_WSEAT] = led, wcard, wseat
    f[r, F_TP], f[r, F_BEST], f[r, F_ALPHA], f[r, F_BETA] = tp, best, alpha, beta


@kernel_jit(inline='always')
def _ply_restored(r, ctx):
    """The ply's state row r of the plies' room holds."""
    u, f = ctx.plies_u, ctx.plies_f
    return (u[r, U_LEFT], u[r, U_REM], np.int64(u[r, U_SEAT]), np.int64(u[r, U_LED]),
            np.int64(u[r, U_WCARD]), np.int64(u[r, U_WSEAT]), f[r, F_TP], f[r, F_BEST],
            f[r, F_ALPHA], f[r, F_BETA])


@kernel_jit(inline='always')
def _ply_reads(pos, seat, led, wcard, wseat, old_mask, ctx):
    """(the seat maximises, the cards beating the trick's winner, its partner holds the
    trick) of the ply in which seat plays card pos of the trick so far (led, wcard, wseat)."""
    is_max = (old_mask >> seat) & 1
    if pos == 0:
        return is_max, ZERO, False
    ci = ctx.ci
    bw = ctx.cm[ci[X_GROUPS] + led * ci[X_CARDS] + wcard]
    return is_max, bw, ((old_mask >> wseat) & 1) == is_max


@kernel_jit(inline='always')
def _trick_completed(rem, tp, wseat, led, score, duty, alpha, beta, hands, side, ctx):
    """The value of the position once the trick is complete (rem the cards still out, tp its
    points, won by wseat, led in group led): the last trick plays itself; else the search goes
    on from the next lead (the called suit led ends the duties)."""
    score = _taken(side[0], wseat, tp, score)
    duty = duty_after_trick(duty, led)
    if popcount(rem) == ctx.ci[X_SEATS]:
        ctx.stats[0] += 1
        return _last_trick(rem, wseat, score, hands, side[0], ctx)
    zero = wseat - wseat  # (no constants in the tuple: see `after_card`)
    return ply_value(rem, (wseat, zero, zero, zero, wseat, tp - tp), score, duty, alpha, beta,
                     hands, side, ctx)


@kernel_jit(inline='always')
def _last_ply(rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The value of the trick's last ply, in which the seat to play completes the trick: a
    loop of its own, the most of the search's cards being played there."""
    seat, _, led, wcard, wseat, tp = trick
    old_mask, called, _ = side
    ci, cf = ctx.ci, ctx.cf
    later = 1  # (what the steps ask of a card's place: not the lead; a constant, folded away)
    is_max, bw, partner_wins = _ply_reads(later, seat, led, wcard, wseat, old_mask, ctx)
    best = -INF if is_max else INF
    left = _kept(hands[seat] & rem, later, led, wcard, duty, called, rem, ctx)
    while left:
        c = _pick(left, later, partner_wins, bw, cf, ci[X_CARDS])
        left &= ~(ONE << np.uint64(c))
        _, _, ws2 = play_to_trick(later, c, seat, ci[X_SUIT + c], bw, led, wcard, wseat)
        v = _trick_completed(rem & ~(ONE << np.uint64(c)), tp + cf[c], ws2, led, score, duty,
                             alpha, beta, hands, side, ctx)
        best, alpha, beta = _backed_up(is_max, v, best, alpha, beta)
        if alpha >= beta:
            break
    return best


@kernel_jit(inline='always')
def _next_to_last_ply(rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The value of the trick's next-to-last ply: a loop of its own, each card answered by the
    last ply (`_last_ply`)."""
    seat, pos, led, wcard, wseat, tp = trick
    old_mask, called, _ = side
    ci, cf = ctx.ci, ctx.cf
    n = ci[X_SEATS]
    is_max, bw, partner_wins = _ply_reads(pos, seat, led, wcard, wseat, old_mask, ctx)
    best = -INF if is_max else INF
    left = _kept(hands[seat] & rem, pos, led, wcard, duty, called, rem, ctx)
    while left:
        c = _pick(left, pos, partner_wins, bw, cf, ci[X_CARDS])
        left &= ~(ONE << np.uint64(c))
        l2, w2, ws2 = play_to_trick(pos, c, seat, ci[X_SUIT + c], bw, led, wcard, wseat)
        v = _last_ply(rem & ~(ONE << np.uint64(c)),
                      (after(seat, 1, n), pos + 1, l2, w2, ws2, tp + cf[c]), score, duty,
                      alpha, beta, hands, side, ctx)
        best, alpha, beta = _backed_up(is_max, v, best, alpha, beta)
        if alpha >= beta:
            break
    return best


@kernel_jit(inline='always')
def _trick_plies(rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The minimax of the open trick's plies from the seat to play: each ply tries its cards
    worth trying (best first, `_pick`) until its window closes. One loop over the trick's
    places but the last two (`_next_to_last_ply`, `_last_ply`: most of the search's cards are
    played there), the current ply's state in locals; a ply being answered
    keeps its state in its row of the plies' room (a row for each place of the trick). The
    call to the next trick is the only call."""
    seat, pos0, led, wcard, wseat, tp = trick
    old_mask, called, _ = side
    ci, cf = ctx.ci, ctx.cf
    n, nc = ci[X_SEATS], ci[X_CARDS]
    if pos0 >= n - 2:
        if pos0 == n - 1:
            return _last_ply(rem, trick, score, duty, alpha, beta, hands, side, ctx)
        return _next_to_last_ply(rem, trick, score, duty, alpha, beta, hands, side, ctx)
    base = popcount(rem) + pos0  # the cards out at the trick's lead: its rows from there
    pos = pos0
    left = _kept(hands[seat] & rem, pos, led, wcard, duty, called, rem, ctx)
    is_max, bw, partner_wins = _ply_reads(pos, seat, led, wcard, wseat, old_mask, ctx)
    best = -INF if is_max else INF
    while True:
        if left == ZERO or alpha >= beta:  # the ply is done: back to the one it answers
            if pos == pos0:
                return best
            v = best
            pos -= 1
            left, rem, seat, led, wcard, wseat, tp, best, alpha, beta = _ply_restored(base + pos,
                                                                                      ctx)
            is_max, bw, partner_wins = _ply_reads(pos, seat, led, wcard, wseat, old_mask, ctx)
            best, alpha, beta = _backed_up(is_max, v, best, alpha, beta)
            continue
        c = _pick(left, pos, partner_wins, bw, cf, nc)
        left &= ~(ONE << np.uint64(c))
        l2, w2, ws2 = play_to_trick(pos, c, seat, ci[X_SUIT + c], bw, led, wcard, wseat)
        if pos == n - 3:  # the last two plies answer
            v = _next_to_last_ply(rem & ~(ONE << np.uint64(c)),
                          (after(seat, 1, n), pos + 1, l2, w2, ws2, tp + cf[c]), score, duty,
                          alpha, beta, hands, side, ctx)
            best, alpha, beta = _backed_up(is_max, v, best, alpha, beta)
            continue
        _ply_saved(base + pos, (left, rem, seat, led, wcard, wseat, tp, best, alpha, beta), ctx)
        pos += 1
        rem &= ~(ONE << np.uint64(c))
        tp += cf[c]
        seat, led, wcard, wseat = after(seat, 1, n), l2, w2, ws2
        left = _kept(hands[seat] & rem, pos, led, wcard, duty, called, rem, ctx)
        is_max, bw, partner_wins = _ply_reads(pos, seat, led, wcard, wseat, old_mask, ctx)
        best = -INF if is_max else INF


@kernel_jit(inline='always')
def child_value(c, rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The value, within (alpha, beta), of the position after the seat to play plays card c
    (one it may play)."""
    rem, trick, score, duty = after_card(c, rem, trick, score, duty, side[0], ctx)
    return ply_value(rem, trick, score, duty, alpha, beta, hands, side, ctx)
