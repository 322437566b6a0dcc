"""pimc: perfect-information Monte Carlo, and the double-dummy cheat that bounds it.

At each decision pimc deals the cards it cannot see to the other seats, many times, uniformly
among the deals consistent with everything public: each seat's number of cards, the cards played,
what failing to follow, trump or beat revealed, and every call made (a wesele bid shows both black
queens, a cicha-ban restriction shows what a silent hand cannot hold, ...; see `.sampler`). Each
sample is solved exactly by the double-dummy solver, all of pimc's legal cards at once and every
sample under one transposition table (`DealSolver`), and the card with the best mean wins.

In the auction each call is valued the same way: the contract it would lead to, solved from the
first lead in every sample, in this seat's own payout. By default the contract is the one in
force if the others then passed; with `lookahead`, the rest of the auction is played in each
sample by a model of good players (the ev bot's policy, `.lookahead`), so a bid the others would
double, or a sacrifice they would punish, is priced as such.

A decision's samples come from the bot's seed and the number of public actions before it, so the
same observation under the same seed gets the same samples, whatever the bot decided before.

`cheat-dd` sees all four hands (it is marked so in every label) and plays the double-dummy
move: an upper bound for fair bots, never a fair opponent.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from ..rules.codes import TEAM_ALONE
from ..engine.codes import BOT_PIMC
from ..engine.reference import Observation, State
from ..engine.rng import Stream
from ..engine.scoring import score
from ..rules.cache import compiled, table
from ..rules.compile import CompiledRules
from .heuristic import HeuristicBot, HeuristicParams
from .inference import CallModel, world_weights
from .lookahead import AuctionModel, LookaheadParams
from .pimc_kernel import kernel_params as pimc_params, pimc_decide, pimc_scratch
from .table_size import deck_problem
from .sampler import (AuctionBook, DealTables, Reading, card_names, deal_tables, deal_terms,
                      draw_worlds, decision_state, public_history, replay)
from .solver import DealSolver

__all__ = ["PimcBot", "CheatBot", "PimcParams", "CheatParams", "public_history", "replay"]


class PimcParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    samples: int = Field(24, ge=1, le=4096, description="samples per card decision")
    auction_samples: int = Field(12, ge=1, le=4096, description="samples per auction decision")
    seed: int = Field(0, description="varies the samples, not the deal")
    max_tries: int = Field(200, ge=1, le=1_000_000, description="draws per sample before "
                                                                   "giving up")
    lookahead: bool = Field(False, description="value a call by the rest of the auction as "
                                               "the ev bot's policy plays it, not as if all pass")
    model: LookaheadParams = Field(LookaheadParams(), description="that policy's self-play")
    punished: bool = Field(False, description="price a call as if the other side then "
                                              "doubled whatever fails (once more, if it may)")
    sound_bids: bool = Field(True, description="never bid a contract that loses in most "
                                               "samples while another call is open")
    inference: float = Field(0.0, ge=0.0, le=1e6,
                             description="weigh each world by how likely the others' calls "
                                         "are in it (the softmax temperature of the ev "
                                         "model, in payout units); 0: worlds unweighted")


class CheatParams(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)
    lookahead: bool = Field(False, description="as pimc's")
    model: LookaheadParams = Field(LookaheadParams(), description="as pimc's")
    sound_bids: bool = Field(True, description="never bid a contract that loses")


def call_model(rules, params: LookaheadParams) -> CallModel:
    """One model of the others' calls per ruleset, settings and process."""
    key = ("call model", params.deals, params.rounds)
    return table(rules, key, lambda: CallModel(rules, params.ev_params()))


def auction_model(rules, params: LookaheadParams) -> AuctionModel:
    """One model per ruleset, settings and process."""
    key = ("auction model", params.deals, params.rounds)
    return table(rules, key, lambda: AuctionModel(rules, params))


