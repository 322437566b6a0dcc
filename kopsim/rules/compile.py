"""A validated `Ruleset` compiled once into integer tables and bitmasks for the batch kernel.

Cards are indices in deck order (ranks outer, suits inner), a hand is a uint64 bitmask, and every
rule question the kernel asks in its inner loop is a table look-up:

* `suit_mask[o, s]`: the cards that follow as suit s in order o (s = 0 is the trump suit);
* `beat_mask[o, s, w]`: the cards that beat card w in a trick led in suit s;
* predicates (who may bid what) become a small postfix program, evaluated once per seat and hand.

Calls are integer codes (`kopsim.engine.codes`): CALL_PASS, CALL_ASK, CALL_BID + k the bid of
contract k, CALL_BID + K + d the d-th double name. Everything the compiled core reads is in
`CompiledRules.tables`, one typed `RuleTables`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from .codes import (GOAL_NAMES, LOSER_RULES, PICKUP_RULES, TALON_POINTS, TIE_RULES, CALL_ASK,
    CALL_BID, CALL_PASS, MULT_NAMES, N_PRICED_TIERS, P_ALL, P_AND, P_ANY, P_COUNT, P_NONE, P_NOT, P_OR,
    P_POS, SETTLE_STYLES, STYLE_NAMES, TEAM_NAMES, TIER_NAMES, TIER_OUT, TIER_SCHNEIDER, TIER_SCHWARZ, TIER_TIE,
    WINNER_NAMES)
from .tables import RuleTables, seat_ids_of
from .model import Predicate, Ramsch, Ruleset, positions
from .validate import max_auction_calls

TEAM_CODES = {name: code for code, name in enumerate(TEAM_NAMES)}
STYLE_CODES = {name: code for code, name in enumerate(STYLE_NAMES)}
TIERS = TIER_NAMES
WINNERS = WINNER_NAMES


def card_mask(cards, index: dict[str, int]) -> int:
    """The bitmask of card names, by their index in the deck."""
    m = 0
    for c in cards:
        m |= 1 << index[c]
    return m


def face_mask(cards, faces: dict[str, list[int]]) -> int:
    """The bitmask of every copy of the cards the rules name (`faces`: card -> its copies'
    indices in the deck)."""
    m = 0
    for c in cards:
        for i in faces[c]:
            m |= 1 << i
    return m


def deck_faces(r: Ruleset, index: dict[str, int]) -> dict[str, list[int]]:
    """Each card the rules name -> the indices of its copies in the deck (one without copies)."""
    return {c: [index[x] for x in r.copies_of(c)] for c in r.deck.cards()}


@dataclass
class CompiledRules:
    rules: Ruleset
    cards: list[str]
    contract_names: list[str]
    call_names: list[str]
    tables: RuleTables
    max_calls: int = 0
    sha256: str = ""

    @property
    def n_cards(self) -> int:
        return len(self.cards)

    @cached_property
    def card_index(self) -> dict[str, int]:
        """Each card's index by name (read-only: shared by every reader)."""
        return {c: i for i, c in enumerate(self.cards)}

    @property
    def arrays(self) -> dict[str, np.ndarray]:
        """The tables' arrays by name, for Python readers; `params` (ints: style, passes to
        end, passes to end without a call, doubles without a bid, chain length, settlement, tie
        rule, predicate stack depth) and `fparams` (floats: doubling factor, win points,
        schneider maximum, tie value without a double) are the scalar settings as arrays."""
        t = self.tables
        out = {k: v for k, v in t._asdict().items() if isinstance(v, np.ndarray)}
        out["params"] = np.array([t.style, t.end_after_passes, t.end_after_passes_without_call,
                                  t.cap_without_bid, t.n_chain, t.settle, t.tie_rule,
                                  t.pred_stack], np.int64)
        out["fparams"] = np.array([t.factor, t.win_points, t.schneider_max, t.tie_value])
        return out


