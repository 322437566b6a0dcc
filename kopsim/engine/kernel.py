"""The batch kernel: whole hands (deal, auction, play, scoring) of any compiled ruleset, in numba.

It plays the exact semantics of the reference engine (`kopsim.game`) from `CompiledRules` tables.
Its bots are the kernel kinds: random (drawing from the same per-seat streams as the reference
`RandomBot`) and heuristic (the very decision functions `HeuristicBot` calls), so the same seeds
give identical hand records in both engines (tests/test_engines_agree.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .bits import ONE, ZERO, allowed_cards, nth_bit, popcount
from ..bots import bot_spec
from ..bots.heuristic import heur_call, heur_card, heuristic_tables, relations
from ..rules.cache import compiled as compiled_rules, table as rules_table
from ..rules.compile import TIERS, WINNERS, CompiledRules
from ..records.format import HandRecord
from .rng import GOLDEN as _G, MIX1 as _M1, MIX2 as _M2, STREAM as _S
from ..rules.model import Ruleset

GOLDEN = np.uint64(_G)
MIX1 = np.uint64(_M1)
MIX2 = np.uint64(_M2)
STREAM = np.uint64(_S)
U30, U27, U31, U32 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(32)


@njit(cache=True, inline='always')
def _mix64(z):
    z = (z ^ (z >> U30)) * MIX1
    z = (z ^ (z >> U27)) * MIX2
    return z ^ (z >> U31)


@njit(cache=True, inline='always')
def _draw(state, n):
    """One SplitMix64 step: (uniform index in [0, n), next state). Scalars only: passing
    arrays to helpers in the inner loop costs numba an atomic refcount each time."""
    state = state + GOLDEN
    return np.int64(((_mix64(state) >> U32) * np.uint64(n)) >> U32), state


@njit(cache=True, inline='always')
def _draw_seat(seat, n, st0, st1, st2, st3):
    """A draw from seat's own stream; the four streams travel as scalars (see _draw)."""
    if seat == 0:
        j, st0 = _draw(st0, n)
    elif seat == 1:
        j, st1 = _draw(st1, n)
    elif seat == 2:
        j, st2 = _draw(st2, n)
    else:
        j, st3 = _draw(st3, n)
    return j, st0, st1, st2, st3


@njit(cache=True)
def _eval_preds(elig, hands, dealer, p_op, p_mask, p_a, p_b, p_start, p_end, stack):
    for p in range(p_start.shape[0]):
        for s in range(4):
            elig[p, s] = _eval_pred(p, hands[s], (s - dealer + 3) % 4,
                                    p_op, p_mask, p_a, p_b, p_start, p_end, stack)


@njit(cache=True, inline='always')
def _eval_pred(p, hand, pos, p_op, p_mask, p_a, p_b, p_start, p_end, stack):
    sp = 0
    for i in range(p_start[p], p_end[p]):
        op = p_op[i]
        if op == 0:
            stack[sp] = (hand & p_mask[i]) == p_mask[i]
            sp += 1
        elif op == 1:
            stack[sp] = (hand & p_mask[i]) != ZERO
            sp += 1
        elif op == 2:
            stack[sp] = (hand & p_mask[i]) == ZERO
            sp += 1
        elif op == 3:
            c = popcount(hand & p_mask[i])
            stack[sp] = c >= p_a[i] and c <= p_b[i]
            sp += 1
        elif op == 4:
            stack[sp] = pos == p_a[i]
            sp += 1
        elif op == 5 or op == 6:
            n = p_a[i]
            v = op == 5
            for j in range(n):
                if op == 5:
                    v = v and stack[sp - 1 - j]
                else:
                    v = v or stack[sp - 1 - j]
            sp -= n
            stack[sp] = v
            sp += 1
        else:
            stack[sp - 1] = not stack[sp - 1]
    if sp == 0:
        return True
    return stack[0]


