"""Worlds for pimc: deals of the cards one seat cannot see, uniform among the deals consistent
with everything that seat saw.

What the seat saw splits in two:
- the play: each seat's number of cards and the cards it played, and what each card shows it
  could not hold (`Constraints.allowed`): a card x was not in a seat's hand if holding it would
  have made the card it played illegal (failing to follow, to trump or to beat). Legality under
  `allowed_cards` is by tiers (beating the suit led, the suit led, beating trumps, ...: a card may
  be played unless the hand holds a card of a higher tier), so a card x is ruled out exactly when
  the two-card hand {played card, x} forbids the played card;
- the auction: every call was legal. Whether a call is legal depends on the hands only through
  which seats meet which predicate (contract eligibility, restriction holdings) and, where a
  double's legality asks who is on which side, through the sides the cards make (the holders
  of the team cards, the declarer's called partner: `sided_contracts`). So a deal's predicates
  and sides, as one integer key (`_predicate_key`), decide whether the auction replays on it,
  and, if nobody bid, which contract it makes. pimc asks the reference engine once per key.

`Constraints` is built once per decision. The compiled `sample_worlds` then deals the unseen cards
card by card, each to a seat with probability proportional to the number of consistent completions
(counted once per decision, `count_completions`), so every deal consistent with the play is equally
likely; deals whose predicate key is known to contradict the auction are redrawn, which keeps the
draw uniform among the deals consistent with both.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..engine.bits import ONE, ZERO, allowed_cards
from ..engine.draws import GOLDEN, mix64
from ..engine.jit import kernel_jit
from ..engine.seats import after, before
from ..engine.reference import Deal, IllegalAction, Observation, State
from ..rules.codes import TEAM_CALLED, TEAM_HOLDERS
from ..engine.steps import (called_card, duty_after_trick, eval_pred, form_teams,
                            laufende_value, legal_play, play_to_trick)
from ..rules.cache import table
from ..rules.compile import CompiledRules

U11 = np.uint64(11)
TWO_POW_53 = float(2 ** 53)


class Constraints(NamedTuple):
    """What one seat knows of the deal, as arrays for the compiled sampler."""

    seat: int
    dealer: int
    known: np.ndarray  # uint64[seat]: cards known to have been dealt to it (own: all; else played)
    free: np.ndarray  # int64[i]: the unseen cards, to deal
    allowed: np.ndarray  # uint64[seat]: the unseen cards it may hold
    need: np.ndarray  # int64[seat]: how many unseen cards it holds
    others: np.ndarray  # int64[seats - 1]: the other seats
    counts: np.ndarray  # int64[seats - 1]: room for what a deal has still to give each of them


class Predicates(NamedTuple):
    """What the legality of a call reads in the hands: the predicate programs of `RuleTables`
    (contract eligibility, restriction holdings), and the contracts whose sides, which their
    cards make, decide whether a seat may double (`sided`)."""

    p_op: np.ndarray
    p_mask: np.ndarray
    p_a: np.ndarray
    p_b: np.ndarray
    p_start: np.ndarray
    p_end: np.ndarray
    stack: np.ndarray  # scratch for the programs
    sided: np.ndarray  # int64[i]: a contract index
    c_team: np.ndarray
    c_team_mask: np.ndarray
    c_team_cards: np.ndarray


def predicates(cr: CompiledRules) -> Predicates:
    t = cr.tables
    return table(cr.rules, "sampler predicates", lambda: Predicates(
        t.p_op, t.p_mask, t.p_a, t.p_b, t.p_start, t.p_end,
        np.zeros(max(int(t.pred_stack), 1), np.bool_), sided_contracts(cr), t.c_team,
        t.c_team_mask, t.c_team_cards))


def sided_contracts(cr: CompiledRules) -> np.ndarray:
    """The contracts whose old side, made by the cards (their holders, or the declarer's called
    partner), a double's legality depends on: when only the young side may say the first
    double, or a side may not double its own side's double."""
    t = cr.tables
    by_cards = (TEAM_HOLDERS, TEAM_CALLED)
    return np.array([k for k in range(len(cr.contract_names)) if t.c_team[k] in by_cards
                     and (t.c_first_double_young[k] or t.forbid_own_double)], np.int64)