def _compile_predicates(preds: list[Predicate | None], faces: dict[str, list[int]],
                        seats: int):
    ops: list[int] = []
    masks: list[int] = []
    a: list[int] = []
    b: list[int] = []
    start: list[int] = []
    end: list[int] = []

    def emit(op: int, mask: int = 0, x: int = 0, y: int = 0) -> None:
        ops.append(op)
        masks.append(mask)
        a.append(x)
        b.append(y)

    def walk(p: Predicate) -> int:
        """Emits p's postfix code; returns the stack depth its evaluation needs."""
        k = p.kind
        if k == "holds_all" and max(len(faces[c]) for c in p.holds_all) > 1:
            # a copy of each card named: one test a card, all of them together
            for c in p.holds_all:
                emit(P_ANY, face_mask([c], faces))
            emit(P_AND, 0, len(p.holds_all))
            return len(p.holds_all)
        if k == "holds_all":
            emit(P_ALL, face_mask(p.holds_all, faces))
        elif k == "holds_any":
            emit(P_ANY, face_mask(p.holds_any, faces))
        elif k == "holds_none":
            emit(P_NONE, face_mask(p.holds_none, faces))
        elif k == "holds_count":  # each copy counts
            hc = p.holds_count
            emit(P_COUNT, face_mask(hc.cards, faces), hc.min, 64 if hc.max is None else hc.max)
        elif k == "position":
            emit(P_POS, 0, positions(seats).index(p.position))  # counted from forehand
        elif k in ("all_of", "any_of"):
            subs = p.all_of if k == "all_of" else p.any_of
            # the i-th operand is evaluated above the i results before it
            depth = max([i + walk(s) for i, s in enumerate(subs)] + [1])
            emit(P_AND if k == "all_of" else P_OR, 0, len(subs))
            return depth
        else:
            depth = walk(p.not_)
            emit(P_NOT)
            return depth
        return 1

    stack_size = 1
    for p in preds:
        start.append(len(ops))
        if p is not None:
            stack_size = max(stack_size, walk(p))
        end.append(len(ops))
    program = (np.array(ops, np.int8), np.array(masks, np.uint64), np.array(a, np.int16),
               np.array(b, np.int16), np.array(start, np.int32), np.array(end, np.int32))
    return program, stack_size


def _card_order_tables(r: Ruleset, faces: dict[str, list[int]]):
    """(suit, suit_mask, beat_mask) of every card order: a card's suit group (0 trumps), the
    cards of each group, and the cards that beat each card in a trick led in each group. The
    copies of a card share its suit and rank: of equal cards the first played wins, unless
    play.equal_cards = "last", where each copy beats the copies played before it."""
    nc = sum(len(x) for x in faces.values())
    last = r.play.equal_cards == "last"
    order_names = list(r.orders)
    n_orders = len(order_names)
    max_groups = 1 + max(len(o.plain) for o in r.orders.values())
    suit = np.zeros((n_orders, nc), np.int8)
    rank = np.zeros((n_orders, nc), np.int16)
    for oi, name in enumerate(order_names):
        o = r.orders[name]
        for i, c in enumerate(o.trumps):
            suit[oi, faces[c]] = 0
            rank[oi, faces[c]] = 1000 + len(o.trumps) - i
        for g, group in enumerate(o.plain.values(), start=1):
            for i, c in enumerate(group):
                suit[oi, faces[c]] = g
                rank[oi, faces[c]] = len(group) - i
    suit_mask = np.zeros((n_orders, max_groups), np.uint64)
    beat_mask = np.zeros((n_orders, max_groups, nc), np.uint64)
    for oi in range(n_orders):
        for c in range(nc):
            suit_mask[oi, suit[oi, c]] |= np.uint64(1 << c)
        for led in range(max_groups):
            def strength(c: int) -> int:
                if suit[oi, c] == 0 or suit[oi, c] == led:
                    return int(rank[oi, c])
                return -1
            for w in range(nc):
                m = 0
                for c in range(nc):
                    sc, sw = strength(c), strength(w)
                    if sc > sw or (last and c != w and sc == sw >= 0):
                        m |= 1 << c
                beat_mask[oi, led, w] = np.uint64(m)
    return suit, suit_mask, beat_mask


def _trump_ranks(r: Ruleset, faces: dict[str, list[int]]) -> np.ndarray:
    """[o, card]: a trump's place in order o, 0 the highest (both copies of a card: its
    place); -1 for a card that is not one."""
    out = np.full((len(r.orders), sum(len(x) for x in faces.values())), -1, np.int64)
    for oi, o in enumerate(r.orders.values()):
        for i, c in enumerate(o.trumps):
            out[oi, faces[c]] = i
    return out