def auction_book(rules, dealer: int, auction, to_speak: int | None) -> AuctionBook:
    """The readings of the auction's predicate keys, carried on from call to call. A key's
    reading is a function of the public auction alone (the dealer, the calls, who is to speak
    next), so the pimc seats of one process read one book: none learns anything from another's,
    and each reads in it what it would have read in its own, only sooner."""
    books = table(rules, "auction books", dict)
    book = books.get(dealer)
    if book is None or not book.extends_to(auction, to_speak):
        book = books[dealer] = AuctionBook(rules, dealer, auction)
    return book


def _contract_after(rules, bid, bidder, double_seats, implied, seat: int, call: str):
    if call in rules.contracts:
        return call, seat, []
    doubles = list(double_seats) + ([seat] if call in rules.doubling.names else [])
    if bid is not None:
        return bid, bidder, doubles
    return implied[0], implied[1], doubles


class _Position(NamedTuple):
    """The public state of the play: the open trick and what each seat has taken."""

    leader: int
    trick: list[int]  # card indices
    points: list[float]
    tricks: list[int]
    played: int  # mask of every card played


def _position(cr: CompiledRules, obs: Observation) -> _Position:
    index = cr.card_index
    pts = cr.tables.card_points
    n = cr.tables.n_seats
    points, tricks = [0.0] * n, [0] * n
    leader, trick, played = (obs.dealer + 1) % n, [], 0
    for t in obs.tricks:
        cards = [index[c] for c in t.cards]
        for c in cards:
            played |= 1 << c
        if t.winner is None:
            leader, trick = t.leader, cards
        else:
            points[t.winner] += sum(float(pts[c]) for c in cards)
            tricks[t.winner] += 1
            leader, trick = t.winner, []
    return _Position(leader, trick, points, tricks, played)


def deal_solver(cr: CompiledRules) -> DealSolver:
    """One solver (and table) per ruleset and process."""
    return _solver_and_tables(cr)[0]


def _solver_and_tables(cr: CompiledRules) -> tuple[DealSolver, DealTables]:
    """The ruleset's solver and the tables of what its deals make of a contract, looked up
    once per decision."""
    return table(cr.rules, "pimc deal solver", lambda: (DealSolver(cr), deal_tables(cr)))


def _deals_alike(cr: CompiledRules, dt, contract: str, declarer, hands: np.ndarray,
                 rows: np.ndarray) -> list[tuple[int, float, int, np.ndarray]]:
    """The deals hands[rows] in groups that the solver searches alike: (old side, Laufende
    added, called card, the group's rows) for each (see `deal_terms`; dt: its DealTables)."""
    k = cr.contract_names.index(contract)
    n = rows.shape[0]
    decl = -1 if declarer is None else int(declarer)
    t = cr.tables
    if (decl >= 0 and t.c_team[k] == TEAM_ALONE and not t.c_lauf_from[k]
            and not t.c_run_away[k]):  # a declarer alone: the deals fix nothing
        return [(1 << decl, 0.0, -1, rows)] if n else []
    olds = np.zeros(n, np.int64)
    called, added = np.zeros(n, np.int64), np.zeros(n, np.float64)
    deal_terms(dt, k, decl, hands[rows], olds, added, called)
    if n and (olds == olds[0]).all() and (added == added[0]).all() and (called == called[0]).all():
        # the usual case: one old side (a bid, or the same holders)
        return [(int(olds[0]), float(added[0]), int(called[0]), rows)]
    groups: dict[tuple, list[int]] = {}
    for i, term in enumerate(zip(olds.tolist(), added.tolist(), called.tolist())):
        groups.setdefault(term, []).append(i)
    return [(old, add, call, rows[i]) for (old, add, call), i in sorted(groups.items())]


def _still_on_duty(cr: CompiledRules, contract: str, called: int, obs: Observation) -> int:
    """The called card if its duties still hold (no finished trick led in its suit), else -1."""
    if called < 0:
        return -1
    t = cr.tables
    o = int(t.c_order[cr.contract_names.index(contract)])
    index = cr.card_index
    suit = t.suit[o]
    for trick in obs.tricks:
        if trick.winner is not None and suit[index[trick.cards[0]]] == suit[called]:
            return -1
    return called