def plays_of(obs: Observation, index: dict[str, int]) -> tuple[np.ndarray, np.ndarray]:
    """(card, seat) of every card played so far, in order."""
    cards, seats = [], []
    for t in obs.tricks:
        cards += [index[c] for c in t.cards]
        seats += t.players(obs.seats)
    return np.array(cards, np.int64), np.array(seats, np.int64)


def constraints(cr: CompiledRules, obs: Observation, orders: list[int]) -> Constraints:
    """The constraints of obs's seat on the unseen cards, under the card orders of every contract
    the hand may be played in (a card is ruled out for a seat only if every order rules it out)."""
    index = cr.card_index
    cards, seats = plays_of(obs, index)
    n = cr.tables.n_seats
    known = np.zeros(n, np.uint64)
    for c, s in zip(cards.tolist(), seats.tolist()):
        known[s] |= np.uint64(1 << c)
    own = 0
    for c in obs.dealt:
        own |= 1 << index[c]
    known[obs.seat] = np.uint64(own)
    seen = own
    for k in known.tolist():
        seen |= int(k)
    free_mask = ((1 << cr.n_cards) - 1) & ~seen
    per_seat = cr.n_cards // n
    need = np.array([0 if s == obs.seat else per_seat - bin(int(known[s])).count("1")
                     for s in range(n)], np.int64)
    allowed = np.zeros(n, np.uint64)
    p = cr.rules.play
    if cards.shape[0] < 2:  # nobody has followed a card yet: nothing is ruled out
        allowed[:] = np.uint64(free_mask)
    else:
        for o in orders:
            add_allowed(cards, seats, np.uint64(free_mask), _order_arrays(cr, o),
                        p.follow_suit, p.trump_when_void, p.must_beat, allowed)
    allowed[obs.seat] = ZERO
    others = np.array([s for s in range(n) if s != obs.seat], np.int64)
    free = np.array([c for c in range(cr.n_cards) if (free_mask >> c) & 1], np.int64)
    return Constraints(obs.seat, obs.dealer, known, free, allowed, need, others,
                       np.zeros(others.shape[0], np.int64))


def _order_arrays(cr: CompiledRules, o: int):
    t = cr.tables
    return table(cr.rules, ("sampler order", o),
                 lambda: (np.ascontiguousarray(t.suit[o], np.int64),
                          np.ascontiguousarray(t.suit_mask[o]),
                          np.ascontiguousarray(t.beat_mask[o])))


@kernel_jit()
def add_allowed(cards, seats, free, order, follow, trump_void, must_beat, allowed):
    """Adds to allowed[seat] (a mask a seat of the table) the unseen cards (free) each seat may
    hold after playing cards[i] (by seats[i]) in tricks of a card a seat from the first, under
    one card order (suit, suit masks, beating cards): a card is ruled out when holding it
    beside the card played would have made that card illegal (see the module docstring)."""
    for s in range(allowed.shape[0]):
        allowed[s] |= free & ~_ruled_out(cards, seats, s, allowed.shape[0], free, order,
                                         follow, trump_void, must_beat)


@kernel_jit(inline='always')
def _ruled_out(cards, seats, seat, n_seats, free, order, follow, trump_void, must_beat):
    """The unseen cards (free) that the cards seat played show it did not hold."""
    suit, suit_mask, beat = order
    ruled_out = ZERO
    led = wcard = wseat = 0
    for i in range(cards.shape[0]):
        pos = i % n_seats
        c = cards[i]
        bit = ONE << np.uint64(c)
        s = seats[i]
        if pos > 0 and s == seat:
            m = free
            while m:
                xb = m & (~m + ONE)
                m ^= xb
                ok = allowed_cards(bit | xb, pos, suit_mask[led], suit_mask[0], beat[led, wcard],
                                   follow, trump_void, must_beat)
                if not ok & bit:
                    ruled_out |= xb
        led, wcard, wseat = play_to_trick(pos, c, s, suit[c], beat[led, wcard], led, wcard, wseat)
    return ruled_out


