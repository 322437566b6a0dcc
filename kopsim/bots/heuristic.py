"""heuristic: rule-based bidding and play, as a good club player plays Kop and Baśka.

Bidding: the hand is valued in each contract's card order (a sum of per-card powers, roughly the
tricks it takes alone); it bids the highest contract whose threshold it reaches, stays silent with
a cicha hand that is good enough, calls wesele with a weak one, and doubles when its hand is strong
against the contract in force. Play: draws trumps with a master trump, wins tricks cheaply,
smears points onto a partner's winning trick, keeps high trumps otherwise, and infers the
partnerships from the cards that reveal them (the black queens, the called jack).

The decisions are numba functions of what the seat may know (its own cards, the public auction,
the cards played and by whom) plus the ruleset's public tables. The batch kernel calls them
directly; `HeuristicBot` calls the very same functions from an `Observation`, so both engines play
identically (tests/test_engines_agree.py).
"""

from __future__ import annotations

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..engine.jit import kernel_jit
from ..engine.bits import lowbit_index, popcount
from ..rules.codes import (GOAL_FEWEST_POINTS, GOAL_NO_TRICKS, GOAL_POINTS, PICKUP_NEVER,
                           TALON_OLD_SIDE, TEAM_ALONE, TEAM_CALLED, TEAM_EACH)
from ..engine.codes import BOT_HEURISTIC
from ..engine.reference import HAND, PICK_UP, Observation
from ..engine.seats import after
from ..engine.steps import play_to_trick
from ..rules.cache import compiled, table
from ..rules.compile import CompiledRules, card_mask
from ..rules.model import position_of

# parameter vector layout (kernel rows and Params share it)
P_SOLO, P_DU, P_CICHA, P_DOUBLE, P_REDOUBLE, P_TEAM_DOUBLE, P_SMEAR = range(7)
# the columns of the per-order card table (heuristic_tables)
V_POWER, V_POINTS = 0, 1
# the columns of the per-contract table read in play (heuristic_tables)
C_ORDER, C_GOAL = 2, 5
TUNED_TRICKS = 4.0  # the tricks of a hand of the Kop the thresholds were tuned on
# play "hand" (without picking the talon up, where the rules let the declarer choose) only
# with a hand this strong, of TUNED_TRICKS; in a no-tricks contract only with one this weak
HAND_STRENGTH = 3.6


class HeuristicParams(BaseModel):
    """Thresholds on hand strength (≈ tricks the hand takes alone, counted as out of 4 whatever
    the number of tricks: so they mean the same share of the tricks in every deck). The defaults come from
    duplicate duels of each setting against the others on kop (coordinate search, 40,000 deals
    a setting); experiments can sweep them."""

    model_config = ConfigDict(extra="forbid", strict=False)
    solo: float = Field(3.0, description="bid a lone points contract (zolo, gran) from this")
    du: float = Field(3.45, description="bid a lone all-tricks contract (zolo du) from this")
    cicha: float = Field(3.0, description="with both black queens: stay silent from this, "
                                          "else call wesele")
    double: float = Field(2.8, description="double a lone declarer's contract from this")
    redouble: float = Field(3.0, description="redouble one's own contract from this")
    team_double: float = Field(2.6, description="double in a team game from this")
    smear: float = Field(1.0, description="smear points on a partner's trick (1) or not (0)")


# --------------------------------------------------------------------------------------- tables