@njit(cache=True)
def _play_batch(seeds, dealers, nc,
                card_points, suit, suit_mask, beat_mask,
                p_op, p_mask, p_a, p_b, p_start, p_end,
                bids, bid_pos, c_first_call_only, c_team, c_team_cards, c_team_mask, c_instant,
                c_all_tricks, c_order, c_max_doubles, c_decl_double_first, c_has_pred,
                c_won, c_lost, c_won_tiered, c_lost_tiered, c_mult, no_bid, dealt,
                r_forbid, r_forbid_double, r_has_holding, r_first_call, r_bid_in_force, r_asked,
                params, fparams, play_rules, bot_kind, bot_params, seat_bot, h_power, h_ctab,
                o_contract, o_declarer, o_old, o_doubles, o_winner, o_tier, o_points, o_tricks,
                o_payouts, o_perm, o_calls, o_call_seat, o_ncalls, o_cards, o_leaders, o_twin):
    n = seeds.shape[0]
    K = c_team.shape[0]
    n_preds = p_start.shape[0]
    hs = nc // 4
    style = params[0]
    end_passes = params[1]
    end_passes_nocall = params[2]
    zero_sum = params[5] == 1
    tie_nobody = params[6] == 1
    factor = fparams[0]
    win_points = fparams[1]
    schneider_max = fparams[2]
    tie_value = fparams[3]
    follow = play_rules[0] == 1
    trump_void = play_rules[1] == 1
    must_beat = play_rules[2] == 1
    max_calls = o_calls.shape[1]
    cap_without_bid = params[3]
    n_chain = params[4]
    n_restr = r_forbid.shape[0]

    perm = np.zeros(nc, np.int64)
    hands = np.zeros(4, np.uint64)
    left = np.zeros(4, np.uint64)
    elig = np.zeros((n_preds, 4), np.bool_)
    # scratch sized from the compiled rules: the predicate programs' stack depth; the calls
    # open to a seat (pass or ask, each bid, the next double); a seat per double said
    stack = np.zeros(params[7], np.bool_)
    buf = np.zeros(2 + K, np.int64)
    tmp = np.zeros(2 + K, np.int64)
    dseats = np.zeros(max(n_chain, 1), np.int64)
    who_played = np.full(nc, -1, np.int64)
    trick_buf = np.zeros(4, np.int64)
    rel = np.zeros(4, np.int64)
    bel_k = np.zeros(4, np.int64)
    bel_decl = np.zeros(4, np.int64)
    normal_k = -1
    for j in range(no_bid.shape[0]):
        if not c_has_pred[no_bid[j]]:
            normal_k = no_bid[j]
            break
    points = np.zeros(4, np.float64)
    tricks = np.zeros(4, np.int64)
    pay = np.zeros(4, np.float64)

    for h in range(n):
        seed = np.uint64(seeds[h])
        st_deal = _mix64(seed)
        st0 = _mix64(seed + STREAM)
        st1 = _mix64(seed + np.uint64(2) * STREAM)
        st2 = _mix64(seed + np.uint64(3) * STREAM)
        st3 = _mix64(seed + np.uint64(4) * STREAM)
        dealer = dealers[h]
        forehand = (dealer + 1) % 4
        # --- deal
        for i in range(nc):
            perm[i] = i
        for i in range(nc - 1, 0, -1):
            j, st_deal = _draw(st_deal, i + 1)
            t = perm[i]
            perm[i] = perm[j]
            perm[j] = t
        for s in range(4):
            hands[s] = ZERO
        for k in range(nc):
            hands[(dealer + 1 + k) % 4] |= ONE << np.uint64(perm[k])
            o_perm[h, k] = perm[k]
        _eval_preds(elig, hands, dealer, p_op, p_mask, p_a, p_b, p_start, p_end, stack)
        # --- the contract played if nobody bids
        imp = -1
        imp_decl = -1
        for j in range(no_bid.shape[0]):
            k = no_bid[j]
            if not c_has_pred[k]:
                imp = k
                break
            found = -1
            for i in range(4):
                s = (forehand + i) % 4
                if elig[k, s]:
                    found = s
                    break
            if found >= 0:
                imp = k
                if c_team[k] == 2:
                    imp_decl = found
                break
        # --- what each seat can tell of the no-bid contract from its own hand (for its bot)
        for s in range(4):
            bel_k[s] = normal_k
            bel_decl[s] = -1
            for j in range(no_bid.shape[0]):
                k = no_bid[j]
                if k == normal_k:
                    break
                if c_team[k] == 2 and elig[k, s]:
                    bel_k[s] = k
                    bel_decl[s] = s
                    break
        # --- dealt contracts skip the auction
        contract = -1
        declarer = -1
        for j in range(dealt.shape[0]):
            k = dealt[j]
            for i in range(4):
                s = (forehand + i) % 4
                if elig[k, s]:
                    contract = k
                    declarer = s
                    break
            if contract >= 0:
                break
        # --- auction
        nd = 0
        ncalls = 0
        bid = -1
        bidder = -1
        if contract < 0:
            spoken = 0
            asked = 0
            passes = 0
            any_call = False
            turn = forehand
            speaks = 0
            while True:
                if style == 2:
                    if speaks == 4:
                        break
                    turn = (forehand + speaks) % 4
                    speaks += 1
                # --- legal calls, in canonical order: pass | ask, bids low to high, double
                seat = turn
                first = ((spoken >> seat) & 1) == 0
                m = 0
                fo = style == 1 and seat == forehand and first
                buf[0] = 1 if fo else 0
                m = 1
                floor = -1
                if bid >= 0:
                    floor = bid_pos[bid]
                for j in range(floor + 1, bids.shape[0]):
                    k = bids[j]
                    if c_has_pred[k] and not elig[k, seat]:
                        continue
                    if c_first_call_only[k] and not first:
                        continue
                    buf[m] = 2 + k
                    m += 1
                n_open_bids = m - 1
                if style != 2 and not fo and n_chain > 0:
                    if bid < 0:
                        cap = cap_without_bid
                        ck = imp
                        decl = imp_decl
                    else:
                        cap = c_max_doubles[bid]
                        ck = bid
                        decl = bidder
                    ok = nd < cap
                    if ok and nd == 0 and seat == decl and not c_decl_double_first[ck]:
                        ok = False
                    if ok:
                        buf[m] = 2 + K + nd
                        m += 1
                if n_restr > 0:
                    forbidden = ZERO
                    fdouble = False
                    any_r = False
                    for i in range(n_restr):
                        if r_first_call[i] >= 0 and (r_first_call[i] == 1) != first:
                            continue
                        if r_bid_in_force[i] >= 0 and (r_bid_in_force[i] == 1) != (bid >= 0):
                            continue
                        if r_asked[i] >= 0 and (r_asked[i] == 1) != (((asked >> seat) & 1) == 1):
                            continue
                        if r_has_holding[i] and not elig[K + i, seat]:
                            continue
                        forbidden |= r_forbid[i]
                        fdouble = fdouble or r_forbid_double[i]
                        any_r = True
                    if any_r:
                        kept = 0
                        for i in range(m):
                            c = buf[i]
                            if c < 2 + K:
                                bad = ((forbidden >> np.uint64(c)) & ONE) == ONE
                            else:
                                bad = fdouble
                            if not bad:
                                tmp[kept] = c
                                kept += 1
                        if kept > 0:  # a restriction never leaves a seat without a call
                            for i in range(kept):
                                buf[i] = tmp[i]
                            m = kept
                if style == 2 and n_open_bids == 0:
                    continue  # nothing to bid: this seat does not speak
                kind = bot_kind[seat_bot[h, turn]]
                if kind == 0:  # random
                    j, st0, st1, st2, st3 = _draw_seat(turn, m, st0, st1, st2, st3)
                else:
                    b = seat_bot[h, turn]
                    j = heur_call(buf, m, hands[turn], turn, bid, bidder, bel_k[turn],
                                  bel_decl[turn], K, h_ctab, h_power, bot_params[b])
                call = buf[j]
                if ncalls < max_calls:
                    o_calls[h, ncalls] = call
                    o_call_seat[h, ncalls] = turn
                ncalls += 1
                if call == 0:
                    passes += 1
                else:
                    passes = 0
                    any_call = True
                    if call == 1:
                        asked |= 1 << turn
                    elif call < 2 + K:
                        bid = call - 2
                        bidder = turn
                        nd = 0
                    else:
                        dseats[nd] = turn
                        nd += 1
                spoken |= 1 << turn
                if style != 2:
                    if passes >= (end_passes if any_call else end_passes_nocall):
                        break
                    turn = (turn + 1) % 4
            if bid >= 0:
                contract = bid
                declarer = bidder
            else:
                contract = imp
                declarer = imp_decl
        o_ncalls[h] = ncalls
        # --- teams
        team = c_team[contract]
        old = 0
        if team == 0:
            for s in range(4):
                if hands[s] & c_team_mask[contract]:
                    old |= 1 << s
        elif team == 1:
            old = 1 << declarer
            for i in range(c_team_cards.shape[1]):
                c = c_team_cards[contract, i]
                if c < 0:
                    break
                if not (hands[declarer] >> np.uint64(c)) & ONE:
                    for s in range(4):
                        if (hands[s] >> np.uint64(c)) & ONE:
                            old |= 1 << s
                    break
        else:
            old = 1 << declarer
        n_old = 0
        for s in range(4):
            points[s] = 0.0
            tricks[s] = 0
            pay[s] = 0.0
            if (old >> s) & 1:
                n_old += 1
        o_contract[h] = contract
        o_declarer[h] = declarer
        o_old[h] = old
        if c_instant[contract]:
            winner = 0
            tier = 5
            counted = 0
            v = c_won[contract, 0]
        else:
            # --- play
            o = c_order[contract]
            leader = forehand
            for c in range(nc):
                who_played[c] = -1
            for s in range(4):
                left[s] = hands[s]
            trump = suit_mask[o, 0]
            for t in range(hs):
                o_leaders[h, t] = leader
                led = 0
                w = 0
                wseat = leader
                pts = 0.0
                for i in range(4):
                    seat = (leader + i) % 4
                    hand = left[seat]
                    allowed = allowed_cards(hand, i, suit_mask[o, led], trump,
                                            beat_mask[o, led, w], follow, trump_void, must_beat)
                    m = popcount(allowed)
                    kind = bot_kind[seat_bot[h, seat]]
                    if kind == 0:  # random
                        j, st0, st1, st2, st3 = _draw_seat(seat, m, st0, st1, st2, st3)
                        card = nth_bit(allowed, j)
                    else:
                        kb = bid if bid >= 0 else bel_k[seat]
                        db = bidder if bid >= 0 else bel_decl[seat]
                        relations(rel, seat, hands[seat], kb, db, h_ctab, c_team_cards,
                                  who_played)
                        card = heur_card(allowed, hand, seat, h_ctab[kb, 2], trick_buf, i,
                                         leader, rel, who_played, suit, suit_mask, beat_mask,
                                         card_points, h_power, bot_params[seat_bot[h, seat]])
                    trick_buf[i] = card
                    who_played[card] = seat
                    left[seat] = hand & ~(ONE << np.uint64(card))
                    o_cards[h, 4 * t + i] = card
                    pts += card_points[card]
                    if i == 0:
                        led = suit[o, card]
                        w = card
                    elif (beat_mask[o, led, w] >> np.uint64(card)) & ONE:
                        w = card
                        wseat = seat
                o_twin[h, t] = wseat
                points[wseat] += pts
                tricks[wseat] += 1
                leader = wseat
            # --- scoring
            old_pts = 0.0
            young_pts = 0.0
            old_tricks = 0
            young_tricks = 0
            for s in range(4):
                if (old >> s) & 1:
                    old_pts += points[s]
                    old_tricks += tricks[s]
                else:
                    young_pts += points[s]
                    young_tricks += tricks[s]
            counted = 0
            last = -1
            cap = c_max_doubles[contract]
            for i in range(nd):
                if counted == cap:
                    break
                side = 0 if (old >> dseats[i]) & 1 else 1
                if side != last:
                    counted += 1
                    last = side
            tie = False
            if c_all_tricks[contract]:
                winner = 0 if young_tricks == 0 else 1
            elif old_pts >= win_points:
                winner = 0
            elif old_pts == young_pts:
                tie = True
                if tie_nobody:
                    winner = -1
                elif counted > 0:
                    winner = 1 if last == 0 else 0
                else:
                    winner = 1
            else:
                winner = 1
            if winner == 0:
                tiered = c_won_tiered[contract]
            else:
                tiered = c_lost_tiered[contract]
            if tie:
                tier = 4
            elif n_old == 1 and not tiered:
                tier = 3
            else:
                lp = young_pts if winner == 0 else old_pts
                lt = young_tricks if winner == 0 else old_tricks
                if lt == 0:
                    tier = 2
                elif lp <= schneider_max:
                    tier = 1
                else:
                    tier = 0
            ti = tier
            if tier == 3:
                ti = 0
            v = 0.0
            if winner == 0:
                v = c_won[contract, ti]
            elif winner == 1:
                v = c_lost[contract, ti]
            if tie and counted == 0 and not np.isnan(tie_value):
                v = tie_value
            for i in range(counted):
                v *= factor
            if winner == 1:
                v *= c_mult[contract, 0]
            elif winner == 0:
                v *= c_mult[contract, 1]
            if tie:
                v *= c_mult[contract, 2]
        # --- payments
        if winner >= 0 and v != 0.0:
            if n_old == 1 or n_old == 3:
                # one side is a single player: his game is priced per opponent
                lone_mask = old if n_old == 1 else (~old) & 15
                lone = _lowest(lone_mask)
                lone_won = ((old >> lone) & 1 == 1) == (winner == 0)
                for s in range(4):
                    if s == lone:
                        continue
                    gain = -v if lone_won else v
                    if zero_sum or gain > 0:
                        pay[s] += gain
                    if zero_sum or lone_won:
                        pay[lone] -= gain
            else:
                for s in range(4):
                    is_old = (old >> s) & 1 == 1
                    won_side = is_old == (winner == 0)
                    if won_side:
                        pay[s] += v
                    elif zero_sum:
                        pay[s] -= v
        o_doubles[h] = counted
        o_winner[h] = winner
        o_tier[h] = tier
        for s in range(4):
            o_points[h, s] = points[s]
            o_tricks[h, s] = tricks[s]
            o_payouts[h, s] = pay[s]