@kernel_jit(inline='always')
def duties_kept(cards, who, n, holder, hand, called, o, suit, suit_mask, beat, play, run_away):
    """Whether seat `holder`, dealt `hand` with the called card in it, kept the card's duties
    in the first n cards played (cards[i]; who[card]: the seat that played it) in card order o
    (suit, suit_mask, beat: RuleTables' suit, suit_mask, beat_mask; play: follow suit, trump
    when void, must beat, the table's seats): each of its cards is one `called_card_duties`
    allows, until a finished trick was led in the called card's suit. (Its cards are known to
    follow the other rules.)"""
    duty = suit[o, called]
    mask = suit_mask[o, duty]
    n_seats = play[3]
    led = w = 0
    for i in range(n):
        pos = i % n_seats
        c = cards[i]
        s = who[c]
        if s == holder:
            ok = legal_play(hand, pos, suit_mask[o, led], suit_mask[o, 0], beat[o, led, w], play,
                            led == duty, called, mask, run_away)
            if not ok >> np.uint64(c) & ONE:
                return False
            hand &= ~(ONE << np.uint64(c))
        led, w, _ = play_to_trick(pos, c, s, suit[o, c], beat[o, led, w], led, w, s)
        if pos == n_seats - 1 and duty_after_trick(duty, led) < 0:
            return True  # the suit has been led: the duties are over
    return True


# --------------------------------------------------------------------------- counting and drawing
# The completions are counted by how many unseen cards each other seat still takes: the counts
# of all but the last other seat, as one code in mixed radix (the j-th seat's count times
# `_stride(need, others, j)`); the last seat takes what is left.


@kernel_jit(inline='always')
def _stride(need, others, j):
    """The step of the j-th other seat's count in a completion code (j = len(others) - 1: the
    number of codes)."""
    stride = 1
    for i in range(j):
        stride *= need[others[i]] + 1
    return stride


@kernel_jit(inline='always')
def needs_code(need, others):
    """The completion code of every other seat's need (where a deal starts)."""
    code = 0
    for j in range(others.shape[0] - 1):
        code += need[others[j]] * _stride(need, others, j)
    return code


def completion_codes(need, others) -> int:
    """The number of completion codes (`count_completions`' second axis)."""
    return int(np.prod([int(need[o]) + 1 for o in others[:-1]]))


@kernel_jit()
def count_completions(free, allowed, others, need, ways):
    """ways[i, code]: the number of ways to deal the unseen cards free[i:] so that the other
    seats but the last get the counts of the code (see above) and the last the rest, each only
    cards it may hold (ways: float64, at least (len(free) + 1, `completion_codes`))."""
    n = free.shape[0]
    for code in range(ways.shape[1]):
        ways[n, code] = 0.0
    ways[n, 0] = 1.0
    n_codes = _stride(need, others, others.shape[0] - 1)
    for i in range(n - 1, -1, -1):
        digits = 0  # the code's counts, a byte each, counted up with it (no division)
        for code in range(n_codes):
            ways[i, code] = _ways_at(ways, i, code, digits, n - i, free, allowed, others, need)
            digits = _next_digits(digits, need, others)


@kernel_jit(inline='always')
def _next_digits(digits, need, others):
    """The counts of the next completion code, a byte a seat (a hand holds fewer than 256
    cards): the first count below its seat's need goes up, those before it back to 0."""
    for j in range(others.shape[0] - 1):
        shift = 8 * j
        if (digits >> shift) & 255 < need[others[j]]:
            return digits + (1 << shift)
        digits &= ~(255 << shift)
    return digits


@kernel_jit(inline='always')
def _ways_at(ways, i, code, digits, left, free, allowed, others, need):
    """The completions of free[i:] from the counts of the code (digits: those counts, a byte
    each; left: the cards to deal): each other seat in turn taking free[i], in seat order (the
    sums `deal_one` draws by)."""
    bit = ONE << np.uint64(free[i])
    m = others.shape[0]
    w = 0.0
    stride = 1
    taken = 0
    for j in range(m - 1):
        x = (digits >> (8 * j)) & 255
        taken += x
        if x > 0 and allowed[others[j]] & bit:
            w += ways[i + 1, code - stride]
        stride *= need[others[j]] + 1
    z = left - taken  # the last seat's count
    if z < 0 or z > need[others[m - 1]]:
        return 0.0
    if z > 0 and allowed[others[m - 1]] & bit:
        w += ways[i + 1, code]
    return w


