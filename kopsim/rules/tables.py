"""The typed input of the compiled core: every table and setting of a compiled ruleset, by name.

`compile_rules` builds one `RuleTables` per ruleset; the kernel, the solver and the kernel bots
read its fields by name (numba passes a named tuple of arrays and scalars as one typed value, so
a new field is one line here and one in `compile_rules`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


# The table sizes compiled apart, each with its seat count a constant: the batch kernel plays
# 6-10% faster so, pimc 15% (measured at four seats), for one more build of every compiled
# function (minutes for the kernel). The bundled rulesets all seat four; any other size shares
# one build that reads the count at run time.
UNROLLED_SEAT_COUNTS = (4,)


def seat_ids_of(n_seats: int) -> tuple:
    """RuleTables.seat_ids of a table of n_seats: the seats, or () for a size read at run time."""
    return tuple(range(n_seats)) if n_seats in UNROLLED_SEAT_COUNTS else ()


class RuleTables(NamedTuple):
    # --- the table: its seats, each dealt a hand and playing to every trick (deck.players)
    n_seats: int
    # the seats 0 .. n_seats - 1 as a tuple (`seat_ids_of`), at a table of UNROLLED_SEAT_COUNTS;
    # else empty. A tuple's length is part of the compiled type, so the compiled code reads the
    # count of such a table as a constant (`engine.seats.seat_count`), its loops over the seats
    # unrolled like the `range(4)` they were; the other sizes share one build reading n_seats
    seat_ids: tuple
    # --- cards and card orders (o: order index, s: suit group, 0 = trumps)
    n_cards: int
    deal_to: np.ndarray  # [i] int8: where the i-th card dealt goes, a seat counted from the
    # dealer's left, or n_seats: the talon (Ruleset.deal_offsets)
    hand_size: int  # the cards dealt to each seat: the tricks of a hand (Ruleset.hand_size)
    card_points: np.ndarray  # [card] float64
    suit: np.ndarray  # [o, card] int8: the suit group a card follows as
    suit_mask: np.ndarray  # [o, s] uint64: the cards that follow as s
    beat_mask: np.ndarray  # [o, s, w] uint64: the cards that beat w in a trick led in s
    trump_rank: np.ndarray  # [o, card]: a trump's place in the order, 0 the highest; -1 none
    # --- predicate programs: contract eligibility (index k), then restriction holdings (K + i)
    p_op: np.ndarray
    p_mask: np.ndarray
    p_a: np.ndarray
    p_b: np.ndarray
    p_start: np.ndarray
    p_end: np.ndarray
    pred_stack: int  # the stack depth the programs need
    # --- contracts (index k)
    bids: np.ndarray  # contracts that can be bid, low to high
    bid_pos: np.ndarray  # [k] position in bids, -1 if not a bid
    bid_floor: np.ndarray  # [k] the last position in bids that a bid of k shuts out
    c_first_call_only: np.ndarray
    c_team: np.ndarray  # TEAM_* codes
    c_team_cards: np.ndarray  # [k, i] cards forming the team, -1 padded
    c_team_mask: np.ndarray
    c_instant: np.ndarray
    c_all_tricks: np.ndarray
    c_goal: np.ndarray  # GOAL_* codes
    c_order: np.ndarray
    c_max_doubles: np.ndarray
    c_decl_double_first: np.ndarray
    c_first_double_young: np.ndarray  # [k] only the young side may say the first double
    c_thrown_in: np.ndarray  # [k] an instant contract in which nobody wins or pays
    c_add_on_to: np.ndarray  # [k] the contract k adds on to (its bidder keeps the doubles), -1
    c_has_pred: np.ndarray
    c_won: np.ndarray  # [k, tier] price when the old side wins (tiers out..tie; lone unused)
    c_lost: np.ndarray
    c_won_tiered: np.ndarray
    c_lost_tiered: np.ndarray
    c_mult: np.ndarray  # [k, MULT_*]
    c_run_away: np.ndarray  # [k] called-card duties: the suit count to run away with; 0: none
    c_lauf_cards: np.ndarray  # [k, i] the cards Laufende are counted over, high to low, -1 padded
    c_lauf_from: np.ndarray  # [k] the fewest Laufende that count, 0 if the contract has none
    c_lauf_value: np.ndarray  # [k] the value each Laufender adds
    # [k] played each for himself (Ramsch): LOSER_* code of who of those tied on points loses;
    # the points that make a Durchmarsch (inf: none; all_tricks: above the deck's points, and
    # c_durch_all set); each trickless seat doubling the value (Jungfrau)
    c_ramsch_loser: np.ndarray
    c_durch_points: np.ndarray
    c_durch_all: np.ndarray
    c_jungfrau: np.ndarray
    c_talon_to: np.ndarray  # [k] TALON_* code: whose points the talon's cards count in
    c_pick_up: np.ndarray  # [k] PICKUP_* code: who picks the talon up before the play
    talon_size: int  # the cards dealt to the talon (0: none)
    pick_up: int  # PICKUP_* code of talon.pick_up: who picks it up in bidding by value
    # --- bidding by value (style value): the ladder, the code of its first value, and what
    # each contract can be worth (declared only where it reaches the bid)
    bid_values: np.ndarray
    value_code: int
    c_top_value: np.ndarray  # [k] its highest price won, every Laufende counted
    c_hand_value: np.ndarray  # [k] added in a hand game (the talon not picked up)
    c_hand_only: np.ndarray  # [k] declared by value in a hand game only
    c_base_value: np.ndarray  # [k] an overbid game's value is a multiple of it (0: the bid)
    c_win_points: np.ndarray  # [k] the points the old side wins it with
    normal_k: int  # the first no-bid contract anyone may play, -1 if none
    # --- auction
    style: int  # STYLE_* code
    end_after_passes: int
    end_after_passes_without_call: int
    cap_without_bid: int
    n_chain: int  # names in the doubling chain
    doubles_after_single: bool  # a doubling round follows a single declaration round
    forbid_own_double: bool  # a side may not double its own side's double
    reopen: bool  # a first round without bid or double reopens the auction (for c_announce)
    c_announce: np.ndarray  # [k] may be announced when a silent round reopens the auction
    max_calls: int
    no_bid: np.ndarray
    dealt: np.ndarray
    r_forbid: np.ndarray
    r_forbid_double: np.ndarray
    r_has_holding: np.ndarray
    r_first_call: np.ndarray  # -1 any, 0 no, 1 yes
    r_bid_in_force: np.ndarray
    r_asked: np.ndarray
    # --- play
    follow_suit: bool
    trump_when_void: bool
    must_beat: bool
    # --- scoring
    settle: int  # SETTLE_* code: who a hand's value is settled with (scoring.style)
    tie_rule: int  # TIE_* code
    lone_once: bool  # a lone player's game is settled once, shared by the three
    factor: float
    win_points: float
    schneider_max: float  # the young side's, losing
    schneider_max_old: float  # the old side's, losing
    tie_value: float  # NaN: none