@njit(cache=True, inline='always')
def _lowest(mask):
    s = 0
    while not (mask >> s) & 1:
        s += 1
    return s


# --------------------------------------------------------------------------------- Python face


@dataclass
class BatchResult:
    """Column arrays of one batch of hands; `records()` turns them into `HandRecord`s."""

    compiled: CompiledRules
    seeds: np.ndarray
    dealers: np.ndarray
    hand_index: np.ndarray
    contract: np.ndarray
    declarer: np.ndarray
    old: np.ndarray
    doubles: np.ndarray
    winner: np.ndarray
    tier: np.ndarray
    points: np.ndarray
    tricks: np.ndarray
    payouts: np.ndarray
    perm: np.ndarray
    calls: np.ndarray
    call_seat: np.ndarray
    ncalls: np.ndarray
    cards: np.ndarray
    leaders: np.ndarray
    trick_winners: np.ndarray

    def __len__(self) -> int:
        return len(self.seeds)

    def record(self, i: int, session: int | None = None) -> HandRecord:
        cr = self.compiled
        r = cr.rules
        names = cr.cards
        dealer = int(self.dealers[i])
        hands: list[list[str]] = [[] for _ in range(4)]
        for k, ci in enumerate(self.perm[i]):
            hands[(dealer + 1 + k) % 4].append(names[ci])
        auction = []
        for j in range(int(self.ncalls[i])):
            code = int(self.calls[i, j])
            auction.append({"seat": int(self.call_seat[i, j]), "call": cr.call_names[code]})
        k = int(self.contract[i])
        tricks = []
        if not r.contracts[cr.contract_names[k]].instant:
            hs = cr.n_cards // 4
            leader_cards = self.cards[i]
            for t in range(hs):
                tricks.append({"leader": int(self.leaders[i, t]),
                               "cards": [names[c] for c in leader_cards[4 * t:4 * t + 4]],
                               "winner": int(self.trick_winners[i, t])})
        old = int(self.old[i])
        decl = int(self.declarer[i])
        return HandRecord(
            ruleset=r.name, ruleset_sha256=cr.sha256, seed=int(self.seeds[i]),
            hand_index=int(self.hand_index[i]), session=session, dealer=dealer, hands=hands,
            auction=auction, contract=cr.contract_names[k],
            declarer=None if decl < 0 else decl,
            old_side=[s for s in range(4) if (old >> s) & 1],
            doubles=int(self.doubles[i]), tricks=tricks,
            points=[float(x) for x in self.points[i]],
            tricks_won=[int(x) for x in self.tricks[i]],
            winner=WINNERS[int(self.winner[i])], tier=TIERS[int(self.tier[i])],
            payouts=[float(x) for x in self.payouts[i]],
        )

    def records(self, session: int | None = None):
        for i in range(len(self)):
            yield self.record(i, session)