def card_values(cr: CompiledRules, obs: Observation, hands: np.ndarray,
                readings: list[Reading], seat: int) -> np.ndarray:
    """[world, legal card]: each legal card's double-dummy value to seat in each world (its
    side's payout minus the other side's, per seat)."""
    index = cr.card_index
    moves = np.array([index[c] for c in obs.legal_actions], np.int64)
    pos = _position(cr, obs)
    held = hands & ~np.uint64(pos.played)
    out = np.zeros((hands.shape[0], moves.shape[0]), np.float64)
    solver, dt = _solver_and_tables(cr)
    position = (pos.leader, pos.trick, pos.points, pos.tricks)
    for (contract, declarer, doubles), rows in _group(readings).items():
        k = cr.contract_names.index(contract)
        for old, added, called, group in _deals_alike(cr, dt, contract, declarer, hands, rows):
            solver.move_values(k, old, doubles, held, group, position, moves, out, added,
                               _still_on_duty(cr, contract, called, obs))
            if not (old >> seat) & 1:
                out[group] = -out[group]
    return out


def _group(readings: list[Reading], term=lambda r: (r.contract, r.declarer, r.double_seats)
           ) -> dict[tuple, np.ndarray]:
    """The worlds (row indices) of each term of their readings (by default the (contract,
    declarer, doubles) the auction made)."""
    groups: dict[tuple, list[int]] = {}
    for w, r in enumerate(readings):
        groups.setdefault(term(r), []).append(w)
    return {k: np.array(v, np.int64) for k, v in groups.items()}


def call_values(cr: CompiledRules, obs: Observation, hands: np.ndarray,
                readings: list[Reading], seat: int, known: dict | None = None,
                model: AuctionModel | None = None, punished: bool = False) -> np.ndarray:
    """[world, legal call]: seat's payout in each world if the auction ended after the call
    (or, with a model, went on as the model plays it) and the contract were played
    double-dummy from the first lead (known: the payouts and first-lead values already
    searched, by contract and deal, read and extended; see `contract_payouts`)."""
    rules = cr.rules
    legal = obs.legal_actions
    out = np.zeros((hands.shape[0], len(legal)), np.float64)
    cells: dict[tuple, list[tuple[int, int]]] = {}
    if model is None:  # the contract after a call depends on the world through its reading
        for r, ws in _group(readings, lambda r: r).items():
            for j, call in enumerate(legal):
                c, d, dbl = _contract_after(rules, obs.bid, obs.bidder, r.double_seats,
                                            r.implied, seat, call)
                cells.setdefault((c, d, tuple(dbl)), []).extend((w, j) for w in ws.tolist())
    else:
        history = public_history(obs)
        for w in range(len(readings)):
            names = card_names(cr, hands[w])
            for j, call in enumerate(legal):
                end = model.ending(obs.dealer, names, history + [(seat, call)])
                if end.payouts is not None:
                    out[w, j] = end.payouts[seat]
                    continue
                c, d, dbl = end.contract, end.declarer, end.double_seats
                cells.setdefault((c, d, tuple(dbl)), []).append((w, j))
    known = {} if known is None else known
    deals = [row.tobytes() for row in hands]
    for cell, where in cells.items():
        # a cell's payout in a deal, once found, serves every later call of the hand
        new = sorted({w for w, _ in where if (cell, deals[w]) not in known})
        if new:
            payouts = contract_payouts(cr, *cell, hands[new], (obs.dealer + 1) % cr.tables.n_seats,
                                       seat, known, punished)
            known.update(((cell, deals[w]), p) for w, p in zip(new, payouts.tolist()))
        for w, j in where:
            out[w, j] = known[(cell, deals[w])]
    return out