@kernel_jit(inline='always')
def _uniform(state):
    """(a uniform float in [0, 1), the next state): one SplitMix64 step."""
    state = state + GOLDEN
    return np.float64(mix64(state) >> U11) / TWO_POW_53, state


@kernel_jit(inline='always')
def deal_one(cons, ways, state, out, w):
    """Deals the unseen cards into row w of out (which holds the known cards already), each
    deal consistent with the play equally likely; returns the next state. Each card goes to
    the first other seat j with u < the completions of seats 0..j taking it (u uniform below
    their total), or to a seat after which none may (the counts are whole numbers, exact in
    floats, so what is left after j is the total less those)."""
    seat, dealer, known, free, allowed, need, others, counts = cons
    m = others.shape[0]
    for j in range(m):
        counts[j] = need[others[j]]
    code = needs_code(need, others)
    for i in range(free.shape[0]):
        bit = ONE << np.uint64(free[i])
        total = 0.0
        stride = 1
        for j in range(m - 1):  # (in seat order: the sums `count_completions` made)
            if counts[j] > 0 and allowed[others[j]] & bit:
                total += ways[i + 1, code - stride]
            stride *= need[others[j]] + 1
        if counts[m - 1] > 0 and allowed[others[m - 1]] & bit:
            total += ways[i + 1, code]
        u, state = _uniform(state)
        u *= total
        chosen = m - 1  # the last seat, unless one before it is drawn
        so_far = 0.0
        stride = 1
        for j in range(m - 1):
            wj = 0.0
            if counts[j] > 0 and allowed[others[j]] & bit:
                wj = ways[i + 1, code - stride]
            so_far += wj
            if wj > 0.0 and (u < so_far or total - so_far == 0.0):
                chosen = j
                code -= stride
                break
            stride *= need[others[j]] + 1
        counts[chosen] -= 1
        out[w, others[chosen]] |= bit
    return state


@kernel_jit(inline='always')
def _predicate_key(preds, hands, w, dealer, n_pred):
    """Which seat meets which predicate in deal w of hands, as bits (predicate * seats + seat);
    with more than 64 such bits, or sided contracts, a 64-bit hash of those bits and of each
    sided contract's old side under each declarer."""
    p_op, p_mask, p_a, p_b, p_start, p_end = (preds.p_op, preds.p_mask, preds.p_a, preds.p_b,
                                              preds.p_start, preds.p_end)
    stack = preds.stack
    key = ZERO
    n = hands.shape[1]
    hashed = n_pred * n > 64 or preds.sided.shape[0] > 0
    for p in range(n_pred):
        for s in range(n):
            if eval_pred(p, hands[w, s], before(s, after(dealer, 1, n), n), p_op, p_mask, p_a,
                         p_b, p_start, p_end, stack):
                bit = np.uint64(p * n + s)
                if not hashed:
                    key |= ONE << bit
                else:
                    key = mix64(key ^ ((bit + ONE) * GOLDEN))
    h = hands[w]
    for i in range(preds.sided.shape[0]):
        k = preds.sided[i]
        for declarer in range(n):
            old = form_teams(preds.c_team[k], preds.c_team_mask[k], preds.c_team_cards, k,
                             declarer, h, n)
            key = mix64(key ^ (np.uint64(old + (1 << n) * (declarer + n * i)) + ONE) * GOLDEN)
    return key


@kernel_jit(inline='always')
def _is_listed(sorted_keys, key):
    lo, hi = 0, sorted_keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_keys[mid] < key:
            lo = mid + 1
        else:
            hi = mid
    return lo < sorted_keys.shape[0] and sorted_keys[lo] == key


