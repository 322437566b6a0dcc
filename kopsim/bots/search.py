"""The double-dummy search, compiled: the exact value of a position when every hand is open and
both sides play perfectly (the old side maximises, the young side minimises).

A value is the old side's payout per old seat minus the young side's per young seat at the end
of the hand, read from the outcome (winner, tier) the points and tricks make (`classify`), so the
search carries both sides' points and tricks down to the end and prices the leaves as the batch
kernel scores a hand.

The search recurses trick by trick (`trick_value`): the four cards of a trick are four nested
loops whose state stays in registers, a fail-soft alpha-beta over single cards, and the call
down to the next trick is the only call in it; the last trick plays itself. At each boundary
with two tricks or more to go it probes a transposition table keyed by the whole state the rest
of the hand depends on: each seat's cards still held, the leader, the points and tricks taken,
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

from ..engine.bits import ONE, ZERO, allowed_cards, lowbit_index, popcount
from ..engine.jit import kernel_jit
from ..engine.steps import called_card_duties, play_to_trick
from .pricing import P_DIRECTION, P_DECK, outcome_value

INF = np.inf
HM1 = np.uint64(0x9E3779B97F4A7C15)
HM2 = np.uint64(0xBF58476D1CE4E5B9)
U29 = np.uint64(29)
U32 = np.uint64(32)

# a contract's play: play_ints[k, X_*], the suit groups of the cards from X_SUIT on
X_FOLLOW, X_TRUMP_VOID, X_MUST_BEAT, X_RUN_AWAY, X_CARDS, X_GROUPS, X_GOAL, X_ORDER = range(8)
X_SUIT = 8
# a card order's floats: order_floats[o, card] points, [o, n_cards + card] strength
# a search's root: ints [R_*] and floats [trick points so far, old side's points, young's]
R_SEAT, R_POS, R_LED, R_WCARD, R_WSEAT, R_OTR, R_YTR, R_DUTY = range(8)

TT_ENTRY = np.dtype([("h0", np.uint64), ("h1", np.uint64), ("h2", np.uint64),
                     ("h3", np.uint64), ("aux", np.int64), ("opts", np.float64),
                     ("ypts", np.float64), ("lo", np.float64), ("hi", np.float64)], align=True)


class SearchContext(NamedTuple):
    """What a search reads besides its position: a contract's play (a `play_ints` row), its
    card order (`order_masks`, `order_floats` rows), its pricing row, the transposition table,
    and [0] the positions searched."""

    ci: np.ndarray
    cm: np.ndarray
    cf: np.ndarray
    pf: np.ndarray
    tt: np.ndarray
    stats: np.ndarray


# The search's state travels in small tuples of scalars (numba passes them as their scalars):
# hands: each seat's cards (h0, h1, h2, h3), masked by the cards still out (rem);
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
                            groups, t.c_goal[k], o]
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


def kept_table_bits(n_cards: int) -> int:
    """The size (2 ** bits entries) of a transposition table kept across many searches (pimc's
    decisions, every seat's, a whole batch): positions recur across deals and decisions, and
    on kop 2 ** 14 entries (1.2 MB) played four pimc seats fastest (12: 455 hands/s, 14: 480,
    16: 440; a larger table spills out of the processor's caches)."""
    return min(18, 3 * (n_cards // 4) + 2)


def new_table(bits: int) -> np.ndarray:
    """A transposition table of 2 ** bits entries, empty."""
    tt = np.zeros(1 << bits, TT_ENTRY)
    tt["aux"] = -1
    return tt


def root_arrays(cr, contract: int, old_mask: int, leader: int, trick, points, tricks,
                duty: int) -> tuple[np.ndarray, np.ndarray]:
    """(ints, floats) of a root: the open trick, led by `leader`, replayed in the contract's
    order; both sides' points and tricks from each seat's; duty: the called card's suit group
    while its duties hold (-1 none)."""
    t = cr.tables
    o = int(t.c_order[contract])
    opts = sum(float(points[s]) for s in range(4) if (old_mask >> s) & 1)
    ypts = sum(float(points[s]) for s in range(4) if not (old_mask >> s) & 1)
    otr = sum(int(tricks[s]) for s in range(4) if (old_mask >> s) & 1)
    ytr = sum(int(tricks[s]) for s in range(4) if not (old_mask >> s) & 1)
    seat, led, wcard, wseat, tp = leader, 0, 0, leader, 0.0
    for i, c in enumerate(trick):
        tp += float(t.card_points[c])
        led, wcard, wseat = (int(x) for x in play_to_trick(
            i, c, seat, t.suit[o, c], t.beat_mask[o, led, wcard], led, wcard, wseat))
        seat = (seat + 1) % 4
    ints = np.array([seat, len(trick), led, wcard, wseat, otr, ytr, duty], np.int64)
    return ints, np.array([tp, opts, ypts], np.float64)


# ---------------------------------------------------------------------- the steps of a search


@kernel_jit(inline='always')
def hand_of(hands, seat):
    h0, h1, h2, h3 = hands
    if seat == 0:
        return h0
    if seat == 1:
        return h1
    if seat == 2:
        return h2
    return h3


@kernel_jit(inline='always')
def allowed_of(hand, pos, led, wcard, duty, called, ctx):
    """The cards a seat holding `hand` may play (`allowed_cards`, and the called card's duties
    while they hold)."""
    ci, cm = ctx.ci, ctx.cm
    if pos == 0:
        allowed = hand
    else:
        nc = ci[X_CARDS]
        allowed = allowed_cards(hand, pos, cm[led], cm[0], cm[ci[X_GROUPS] + led * nc + wcard],
                                ci[X_FOLLOW] == 1, ci[X_TRUMP_VOID] == 1, ci[X_MUST_BEAT] == 1)
    if duty >= 0:
        allowed = called_card_duties(allowed, hand, pos, led == duty, called,
                                     cm[ci[X_SUIT + called]], ci[X_RUN_AWAY])
    return allowed


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
def _ply_start(old_mask, seat, wseat, pos):
    """(is_max, best so far, partner holds the trick) of a card ply."""
    is_max = (old_mask >> seat) & 1
    return is_max, (-INF if is_max else INF), pos > 0 and ((old_mask >> wseat) & 1) == is_max


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
    if pos < 3:
        return rem, ((seat + 1) % 4, pos + 1, led, wcard, wseat, tp), score, duty
    # (no constants in the tuple: numba would type them as literals, and build again)
    return (rem, (wseat, pos - 3, led - led, wcard - wcard, wseat, tp - tp),
            _taken(old_mask, wseat, tp, score), -1 if led == duty else duty)


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
    for i in range(4):
        seat = (leader + i) % 4
        c = lowbit_index(hand_of(hands, seat) & rem)
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
    v_old = outcome_value(opts + left, ypts, otr + n // 4, ytr, pf, goal)
    v_young = outcome_value(opts, ypts + left, otr, ytr + n // 4, pf, goal)
    if pf[P_DIRECTION] > 0.0:
        return v_young, v_old
    return v_old, v_young


# ------------------------------------------------------------------- the transposition table


@kernel_jit(inline='always')
def _tt_key(rem, leader, otr, duty, side, hands, opts):
    """(aux, hash) of a trick-boundary position: leader, old side's tricks, whether the duties
    hold, old side, called card and search id packed; the hash mixes in the hands and points."""
    old_mask, called, sid = side
    h0, h1, h2, h3 = hands
    aux = (leader | (otr << 2) | (np.int64(duty >= 0) << 9) | (old_mask << 10)
           | ((called + 1) << 14) | (sid << 21))
    hk = ((h0 & rem) * HM1) ^ ((h1 & rem) * HM2) ^ (((h2 & rem) ^ ((h3 & rem) << U29)) * HM1) \
        ^ (np.uint64(aux) * HM2) ^ np.uint64(np.int64(opts * 16.0))
    return aux, (hk ^ (hk >> U29)) * HM1


@kernel_jit(inline='always')
def _tt_holds(tt, slot, rem, aux, hands, opts, ypts):
    h0, h1, h2, h3 = hands
    e = tt[slot]
    return (e['h0'] == (h0 & rem) and e['h1'] == (h1 & rem) and e['h2'] == (h2 & rem)
            and e['h3'] == (h3 & rem) and e['aux'] == aux and e['opts'] == opts
            and e['ypts'] == ypts)


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
    h0, h1, h2, h3 = hands
    e = tt[slot]
    e['h0'] = h0 & rem
    e['h1'] = h1 & rem
    e['h2'] = h2 & rem
    e['h3'] = h3 & rem
    e['aux'] = aux
    e['opts'] = opts
    e['ypts'] = ypts
    e['lo'] = lo
    e['hi'] = hi


# ----------------------------------------------------------------------------------- the search


@kernel_jit()
def trick_value(rem, leader, score, duty, alpha, beta, hands, side, ctx):
    """Fail-soft alpha-beta value, within (alpha, beta), of a trick-boundary position: rem the
    cards still out, leader to lead (see the tuples above)."""
    ctx.stats[0] += 1
    n = popcount(rem)
    if n == 0:
        opts, ypts, otr, ytr = score
        return outcome_value(opts, ypts, otr, ytr, ctx.pf, ctx.ci[X_GOAL])
    if n == 4:
        return _last_trick(rem, leader, score, hands, side[0], ctx)
    if ctx.pf[P_DIRECTION] != 0.0:  # what is left to take cannot leave the window
        lo, hi = _reachable(score, n, ctx)
        if hi <= alpha or lo == hi:
            return hi
        if lo >= beta:
            return lo
    opts, ypts, otr, _ = score
    tt = ctx.tt
    aux, hk = _tt_key(rem, leader, otr, duty, side, hands, opts)
    slot = np.int64((hk >> U32) & np.uint64(tt.shape[0] - 1))
    if _tt_holds(tt, slot, rem, aux, hands, opts, ypts):
        lo, hi = tt[slot]['lo'], tt[slot]['hi']
        if lo >= beta or lo == hi:
            return lo
        if hi <= alpha:
            return hi
        alpha = max(alpha, lo)
        beta = min(beta, hi)
    v = _four_cards(rem, leader, score, duty, alpha, beta, hands, side, ctx)
    _tt_store(tt, slot, rem, aux, hands, opts, ypts, v, alpha, beta)
    return v


@kernel_jit(inline='always')
def _trick_taken(rem, wseat, tp, score, duty, led, alpha, beta, hands, side, ctx):
    """The value once a trick worth tp is complete, won by wseat: the last trick plays itself;
    else the search goes on from the next lead."""
    if led == duty:
        duty = -1  # the called suit has been led: the duties end
    score = _taken(side[0], wseat, tp, score)
    if popcount(rem) == 4:
        ctx.stats[0] += 1
        return _last_trick(rem, wseat, score, hands, side[0], ctx)
    return trick_value(rem, wseat, score, duty, alpha, beta, hands, side, ctx)


@kernel_jit(inline='always')
def _four_cards(rem, s0, score, duty, alpha, beta, hands, side, ctx):
    """The minimax of a trick's four cards from its lead, each ply a loop over its cards (best
    first, `_pick`), cut off as soon as its window closes."""
    old_mask, called, _ = side
    ci, cm, cf = ctx.ci, ctx.cm, ctx.cf
    nc = ci[X_CARDS]
    g = ci[X_GROUPS]
    x0, best0, _ = _ply_start(old_mask, s0, s0, 0)
    a0, b0 = alpha, beta
    left0 = _kept(hand_of(hands, s0) & rem, 0, 0, 0, duty, called, rem, ctx)
    while left0:
        c0 = _pick(left0, 0, False, ZERO, cf, nc)
        left0 &= ~(ONE << np.uint64(c0))
        r1 = rem & ~(ONE << np.uint64(c0))
        l1, w1, ws1 = play_to_trick(0, c0, s0, ci[X_SUIT + c0], ZERO, 0, 0, s0)
        tp1 = cf[c0]
        s1 = (s0 + 1) % 4
        x1, best1, pw1 = _ply_start(old_mask, s1, ws1, 1)
        a1, b1 = a0, b0
        bw1 = cm[g + l1 * nc + w1]
        left1 = _kept(hand_of(hands, s1) & r1, 1, l1, w1, duty, called, r1, ctx)
        while left1:
            c1 = _pick(left1, 1, pw1, bw1, cf, nc)
            left1 &= ~(ONE << np.uint64(c1))
            r2 = r1 & ~(ONE << np.uint64(c1))
            l2, w2, ws2 = play_to_trick(1, c1, s1, ci[X_SUIT + c1], bw1, l1, w1, ws1)
            tp2 = tp1 + cf[c1]
            s2 = (s1 + 1) % 4
            x2, best2, pw2 = _ply_start(old_mask, s2, ws2, 2)
            a2, b2 = a1, b1
            bw2 = cm[g + l2 * nc + w2]
            left2 = _kept(hand_of(hands, s2) & r2, 2, l2, w2, duty, called, r2, ctx)
            while left2:
                c2 = _pick(left2, 2, pw2, bw2, cf, nc)
                left2 &= ~(ONE << np.uint64(c2))
                r3 = r2 & ~(ONE << np.uint64(c2))
                l3, w3, ws3 = play_to_trick(2, c2, s2, ci[X_SUIT + c2], bw2, l2, w2, ws2)
                tp3 = tp2 + cf[c2]
                s3 = (s2 + 1) % 4
                x3, best3, pw3 = _ply_start(old_mask, s3, ws3, 3)
                a3, b3 = a2, b2
                bw3 = cm[g + l3 * nc + w3]
                left3 = _kept(hand_of(hands, s3) & r3, 3, l3, w3, duty, called, r3, ctx)
                while left3:
                    c3 = _pick(left3, 3, pw3, bw3, cf, nc)
                    left3 &= ~(ONE << np.uint64(c3))
                    l4, w4, ws4 = play_to_trick(3, c3, s3, ci[X_SUIT + c3], bw3, l3, w3, ws3)
                    v = _trick_taken(r3 & ~(ONE << np.uint64(c3)), ws4, tp3 + cf[c3], score,
                                     duty, l4, a3, b3, hands, side, ctx)
                    best3, a3, b3 = _backed_up(x3, v, best3, a3, b3)
                    if a3 >= b3:
                        break
                best2, a2, b2 = _backed_up(x2, best3, best2, a2, b2)
                if a2 >= b2:
                    break
            best1, a1, b1 = _backed_up(x1, best2, best1, a1, b1)
            if a1 >= b1:
                break
        best0, a0, b0 = _backed_up(x0, best1, best0, a0, b0)
        if a0 >= b0:
            break
    return best0


@kernel_jit()
def ply_value(rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The value, within (alpha, beta), of any position; a trick boundary's is
    `trick_value`'s. The open trick's cards are searched one ply at a time: a root's only."""
    seat, pos, led, wcard, wseat, _ = trick
    if pos == 0:
        return trick_value(rem, seat, score, duty, alpha, beta, hands, side, ctx)
    old_mask, called, _ = side
    ci = ctx.ci
    nc = ci[X_CARDS]
    is_max, best, partner_wins = _ply_start(old_mask, seat, wseat, pos)
    bw = ctx.cm[ci[X_GROUPS] + led * nc + wcard]
    left = _kept(hand_of(hands, seat) & rem, pos, led, wcard, duty, called, rem, ctx)
    while left:
        c = _pick(left, pos, partner_wins, bw, ctx.cf, nc)
        left &= ~(ONE << np.uint64(c))
        v = child_value(c, rem, trick, score, duty, alpha, beta, hands, side, ctx)
        best, alpha, beta = _backed_up(is_max, v, best, alpha, beta)
        if alpha >= beta:
            break
    return best


@kernel_jit(inline='always')
def child_value(c, rem, trick, score, duty, alpha, beta, hands, side, ctx):
    """The value, within (alpha, beta), of the position after the seat to play plays card c
    (one it may play)."""
    rem, trick, score, duty = after_card(c, rem, trick, score, duty, side[0], ctx)
    return ply_value(rem, trick, score, duty, alpha, beta, hands, side, ctx)