def contract_payouts(cr: CompiledRules, contract: str, declarer, doubles, hands: np.ndarray,
                     forehand: int, seat: int, known: dict | None = None,
                     punished: bool = False) -> np.ndarray:
    """Seat's payout in each deal hands[w] when the contract is played double-dummy from the
    first lead (declared by declarer, under these doubles). known: first-lead values already
    searched, by (search key, deal), read and extended. punished: where the seat's side loses,
    the other side doubles once more if it may (as a seat seeing every card would)."""
    rules = cr.rules
    known = {} if known is None else known
    out = np.zeros(hands.shape[0], np.float64)
    k = cr.contract_names.index(contract)
    solver, dt = _solver_and_tables(cr)
    everyone = np.arange(hands.shape[0])
    for old, added, called, rows in _deals_alike(cr, dt, contract, declarer, hands, everyone):
        if rules.contracts[contract].instant:
            n = cr.tables.n_seats
            side = [s for s in range(n) if (old >> s) & 1]
            out[rows] = score(rules, contract, side, [], [0] * n, [0] * n).payouts[seat]
            continue
        lead = solver.first_lead(k, old, doubles, seat, added, called)
        if lead.pay is None:
            solver.first_lead_line_payouts(lead, hands, rows, forehand, out)
            continue
        keys = [(lead.search, hands[w].tobytes()) for w in rows.tolist()]
        new = np.array([w for w, key in zip(rows.tolist(), keys) if key not in known], np.int64)
        if new.shape[0]:
            values = np.zeros(hands.shape[0], np.float64)
            solver.first_lead_values(lead, hands, new, forehand, values)
            for w in new.tolist():
                known[(lead.search, hands[w].tobytes())] = float(values[w])
        out[rows] = [lead.pay[known[key]] for key in keys]
        if punished:
            _punish(cr, contract, declarer, doubles, old, hands, rows, forehand, seat, known, out)
    return out


def _punish(cr: CompiledRules, contract: str, declarer, doubles, old: int, hands, rows,
            forehand: int, seat: int, known: dict, out: np.ndarray) -> None:
    """out[rows]: where negative, priced with one more double by the other side than seat's
    (old: the deals' old side), where the rules let it say one and it costs seat more."""
    k = cr.contract_names.index(contract)
    t = cr.tables
    n = t.n_seats
    mine = old if (old >> seat) & 1 else (~old & ((1 << n) - 1))
    other = next((s for s in range(n) if not (mine >> s) & 1), None)
    if other is None or len(doubles) >= int(t.c_max_doubles[k]):
        return
    if not doubles and t.c_first_double_young[k] and (old >> other) & 1:
        return
    losing = rows[out[rows] < 0]
    if losing.shape[0]:  # (a double that would turn a tie round is not said)
        out[losing] = np.minimum(out[losing], contract_payouts(
            cr, contract, declarer, list(doubles) + [other], hands[losing], forehand, seat,
            known))


def searchable(rules, talon: bool = False) -> str | None:
    """Why the double-dummy search cannot play the ruleset: it searches two sides of a deck of
    distinct cards, and a hand played each for himself (Ramsch) has as many sides as seats;
    None if it can (at a table of any size). talon: the compiled pimc's card play, which deals
    a talon into its worlds and prices a game bid by value (`talon_problem`)."""
    why = talon_problem(rules) if talon else deck_problem(rules)
    if why is not None:
        return why
    each = [n for n, c in rules.contracts.items() if c.team == "each"]
    if each:
        return (f"its double-dummy search plays two sides, and {each[0]!r} is played each for "
                "himself")
    return None


def talon_problem(rules) -> str | None:
    """Why the compiled pimc cannot play a talon or bidding by value: it searches the cards
    only, and decides the auction, the talon and the game declared as the heuristic does,
    which it can do only where the auction bids by value; the talon's points must count for
    the declarer's side or nobody's (the search does not give them to the last trick)."""
    if (rules.deck.copies or 1) > 1:
        return deck_problem(rules)
    if rules.talon is None and rules.auction.style != "value":
        return None
    if rules.auction.style != "value":
        return (f"it deals {rules.talon.cards} cards to a talon, and prices its calls by "
                "search only where the rules bid by value (then its calls are the heuristic's)")
    last = [n for n in rules.contracts if rules.talon_points_of(n) == "last_trick"
            and not rules.contracts[n].instant and rules.contracts[n].team != "each"]
    if last:
        return (f"its search gives the talon's points to the declarer's side, and {last[0]!r} "
                "gives them to the last trick's taker")
    return None