@kernel_jit()
def sample_worlds(cons, ways, preds, bad_keys, state, max_draws, hands, keys):
    """Fills the rows of hands (uint64[world, seat]: the cards dealt) with deals consistent with
    cons, and keys with their predicate keys, redrawing a deal whose key is in bad_keys (sorted)
    up to max_draws draws in all. Returns (rows filled, draws made, next state); no row if
    nothing is consistent with the play."""
    known = cons.known
    if ways[0, needs_code(cons.need, cons.others)] == 0.0:
        return 0, max_draws, state
    n_pred = preds.p_start.shape[0]
    filled = 0
    draws = 0
    while filled < hands.shape[0] and draws < max_draws:
        draws += 1
        for s in range(known.shape[0]):
            hands[filled, s] = known[s]
        state = deal_one(cons, ways, state, hands, filled)
        key = _predicate_key(preds, hands, filled, cons.dealer, n_pred)
        if not _is_listed(bad_keys, key):
            keys[filled] = key
            filled += 1
    return filled, draws, state


def decision_state(base: int, history_length: int) -> np.uint64:
    """The sampler's starting state for a decision: from the bot's seed and how many public
    actions precede it, so a decision's samples depend on its seed and observation only."""
    z = (int(base) ^ (history_length * 0x9E3779B97F4A7C15)) & (2 ** 64 - 1)
    return np.uint64(z)


class DealTables(NamedTuple):
    """The contract tables of `RuleTables` that fix what a deal makes of a contract (its old
    side, Laufende, called card): few, so that a call hands numba little to type."""

    c_team: np.ndarray
    c_team_mask: np.ndarray
    c_team_cards: np.ndarray
    c_lauf_cards: np.ndarray
    c_lauf_from: np.ndarray
    c_lauf_value: np.ndarray
    c_run_away: np.ndarray


def deal_tables(cr: CompiledRules) -> DealTables:
    t = cr.tables
    return table(cr.rules, "deal tables", lambda: DealTables(
        t.c_team, t.c_team_mask, t.c_team_cards, t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value,
        t.c_run_away))


@kernel_jit()
def deal_terms(t, k, declarer, hands, olds, added, called):
    """What each deal hands[w] fixes of contract k declared by declarer (-1 none): olds[w] its
    old side (seat bits, see `form_teams`), added[w] its Laufende (`laufende_value`), called[w]
    the called card whose duties its holder keeps (-1 none: `called_card`). t: DealTables."""
    for w in range(hands.shape[0]):
        h = hands[w]
        old = form_teams(t.c_team[k], t.c_team_mask[k], t.c_team_cards, k, declarer, h,
                         hands.shape[1])
        olds[w] = old
        added[w] = laufende_value(t.c_lauf_cards, t.c_lauf_from, t.c_lauf_value, k, h, old)
        called[w] = -1
        if t.c_run_away[k] > 0:
            called[w] = called_card(t.c_team[k], t.c_team_cards, k, declarer, h)


def public_history(obs: Observation) -> list[tuple[int, str]]:
    """Every public action so far, in order: the calls, then the cards."""
    out = [(s, c) for s, c in obs.auction]
    for t in obs.tricks:
        out += list(zip(t.players(obs.seats), t.cards))
    return out


def replay(rules, dealer: int, hands: list[list[str]], history) -> State | None:
    """The state after `history` on this deal, or None if the deal contradicts it."""
    return _continued(State(rules, Deal(dealer, tuple(tuple(h) for h in hands))), history)


class Reading(NamedTuple):
    """What the auction so far makes of the deals of one predicate key."""

    contract: str | None  # the contract played, once the auction is over
    declarer: int | None
    implied: tuple[str, int | None]  # the contract if nobody bids (and its declarer)
    double_seats: tuple[int, ...]  # public, the same for every key
    bid: str | None = None  # what the table is shown: the bid in force, or a dealt contract
    bidder: int | None = None