def _schafkopf_tables(r: Ruleset, contracts: list[str]) -> dict:
    """c_first_double_young [k], c_run_away [k] (0: no called-card duties) and c_add_on_to [k]
    (-1: not an add-on)."""
    cs = [r.contracts[n] for n in contracts]
    return {"c_thrown_in": np.array([bool(c.thrown_in) for c in cs], np.bool_),
            "c_add_on_to": np.array([-1 if c.add_on_to is None else contracts.index(c.add_on_to)
                                     for c in cs], np.int64),"c_first_double_young": np.array([bool(c.first_double_young_only) for c in cs],
                                             np.bool_),
            "c_run_away": np.array([0 if c.called_card_rules is None
                                    else c.called_card_rules.run_away_with for c in cs], np.int64)}


def _ramsch_tables(r: Ruleset, contracts: list[str]) -> dict:
    """c_ramsch_loser [k] (a LOSER_* code), c_durch_points [k] (inf: no Durchmarsch by points),
    c_durch_all [k] (a Durchmarsch by taking every trick), c_jungfrau [k]."""
    rs = [r.contracts[n].ramsch or Ramsch() for n in contracts]
    return {"c_ramsch_loser": np.array([LOSER_RULES.index(x.loser) for x in rs], np.int64),
            "c_durch_points": np.array([x.durchmarsch if isinstance(x.durchmarsch, float)
                                        else np.inf for x in rs], np.float64),
            "c_durch_all": np.array([x.durchmarsch == "all_tricks" for x in rs], np.bool_),
            "c_jungfrau": np.array([x.jungfrau == "double" for x in rs], np.bool_)}


def _reopening_tables(r: Ruleset, contracts: list[str]) -> dict:
    """reopen (does a silent first round reopen the auction?) and c_announce [k] (may k be
    announced then?)."""
    reopening = r.auction.reopen_after_silent_round
    announce = [] if reopening is None else reopening.announce
    return {"reopen": reopening is not None,
            "c_announce": np.array([n in announce for n in contracts], np.bool_)}


def _laufende_tables(r: Ruleset, contracts: list[str], index: dict) -> dict:
    """c_lauf_cards [k, i] (the counted cards high to low, -1 padded), c_lauf_from [k] (0: no
    Laufende), c_lauf_value [k]."""
    K = len(contracts)
    lauf = [r.contracts[n].laufende_cards(r.orders) for n in contracts]
    cards = np.full((K, max([len(x) for x in lauf] + [1])), -1, np.int8)
    start = np.zeros(K, np.int64)
    value = np.zeros(K, np.float64)
    for k, n in enumerate(contracts):
        c = r.contracts[n]
        if c.laufende is not None:
            cards[k, :len(lauf[k])] = [index[x] for x in lauf[k]]
            start[k], value[k] = c.laufende.from_, c.laufende.value
    return {"c_lauf_cards": cards, "c_lauf_from": start, "c_lauf_value": value}


def _team_tables(r: Ruleset, contracts: list[str], faces: dict[str, list[int]]):
    """(team_cards [k, i]: contract k's team cards, every copy of each, -1 padded; team_mask
    [k]: the same as a mask, whose holders play together). With copies a called card has none:
    validate refuses it."""
    team_ids = [[i for card in r.contracts[n].team_cards for i in faces[card]]
                for n in contracts]
    team_cards = np.full((len(contracts), max([len(x) for x in team_ids] + [1])), -1, np.int8)
    team_mask = np.zeros(len(contracts), np.uint64)
    for k, ids in enumerate(team_ids):
        team_cards[k, :len(ids)] = ids
        team_mask[k] = np.uint64(sum(1 << i for i in ids))
    return team_cards, team_mask


def _forbidden_calls(r: Ruleset, kidx: dict[str, int]) -> dict:
    """Each auction restriction's forbidden calls: r_forbid [i] the call codes as bits,
    r_forbid_double [i] any double."""
    A = r.auction
    forbid = np.zeros(len(A.restrictions), np.uint64)
    forbid_double = np.zeros(len(A.restrictions), np.bool_)
    for i, x in enumerate(A.restrictions):
        m = 0
        for name in x.forbid:
            if name == "pass":
                m |= 1 << CALL_PASS
            elif name == A.ask_call:
                m |= 1 << CALL_ASK
            elif name == "double":
                forbid_double[i] = True
            else:
                m |= 1 << (CALL_BID + kidx[name])
        forbid[i] = np.uint64(m)
    return dict(r_forbid=forbid, r_forbid_double=forbid_double)