def _best(legal, totals, among=None) -> str:
    """The action of legal with the highest total (the first of equal ones), of `among` if
    given."""
    return max(among or legal, key=lambda a: (totals[legal.index(a)], -legal.index(a)))


def _best_call(rules, legal, values: np.ndarray, sound: bool) -> str:
    """The call of the best mean value; sound: never a bid that loses in most of the worlds
    (a sacrifice priced as if nobody doubled it) while another call is open."""
    totals = values.sum(axis=0)
    if not sound:
        return _best(legal, totals)
    losing = {j for j, c in enumerate(legal)
              if c in rules.contracts and (values[:, j] < 0).mean() > 0.5}
    return _best(legal, totals, [c for j, c in enumerate(legal) if j not in losing])


def scratch(cr: CompiledRules, n_worlds: int):
    """One room for the compiled decisions per ruleset, size and process (its transposition
    table and pricings serve every pimc seat's decisions)."""
    return table(cr.rules, ("pimc scratch", n_worlds), lambda: pimc_scratch(cr, n_worlds))


class PimcBot:
    """pimc. With its usual settings it decides in compiled code (`kopsim.bots.pimc_kernel`),
    in the batch kernel as in the reference engine; with `lookahead` or `inference` it decides
    here in Python, through the reference engine only. Both are the same bot (tested)."""

    name = "pimc"
    summary = ("perfect-information Monte Carlo: deals the unseen cards consistently with "
               "what is public, solves each world exactly, plays the best on average")
    Params = PimcParams
    kernel_kind = BOT_PIMC

    @staticmethod
    def cannot_play_of(params: PimcParams, rules) -> str | None:
        """The search at any table of distinct cards, and so the model of the others' calls
        (lookahead, inference: the ev bot's); a talon and bidding by value in the compiled
        decisions only."""
        return searchable(rules, talon=in_kernel(params))

    def __init__(self, params: PimcParams, hand_seed: int, seat: int, rules=None):
        self.params, self.seat, self.rules = params, seat, rules
        self.hand_seed = hand_seed
        s = Stream((hand_seed + params.seed * 0x9E3779B97F4A7C15) & (2**64 - 1), 20 + seat)
        self.base = s.next()
        self.first_leads: dict = {}  # (search key, deal) -> first-lead value, for this hand
        self.likelihoods: dict = {}  # world -> log-likelihood of the others' calls, this hand
        self.python = not in_kernel(params)

    @staticmethod
    def kernel_kind_of(params) -> int | None:
        """The kernel kind with these settings: none with a model of the others (lookahead,
        inference), which only the Python statement has."""
        return BOT_PIMC if in_kernel(params) else None

    @staticmethod
    def kernel_params(params) -> list[float]:
        """Its own row (PP_*), then the heuristic's (at PIMC_HEURISTIC_AT), which decides
        what it does not search: bidding by value, the talon, the game declared."""
        return (pimc_params(params.samples, params.auction_samples, params.max_tries,
                            params.punished, params.sound_bids, params.seed)
                + HeuristicBot.kernel_params(HeuristicParams()))

    def act(self, obs: Observation) -> str:
        legal = list(obs.legal_actions)
        if len(legal) == 1:
            return legal[0]
        if obs.phase != "play" and self.rules.auction.style == "value":
            return self._heuristic().act(obs)
        cr = compiled(self.rules)
        if not self.python:
            n = max(self.params.samples, self.params.auction_samples)
            return pimc_decide(cr, scratch(cr, n), self.kernel_params(self.params),
                               self.hand_seed, obs)
        return self.act_in_python(obs)

    def _heuristic(self) -> HeuristicBot:
        """What decides where it does not search (bidding by value, the talon, the game
        declared): the heuristic, as the kernel's pimc kind plays it (`_heuristic_row`)."""
        return HeuristicBot(HeuristicParams(), self.hand_seed, self.seat, self.rules)

    def act_in_python(self, obs: Observation) -> str:
        """The same decision stated in Python over the reference engine (and the only one
        with a model of the others)."""
        legal = list(obs.legal_actions)
        if len(legal) == 1:
            return legal[0]
        cr = compiled(self.rules)
        play = obs.phase == "play"
        n = self.params.samples if play else self.params.auction_samples
        # the auction's decisions start from one state: with no card played their samples
        # differ only by what the calls since rule out, and a world's first-lead values,
        # searched once, serve every call of this bot's (self.first_leads)
        state = decision_state(self.base, len(public_history(obs)) if play else 0)
        book = auction_book(self.rules, obs.dealer, obs.auction, None if play else self.seat)
        worlds = draw_worlds(cr, obs, book, n, state, n * self.params.max_tries)
        if not worlds.readings:
            return legal[0]  # nothing consistent found: should not happen; play safe and legal
        if play:
            values = card_values(cr, obs, worlds.hands, worlds.readings, self.seat)
        else:
            model = (auction_model(self.rules, self.params.model) if self.params.lookahead
                     else None)
            values = call_values(cr, obs, worlds.hands, worlds.readings, self.seat,
                                 self.first_leads, model, self.params.punished)
            values = self._weighed(cr, obs, worlds.hands, values)
            return _best_call(self.rules, legal, values, self.params.sound_bids)
        return _best(legal, self._weighed(cr, obs, worlds.hands, values).sum(axis=0))

    def _weighed(self, cr, obs: Observation, hands: np.ndarray, values: np.ndarray) -> np.ndarray:
        """values[world, action] times each world's weight by inference, if it is on."""
        if self.params.inference <= 0 or all(s == self.seat for s, _ in obs.auction):
            return values
        if self.likelihoods.get("auction") != obs.auction:  # a new call: weigh afresh
            self.likelihoods = {"auction": list(obs.auction)}
        weights = world_weights(call_model(self.rules, self.params.model), cr, obs.dealer,
                                obs.auction, hands, self.seat, self.params.inference,
                                self.likelihoods)
        return values * weights[:, None]