class AuctionBook:
    """Predicate keys read against an auction as it grows (see the module docstring): a key's
    deals replay the auction or none does, and make the same contract. Each key is replayed by
    the reference engine on the first deal drawn with it, and its state is carried on through
    the calls said since when it is met again; a key the auction contradicts stays contradicted
    by every longer auction."""

    def __init__(self, rules, dealer: int, auction):
        self.rules, self.dealer, self.auction = rules, dealer, tuple(auction)
        self.speakers: dict[int, int | None] = {}  # to_speak after each auction length followed
        self.states: dict[int, tuple[State, int]] = {}  # key -> (its state, calls applied)
        self.readings: dict[int, Reading | None] = {}  # of the keys read against this auction
        # (None: the auction contradicts the key)
        self.bad_keys = np.zeros(0, np.uint64)

    def extends_to(self, auction, to_speak: int | None) -> bool:
        """Whether the book's readings hold for this public auction, after which to_speak
        speaks: it extends the book's, with the same seat to speak after each part of it the
        book followed (what a key's deals contradict depends on who was to speak)."""
        if tuple(auction[:len(self.auction)]) != self.auction:
            return False
        return all((auction[n][0] if n < len(auction) else to_speak) == seat
                   for n, seat in self.speakers.items())

    def follow(self, auction, to_speak: int | None) -> None:
        """Read keys against `auction` from now on (it extends the auction so far), after which
        `to_speak` speaks (None: the auction is over; both are public)."""
        if len(auction) != len(self.auction) or to_speak != self.to_speak:
            self.auction = tuple(auction)
            self.readings = {}
        self.speakers[len(self.auction)] = to_speak

    @property
    def to_speak(self) -> int | None:
        """Who speaks after the auction followed (None: it is over, or none followed yet)."""
        return self.speakers.get(len(self.auction))

    def knows(self, key: int) -> bool:
        return key in self.readings

    def read(self, key: int, hands: list[list[str]] | None) -> Reading | None:
        """The reading of a key (hands: a deal with that key, needed unless `knows(key)`), or
        None if the auction contradicts it."""
        if key in self.readings:
            return self.readings[key]
        if key in self.states:
            st, n = self.states[key]
            st = _continued(st, self.auction[n:])
        else:
            st = replay(self.rules, self.dealer, hands, self.auction)
        if st is not None and _next_speaker(st) != self.to_speak:
            st = None  # its deals would have had another seat speak, or the auction go on
        if st is None:
            self.states.pop(key, None)
            self.bad_keys = np.sort(np.append(self.bad_keys, np.uint64(key)))
            self.readings[key] = None
            return None
        self.states[key] = (st, len(self.auction))
        reading = Reading(st.contract, st.declarer, st.implied_contract(),
                          tuple(st.double_seats), st.bid, st.bidder)
        self.readings[key] = reading
        return reading


def _next_speaker(state: State) -> int | None:
    return state.current_player() if state.phase == "auction" else None


def _continued(state: State, calls) -> State | None:
    """state after the calls, or None if one of them is not legal there."""
    for seat, call in calls:
        if state.current_player() != seat:
            return None
        try:
            state.apply_action(call)
        except IllegalAction:
            return None
    return state


class Worlds(NamedTuple):
    hands: np.ndarray  # uint64[world, seat]: the cards dealt
    readings: list[Reading]  # each world's reading of the auction


def draw_worlds(cr: CompiledRules, obs: Observation, book: AuctionBook, n: int,
                state: np.uint64, max_draws: int) -> Worlds:
    """Up to n worlds (fewer only if max_draws draws found no more) consistent with all obs's
    seat saw, uniformly, from the sampler state given."""
    t = cr.tables
    if obs.bid is not None:
        orders = [int(t.c_order[cr.contract_names.index(obs.bid)])]
    else:
        orders = sorted({int(t.c_order[k]) for k in t.no_bid})
    book.follow(obs.auction, obs.seat if obs.phase == "auction" else None)
    cons, ways = _constraints_and_ways(cr, obs, orders)
    # the cards played, to check the called card's duties on, if the contract may have them
    duties = (t.c_run_away[cr.contract_names.index(obs.bid)] if obs.bid is not None
              else t.c_run_away.any())
    plays = _plays_by_card(cr, obs) if duties and obs.tricks else None
    preds = predicates(cr)
    # the play to replay a deal on, where the constraints cannot tell (the key reads the calls)
    history = public_history(obs) if len(orders) > 1 and obs.tricks else None
    kept_hands, readings = [], []
    hands = np.zeros((n, t.n_seats), np.uint64)
    keys = np.zeros(n, np.uint64)
    while len(readings) < n and max_draws > 0:
        want = n - len(readings)
        filled, draws, state = sample_worlds(cons, ways, preds, book.bad_keys, state, max_draws,
                                             hands[:want], keys[:want])
        state = np.uint64(state)  # numba hands a uint64 back as a Python int
        max_draws -= draws
        drawn = keys[:filled].tolist()
        for w, key in enumerate(drawn):  # a new key is read on its first deal
            if not book.knows(key):
                book.read(key, card_names(cr, hands[w]))
        kept = [w for w, key in enumerate(drawn) if _shown_alike(obs, book.readings.get(key))]
        if history is not None or plays is not None:
            kept = [w for w in kept if _consistent(cr, obs, book.readings[drawn[w]], hands[w],
                                                   history, plays)]
        kept_hands.append(hands[kept])
        readings += [book.readings[drawn[w]] for w in kept]
    out = np.concatenate(kept_hands) if kept_hands else np.zeros((0, t.n_seats), np.uint64)
    return Worlds(out, readings)