def _talon_tables(r: Ruleset, contracts: list[str]) -> dict:
    """The talon's size, and per contract whose points it counts in and who picks it up."""
    return dict(
        talon_size=r.talon_cards(),
        c_talon_to=np.array([TALON_POINTS.index(r.talon_points_of(n)) for n in contracts],
                            np.int8),
        c_pick_up=np.array([PICKUP_RULES.index(r.talon_pick_up_of(n)) for n in contracts],
                           np.int8),
        pick_up=PICKUP_RULES.index("never" if r.talon is None else r.talon.pick_up))


def _value_tables(r: Ruleset, contracts: list[str], first_code: int) -> dict:
    """Skat's game value and bidding by value: the ladder, the code of its first value, what
    each contract can be worth without its hand value (a declarer declares only a contract
    that reaches his bid), its hand value, hand-only, base value, and winning points."""
    c = [r.contracts[n] for n in contracts]
    return dict(bid_values=np.array(r.auction.values or [], np.int64), value_code=first_code,
                c_top_value=np.array([r.top_value(n, False) for n in contracts], np.float64),
                c_hand_value=np.array([x.hand_value or 0.0 for x in c], np.float64),
                c_hand_only=np.array([bool(x.hand_only) for x in c], np.bool_),
                c_base_value=np.array([x.base_value or 0.0 for x in c], np.float64),
                c_win_points=np.array([r.win_points_of(n) for n in contracts], np.float64))


