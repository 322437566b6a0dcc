"""One compiled statement of each rule, in the order a hand is played.

The batch kernel is a loop over these steps; the solver and the kernel bots call the same ones
(the trick winner, the classification of a finished hand, its pricing and payment), so each rule
has one compiled definition. `kopsim.engine.reference` and `kopsim.engine.scoring` are the independent plain-Python
statement of the same rules, and the tests play both and compare.

The steps take scalars and the few arrays they read, so that the solver and the bots, which hold
other tables, can call them too. They are inlined into their callers (`inline='always'`) and so
compiled as their callers are: in the kernel without reference counting (`kopsim.engine.jit`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import ONE, ZERO, allowed_cards, lowbit_index, popcount
from ..rules.codes import (GOAL_ALL_TRICKS, GOAL_NO_TRICKS, LOSER_MOST_TRICKS, MULT_OLD_LOST,
    MULT_OLD_WON, MULT_TIE, N_PRICED_TIERS, P_ALL, P_AND, P_ANY, P_COUNT, P_NONE, P_OR, P_POS,
    SETTLE_OLD_SIDE_ONLY, SETTLE_ZERO_SUM, TALON_LAST_TRICK, TALON_OLD_SIDE, TEAM_CALLED,
    TEAM_EACH, TEAM_HOLDERS, TIE_LAST_DOUBLE_LOSES, TIE_NOBODY_WINS, TIER_LONE, TIER_INSTANT,
    TIER_OUT, TIER_SCHNEIDER, TIER_SCHWARZ, TIER_THROWN_IN, TIER_TIE, WIN_NOBODY, WIN_OLD,
    WIN_YOUNG)
from .draws import draw
from .jit import kernel_jit
from .seats import after, before


# ------------------------------------------------------------------------------------- the deal


@njit(cache=True, inline='always')
def deal(perm, hands, talon, state, dealer, deal_to, n):
    """Shuffle the deck from the deal's stream and deal it out (`hand_out`): perm[i] is the
    i-th card dealt, hands[s] seat s's mask (n seats), talon[0] the talon's."""
    nc = perm.shape[0]
    for i in range(nc):
        perm[i] = i
    for i in range(nc - 1, 0, -1):
        j, state = draw(state, i + 1)
        c = perm[i]
        perm[i] = perm[j]
        perm[j] = c
    hand_out(perm, hands, talon, dealer, deal_to, n)


@njit(cache=True, inline='always')
def deal_given(perm, hands, talon, given, h, dealer, deal_to, n):
    """Deal h as given (given[h, i]: the i-th card dealt), instead of shuffled: calibration
    chooses the hands it studies."""
    for i in range(perm.shape[0]):
        perm[i] = given[h, i]
    hand_out(perm, hands, talon, dealer, deal_to, n)


@njit(cache=True, inline='always')
def hand_out(perm, hands, talon, dealer, deal_to, n):
    """hands[s]: the cards of perm dealt to seat s, talon[0] those dealt to the talon; the i-th
    card goes to the seat deal_to[i] places on from the dealer's left, or to the talon where
    deal_to[i] is n (RuleTables.deal_to: one at a time round the table, the talon last). n: the
    seat count, a constant of the kernel's compiled code (`seats.seat_count`), as in the steps
    below that take it."""
    for s in range(n):
        hands[s] = ZERO
    talon[0] = ZERO
    forehand = after(dealer, 1, n)
    for i in range(perm.shape[0]):
        if deal_to[i] < n:
            hands[after(forehand, deal_to[i], n)] |= ONE << np.uint64(perm[i])
        else:
            talon[0] |= ONE << np.uint64(perm[i])


# ------------------------------------------------------------------------------------ predicates


@njit(cache=True, inline='always')
def eval_pred(p, hand, pos, p_op, p_mask, p_a, p_b, p_start, p_end, stack):
    """Does a seat at position `pos` (from the dealer's left) holding `hand` meet predicate p?"""
    sp = 0
    for i in range(p_start[p], p_end[p]):
        op = p_op[i]
        if op == P_ALL:
            stack[sp] = (hand & p_mask[i]) == p_mask[i]
        elif op == P_ANY:
            stack[sp] = (hand & p_mask[i]) != ZERO
        elif op == P_NONE:
            stack[sp] = (hand & p_mask[i]) == ZERO
        elif op == P_COUNT:
            c = popcount(hand & p_mask[i])
            stack[sp] = c >= p_a[i] and c <= p_b[i]
        elif op == P_POS:
            stack[sp] = pos == p_a[i]
        elif op == P_AND or op == P_OR:
            n = p_a[i]
            v = op == P_AND
            for j in range(n):
                if op == P_AND:
                    v = v and stack[sp - 1 - j]
                else:
                    v = v or stack[sp - 1 - j]
            sp -= n
            stack[sp] = v
        else:  # P_NOT
            sp -= 1
            stack[sp] = not stack[sp]
        sp += 1
    if sp == 0:
        return True
    return stack[0]


@kernel_jit()
def eval_preds(elig, hands, dealer, p_op, p_mask, p_a, p_b, p_start, p_end, stack, n):
    """elig[p, s]: seat s meets predicate p (contract eligibility, then restriction holdings),
    from the predicate programs p_* of `RuleTables`."""
    for p in range(elig.shape[0]):
        for s in range(n):
            elig[p, s] = eval_pred(p, hands[s], before(s, dealer + 1, n), p_op, p_mask, p_a,
                                   p_b, p_start, p_end, stack)


# ------------------------------------------------------------------------------ teams and play


@njit(cache=True, inline='always')
def form_teams(team, team_mask, team_cards, k, declarer, hands, n):
    """The old side (seat bits) of contract k (team: its TEAM_* kind, team_mask: its team
    cards): their holders; or the declarer and the holder of the first team card he lacks
    (team_cards[k]); or the declarer alone; or, each for himself, nobody until the play is
    over (`each_alone_result`)."""
    if team == TEAM_EACH:
        return 0
    if team == TEAM_HOLDERS:
        old = 0
        for s in range(n):
            if hands[s] & team_mask:
                old |= 1 << s
    else:
        old = 1 << declarer
    if team == TEAM_CALLED:
        for i in range(team_cards.shape[1]):
            c = team_cards[k, i]
            if c < 0:
                break
            if not (hands[declarer] >> np.uint64(c)) & ONE:
                for s in range(n):
                    if (hands[s] >> np.uint64(c)) & ONE:
                        old |= 1 << s
                break
    return old


@njit(cache=True, inline='always')
def called_card(team, team_cards, k, declarer, hands):
    """The card that called the declarer's partner (the first team card he lacks), or -1."""
    if team != TEAM_CALLED or declarer < 0:
        return -1
    for i in range(team_cards.shape[1]):
        c = team_cards[k, i]
        if c < 0:
            return -1
        if not (hands[declarer] >> np.uint64(c)) & ONE:
            return c
    return -1


@njit(cache=True, inline='always')
def called_card_duties(allowed, hand, pos, led_called, called, called_suit_mask, run_away):
    """The cards allowed to the holder of the called card before its suit has been led: he
    plays it when its suit is led (led_called), never on another suit, and leads the suit only
    with it unless he holds run_away cards of it. A duty never leaves him without a card."""
    bit = ONE << np.uint64(called)
    if called < 0 or not hand & bit:
        return allowed
    if pos == 0:
        if popcount(hand & called_suit_mask) >= run_away:
            return allowed
        keep = allowed & ~(called_suit_mask & ~bit)
    elif led_called:
        keep = allowed & bit
    else:
        keep = allowed & ~bit
    return keep if keep else allowed


@njit(cache=True, inline='always')
def trick_so_far(cards, first, count, leader, n_seats, o, suit, beat_mask, card_points):
    """The open trick led by leader after its first count cards (cards[first:first + count]),
    in card order o: (suit led, winning card, its seat, the points in it, the seat to play). The
    one replay of a trick card by card (`play_to_trick`) that the bots start a decision from."""
    led, w, wseat, pts, seat = 0, 0, leader, 0.0, leader
    for i in range(count):
        c = cards[first + i]
        pts += card_points[c]
        led, w, wseat = play_to_trick(i, c, seat, suit[o, c], beat_mask[o, led, w], led, w, wseat)
        seat = after(seat, 1, n_seats)
    return led, w, wseat, pts, seat


@njit(cache=True, inline='always')
def legal_play(hand, pos, led_mask, trump_mask, beat_w, play, led_called, called, called_suit_mask,
               run_away):
    """The cards of hand that may be played as card pos of a trick: the play rules
    (`allowed_cards`; play: follow suit, trump when void, must beat), then the called card's
    duties while they hold (`called_card_duties`; called -1: none, or no more). The one
    composition of a card's legality: the kernel, the search, the endgame and the sampler's
    test of past plays call it."""
    allowed = allowed_cards(hand, pos, led_mask, trump_mask, beat_w, play[0], play[1], play[2])
    if called >= 0:
        allowed = called_card_duties(allowed, hand, pos, led_called, called, called_suit_mask,
                                     run_away)
    return allowed


@njit(cache=True, inline='always')
def talon_taker(talon_to, old, last_winner, n):
    """The seat whose points the talon's cards count in once the tricks are played (talon_to:
    the contract's TALON_* code; old: the old side's seat bits, one seat wherever a talon is
    dealt, as validation holds it; last_winner: the last trick's winner), or -1: nobody's."""
    if talon_to == TALON_LAST_TRICK:
        return last_winner
    if talon_to == TALON_OLD_SIDE:
        for s in range(n):
            if (old >> s) & 1:
                return s
    return -1


@njit(cache=True, inline='always')
def mask_points(mask, card_points):
    """The card points of the cards in mask."""
    total = 0.0
    m = mask
    while m:
        lb = m & (~m + ONE)
        total += card_points[lowbit_index(lb)]
        m ^= lb
    return total


@njit(cache=True, inline='always')
def duty_after_trick(duty, led):
    """The called card's duties once a trick led in suit group led is complete: duty (the
    called card's suit group while they hold, -1 none) stays, unless that suit was led, which
    ends them for the rest of the hand. The kernel, the search, ev's endgame and pimc's worlds
    and sampler follow the duties through this one statement."""
    return -1 if led == duty else duty


@njit(cache=True, inline='always')
def play_to_trick(pos, card, seat, card_suit, beat_w, led, w, wseat):
    """The trick after seat plays card at position pos: (suit led, winning card, its seat).
    The first card leads; a later one takes the trick if it beats the winning card (beat_w:
    the cards that beat it in the suit led; card_suit: the card's suit group)."""
    if pos == 0:
        return np.int64(card_suit), card, seat
    if (beat_w >> np.uint64(card)) & ONE:
        return led, card, seat
    return led, w, wseat


# ----------------------------------------------------------------------------------- scoring


@njit(cache=True, inline='always')
def count_doubles(double_seats, nd, old, cap):
    """(counted doubles, side of the last counted one): a double counts if it comes from the
    other side than the last counted one, up to cap. Sides are WIN_OLD / WIN_YOUNG, -1 none."""
    counted = 0
    last = -1
    for i in range(nd):
        if counted == cap:
            break
        side = WIN_OLD if (old >> double_seats[i]) & 1 else WIN_YOUNG
        if side != last:
            counted += 1
            last = side
    return counted, last


@njit(cache=True, inline='always')
def tie_winner(tie_rule, counted, last):
    """Who wins a tie on points (tie_rule: a TIE_* code): nobody; the young side; or the
    other side than the last counted double, and with none the young side."""
    if tie_rule == TIE_NOBODY_WINS:
        return WIN_NOBODY
    if tie_rule == TIE_LAST_DOUBLE_LOSES and counted > 0:
        return WIN_YOUNG if last == WIN_OLD else WIN_OLD
    return WIN_YOUNG


@njit(cache=True, inline='always')
def classify(opts, ypts, otr, ytr, win_points, smax_old, smax_young, goal, tie_win,
             lone_won, lone_lost):
    """(winner, tier) of a finished hand from both sides' points and tricks. goal: the
    contract's GOAL_* code; smax_old / smax_young: the most points with which the old / young
    side, losing, is schneider;
    tie_win: who wins a tie (`tie_winner`); lone_won / lone_lost: a lone old player whose won
    / lost price is not tiered (his hand is priced as TIER_LONE)."""
    tie = False
    if goal == GOAL_ALL_TRICKS:
        w = WIN_OLD if ytr == 0 else WIN_YOUNG
    elif goal == GOAL_NO_TRICKS:
        w = WIN_OLD if otr == 0 else WIN_YOUNG
    elif opts >= win_points:
        w = WIN_OLD
    elif opts == ypts:
        tie = True
        w = tie_win
    else:
        w = WIN_YOUNG
    if tie:
        return w, TIER_TIE
    if (w == WIN_OLD and lone_won) or (w == WIN_YOUNG and lone_lost):
        return w, TIER_LONE
    lp = ypts if w == WIN_OLD else opts
    lt = ytr if w == WIN_OLD else otr
    if lt == 0:
        return w, TIER_SCHWARZ
    if lp <= (smax_young if w == WIN_OLD else smax_old):
        return w, TIER_SCHNEIDER
    return w, TIER_OUT


@njit(cache=True, inline='always')
def laufende_value(lauf_cards, lauf_from, lauf_value, k, hands, old):
    """What contract k's Laufende add: the cards of lauf_cards[k] (high to low) that one side
    holds from the top without a gap, each worth lauf_value[k], once there are lauf_from[k].
    A card no seat was dealt lies in the talon and counts with the old side (Skat's matadors
    count the skat's cards with the declarer's: validation allows Laufende with a talon only
    where its points go to the old side)."""
    if lauf_from[k] == 0:
        return 0.0
    n, side = 0, -1
    for i in range(lauf_cards.shape[1]):
        c = lauf_cards[k, i]
        if c < 0:
            break
        holder_side = 1  # in the talon, unless a seat holds it
        for s in range(hands.shape[0]):
            if (hands[s] >> np.uint64(c)) & ONE:
                holder_side = (old >> s) & 1
                break
        if side >= 0 and holder_side != side:
            break
        side = holder_side
        n += 1
    return n * lauf_value[k] if n >= lauf_from[k] else 0.0


@njit(cache=True, inline='always')
def each_alone_result(points, tricks, who_played, trump_rank, loser_rule, durch_points,
                      durch_all, n_tricks, forehand, n):
    """(old, winner) of a hand played each for himself (Ramsch). A seat that takes every trick
    (durch_all) or at least durch_points makes a Durchmarsch and wins alone: old is he, WIN_OLD.
    Else the seat with the most points loses alone (WIN_YOUNG): of seats tied on them, with
    loser_rule LOSER_MOST_TRICKS the one with the most tricks, then the one who played the
    highest trump (trump_rank[c]: 0 the highest, -1 not a trump), then the first from
    forehand."""
    most = points[0]
    for s in range(n):
        if (durch_all and tricks[s] == n_tricks) or points[s] >= durch_points:
            return 1 << s, WIN_OLD
        most = max(most, points[s])
    tied = 0
    for s in range(n):
        if points[s] == most:
            tied |= 1 << s
    if loser_rule == LOSER_MOST_TRICKS:
        top = -1
        for s in range(n):
            if (tied >> s) & 1 and tricks[s] > top:
                top = tricks[s]
        for s in range(n):
            if (tied >> s) & 1 and tricks[s] != top:
                tied &= ~(1 << s)
    loser, best = -1, trump_rank.shape[0]
    for c in range(trump_rank.shape[0]):
        s = who_played[c]
        if trump_rank[c] >= 0 and s >= 0 and (tied >> s) & 1 and trump_rank[c] < best:
            loser, best = s, trump_rank[c]
    if loser < 0:
        for i in range(n):
            if (tied >> after(forehand, i, n)) & 1:
                loser = after(forehand, i, n)
                break
    return 1 << loser, WIN_YOUNG


@njit(cache=True, inline='always')
def jungfrau_factor(tricks, n):
    """Each seat without a trick doubles what the loser of a Ramsch pays."""
    f = 1.0
    for s in range(n):
        if tricks[s] == 0:
            f *= 2.0
    return f


@njit(cache=True, inline='always')
def outcome_slot(winner, tier):
    """Index of (winner, tier) in a flat table of outcomes, nobody's row first."""
    return (winner - WIN_NOBODY) * N_PRICED_TIERS + tier


@njit(cache=True, inline='always')
def instant_result(c_won, c_thrown_in, k):
    """(winner, tier, counted doubles, value) of contract k, won at once before any card is
    played (c_instant): by the old side at the out price, without doubles; a hand thrown in
    (c_thrown_in) is won by nobody and pays nothing. The one statement of an instant outcome:
    the kernel, pimc's pricing of calls and the solver read it."""
    if c_thrown_in[k]:
        return WIN_NOBODY, TIER_THROWN_IN, 0, 0.0
    return WIN_OLD, TIER_INSTANT, 0, c_won[k, TIER_OUT]


@njit(cache=True, inline='always')
def price(c_won, c_lost, c_mult, k, winner, tier, counted, tie_value, factor, added):
    """The value of contract k's outcome: its price by tier (a lone hand at the out price, a
    tie without doubles at the ruleset's tie value if it has one: NaN if not) plus the added
    parts (Laufende), doubled per counted double, times the multipliers that apply."""
    ti = TIER_OUT if tier == TIER_LONE else tier
    v = 0.0
    if winner == WIN_OLD:
        v = c_won[k, ti]
    elif winner == WIN_YOUNG:
        v = c_lost[k, ti]
    if winner != WIN_NOBODY:
        v += added
    if tier == TIER_TIE and counted == 0 and not np.isnan(tie_value):
        v = tie_value
    return scaled(c_mult, k, winner, tier, counted, factor, v)


@njit(cache=True, inline='always')
def scaled(c_mult, k, winner, tier, counted, factor, v):
    """v doubled per counted double, times contract k's multipliers that apply."""
    for _ in range(counted):
        v *= factor
    if winner == WIN_YOUNG:
        v *= c_mult[k, MULT_OLD_LOST]
    elif winner == WIN_OLD:
        v *= c_mult[k, MULT_OLD_WON]
    if tier == TIER_TIE:
        v *= c_mult[k, MULT_TIE]
    return v


@njit(cache=True, inline='always')
def side_tier(pts, tricks, most):
    """The tier of a side that lost with pts and tricks: schwarz without a trick, schneider
    with at most `most` points, else out."""
    if tricks == 0:
        return TIER_SCHWARZ
    if pts <= most:
        return TIER_SCHNEIDER
    return TIER_OUT


@njit(cache=True, inline='always')
def overbid_value(bid_value, base):
    """What a game lost by overbidding is entered at: the least multiple of its base value
    that reaches the bid (Skat, docs/rules/SKAT.md §7.3), the bid itself without a base (0)."""
    if base == 0.0:
        return float(bid_value)
    return base * math.ceil(bid_value / base)


@njit(cache=True, inline='always')
def game_price(c_won, c_lost, c_mult, c_base, k, winner, tier, counted, tie_value, factor,
               added, bid_value):
    """(overbid, value) of contract k's outcome (`price`) in a game bid by value (bid_value >
    0; 0: not bid by value): a game worth less than the bid, its added parts (Laufende, hand)
    counted, is lost at the bid's value (`overbid_value`), and overbid is True. The one
    statement of the overbid: the kernel's scoring and the search's pricing read it."""
    if bid_value > 0 and winner != WIN_NOBODY:
        ti = TIER_OUT if tier == TIER_LONE else tier
        game = (c_won[k, ti] if winner == WIN_OLD else c_lost[k, ti]) + added
        if game < bid_value:  # (an overbid tier is a losing side's, never a tie's)
            return True, scaled(c_mult, k, WIN_YOUNG, TIER_OUT, counted, factor,
                                overbid_value(bid_value, c_base[k]))
    return False, price(c_won, c_lost, c_mult, k, winner, tier, counted, tie_value, factor,
                        added)


@njit(cache=True, inline='always')
def rest_of(whole, share, k):
    """whole - k * share, exactly (the real difference, a float here): k shares summed with
    their rounding errors kept apart (Knuth's two-sum), whole minus their rounded sum (exact:
    the two lie within a factor of two), then the errors. With k <= 2 the shares' sum has no
    error: the same float as whole - k * share. `scoring.rest_of` is the reference's."""
    if k == 0:
        return whole
    total = share
    err = 0.0
    for _ in range(k - 1):
        s = total + share
        b = s - total
        err += (total - (s - b)) + (share - b)
        total = s
    return (whole - total) - err


@njit(cache=True, inline='always')
def pay_out(pay, v, winner, old, settle, lone_once, n):
    """Adds the payments of value v to pay (settle: the SETTLE_* code of scoring.style; n
    seats). Settled with the old side only, each old seat gains v when it wins and loses v when
    it loses, and nobody else is scored. Otherwise, when one side is a single player his game
    is priced per opponent: v from or to each, or (lone_once) v in all, shared equally by them.
    The opponent seated last after him takes what rounding leaves of his amount, so the hand is
    exactly zero-sum (docs/rulesets.md, `lone_settlement`). Otherwise each winner receives v
    and, zero-sum, each loser pays v."""
    n_old = popcount(np.uint64(old))
    zero_sum = settle == SETTLE_ZERO_SUM
    if winner == WIN_NOBODY or v == 0.0:
        pass
    elif settle == SETTLE_OLD_SIDE_ONLY:
        for s in range(n):
            if (old >> s) & 1:
                pay[s] += v if winner == WIN_OLD else -v
    elif n_old == 1 or n_old == n - 1:
        lone_mask = old if n_old == 1 else (~old) & ((1 << n) - 1)
        lone = 0
        while not (lone_mask >> lone) & 1:
            lone += 1
        lone_won = ((old >> lone) & 1 == 1) == (winner == WIN_OLD)
        share = v / (n - 1) if lone_once else v
        whole = v if lone_once else (n - 1) * share
        sign = 1.0 if lone_won else -1.0
        last = rest_of(whole, share, n - 2)
        for i in range(1, n):
            # the last part is what the others leave of whole: the parts add up to it exactly
            part = share if i < n - 1 else last
            if zero_sum or not lone_won:
                pay[after(lone, i, n)] -= sign * part
        if zero_sum or lone_won:
            pay[lone] += sign * whole
    else:
        for s in range(n):
            if ((old >> s) & 1 == 1) == (winner == WIN_OLD):
                pay[s] += v
            elif zero_sum:
                pay[s] -= v
