"""pimc's worlds, compiled: deals of the cards a seat cannot see, uniform among the deals
consistent with everything it saw, and what the auction made of each.

What the seat saw: its own cards, the calls (who said what, in order), the contract the table
was shown (the bid in force, or a contract the deal made itself) and the cards played. The
cards played rule cards out for the seats that played them (`sampler.constraints`' reasoning,
through the same compiled `add_allowed`); each unseen card is then dealt to a seat with
probability proportional to the completions left (`sampler.count_completions`,
`sampler.deal_one`), so every deal consistent with the play is equally likely. A talon is one
more place to deal to, after the seats: its cards unseen by all but the declarer who laid them
away (they are known to him), and nothing played rules a card out of it. A deal is kept
if the public auction replays on it exactly (`loop.replay_auction`, the batch kernel's own
auction: every call legal for that seat in that deal, the same seat to speak next, or the
auction over when the play has begun, and the same contract shown; bid by value, the game
declared is the one shown), and if every card played was legal in it (`loop.cards_allowed`:
the called card's duties included); else it is drawn again, which keeps the draw uniform among
the deals consistent with both.

A decision's draws come from one state (the bot's seed and how much was public before it), so
a decision is reproducible; `pimc_kernel` reads the worlds.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE, ZERO, popcount
from ..engine.codes import REPLAY_CONTRADICTED, REPLAY_NEXT, REPLAY_OVER
from ..engine.draws import GOLDEN, STREAM, mix64
from ..engine.jit import kernel_jit
from ..engine.seats import after, seat_count
from ..engine.loop import cards_allowed, replay_auction, scratch_for
from ..engine.steps import called_card, duty_after_trick, play_to_trick
from .sampler import Constraints, add_allowed, count_completions, deal_one, needs_code


class ReplayLineup(NamedTuple):
    """The part of the kernel's `loop.Lineup` a replay of the auction reads: no bots, the
    public calls."""

    explore: np.ndarray  # no rows: nothing forced
    replay: np.ndarray  # [call] (seat, code)
    replay_out: np.ndarray  # how many; what the replay found, the seat to speak next


class ReplayScratch(NamedTuple):
    """The part of the kernel's `loop.Scratch` an auction reads and writes, for one deal (its
    fields named as there, and taken from `loop.scratch_for`)."""

    hands: np.ndarray
    elig: np.ndarray
    stack: np.ndarray
    calls: np.ndarray
    calls_tmp: np.ndarray
    double_seats: np.ndarray
    shown: np.ndarray


class ReplayOut(NamedTuple):
    """The part of the kernel's `loop.Outcomes` an auction writes: the calls of one deal."""

    calls: np.ndarray
    call_seat: np.ndarray
    ncalls: np.ndarray
    options: np.ndarray


class WorldScratch(NamedTuple):
    """The worlds of a decision and the room to draw them in."""

    hands: np.ndarray  # [world, seat] the cards dealt (the declarer's as the talon left them)
    talon: np.ndarray  # [world] the talon's cards (as the declarer laid them away)
    drawn: np.ndarray  # [1, seat + 1] a deal as drawn, the talon last
    contract: np.ndarray  # [world] the contract its auction made (-1: still going on)
    declarer: np.ndarray
    implied: np.ndarray  # [world] the contract if nobody bids, and its declarer
    implied_decl: np.ndarray
    known: np.ndarray  # [seat + 1] the cards known to have been dealt to it (the talon last)
    allowed: np.ndarray  # [seat + 1] the unseen cards it may hold
    need: np.ndarray  # [seat + 1] how many unseen cards it holds
    others: np.ndarray  # the other seats, then the talon if the rules deal one
    counts: np.ndarray  # room for what a deal has still to give each (`sampler.deal_one`)
    free: np.ndarray  # the unseen cards
    ways: np.ndarray  # [card, code] completions (`count_completions`)
    plays: np.ndarray  # the cards played, in order
    play_seats: np.ndarray  # who played each
    left: np.ndarray  # [seat] a world's cards while its play is replayed
    # what every world kept replays alike: the bid in force or contract shown, and its
    # declarer; how many doubles are said on it, by whom
    shown: np.ndarray
    doubles: np.ndarray
    double_seats: np.ndarray
    lineup: ReplayLineup
    scratch: ReplayScratch
    out: ReplayOut