def compile_rules(r: Ruleset) -> CompiledRules:
    cards = r.cards()
    index = {c: i for i, c in enumerate(cards)}
    faces = deck_faces(r, index)
    nc = len(cards)
    contracts = list(r.contracts)
    kidx = {n: i for i, n in enumerate(contracts)}
    K = len(contracts)
    order_names = list(r.orders)

    suit, suit_mask, beat_mask = _card_order_tables(r, faces)

    # --- predicates: contract eligibility first, then restriction holdings
    preds: list[Predicate | None] = [r.contracts[n].eligible for n in contracts]
    preds += [res.holding for res in r.auction.restrictions]
    (p_op, p_mask, p_a, p_b, p_start, p_end), pred_stack = _compile_predicates(preds, faces,
                                                                              r.deck.players)

    # --- contracts
    bids = r.bids()
    bid_pos = np.full(K, -1, np.int16)
    bid_floor = np.full(K, -1, np.int16)  # the last bid a bid of k shuts out (same class or lower)
    for j, n in enumerate(bids):
        bid_pos[kidx[n]] = j
        bid_floor[kidx[n]] = max(i for i, m in enumerate(bids) if r.bid_level(m) <= r.bid_level(n))
    team_cards, team_mask = _team_tables(r, contracts, faces)
    won = np.zeros((K, N_PRICED_TIERS), np.float64)  # by tier; the lone column is unused
    lost = np.zeros((K, N_PRICED_TIERS), np.float64)
    won_tiered = np.zeros(K, np.bool_)
    lost_tiered = np.zeros(K, np.bool_)
    mult = np.ones((K, 3), np.float64)  # old_side_lost, old_side_won, tie
    for k, n in enumerate(contracts):
        c = r.contracts[n]
        for arr, tiered, price in ((won, won_tiered, c.payout.won), (lost, lost_tiered, c.payout.lost)):
            if price is None:
                continue
            tiered[k] = price.tiered
            for t in (TIER_OUT, TIER_SCHNEIDER, TIER_SCHWARZ, TIER_TIE):
                arr[k, t] = price.value(TIER_NAMES[t])
        for m in r.scoring.multipliers:
            if m.contracts is None or n in m.contracts:
                mult[k, MULT_NAMES.index(m.when)] *= m.factor
    A = r.auction
    res = A.restrictions
    tri = lambda v: -1 if v is None else int(v)  # noqa: E731

    chain = r.doubling.names
    second = r.hold_call() if A.style == "value" else A.ask_call
    call_names = ["pass", second] + contracts + list(chain)
    first_value = len(call_names)
    call_names += [str(v) for v in A.values or []]
    max_calls = max_auction_calls(r)

    no_bid = [kidx[n] for n in A.no_bid]
    open_no_bid = [k for k in no_bid if r.contracts[contracts[k]].eligible is None]
    tables = RuleTables(
        n_seats=r.deck.players, seat_ids=seat_ids_of(r.deck.players), n_cards=nc,
        deal_to=np.array(r.deal_offsets(), np.int8), hand_size=r.hand_size(),
        **_talon_tables(r, contracts), **_value_tables(r, contracts, first_value),
        card_points=np.array([r.deck.card_points(c) for c in cards], np.float64),
        suit=suit, suit_mask=suit_mask, beat_mask=beat_mask, trump_rank=_trump_ranks(r, faces),
        p_op=p_op, p_mask=p_mask, p_a=p_a, p_b=p_b, p_start=p_start, p_end=p_end,
        pred_stack=int(pred_stack),
        bids=np.array([kidx[n] for n in bids], np.int16),
        bid_pos=bid_pos, bid_floor=bid_floor,
        c_first_call_only=np.array([r.contracts[n].first_call_only for n in contracts], np.bool_),
        c_team=np.array([TEAM_CODES[r.contracts[n].team] for n in contracts], np.int8),
        c_team_cards=team_cards, c_team_mask=team_mask,
        **_laufende_tables(r, contracts, index),
        **_schafkopf_tables(r, contracts), **_reopening_tables(r, contracts),
        **_ramsch_tables(r, contracts),
        c_instant=np.array([r.contracts[n].instant for n in contracts], np.bool_),
        c_all_tricks=np.array([r.contracts[n].goal == "all_tricks" for n in contracts], np.bool_),
        c_goal=np.array([GOAL_NAMES.index(r.contracts[n].goal) for n in contracts], np.int8),
        c_order=np.array([0 if r.contracts[n].order is None  # an instant contract plays none
                          else order_names.index(r.contracts[n].order)
                          for n in contracts], np.int8),
        c_max_doubles=np.array([r.max_doubles(n) for n in contracts], np.int8),
        c_decl_double_first=np.array([r.contracts[n].declarer_may_double_first
                                      for n in contracts], np.bool_),
        c_has_pred=np.array([r.contracts[n].eligible is not None for n in contracts], np.bool_),
        c_won=won, c_lost=lost, c_won_tiered=won_tiered, c_lost_tiered=lost_tiered, c_mult=mult,
        normal_k=int(open_no_bid[0]) if open_no_bid else -1,
        style=STYLE_CODES[A.style], end_after_passes=int(A.end_after_passes),
        end_after_passes_without_call=int(A.end_after_passes_without_call),
        cap_without_bid=int(r.cap_without_bid()), n_chain=len(chain),
        forbid_own_double=r.doubling.own_side == "forbidden",
        doubles_after_single=bool(r.auction.doubles_after_single_round) and bool(chain), max_calls=int(max_calls),
        no_bid=np.array(no_bid, np.int16),
        dealt=np.array([kidx[n] for n in A.dealt], np.int16),
        **_forbidden_calls(r, kidx),
        r_has_holding=np.array([x.holding is not None for x in res], np.bool_),
        r_first_call=np.array([tri(x.first_call) for x in res], np.int8),
        r_bid_in_force=np.array([tri(x.bid_in_force) for x in res], np.int8),
        r_asked=np.array([tri(x.asked) for x in res], np.int8),
        follow_suit=bool(r.play.follow_suit), trump_when_void=bool(r.play.trump_when_void),
        must_beat=bool(r.play.must_beat),
        settle=SETTLE_STYLES.index(r.scoring.style), tie_rule=TIE_RULES.index(r.scoring.tie),
        lone_once=r.scoring.lone_settlement == "once",
        factor=float(r.doubling.factor), win_points=float(r.win_points()),
        schneider_max=float(r.scoring.schneider_max_points),
        schneider_max_old=float(r.scoring.schneider_max_points
                                if r.scoring.old_side_schneider_max_points is None
                                else r.scoring.old_side_schneider_max_points),
        tie_value=(np.nan if r.scoring.tie_value_without_double is None
                   else float(r.scoring.tie_value_without_double)),
    )
    return CompiledRules(r, cards, contracts, call_names, tables, max_calls, r.sha256())
