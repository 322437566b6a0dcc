"""What the `learnt` bot reads of a decision: features of a seat's view, from the compiled ruleset.

One row of numbers per legal action: the decision's context (the same for every action), then
the action's own. Everything is measured in the ruleset's own terms (its contracts, card orders,
suit groups, card points, doubling chain), so a ruleset a user writes trains without code. The
input is a `botcalls.SeatView` — the seat's own cards, the calls, the contract shown, the cards
played and who led and took each trick — so no feature can read a hidden card.

A hand is summed up in a card order (`_hand`): its trumps, which of the `RANKS` highest trumps
it holds, its card points, and for each other suit group its length, whether it holds the
group's highest card, whether it is void.

A call (`call_features`): the seat's position, how far the auction is, the bid in force and
who bid it (counted from the seat), the doubles said and who said the last, who has passed, the
hand in every card order of the ruleset; then the call's code and, for a bid, the hand in the
bid contract's order.

A card (`card_features`): the contract shown and its declarer, the doubles, the trick's number,
the seat's place in it, the suit led, who wins it so far and its points, what each seat has
taken, where each of the contract's team cards is (held, played by whom), what is still out in
each suit group and which high trumps, the voids the others have shown, the seat's hand in the
contract's order; then the card: its suit group, trump rank, points, whether nothing unseen
beats it, whether it takes the trick as it stands, its place among the seat's cards of its
suit group, and how many of the group's cards rank above it (all, and those still out).

Seats are counted from the deciding seat, round a table of the ruleset's `n_seats`; a hand's
share of the cards and points is scaled so that an even share is 1 at any table. The sizes
follow from the ruleset's tables (`feature_sizes`). The functions are compiled
without reference counting, as the kernel is: the batch kernel's learnt kind and the reference
engine's bot call the same code.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE, ZERO, lowbit_index, popcount
from ..rules.codes import CALL_BID
from ..engine.jit import kernel_jit
from ..engine.seats import after, before
from ..engine.steps import trick_so_far

RANKS = 8  # the highest trumps a hand summary tells apart


class FeatureSizes(NamedTuple):
    hand: int  # one hand summary
    call_context: int
    call_action: int
    card_context: int
    card_action: int

    @property
    def call(self) -> int:
        return self.call_context + self.call_action

    @property
    def card(self) -> int:
        return self.card_context + self.card_action


class FeatureTables(NamedTuple):
    """The few rule tables the features read: what a decision of the kernel's learnt kind is
    handed in place of all the ruleset's tables, whose passing cost more than the features;
    and two the features would otherwise work out at every decision."""

    n_seats: int
    n_cards: int
    n_chain: int
    suit: np.ndarray
    suit_mask: np.ndarray
    beat_mask: np.ndarray
    trump_rank: np.ndarray
    card_points: np.ndarray
    c_order: np.ndarray
    c_team: np.ndarray
    c_team_cards: np.ndarray
    group_top: np.ndarray  # int64 [order, suit group] its highest card, -1 if it has none
    total_points: float  # the deck's card points


def feature_tables(t) -> FeatureTables:
    """The tables the features read, of t (a ruleset's RuleTables)."""
    n_orders, n_suits = t.suit_mask.shape
    top = np.full((n_orders, n_suits), -1, np.int64)
    for o in range(n_orders):
        for s in range(n_suits):
            group = int(t.suit_mask[o, s])
            for c in range(t.n_cards):
                if group >> c & 1 and not int(t.beat_mask[o, s, c]) & group:
                    top[o, s] = c
                    break
    total = 0.0
    for c in range(t.n_cards):  # summed in card order, as a compiled loop would
        total += float(t.card_points[c])
    return FeatureTables(*(getattr(t, f) for f in FeatureTables._fields[:-2]), top, total)


def feature_sizes(t) -> FeatureSizes:
    """The sizes of a ruleset's feature rows (t: its RuleTables)."""
    n_orders, n_suits = t.suit_mask.shape
    n_k, n = t.c_team.shape[0], t.n_seats
    hs = t.n_cards // n
    hand = 2 + RANKS + 3 * (n_suits - 1)
    n_codes = call_codes.py_func(t)  # (plain Python here: no build for RuleTables)
    # position, calls, bid, bidder, doubles, the last doubler, who passed; the hand per order
    call_context = (n + 1 + (n_k + 1) + (n + 1) + (t.n_chain + 1) + (n + 1) + n
                    + n_orders * hand)
    team = t.c_team_cards.shape[1]
    # contract, declarer, doubles, trick, place, suit led, who wins it, its points, taken; the
    # team cards; what is out, high trumps out, the others' voids; the hand
    card_context = ((n_k + 1) + (n + 1) + (t.n_chain + 1) + hs + n + (n_suits + 1) + (n + 1)
                    + 1 + 2 * n + (1 + n) * team + n_suits + RANKS + (n - 1) * n_suits + hand)
    card_action = n_suits + RANKS + 1 + 1 + 1 + 1 + 3 + 2
    return FeatureSizes(hand, call_context, n_codes + hand, card_context, card_action)


# ---------------------------------------------------------------------------------- helpers


@kernel_jit(inline='always')
def _one_hot(x, at, i, n):
    """x[at + i] = 1 for 0 <= i < n; x[at + n] = 1 (the 'none' slot) otherwise. Returns the
    offset after the n + 1 slots."""
    if 0 <= i < n:
        x[at + i] = 1.0
    else:
        x[at + n] = 1.0
    return at + n + 1


@kernel_jit(inline='always')
def _hand(t, o, h, x, at):
    """The summary of hand h (a card mask) in order o into x[at:]; returns the offset after."""
    hs = t.n_cards // t.n_seats
    x[at] = popcount(h & t.suit_mask[o, 0]) / hs
    points = 0.0
    rest = h
    while rest:  # the hand's cards, lowest first
        c = lowbit_index(rest)
        rest &= rest - ONE
        points += t.card_points[c]
        r = t.trump_rank[o, c]
        if 0 <= r < RANKS:
            x[at + 1 + r] = 1.0
    x[at + 1 + RANKS] = points / max(t.total_points, 1.0) * t.n_seats
    at += 2 + RANKS
    for s in range(1, t.suit_mask.shape[1]):
        n = popcount(h & t.suit_mask[o, s])
        top = t.group_top[o, s]
        x[at] = n / hs
        x[at + 1] = 1.0 if top >= 0 and (h >> np.uint64(top)) & ONE else 0.0
        x[at + 2] = 1.0 if n == 0 else 0.0
        at += 3
    return at


@kernel_jit(inline='always')
def _gone(view):
    """The cards played so far."""
    g = ZERO
    for i in range(view.played):
        g |= ONE << np.uint64(view.cards[i])
    return g


@kernel_jit(inline='always')
def _doubles(t, view):
    """(doubles said on the bid in force, that is since the last bid; the seat of the last
    one, or -1)."""
    first = CALL_BID + t.c_team.shape[0]
    n, last = 0, -1
    for i in range(view.ncalls):
        if view.calls[i] >= first:
            n += 1
            last = view.call_seats[i]
        elif view.calls[i] >= CALL_BID:
            n, last = 0, -1
    return n, last


@kernel_jit(inline='always')
def _bid_in_force(t, view):
    """(the contract of the last bid, its bidder), (-1, -1) before any: read from the calls,
    since the kernel's view shows a contract only once the auction is over."""
    n_k = t.c_team.shape[0]
    k, bidder = -1, -1
    for i in range(view.ncalls):
        c = view.calls[i]
        if CALL_BID <= c < CALL_BID + n_k:
            k, bidder = c - CALL_BID, view.call_seats[i]
    return k, bidder


# ------------------------------------------------------------------------------------ calls


@kernel_jit(inline='always')
def call_public(t, view, x):
    """The call decision's context but the seat's hand (what the auction has shown) into x;
    returns the offset after it, where the hand's summaries follow (x zeroed by the caller)."""
    seat, n = view.seat, t.n_seats
    n_k = t.c_team.shape[0]
    at = _one_hot(x, 0, before(seat, after(view.dealer, 1, n), n), n) - 1
    x[at] = min(view.ncalls, 16) / 16.0
    bid, bidder = _bid_in_force(t, view)
    at = _one_hot(x, at + 1, bid, n_k)
    at = _one_hot(x, at, before(bidder, seat, n) if bidder >= 0 else -1, n)
    nd, last = _doubles(t, view)
    at = _one_hot(x, at, min(nd, t.n_chain), t.n_chain + 1) - 1
    at = _one_hot(x, at, before(last, seat, n) if last >= 0 else -1, n)
    for i in range(view.ncalls):
        if view.calls[i] == 0:
            x[at + before(view.call_seats[i], seat, n)] = 1.0
    return at + n


@kernel_jit(inline='always')
def call_context(t, view, x):
    """The call decision's context into x[:call_context] (x zeroed by the caller): what the
    auction has shown, then the hand in each card order."""
    at = call_public(t, view, x)
    for o in range(t.suit_mask.shape[0]):
        at = _hand(t, o, view.own, x, at)
    return at


@kernel_jit(inline='always')
def call_action(t, view, code, x, at):
    """The call `code`'s own features into x[at:] (zeroed by the caller): the code, then for a
    bid the hand in the bid contract's order (`call_order`)."""
    x[at + code] = 1.0
    at += call_codes(t)
    o = call_order(t, code)
    if o >= 0:
        at = _hand(t, o, view.own, x, at)
    return at


@kernel_jit(inline='always')
def call_codes(t):
    """How many call codes a call's one-hot code takes (pass, ask, a bid of each contract, each
    double of the chain): after them, a bid's hand summary."""
    return CALL_BID + t.c_team.shape[0] + t.n_chain


@kernel_jit(inline='always')
def call_order(t, code):
    """The card order of the contract a call bids; -1 for a call that bids none."""
    n_k = t.c_team.shape[0]
    return t.c_order[code - CALL_BID] if CALL_BID <= code < CALL_BID + n_k else -1


@kernel_jit(inline='always')
def hand_summary(t, o, h, x):
    """The summary of hand h in order o into x[:hand] (x zeroed by the caller)."""
    _hand(t, o, h, x, 0)


@kernel_jit()
def call_features(t, view, legal, m, x):
    """x[j]: the features of the call legal[j], j < m (x zeroed by the caller; t: the
    ruleset's `feature_tables`)."""
    n = call_context(t, view, x[0])
    for j in range(1, m):
        for i in range(n):
            x[j, i] = x[0, i]
    for j in range(m):
        call_action(t, view, legal[j], x[j], n)


# ------------------------------------------------------------------------------------ cards


@kernel_jit(inline='always')
def _contract(t, view):
    """The contract the play is in (shown; 0 if none is shown) and its order."""
    k = view.shown[0] if view.shown[0] >= 0 else 0
    return k, t.c_order[k]


@kernel_jit(inline='always')
def _trick_so_far(t, view, o):
    """(suit led or -1, winning card, its seat, points) of the open trick."""
    n = t.n_seats
    count = view.played % n
    led, w, wseat, pts, _ = trick_so_far(view.cards, view.played - count, count,
                                         np.int64(view.leaders[view.played // n]), n, o, t.suit,
                                         t.beat_mask, t.card_points)
    return (led if count else -1), w, wseat, pts


@kernel_jit(inline='always')
def card_situation(t, view):
    """What the features of a card decision share, worked out once: (the contract, its order,
    the cards played, the seat's cards left, the cards it has not seen, and of the open trick
    the suit led or -1, the winning card, its seat and the points in it)."""
    k, o = _contract(t, view)
    gone = _gone(view)
    unseen = ~(view.own | gone) & ((ONE << np.uint64(t.n_cards)) - ONE)
    led, w, wseat, pts = _trick_so_far(t, view, o)
    return k, o, gone, view.own & ~gone, unseen, led, w, wseat, pts


@kernel_jit(inline='always')
def _taken(t, view, x, at, seat):
    """Points and tricks each seat (counted from this one) took in the finished tricks."""
    n = t.n_seats
    hs = t.n_cards // n
    for tr in range(view.played // n):
        r = before(view.winners[tr], seat, n)
        x[at + n + r] += 1.0 / hs
        for i in range(n):
            x[at + r] += t.card_points[view.cards[n * tr + i]] / max(t.total_points, 1.0)
    return at + 2 * n


@kernel_jit(inline='always')
def _team_cards(t, view, k, gone, x, at, seat):
    """Each team card of contract k: held by the seat, or played by whom (counted from it)."""
    n = t.n_seats
    for i in range(t.c_team_cards.shape[1]):
        c = t.c_team_cards[k, i]
        if c >= 0:
            if (view.own >> np.uint64(c)) & ONE:
                x[at] = 1.0
            if (gone >> np.uint64(c)) & ONE:
                for p in range(view.played):
                    if view.cards[p] == c:
                        x[at + 1 + before(after(view.leaders[p // n], p % n, n), seat, n)] = 1.0
        at += 1 + n
    return at


@kernel_jit(inline='always')
def _out_and_voids(t, view, o, unseen, x, at, seat):
    """What is out in each suit group, which high trumps; the voids the others showed."""
    n_suits, n = t.suit_mask.shape[1], t.n_seats
    hs = t.n_cards // n
    for s in range(n_suits):
        x[at + s] = popcount(unseen & t.suit_mask[o, s]) / hs
    at += n_suits
    rest = unseen
    while rest:
        c = lowbit_index(rest)
        rest &= rest - ONE
        r = t.trump_rank[o, c]
        if 0 <= r < RANKS:
            x[at + r] = 1.0
    at += RANKS
    for tr in range((view.played + n - 1) // n):
        led = t.suit[o, view.cards[n * tr]]
        for i in range(1, min(n, view.played - n * tr)):
            r = before(after(view.leaders[tr], i, n), seat, n)
            if r and t.suit[o, view.cards[n * tr + i]] != led:
                x[at + (r - 1) * n_suits + led] = 1.0
    return at + (n - 1) * n_suits


@kernel_jit(inline='always')
def card_context(t, view, sit, x):
    """The card decision's context into x[:card_context] (x zeroed by the caller; sit: its
    `card_situation`)."""
    seat, n = view.seat, t.n_seats
    n_k = t.c_team.shape[0]
    hs = t.n_cards // n
    k, o, gone, hand, unseen, led, w, wseat, pts = sit
    at = _one_hot(x, 0, view.shown[0], n_k)
    decl = view.shown[1]
    at = _one_hot(x, at, before(decl, seat, n) if decl >= 0 else -1, n)
    nd, _ = _doubles(t, view)
    at = _one_hot(x, at, min(nd, t.n_chain), t.n_chain + 1) - 1
    at = _one_hot(x, at, view.played // n, hs) - 1
    at = _one_hot(x, at, view.played % n, n) - 1
    at = _one_hot(x, at, led, t.suit_mask.shape[1])
    at = _one_hot(x, at, before(wseat, seat, n) if led >= 0 else -1, n)
    x[at] = pts / max(t.total_points, 1.0) * hs
    at = _taken(t, view, x, at + 1, seat)
    at = _team_cards(t, view, k, gone, x, at, seat)
    at = _out_and_voids(t, view, o, unseen, x, at, seat)
    return _hand(t, o, hand, x, at)


@kernel_jit(inline='always')
def card_action(t, sit, card, x, at):
    """The card's own features into x[at:] (zeroed by the caller; sit: the decision's
    `card_situation`): those of the card in the contract's order alone (`card_static`), then
    those of the play so far (`card_dynamic`)."""
    card_static(t, sit[1], card, x, at)
    return card_dynamic(t, sit, card, x, at)


@kernel_jit(inline='always')
def card_static(t, o, card, x, at):
    """The features of a card that depend on the card order o alone, into their slots of
    x[at:] (`card_action`'s layout): its suit group, trump rank, points, and how many of its
    group rank above it."""
    s = t.suit[o, card]
    n_suits = t.suit_mask.shape[1]
    x[at + s] = 1.0
    at += n_suits
    r = t.trump_rank[o, card]
    if 0 <= r < RANKS:
        x[at + r] = 1.0
    at += RANKS
    x[at] = t.card_points[card] / 11.0
    above = t.beat_mask[o, s, card] & t.suit_mask[o, s]
    x[at + 7] = popcount(above) / (t.n_cards // t.n_seats)


@kernel_jit(inline='always')
def card_dynamic(t, sit, card, x, at):
    """The features of a card that depend on the play so far, into their slots of x[at:]
    (`card_action`'s layout); returns the offset after the card's features."""
    k, o, gone, hand, unseen, led, w, wseat, pts = sit
    s = t.suit[o, card]
    at += t.suit_mask.shape[1] + RANKS
    x[at + 1] = 1.0 if not (t.beat_mask[o, s, card] & unseen) else 0.0
    if led < 0:
        x[at + 2] = x[at + 1]
    else:
        x[at + 2] = 1.0 if (t.beat_mask[o, led, w] >> np.uint64(card)) & ONE else 0.0
    mine = hand & t.suit_mask[o, s]
    x[at + 3] = popcount(mine) / (t.n_cards // t.n_seats)
    x[at + 4] = 1.0 if not (t.beat_mask[o, s, card] & mine) else 0.0  # my highest of it
    x[at + 5] = 1.0 if not (mine & ~t.beat_mask[o, s, card] & ~(ONE << np.uint64(card))) \
        else 0.0  # my lowest of it
    x[at + 6] = 1.0 if popcount(mine) == 1 else 0.0
    # of the group's cards above it, those still out
    above = t.beat_mask[o, s, card] & t.suit_mask[o, s]
    x[at + 8] = popcount(above & unseen) / (t.n_cards // t.n_seats)
    return at + 9


@kernel_jit()
def card_features(t, view, legal, m, x):
    """x[j]: the features of playing card legal[j], j < m (x zeroed by the caller; t: the
    ruleset's `feature_tables`)."""
    sit = card_situation(t, view)
    n = card_context(t, view, sit, x[0])
    for j in range(1, m):
        for i in range(n):
            x[j, i] = x[0, i]
    for j in range(m):
        card_action(t, sit, legal[j], x[j], n)