def world_scratch(cr, n_worlds: int) -> WorldScratch:
    t = cr.tables
    nc, seats = cr.n_cards, t.n_seats
    hs = t.hand_size
    places = seats - 1 + (t.talon_size > 0)  # the other seats, and the talon
    rows = cr.max_calls + 1
    z = np.zeros
    lineup = ReplayLineup(z((0, 2), np.int64), z((rows, 2), np.int64), z(3, np.int64))
    full = scratch_for(t)  # (the kernel's own sizes)
    scratch = ReplayScratch(*(getattr(full, name) for name in ReplayScratch._fields))
    out = ReplayOut(z((1, rows), np.int16), z((1, rows), np.int8), z(1, np.int16),
                    z((0, rows), np.uint64))
    n = max(n_worlds, 1)
    return WorldScratch(z((n, seats), np.uint64), z(n, np.uint64), z((1, seats + 1), np.uint64),
                        z(n, np.int64), z(n, np.int64),
                        z(n, np.int64), z(n, np.int64), z(seats + 1, np.uint64),
                        z(seats + 1, np.uint64), z(seats + 1, np.int64), z(places, np.int64),
                        z(places, np.int64), z(nc, np.int64),
                        z((nc + 1, (max(hs, t.talon_size) + 1) ** (places - 1))),
                        z(nc, np.int64), z(nc, np.int64), z(seats, np.uint64), z(2, np.int64),
                        z(1, np.int64), z(max(t.n_chain, 1), np.int64), lineup, scratch,
                        out)


@kernel_jit(inline='always')
def decision_state(seed, seed_mix, seat, public):
    """The first draw state of a decision: from the hand's seed, the bot's seed (seed_mix: it
    times the golden ratio, mod 2**64), its seat and how many public actions came before
    (`sampler.decision_state` of `Stream(hand seed + seed mix, 20 + seat).next()`)."""
    state = mix64(np.uint64(seed) + seed_mix + np.uint64(20 + seat) * STREAM) + GOLDEN
    return mix64(state) ^ (np.uint64(public) * GOLDEN)