def in_kernel(params: PimcParams) -> bool:
    """Whether the compiled decisions play these settings (all but a model of the others)."""
    return not _modelled(params)


def _modelled(params: PimcParams) -> bool:
    """Whether the settings model the others' calls (lookahead, inference: the ev bot's)."""
    return params.lookahead or params.inference > 0


class CheatBot:
    """Sees every hand and plays double-dummy. Marked: an upper bound, not a fair bot."""

    name = "cheat-dd"
    summary = "sees every hand and plays double-dummy: an upper bound, not a fair bot"
    Params = CheatParams
    kernel_kind = None
    sees_all = True  # `play_hand` gives it the whole state; no fair line-up should include it

    @staticmethod
    def cannot_play_of(params: CheatParams, rules) -> str | None:
        """As pimc's (its lookahead is the ev bot's model, which plays any table)."""
        return searchable(rules)

    def __init__(self, params: CheatParams, hand_seed: int, seat: int, rules=None):
        self.params, self.seat, self.rules = params, seat, rules

    @staticmethod
    def kernel_params(params) -> list[float]:  # pragma: no cover
        raise TypeError("cheat-dd runs through the reference engine")

    def act_seeing_all(self, state: State) -> str:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        cr = compiled(self.rules)
        index = cr.card_index
        hands = np.array([[sum(1 << index[c] for c in h) for h in state.deal.hands]], np.uint64)
        obs = state.observation(self.seat)
        if state.phase == "play":
            reading = Reading(state.contract, state.declarer, (state.contract, state.declarer),
                              tuple(state.double_seats))
            values = card_values(cr, obs, hands, [reading], self.seat)
        else:
            model = (auction_model(self.rules, self.params.model) if self.params.lookahead
                     else None)
            reading = Reading(None, None, state.implied_contract(), tuple(state.double_seats))
            values = call_values(cr, obs, hands, [reading], self.seat, None, model)
            return _best_call(self.rules, legal, values, self.params.sound_bids)
        return _best(legal, values[0])