def _shown_alike(obs: Observation, reading: Reading | None) -> bool:
    """Whether a key's deals replay the auction (reading not None) and, once it is over, show
    the table the contract it saw (a contract a deal makes itself is shown, by its declarer)."""
    if reading is None:
        return False
    return reading.contract is None or (reading.bid, reading.bidder) == (obs.bid, obs.bidder)


def _constraints_and_ways(cr: CompiledRules, obs: Observation, orders: list[int]):
    """obs's `constraints` and their completions counted (`count_completions`). Before the
    first card they depend on the seat's own cards alone, and each call of the auction reads
    the same ones: those are kept for the seat's later calls."""
    kept = table(cr.rules, "auction constraints", dict) if not obs.tricks else None
    key = (obs.seat, obs.dealer, tuple(obs.dealt))
    if kept is not None and key in kept:
        return kept[key]
    cons = constraints(cr, obs, orders)
    ways = np.zeros((cons.free.shape[0] + 1, completion_codes(cons.need, cons.others)),
                    np.float64)
    count_completions(cons.free, cons.allowed, cons.others, cons.need, ways)
    if kept is not None:
        if len(kept) >= 64:  # a hand's seats, and no more
            kept.clear()
        kept[key] = cons, ways
    return cons, ways


def _consistent(cr: CompiledRules, obs: Observation, reading: Reading, row: np.ndarray,
                history, plays) -> bool:
    """What the predicate key leaves open: the constraints rule cards out exactly under one
    card order only, so under several (the contract not yet known) the deal must replay the
    history (if given); and the called card's duties were kept in the cards played (if plays
    are given)."""
    if history is not None and replay(cr.rules, obs.dealer, card_names(cr, row),
                                      history) is None:
        return False
    return plays is None or _kept_duties(cr, reading, row, plays)


def _plays_by_card(cr: CompiledRules, obs: Observation) -> tuple[np.ndarray, np.ndarray]:
    """(the cards played in order, the seat that played each card, -1 if none)."""
    cards, seats = plays_of(obs, cr.card_index)
    who = np.full(cr.n_cards, -1, np.int64)
    who[cards] = seats
    return cards, who


def _kept_duties(cr: CompiledRules, reading: Reading, row: np.ndarray, plays) -> bool:
    """Whether the seat that deal `row` gives the called card kept its duties in the cards
    played (`duties_kept`); True where the contract has none, or is not known yet."""
    t = cr.tables
    if reading.contract is None:
        return True
    k = cr.contract_names.index(reading.contract)
    if not t.c_run_away[k] or reading.declarer is None:
        return True
    called = int(called_card(t.c_team[k], t.c_team_cards, k, reading.declarer, row))
    if called < 0:
        return True
    holder = next(s for s in range(len(row)) if int(row[s]) >> called & 1)
    p = cr.rules.play
    cards, who = plays
    return bool(duties_kept(cards, who, cards.shape[0], holder, row[holder], called,
                            int(t.c_order[k]), t.suit, t.suit_mask, t.beat_mask,
                            (p.follow_suit, p.trump_when_void, p.must_beat, t.n_seats),
                            t.c_run_away[k]))


def card_names(cr: CompiledRules, row) -> list[list[str]]:
    """Each seat's cards, by name, of a world (a row of hand bitmasks, one a seat)."""
    names = cr.cards
    return [[names[c] for c in range(len(names)) if h >> c & 1] for h in row.tolist()]