def kernel_lineup(bots: list | None, seat_bot: np.ndarray | None, n: int):
    """(bot kinds, bot parameter rows, seat -> bot index per hand) for the kernel."""
    if bots is None:
        bots = [bot_spec("random")]
    for b in bots:
        if b.kernel_kind is None:
            raise ValueError(f"bot {b.label!r} is plain Python: it plays through the reference "
                             "engine, not the batch kernel")
    kinds = np.array([b.kernel_kind for b in bots], np.int64)
    rows = [b.kernel_params() for b in bots]
    width = max([len(r) for r in rows] + [1])
    params = np.zeros((len(bots), width), np.float64)
    for i, r in enumerate(rows):
        params[i, :len(r)] = r
    if seat_bot is None:
        seat_bot = np.zeros((n, 4), np.int64) if len(bots) == 1 else np.tile(np.arange(4), (n, 1))
    seat_bot = np.ascontiguousarray(np.broadcast_to(seat_bot, (n, 4)), np.int64)
    if len(bots) != 1 and seat_bot.max(initial=0) >= len(bots):
        raise ValueError("seat_bot names a bot index beyond the bots given")
    return kinds, params, seat_bot


def play_batch(compiled: CompiledRules | Ruleset, seeds: np.ndarray, dealers: np.ndarray,
               hand_index: np.ndarray | None = None, bots: list | None = None,
               seat_bot: np.ndarray | None = None) -> BatchResult:
    """Play one hand per seed; hand i is dealt by `dealers[i]`. `bots` are `BotSpec`s that run
    in the kernel (default: random for every seat); `seat_bot[i, s]` is the index in `bots` of
    the bot in seat s for hand i (default: bot s in seat s, or the single bot everywhere)."""
    cr = compiled_rules(compiled)
    a = cr.arrays
    seeds = np.ascontiguousarray(seeds, np.int64)
    dealers = np.ascontiguousarray(dealers, np.int64)
    n = len(seeds)
    nc = cr.n_cards
    hs = nc // 4
    p = cr.rules.play
    play_rules = np.array([p.follow_suit, p.trump_when_void, p.must_beat], np.int64)
    bot_kind, bot_params, seat_bot = kernel_lineup(bots, seat_bot, n)
    h_power, h_ctab = rules_table(cr.rules, "heuristic", lambda: heuristic_tables(cr))
    out = dict(
        contract=np.empty(n, np.int16), declarer=np.empty(n, np.int8), old=np.empty(n, np.int8),
        doubles=np.empty(n, np.int8), winner=np.empty(n, np.int8), tier=np.empty(n, np.int8),
        points=np.empty((n, 4), np.float64), tricks=np.empty((n, 4), np.int8),
        payouts=np.empty((n, 4), np.float64), perm=np.empty((n, nc), np.int8),
        calls=np.zeros((n, cr.max_calls), np.int16), call_seat=np.zeros((n, cr.max_calls), np.int8),
        ncalls=np.empty(n, np.int16), cards=np.zeros((n, nc), np.int8),
        leaders=np.zeros((n, hs), np.int8), trick_winners=np.zeros((n, hs), np.int8),
    )
    _play_batch(seeds, dealers, nc,
                a["card_points"], a["suit"], a["suit_mask"], a["beat_mask"],
                a["p_op"], a["p_mask"], a["p_a"], a["p_b"], a["p_start"], a["p_end"],
                a["bids"], a["bid_pos"], a["c_first_call_only"], a["c_team"], a["c_team_cards"],
                a["c_team_mask"], a["c_instant"], a["c_all_tricks"], a["c_order"],
                a["c_max_doubles"], a["c_decl_double_first"], a["c_has_pred"],
                a["c_won"], a["c_lost"], a["c_won_tiered"], a["c_lost_tiered"], a["c_mult"],
                a["no_bid"], a["dealt"], a["r_forbid"], a["r_forbid_double"], a["r_has_holding"],
                a["r_first_call"], a["r_bid_in_force"], a["r_asked"], a["params"], a["fparams"],
                play_rules, bot_kind, bot_params, seat_bot, h_power, h_ctab,
                out["contract"], out["declarer"], out["old"], out["doubles"], out["winner"],
                out["tier"], out["points"], out["tricks"], out["payouts"], out["perm"],
                out["calls"], out["call_seat"], out["ncalls"], out["cards"], out["leaders"],
                out["trick_winners"])
    if hand_index is None:
        hand_index = np.arange(n, dtype=np.int64)
    return BatchResult(cr, seeds, dealers, np.asarray(hand_index, np.int64), **out)


def take(res: BatchResult, idx: np.ndarray) -> BatchResult:
    """The hands `idx` of a batch, in that order."""
    fields = {k: getattr(res, k)[idx] for k in res.__dataclass_fields__ if k != "compiled"}
    return BatchResult(res.compiled, **fields)


def concat(parts: list[BatchResult]) -> BatchResult:
    fields = {k: np.concatenate([getattr(p, k) for p in parts])
              for k in parts[0].__dataclass_fields__ if k != "compiled"}
    return BatchResult(parts[0].compiled, **fields)