def heuristic_tables(cr: CompiledRules) -> tuple[np.ndarray, np.ndarray]:
    """(power[o, c, :], ctab[k, :]): per-order card values and per-contract public features.

    power[o, c, V_POWER]: trumps from 1.0 (top) down to 0.1 (lowest); a plain suit's top card
    0.55, its second
    0.2, the rest 0.05 — the chance, roughly, that the card takes a trick for a lone player —
    scaled to a game of TUNED_TRICKS tricks (halved with twice as many), so that the thresholds,
    tuned on 16-card Kop, ask the same share of the tricks of every deck.
    ctab columns: team (0 holders, 1 called, 2 alone, 3 each), all_tricks, order (C_ORDER),
    instant, bid position, goal (C_GOAL, a GOAL_* code), one unused. power[o, c, V_POINTS]: the card's points (so
    that the card decision reads one table).
    """
    r = cr.rules
    cards = cr.cards
    index = {c: i for i, c in enumerate(cards)}
    orders = list(r.orders)
    power = np.zeros((len(orders), len(cards), 2), np.float64)
    scale = TUNED_TRICKS / (len(cards) // cr.tables.n_seats)  # a hand's cards: its tricks
    for oi, name in enumerate(orders):
        o = r.orders[name]
        n = len(o.trumps)
        for i, c in enumerate(o.trumps):  # every copy of a card alike
            power[oi, [index[x] for x in r.copies_of(c)], V_POWER] = \
                (1.0 - 0.9 * i / max(n - 1, 1)) * scale
        for group in o.plain.values():
            for i, c in enumerate(group):
                power[oi, [index[x] for x in r.copies_of(c)], V_POWER] = \
                    ((0.55, 0.2)[i] if i < 2 else 0.05) * scale
        power[oi, :, V_POINTS] = cr.tables.card_points
    a = cr.tables
    K = len(cr.contract_names)
    ctab = np.zeros((K, 7), np.int64)
    for k in range(K):
        ctab[k, 0] = a.c_team[k]
        ctab[k, 1] = a.c_all_tricks[k]
        ctab[k, 2] = a.c_order[k]
        ctab[k, 3] = a.c_instant[k]
        ctab[k, 4] = a.bid_pos[k]
        ctab[k, C_GOAL] = a.c_goal[k]
    return power, ctab


@kernel_jit()
def strength(hand, o, power):
    s = 0.0
    for c in range(power.shape[1]):
        if (hand >> np.uint64(c)) & np.uint64(1):
            s += power[o, c, V_POWER]
    return s


# -------------------------------------------------------------------------------------- auction


@kernel_jit()
def heur_call(calls, m, hand, seat, bid, bidder, imp, imp_decl, K, ctab, power, prm):
    """Index in calls[:m] of the call to make. imp/imp_decl: the contract that would be played
    if nobody bids and its declarer *as far as this seat can tell* (itself if its own hand makes
    it the cicha player, otherwise -1)."""
    best = -1
    best_pos = -1
    for i in range(m):
        code = calls[i]
        if code < 2 or code >= 2 + K:
            continue
        k = code - 2
        if ctab[k, 3]:
            return i  # an instant win: always take it
        s = strength(hand, ctab[k, 2], power)
        want = False
        if ctab[k, 0] == TEAM_ALONE:
            want = s >= (prm[P_DU] if ctab[k, 1] else prm[P_SOLO])
        elif ctab[k, 0] == TEAM_CALLED:
            # wesele: with a hand too weak to play the silent game alone; a partner game
            # whose declarer would not play alone otherwise (Sauspiel): with half the strength
            # a lone game asks, the partner bringing the rest
            want = s < prm[P_CICHA] if imp_decl == seat else s >= prm[P_SOLO] / 2
        else:
            want = s >= prm[P_TEAM_DOUBLE]
        if want and ctab[k, 4] > best_pos:
            best = i
            best_pos = ctab[k, 4]
    if best >= 0:
        return best
    for i in range(m):
        if calls[i] >= 2 + K:  # the next double
            k = bid if bid >= 0 else imp
            decl = bidder if bid >= 0 else imp_decl
            s = strength(hand, ctab[k, 2], power)
            if decl == seat:
                if s >= prm[P_REDOUBLE]:
                    return i
            elif ctab[k, 0] == TEAM_ALONE and decl >= 0:
                if s >= prm[P_DOUBLE]:
                    return i
            elif s >= prm[P_TEAM_DOUBLE]:
                return i
    for want in (0, 1):  # pass, else ask
        for i in range(m):
            if calls[i] == want:
                return i
    return 0  # forced to bid: the lowest bid on offer


# ------------------------------------------------------------------------------------- partners


@kernel_jit()
def relations(rel, seat, dealt, k, decl, ctab, team_cards, who_played):
    """rel[s] for each seat as this seat sees it: 2 itself, 1 partner, -1 opponent, 0 unknown.

    k: the contract as this seat knows it (the bid in force, or the no-bid contract it believes
    in); decl: its declarer (-1 if none). team_cards[k, :]: cards forming the team (-1 padded).
    who_played[c]: seat that played card c, -1 if not (yet) seen.
    """
    one = np.uint64(1)
    n = rel.shape[0]  # a seat each
    for s in range(n):
        rel[s] = 0
    rel[seat] = 2
    team = ctab[k, 0]
    if team == TEAM_EACH:
        for s in range(n):
            if s != seat:
                rel[s] = -1
        return
    if team == TEAM_ALONE:
        for s in range(n):
            if s != seat:
                rel[s] = -1 if (seat == decl or s == decl) else 1
        return
    if team == TEAM_CALLED:
        # the declarer plus the holder of the first team card he lacks
        for i in range(team_cards.shape[1]):
            c = team_cards[k, i]
            if c < 0:
                return
            if seat == decl:
                if (dealt >> np.uint64(c)) & one:
                    continue  # I hold it: look further down the list
                p = who_played[c]
                if p >= 0:
                    for s in range(n):
                        if s != seat:
                            rel[s] = 1 if s == p else -1
                return
            if (dealt >> np.uint64(c)) & one:
                for s in range(n):
                    if s != seat:
                        rel[s] = 1 if s == decl else -1
                return
            p = who_played[c]
            if p == decl:
                continue  # the declarer holds it: the next card decides
            if p >= 0:
                for s in range(n):
                    if s != seat:
                        rel[s] = -1 if (s == decl or s == p) else 1
            return
        return
    # holders: the seats holding the team cards play together
    mine = False
    n_team = 0
    n_known = 0
    holders = 0  # bitmask of seats seen playing a team card
    for i in range(team_cards.shape[1]):
        c = team_cards[k, i]
        if c < 0:
            break
        n_team += 1
        if (dealt >> np.uint64(c)) & one:
            mine = True
            n_known += 1
        elif who_played[c] >= 0:
            holders |= 1 << who_played[c]
            n_known += 1
    for s in range(n):
        if s == seat:
            continue
        if (holders >> s) & 1:
            rel[s] = 1 if mine else -1
        elif n_known == n_team:
            # all team cards located; if one seat showed them all it plays a silent lone game
            # and the rest of us are partners
            rel[s] = -1 if mine else 1


# -------------------------------------------------------------------------------- bidding by value



@kernel_jit(inline='always')
def _run_length(hand, lauf):
    """How many of the cards lauf (high to low, -1 padded) hand holds in an unbroken run from
    the top, or lacks in one (Skat's matadors "with" or "without")."""
    one = np.uint64(1)
    if lauf.shape[0] == 0 or lauf[0] < 0:
        return 0
    top = (hand >> np.uint64(lauf[0])) & one
    n = 0
    for i in range(lauf.shape[0]):
        if lauf[i] < 0 or (hand >> np.uint64(lauf[i])) & one != top:
            break
        n += 1
    return n


@kernel_jit(inline='always')
def null_exposed(hand, o, suit, suit_mask, beat_mask):
    """How many cards of hand the others can force to take a trick in a no-tricks game in
    order o: in each suit the k-th lowest card held is exposed when more than 2(k-1) of the
    suit's cards lie below it (each card held below it can duck one lead, and the others hold
    the rest: 7, 9, jack is safe, a lone 8 or 7, 10 is not)."""
    n = 0
    rest = hand
    while rest:
        c = lowbit_index(rest)
        bit = rest & ~(rest - np.uint64(1))
        rest &= rest - np.uint64(1)
        g = suit[o, c]
        below = suit_mask[o, g] & ~beat_mask[o, g, c] & ~bit
        if popcount(below) > 2 * popcount(below & hand):
            n += 1
    return n


@kernel_jit(inline='always')
def _unseen_mean(hand, o, power, column):
    """The mean of a card that hand lacks in power[o, :, column] (its strength, its points)."""
    total, n = 0.0, 0
    for c in range(power.shape[1]):
        if not (hand >> np.uint64(c)) & np.uint64(1):
            total += power[o, c, column]
            n += 1
    return total / n if n else 0.0


@kernel_jit(inline='always')
def _masters_below_top(hand, o, suit, suit_mask, beat_mask, power):
    """What a plain card held under every card of its suit above it adds to hand's strength in
    order o, bidding: it is a master once those are played, as strong as its suit's top card,
    which the hand then holds (ace, ten and king of one suit take three tricks where the
    table counts the first)."""
    add = 0.0
    rest = hand
    while rest:
        c = lowbit_index(rest)
        rest &= rest - np.uint64(1)
        g = suit[o, c]
        group = suit_mask[o, g]
        if g == 0 or beat_mask[o, g, c] & group & ~hand:
            continue  # a trump, or a card of its suit above it is out
        top = power[o, c, V_POWER]
        mine = group & hand
        while mine:
            top = max(top, power[o, lowbit_index(mine), V_POWER])
            mine &= mine - np.uint64(1)
        add += top - power[o, c, V_POWER]
    return add


@kernel_jit(inline='always')
def _order_terms(hand, o, t, power):
    """What every contract of order o reads of hand, found once per order: (its strength, that
    with the plain masters below the top (`_masters_below_top`), the mean strength and points
    of a card it lacks, its cards exposed in a game for no tricks (`null_exposed`))."""
    s = strength(hand, o, power)
    return (s, s + _masters_below_top(hand, o, t.suit, t.suit_mask, t.beat_mask, power),
            _unseen_mean(hand, o, power, V_POWER), _unseen_mean(hand, o, power, V_POINTS),
            null_exposed(hand, o, t.suit, t.suit_mask, t.beat_mask))


@kernel_jit(inline='always')
def _worth_in(hand, k, t, prm, settled, terms):
    """`contract_worth` of contract k from its order's terms (`_order_terms`)."""
    strong, unseen, unseen_points, exposed = terms[1], terms[2], terms[3], terms[4]
    talon_to_come = (not settled and t.c_pick_up[k] != PICKUP_NEVER
                     and not t.c_hand_only[k])
    if t.c_goal[k] == GOAL_NO_TRICKS:
        if exposed > (t.talon_size // 2 if talon_to_come else 0):
            return 0.0
    else:
        # the solo threshold is set against three opponents: against fewer a lone hand needs
        # proportionally fewer tricks of its own (Skat's declarer plays against two); a talon
        # still to pick up brings him, on average, its cards' share of the strength unseen
        if talon_to_come:
            strong += t.talon_size * unseen
        need = prm[P_SOLO] * (t.n_seats - 1) / 3.0
        if t.talon_size and t.c_talon_to[k] == TALON_OLD_SIDE and t.c_goal[k] == GOAL_POINTS:
            # the talon's points count for him: he needs as much fewer from the tricks
            need *= 1.0 - t.talon_size * unseen_points / t.c_win_points[k]
        if strong < need:
            return 0.0
    v = t.c_won[k, 0]  # the price of a game won, not schneider (TIER_OUT)
    if t.c_lauf_from[k] > 0:
        m = _run_length(hand, t.c_lauf_cards[k])
        if m >= t.c_lauf_from[k]:
            v += m * t.c_lauf_value[k]
    return v


@kernel_jit()
def contract_worth(hand, k, t, ctab, power, prm, settled):
    """What contract k is worth to the heuristic with hand, as declarer: 0 unless its hand
    takes the tricks alone (strength, with a talon's expected share, from prm's solo threshold,
    scaled to the opponents; playing for no tricks, no card exposed (`null_exposed`) but what
    the talon, still to pick up, lets him lay away: settled, the talon is dealt with), else its
    price won plus the matadors its hand shows."""
    return _worth_in(hand, k, t, prm, settled, _order_terms(hand, ctab[k, 2], t, power))


@kernel_jit()
def heur_declare(hand, t, options, m, ctab, power, prm, settled):
    """Index in options[:m] (contracts) of the one to declare: the most worth
    (`contract_worth`; settled: the talon is dealt with), of equal worth the strongest hand for
    it (for no tricks: a hand with no card exposed), of equal keys the first. Each order's
    terms are found once."""
    best, best_key = m, -1.0
    for o in range(power.shape[0]):
        found, terms = False, (0.0, 0.0, 0.0, 0.0, 0)
        for i in range(m):
            k = options[i]
            if ctab[k, 2] != o:
                continue
            if not found:
                found, terms = True, _order_terms(hand, o, t, power)
            s = terms[0]
            if t.c_goal[k] == GOAL_NO_TRICKS:  # of games worth nothing, a null only when safe
                s = TUNED_TRICKS if terms[4] == 0 else 0.0
            key = 1000.0 * _worth_in(hand, k, t, prm, settled, terms) + s
            if key > best_key or (key == best_key and i < best):
                best, best_key = i, key
    return best if best < m else 0


@kernel_jit()
def best_worth(hand, t, ctab, power, prm):
    """What hand's best game is worth bidding by value (`contract_worth`, the talon still to
    deal with): a bidder's hand does not change while he bids, so it is valued once, each
    order's terms once."""
    worth = 0.0
    for o in range(power.shape[0]):
        found, terms = False, (0.0, 0.0, 0.0, 0.0, 0)
        for j in range(t.bids.shape[0]):
            k = t.bids[j]
            if ctab[k, 2] != o:
                continue
            if not found:
                found, terms = True, _order_terms(hand, o, t, power)
            worth = max(worth, _worth_in(hand, k, t, prm, False, terms))
    return worth


@kernel_jit()
def heur_value_call(calls, m, worth, held, t):
    """Index in calls[:m] of the call in bidding by value: hold the value held (senior) or
    name the lowest value offered (junior) while the best game's worth (`best_worth`) reaches
    it, else pass (calls[0])."""
    if m < 2:
        return 0
    if calls[1] < t.value_code:  # the senior's hold
        return 1 if held <= worth else 0
    return 1 if t.bid_values[calls[1] - t.value_code] <= worth else 0


# ---------------------------------------------------------------------------------------- talon


@kernel_jit()
def heur_take(hand, o, goal, power):
    """Whether the declarer picks the talon up (else he plays hand): he does unless his hand
    alone takes nearly every trick (or, in a no-tricks contract, nearly none) in order o."""
    s = strength(hand, o, power)
    if goal == GOAL_NO_TRICKS:
        return s > TUNED_TRICKS - HAND_STRENGTH
    return s < HAND_STRENGTH


@kernel_jit()
def heur_lay(hand, o, goal, suit, suit_mask, beat_mask, power):
    """The card of hand to lay away after picking the talon up (one at a time, as many as the
    talon held). Playing for points: a plain card that is no master, points first (they count
    for him in the talon) and from short suits (a void to trump in); masters and trumps last.
    Playing for no tricks: the card most other cards can pass under, from short suits first."""
    one = np.uint64(1)
    best, best_key = -1, 0.0
    for c in range(power.shape[1]):
        if not (hand >> np.uint64(c)) & one:
            continue
        g = suit[o, c]
        group = suit_mask[o, g]
        length = popcount(group & hand)
        above = beat_mask[o, g, c] & group & ~hand  # its suit's cards out that beat it
        if goal == GOAL_NO_TRICKS:  # the exposed cards first (`null_exposed`), highest first
            below = group & ~beat_mask[o, g, c] & ~(one << np.uint64(c))
            exposed = popcount(below) > 2 * popcount(below & hand)
            key = length - 4.0 * popcount(below) - (100.0 if exposed else 0.0)
        elif g == 0:
            key = 100.0 + power[o, c, V_POWER]
        elif above == np.uint64(0):
            key = 50.0 + power[o, c, V_POWER]
        else:
            key = length - power[o, c, V_POINTS] / 11.0
        if best < 0 or key < best_key:
            best, best_key = c, key
    return best


# ----------------------------------------------------------------------------------------- play


@kernel_jit()
def heur_card(legal, hand, crow, trick, leader, rel, who_played, suit, suit_mask, beat_mask,
              power, prm):
    """The card to play from `legal` (a bitmask) in the contract of row crow of the ctab
    (`heuristic_tables`: its order, its goal). trick: the cards already in the trick led by
    `leader`, then -1 (a place for each
    card of a trick: a seat each)."""
    one = np.uint64(1)
    o, goal = crow[C_ORDER], crow[C_GOAL]
    nc = power.shape[1]
    n = trick.shape[0]
    n_in_trick = 0
    while n_in_trick < n and trick[n_in_trick] >= 0:
        n_in_trick += 1
    if goal == GOAL_NO_TRICKS or goal == GOAL_FEWEST_POINTS:
        return _avoiding_card(legal, hand, o, trick, n_in_trick, leader, rel, who_played,
                              suit, suit_mask, beat_mask)
    if n_in_trick == 0:
        # lead: a master trump (no higher trump unseen) draws trumps; else a plain-suit top card;
        # else the weakest card, keeping high trumps
        trumps = suit_mask[o, 0]
        best_trump = -1
        for c in range(nc):
            if (legal >> np.uint64(c)) & one and (trumps >> np.uint64(c)) & one:
                if best_trump < 0 or power[o, c, V_POWER] > power[o, best_trump, V_POWER]:
                    best_trump = c
        if best_trump >= 0:
            master = True
            for c in range(nc):
                if ((trumps >> np.uint64(c)) & one
                        and power[o, c, V_POWER] > power[o, best_trump, V_POWER]
                        and who_played[c] < 0 and not (hand >> np.uint64(c)) & one):
                    master = False
                    break
            if master:
                return best_trump
        top = 0.5 * TUNED_TRICKS / (nc // n)  # a plain suit's top card, at this deck's scale
        for c in range(nc):
            if ((legal >> np.uint64(c)) & one and suit[o, c] != 0
                    and power[o, c, V_POWER] >= top):
                return c
        return _pick(legal, o, power, nc, WEAKEST)
    led = 0
    w = 0
    wpos = 0
    pts = 0.0
    for i in range(n_in_trick):
        c = trick[i]
        pts += power[o, c, V_POINTS]
        led, w, wpos = play_to_trick(i, c, i, suit[o, c], beat_mask[o, led, w], led, w, wpos)
    wseat = after(leader, wpos, n)
    last = n_in_trick == n - 1
    beaters = legal & beat_mask[o, led, w]
    if rel[wseat] == 1 and (last or _is_master(w, o, led, hand, who_played, beat_mask)):
        if prm[P_SMEAR] > 0.5 and beaters == np.uint64(0):
            return _pick(legal, o, power, nc, RICHEST)
        return _pick(legal, o, power, nc, WEAKEST)
    if beaters != np.uint64(0):
        if last or pts >= 10 or rel[wseat] != 1:
            return _pick(beaters, o, power, nc, CHEAPEST)
    return _pick(legal, o, power, nc, WEAKEST)


@kernel_jit()
def _height(c, o, suit, suit_mask, beat_mask):
    """How many cards of c's suit (trumps too) c beats, and c itself: its height in it."""
    g = suit[o, c]
    return popcount(suit_mask[o, g] & ~beat_mask[o, g, c])


@kernel_jit()
def _extreme(mask, o, suit, suit_mask, beat_mask, highest):
    """The highest (or lowest) card of mask by its height in its suit (`_height`)."""
    best, best_h = -1, 0
    for c in range(suit.shape[1]):
        if (mask >> np.uint64(c)) & np.uint64(1):
            h = _height(c, o, suit, suit_mask, beat_mask)
            if best < 0 or (h > best_h if highest else h < best_h):
                best, best_h = c, h
    return best


@kernel_jit()
def _avoiding_card(legal, hand, o, trick, n_in_trick, leader, rel, who_played, suit, suit_mask,
                   beat_mask):
    """A card in a game played for no tricks (Null) or the fewest points (Ramsch). The side
    avoiding tricks (the declarer; in Ramsch every seat) ducks under the trick's winner with
    its highest card that does, wins a trick it must with its highest, and leads the card the
    most unseen cards of its suit can beat. The other side (no partner of the declarer's)
    plays low while he is still to play, ducks under him when he is winning, and otherwise
    sheds its highest cards, keeping low ones to lead under him."""
    n = trick.shape[0]
    avoider, decl = True, -1
    for s in range(n):
        if rel[s] == 1:
            avoider = False
        elif rel[s] == -1:
            decl = s
    if not avoider and decl < 0:
        avoider = True  # nobody known to avoid tricks: avoid them
    if n_in_trick == 0:
        if not avoider:
            return _extreme(legal, o, suit, suit_mask, beat_mask, False)
        unseen = np.uint64(0)
        for c in range(who_played.shape[0]):
            if who_played[c] < 0 and not (hand >> np.uint64(c)) & np.uint64(1):
                unseen |= np.uint64(1) << np.uint64(c)
        best, best_key = -1, -1
        for c in range(suit.shape[1]):
            if (legal >> np.uint64(c)) & np.uint64(1):
                g = suit[o, c]
                key = popcount(beat_mask[o, g, c] & suit_mask[o, g] & unseen)
                if key > best_key:
                    best, best_key = c, key
        return best
    led, w, wpos = 0, 0, 0
    for i in range(n_in_trick):
        c = trick[i]
        led, w, wpos = play_to_trick(i, c, i, suit[o, c], beat_mask[o, led, w], led, w, wpos)
    under = legal & ~beat_mask[o, led, w]
    if avoider:
        return _extreme(under if under else legal, o, suit, suit_mask, beat_mask, True)
    decl_played = (decl - leader) % n < n_in_trick
    if not decl_played:
        return _extreme(legal, o, suit, suit_mask, beat_mask, False)
    if after(leader, wpos, n) == decl and under:
        return _extreme(under, o, suit, suit_mask, beat_mask, True)
    return _extreme(legal, o, suit, suit_mask, beat_mask, True)


@kernel_jit()
def _is_master(w, o, led, hand, who_played, beat_mask):
    """No unseen card outside my hand can beat w."""
    m = beat_mask[o, led, w]
    for c in range(who_played.shape[0]):
        if (m >> np.uint64(c)) & np.uint64(1) and who_played[c] < 0 \
                and not (hand >> np.uint64(c)) & np.uint64(1):
            return False
    return True


WEAKEST, CHEAPEST, RICHEST = 0, 1, 2


@kernel_jit()
def _pick(mask, o, power, nc, how):
    """The card of mask that is weakest (power and points: what to throw away), cheapest
    (least power: how to win a trick) or richest (most points for least power: a smear)."""
    best = -1
    best_key = 0.0
    for c in range(nc):
        if (mask >> np.uint64(c)) & np.uint64(1):
            if how == WEAKEST:
                key = power[o, c, V_POWER] + power[o, c, V_POINTS] / 40.0
            elif how == CHEAPEST:
                key = power[o, c, V_POWER]
            else:
                key = 5 * power[o, c, V_POWER] - power[o, c, V_POINTS]
            if best < 0 or key < best_key:
                best, best_key = c, key
    return best


# ------------------------------------------------------------------------ the reference-engine bot


class HeuristicBot:
    name = "heuristic"
    summary = ("hand-written rules: bids and doubles by hand strength against thresholds, "
               "cards by simple play principles")
    Params = HeuristicParams
    kernel_kind = BOT_HEURISTIC  # runs in the batch kernel (heur_call, heur_card)

    def __init__(self, params: HeuristicParams, hand_seed: int, seat: int, rules=None):
        self.params = params
        self.seat = seat
        self.rules = rules
        self.prm = np.array(self.kernel_params(params), np.float64)

    @staticmethod
    def kernel_params(params: HeuristicParams) -> list[float]:
        p = params
        return [p.solo, p.du, p.cicha, p.double, p.redouble, p.team_double, p.smear]

    def _compiled(self):
        cr = compiled(self.rules)
        return (cr, *table(self.rules, "heuristic", lambda: heuristic_tables(cr)))

    def act(self, obs: Observation) -> str:
        cr, power, ctab = self._compiled()
        a = cr.tables
        index = cr.card_index
        K = len(cr.contract_names)
        dealt = card_mask(obs.dealt, index)
        imp, imp_decl, normal = _believed_no_bid(cr, obs, dealt)
        if obs.phase in ("talon", "declare") and obs.bid_value is not None:
            return self._by_value(obs, cr, power, ctab)
        if obs.phase == "talon":
            # the declarer's contract: the bid, or the no-bid contract his own hand gave him
            k = imp if obs.bid is None else cr.contract_names.index(obs.bid)
            return self._talon_action(obs, k, cr, power, ctab)
        # the cards it plays with: as dealt, and as the talon changed them (the kernel's)
        dealt = card_mask(obs.dealt + obs.talon_seen, index) & ~card_mask(obs.laid_away, index)
        if obs.phase == "auction" and cr.rules.auction.style == "value":
            codes = np.array([cr.call_names.index(c) for c in obs.legal_actions], np.int64)
            worth = best_worth(np.uint64(dealt), a, ctab, power, self.prm)
            return obs.legal_actions[heur_value_call(codes, len(codes), worth,
                                                     obs.bid_value or 0, a)]
        if obs.phase == "auction":
            codes = np.array([cr.call_names.index(c) for c in obs.legal_actions], np.int64)
            bid = -1 if obs.bid is None else cr.contract_names.index(obs.bid)
            bidder = -1 if obs.bidder is None else obs.bidder
            i = heur_call(codes, len(codes), dealt, obs.seat, bid, bidder, imp, imp_decl, K,
                          ctab, power, self.prm)
            return obs.legal_actions[i]
        n = a.n_seats
        who = np.full(len(cr.cards), -1, np.int64)
        for t in obs.tricks:
            for c, s in zip(t.cards, t.players(n)):
                who[index[c]] = s
        if obs.bid is not None:
            k, decl = cr.contract_names.index(obs.bid), obs.bidder
        elif imp_decl == obs.seat:
            k, decl = imp, imp_decl
        else:
            k, decl = normal, -1
        rel = np.zeros(n, np.int64)
        relations(rel, obs.seat, dealt, k, decl, ctab, a.c_team_cards.astype(np.int64), who)
        cur = obs.tricks[-1] if obs.tricks and obs.tricks[-1].winner is None else None
        trick = np.full(n, -1, np.int64)
        leader = obs.seat
        if cur is not None:
            leader = cur.leader
            for j, c in enumerate(cur.cards):
                trick[j] = index[c]
        legal = card_mask(obs.legal_actions, index)
        hand = card_mask(obs.hand, index)
        c = heur_card(np.uint64(legal), np.uint64(hand), ctab[k], trick, leader, rel, who, a.suit,
                      a.suit_mask, a.beat_mask, power, self.prm)
        return cr.cards[c]


    def _by_value(self, obs: Observation, cr, power, ctab) -> str:
        """Bid by value, the declarer's talon and declaration: he means to declare what his
        dealt hand is best worth (`heur_declare`), and declares what his cards then are."""
        a = cr.tables
        # as the kernel: what he means to declare is chosen among what he may declare in a
        # hand game, where he may play one; what he declares, among what his choice left
        hand_game = (obs.talon_taken is False if obs.phase == "declare"
                     else cr.rules.talon is not None and cr.rules.talon.pick_up == "declarer_may")
        names = cr.rules.declarable(obs.bid_value, hand_game)
        options = np.array([cr.contract_names.index(n) for n in names], np.int64)
        if obs.phase == "declare":
            hand = np.uint64(card_mask(obs.hand, cr.card_index))
            return names[heur_declare(hand, a, options, len(options), ctab, power, self.prm,
                                      True)]
        dealt = np.uint64(card_mask(obs.dealt, cr.card_index))
        meant = options[heur_declare(dealt, a, options, len(options), ctab, power, self.prm,
                                     False)]
        return self._talon_action(obs, int(meant), cr, power, ctab)

    def _talon_action(self, obs: Observation, k: int, cr, power, ctab) -> str:
        """Pick up or play hand (`heur_take`), then each card to lay away (`heur_lay`), in
        contract k."""
        a = cr.tables
        o, goal = ctab[k, 2], a.c_goal[k]
        if obs.legal_actions == (PICK_UP, HAND):
            take = heur_take(np.uint64(card_mask(obs.dealt, cr.card_index)), o, goal, power)
            return PICK_UP if take else HAND
        hand = np.uint64(card_mask(obs.hand, cr.card_index))
        return cr.cards[heur_lay(hand, o, goal, a.suit, a.suit_mask, a.beat_mask, power)]


def _believed_no_bid(cr: CompiledRules, obs: Observation, dealt: int) -> tuple[int, int, int]:
    """(the no-bid contract, its declarer) as this seat can tell from its own hand, and the
    unconditional no-bid contract (what everyone else believes: a normal game). The same rule
    as the kernel's: an alone contract listed before the unconditional one, that this seat's
    own hand makes it the player of."""
    rules = cr.rules
    pos = position_of(obs.seat, obs.dealer, cr.tables.n_seats)
    hand = rules.holding_of(obs.dealt)
    names = rules.auction.no_bid
    first_open = next(i for i, n in enumerate(names) if rules.contracts[n].eligible is None)
    normal = cr.contract_names.index(names[first_open])
    for name in names[:first_open]:
        c = rules.contracts[name]
        if c.team == "alone" and c.eligible.holds(hand, pos):
            return cr.contract_names.index(name), obs.seat, normal
    return normal, -1, normal