@kernel_jit(inline='always')
def _public_plays(ws, cards, played, leaders):
    """ws.plays, ws.play_seats: the cards played and who played each (tricks led by
    leaders[trick])."""
    n = ws.hands.shape[1]
    for i in range(played):
        ws.plays[i] = cards[i]
        ws.play_seats[i] = after(leaders[i // n], i % n, n)


@kernel_jit(inline='always')
def _constrain(t, ws, seat, own, laid, played, shown_bid):
    """What seat knows of the unseen cards (ws.known, free, allowed, need, others: the talon,
    if the rules deal one, is one more place, seat n, whose cards it knows only if it laid them
    away), under the card order of the bid shown or, with none, of every contract played when
    nobody bids (a card is ruled out only if every such order rules it out); returns (how many
    cards are unseen, how many places deal them)."""
    nc, n = t.n_cards, seat_count(t)
    for s in range(n + 1):
        ws.known[s] = ZERO
        ws.allowed[s] = ZERO
    for i in range(played):
        ws.known[ws.play_seats[i]] |= ONE << np.uint64(ws.plays[i])
    ws.known[seat] = own
    ws.known[n] = laid
    seen = ZERO
    for s in range(n + 1):
        seen |= ws.known[s]
    n_free = 0
    for c in range(nc):
        if not (seen >> np.uint64(c)) & ONE:
            ws.free[n_free] = c
            n_free += 1
    free = ~seen & ((ONE << np.uint64(nc)) - ONE) if nc < 64 else ~seen
    j = 0
    for s in range(n):
        ws.need[s] = 0 if s == seat else t.hand_size - popcount(ws.known[s])
        if s != seat:
            ws.others[j] = s
            j += 1
    ws.need[n] = t.talon_size - popcount(laid)
    if t.talon_size > 0:  # nothing played rules a card out of the talon
        ws.others[j] = n
        j += 1
        ws.allowed[n] = free
    if played < 2:  # nobody has followed a card yet: nothing is ruled out
        for s in range(n):
            ws.allowed[s] = free
    else:
        orders = ZERO
        if shown_bid >= 0:
            orders = ONE << np.uint64(t.c_order[shown_bid])
        else:
            for i in range(t.no_bid.shape[0]):
                orders |= ONE << np.uint64(t.c_order[t.no_bid[i]])
        for o in range(t.suit.shape[0]):
            if (orders >> np.uint64(o)) & ONE:
                add_allowed(ws.plays[:played], ws.play_seats[:played], free,
                            (t.suit[o], t.suit_mask[o], t.beat_mask[o]), t.follow_suit,
                            t.trump_when_void, t.must_beat, ws.allowed[:n])
    ws.allowed[seat] = ZERO
    return n_free, j


@kernel_jit(inline='always')
def _played_legally(t, ws, w, played, contract, declarer):
    """Whether every card played was legal in world w under its contract (the called card's
    duties included, until its suit is led)."""
    o = t.c_order[contract]
    n = seat_count(t)
    for s in range(n):
        ws.left[s] = ws.hands[w, s]
    called = -1
    if t.c_run_away[contract] > 0:
        called = called_card(t.c_team[contract], t.c_team_cards, contract, declarer, ws.left)
    called_suit = t.suit[o, called] if called >= 0 else -1
    led = wcard = wseat = 0
    for i in range(played):
        pos = i % n
        c = ws.plays[i]
        s = ws.play_seats[i]
        bit = ONE << np.uint64(c)
        if not cards_allowed(t, contract, ws.left[s], pos, led, wcard, called, called_suit) & bit:
            return False
        ws.left[s] &= ~bit
        led, wcard, wseat = play_to_trick(pos, c, s, t.suit[o, c], t.beat_mask[o, led, wcard],
                                          led, wcard, wseat)
        if pos == n - 1:
            called_suit = duty_after_trick(called_suit, led)
            if called_suit < 0:
                called = -1
    return True


@kernel_jit()
def keep_world(t, ws, w, dealer, to_speak, shown, played):
    """Whether world w explains what the seat saw (to_speak: the seat the table saw to speak
    next, -1 once the play has begun); its reading of the auction into ws. (Compiled once, for
    calls and cards alike.)"""
    sc = ws.scratch
    for s in range(seat_count(t)):
        sc.hands[s] = ws.hands[w, s]
    found, speaker, contract, declarer, imp, imp_decl, nd = replay_auction(t, ws.lineup, sc,
                                                                           ws.out, dealer)
    if found == REPLAY_CONTRADICTED:
        return False
    if found == REPLAY_NEXT and speaker != to_speak:
        return False
    if found == REPLAY_OVER and contract < 0 and declarer >= 0:  # bid by value: the game
        if declarer != shown[1]:  # declared after the talon is the one shown, by him
            return False
        contract = shown[0]
        sc.shown[0], sc.shown[1] = shown[0], shown[1]
    if found == REPLAY_OVER and (to_speak >= 0 or sc.shown[0] != shown[0]
                                 or sc.shown[1] != shown[1]):
        return False
    if played > 0 and not _played_legally(t, ws, w, played, contract, declarer):
        return False
    ws.contract[w], ws.declarer[w] = contract, declarer
    ws.implied[w], ws.implied_decl[w] = imp, imp_decl
    # public, the same in every world kept: the bid in force (or contract shown), the doubles
    ws.shown[0], ws.shown[1] = sc.shown[0], sc.shown[1]
    ws.doubles[0] = nd
    for i in range(nd):
        ws.double_seats[i] = sc.double_seats[i]
    return True


@kernel_jit()
def draw_worlds(t, ws, view, n, state, max_draws):
    """Draws up to n worlds into ws (fewer only if max_draws draws found no more) that explain
    what the seat saw (view: a `botcalls.SeatView`), from the draw state given. Returns how
    many."""
    seat, dealer, ncalls, played = view.seat, view.dealer, view.ncalls, view.played
    state = np.uint64(state)  # (given as a Python int, a state is an int64: uint64 arithmetic)
    _public_plays(ws, view.cards, played, view.leaders)
    n_free, places = _constrain(t, ws, seat, view.own, view.laid, played, view.shown[0])
    free = ws.free[:n_free]
    others = ws.others[:places]
    count_completions(free, ws.allowed, others, ws.need, ws.ways)
    if ws.ways[0, needs_code(ws.need, others)] == 0.0:
        return 0
    for i in range(ncalls):
        ws.lineup.replay[i, 0] = view.call_seats[i]
        ws.lineup.replay[i, 1] = view.calls[i]
    ws.lineup.replay_out[0] = ncalls
    cons = Constraints(seat, dealer, ws.known, free, ws.allowed, ws.need, others,
                       ws.counts[:places])
    n_seats = seat_count(t)
    filled = 0
    draws = 0
    while filled < n and draws < max_draws:
        draws += 1
        for s in range(n_seats + 1):
            ws.drawn[0, s] = ws.known[s]
        state = deal_one(cons, ws.ways, state, ws.drawn, np.int64(0))
        for s in range(n_seats):
            ws.hands[filled, s] = ws.drawn[0, s]
        ws.talon[filled] = ws.drawn[0, n_seats]
        if keep_world(t, ws, np.int64(filled), dealer, view.to_speak, view.shown, played):
            filled += 1
    return filled
