"""The integer codes of compiled rules, in one place.

The compiler writes its tables in these codes; every compiled function (kernel, solver, bots) and
the Python that builds their tables or decodes their output spells a code by these names; numba
reads module-level integers as constants, so a name costs nothing in the inner loop.
"""

from __future__ import annotations

# --- who won a hand. "Nobody" is negative so that the results' winner column reads it as null.
WIN_OLD, WIN_YOUNG, WIN_NOBODY = 0, 1, -1
WINNER_NAMES = {WIN_OLD: "old", WIN_YOUNG: "young", WIN_NOBODY: None}


# --- the tier that prices a hand (the loser's tier, or how the hand ended)
TIER_OUT, TIER_SCHNEIDER, TIER_SCHWARZ, TIER_LONE, TIER_TIE, TIER_INSTANT, TIER_THROWN_IN = range(7)
TIER_NAMES = ("out", "schneider", "schwarz", "lone", "tie", "instant", "thrown_in")
N_PRICED_TIERS = 5  # out..tie: the tiers a played hand can end in


# --- who wins a tie on points (scoring.tie)
TIE_LAST_DOUBLE_LOSES, TIE_NOBODY_WINS, TIE_OLD_SIDE_LOSES = range(3)
TIE_RULES = ("last_double_loses", "nobody_wins", "old_side_loses")


# --- what the old side must do to win (contracts.*.goal)
GOAL_POINTS, GOAL_ALL_TRICKS, GOAL_NO_TRICKS, GOAL_FEWEST_POINTS = range(4)
GOAL_NAMES = ("points", "all_tricks", "no_tricks", "fewest_points")


# --- how a contract forms the old side
TEAM_HOLDERS, TEAM_CALLED, TEAM_ALONE, TEAM_EACH = range(4)
TEAM_NAMES = ("holders", "called", "alone", "each")


# --- who of the seats tied on the most points loses a hand played each for himself (Ramsch)
LOSER_HIGHEST_TRUMP, LOSER_MOST_TRICKS = range(2)
LOSER_RULES = ("highest_trump", "most_tricks")

# who a hand's value is settled with (`scoring.style`): the winners only (the losers pay
# nothing), zero-sum (the losers pay the winners), or the old side only (Skat's score sheet:
# each old seat gains v, or loses v, and nobody else is scored)
SETTLE_WINNERS_ONLY, SETTLE_ZERO_SUM, SETTLE_OLD_SIDE_ONLY = range(3)
SETTLE_STYLES = ("winners_only", "zero_sum", "old_side_only")

# whose points the talon's cards count in at the end of a hand (`Contract.talon_points`)
TALON_NOBODY, TALON_OLD_SIDE, TALON_LAST_TRICK = range(3)
TALON_POINTS = ("nobody", "old_side", "last_trick")

# who picks the talon up once the contract and its declarer are known (`Talon.pick_up`):
# nobody, the declarer who may instead play "hand" without it (Skat), or the declarer always
PICKUP_NEVER, PICKUP_DECLARER_MAY, PICKUP_DECLARER_MUST = range(3)
PICKUP_RULES = ("never", "declarer_may", "declarer_must")


# --- auction styles
STYLE_OPEN, STYLE_ASK, STYLE_SINGLE, STYLE_VALUE = range(4)
STYLE_NAMES = ("open", "ask", "single", "value")


# --- calls: pass, ask, then the bid of contract k is CALL_BID + k and the d-th double name is
# CALL_BID + K + d (K contracts)
CALL_PASS, CALL_ASK, CALL_BID = 0, 1, 2
# bidding by value (style "value"): CALL_ASK is the senior's hold, and the i-th value of the
# ladder is the code CALL_BID + K + (names in the doubling chain) + i (`RuleTables.value_code`)


# --- predicate opcodes (postfix programs of who may bid what)
P_ALL, P_ANY, P_NONE, P_COUNT, P_POS, P_AND, P_OR, P_NOT = range(8)


# --- multiplier columns of c_mult
MULT_OLD_LOST, MULT_OLD_WON, MULT_TIE = range(3)
MULT_NAMES = ("old_side_lost", "old_side_won", "tie")

