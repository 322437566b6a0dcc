"""A seat at the table (`kopsim play`): a person plays one seat against bots in the reference
engine, hand after hand, until the input ends.

Deal k is the deal `kopsim simulate` plays as deal k of the same seed (its seed, and dealer k
modulo the seats), so a hand played here can be compared with the bots' play of it; a new
session (series or bankroll) opens, as in a run, on the next deal dealt by seat 0. Each finished hand is written to
the log at once (a hand record that `kopsim replay` checks), so ending the input, or an
interruption, loses at most the hand under way. Sessions are kept as the ruleset scores them: a
series' placement points, a bankroll's cards moving only as far as a loser can pay."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..bots import BotSpec
from ..engine.layout import hand_seeds
from ..engine.reference import Deal, State
from ..engine.sessions import BankrollSession, series_points
from ..records.format import record_from_state
from ..records.show import played_each_alone, sides_sentence
from ..rules.model import Ruleset
from ..rules.show import pretty_card
from .view import SeatView

Ask = Callable[[str], "str | None"]  # shows a prompt, returns a line, None at the end of input
Say = Callable[[str], None]


class EndOfInput(Exception):
    """The player's input ended, or he said quit: the table closes after the hands finished."""

    def __init__(self, why: str):
        super().__init__(why)
        self.why = why


def read_choice(answer: str, legal: list[str]) -> tuple[str | None, str]:
    """The action an answer names (its number, or the call or card itself), or None and why not."""
    text = answer.strip()
    if not text:
        return None, "type the number of your choice"
    if text.isdigit():
        k = int(text)
        if 1 <= k <= len(legal):
            return legal[k - 1], ""
        return None, f"{k} is not a choice here: choose 1 to {len(legal)}"
    for action in legal:
        if text.lower() in (action.lower(), pretty_card(action).lower()):
            return action, ""
    return None, (f"{text!r} is not legal now; the choices are "
                  + ", ".join(f"{k} {a}" for k, a in enumerate(legal, start=1)))


@dataclass
class Scoreboard:
    """The running totals, and the ruleset's session: a series or a bankroll, if it has one."""

    rules: Ruleset
    totals: list[float] = field(default_factory=list)
    session: int = 0
    hand_index: int = 0
    bankroll: BankrollSession | None = None
    series: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seats = self.rules.deck.players
        self.totals = [0.0] * self.seats
        self.series = [0.0] * self.seats
        spec = self.rules.session
        if spec is not None and spec.kind == "bankroll":
            self.bankroll = BankrollSession.start(spec, self.seats)

    def settle(self, record) -> list[str]:
        """Fill the record's session fields, pay the hand, and say where the session stands."""
        spec = self.rules.session
        if spec is not None:
            record.session, record.hand_index = self.session, self.hand_index
        if self.bankroll is not None:
            record.bankroll = list(self.bankroll.balance)
            record.nominal_payouts = list(record.payouts)
            record.payouts = self.bankroll.play(record.payouts)
        self.totals = [t + p for t, p in zip(self.totals, record.payouts)]
        self.series = [t + p for t, p in zip(self.series, record.payouts)]
        self.hand_index += 1
        return self._session_end(spec)

    def _session_end(self, spec) -> list[str]:
        if self.bankroll is not None and self.bankroll.over:
            cards = " ".join(f"{b:g}" for b in self.bankroll.balance)
            winners = ", ".join(f"seat {s}" for s in self.bankroll.winners())
            self.bankroll = BankrollSession.start(spec, self.seats)
            return self._next_session(f"session over (a seat holds no cards): cards by seat "
                                      f"{cards}; most cards: {winners}")
        if spec is not None and spec.kind == "series" and self.hand_index == spec.hands:
            placed = series_points(self.series, spec)
            return self._next_session("series over: placement points by seat "
                                      + " ".join(f"{p:g}" for p in placed))
        return []

    def _next_session(self, line: str) -> list[str]:
        self.session += 1
        self.hand_index = 0
        self.series = [0.0] * self.seats
        return [line, "a new session starts"]

    def lines(self) -> list[str]:
        out = ["running total: " + "  ".join(f"seat {s} {t:+g}" for s, t in enumerate(self.totals))]
        if self.bankroll is not None:
            out.append("cards held: " + "  ".join(f"seat {s} {b:g}"
                                                   for s, b in enumerate(self.bankroll.balance)))
        return out


@dataclass
class Table:
    """One person at `seat`, bots (by seat; None at the person's seat) in the others."""

    rules: Ruleset
    seat: int
    bots: list[BotSpec | None]
    seed: int
    ask: Ask
    say: Say
    log: object = None  # an open text file for the hand records, or None
    ruleset_file: str | None = None

    def play(self, hands: int | None = None) -> int:
        """Hands until the input ends (or `hands` of them); returns the hands finished."""
        board = Scoreboard(self.rules)
        done = deal = 0
        try:
            while hands is None or done < hands:
                self.say(f"\n=== hand {done + 1} ===")
                state = self.play_hand(deal)
                record = record_from_state(state, int(hand_seeds(self.seed, deal, 1)[0]), deal)
                record.ruleset_file = self.ruleset_file
                session_lines = board.settle(record)
                self._tell_result(state, record)
                for line in session_lines + board.lines():
                    self.say(line)
                if self.log is not None:
                    self.log.write(record.to_json() + "\n")
                    self.log.flush()
                done += 1
                # as a run lays deals out: a session opens on a deal dealt by seat 0
                n = self.rules.deck.players
                deal = -(-(deal + 1) // n) * n if session_lines else deal + 1
        except EndOfInput as e:
            self.say(f"\n({e.why}: the hand under way is not counted)")
        return done

    def play_hand(self, k: int) -> State:
        deal_seed = int(hand_seeds(self.seed, k, 1)[0])
        state = State(self.rules, Deal.from_seed(self.rules, deal_seed,
                                                 k % self.rules.deck.players))
        players = [None if b is None else b.make(deal_seed, s, self.rules)
                   for s, b in enumerate(self.bots)]
        view = SeatView(self.rules, self.seat)
        for line in view.opening(state.observation(self.seat)):
            self.say(line)
        while not state.is_terminal():
            turn = state.current_player()
            if turn == self.seat:
                action = self._person(view, state.observation(self.seat))
            else:
                action = players[turn].act(state.observation(turn))
            state.apply_action(action)
            for line in view.news(state.observation(self.seat)):
                self.say(line)
        return state

    def _person(self, view: SeatView, obs) -> str:
        for line in view.news(obs):
            self.say(line)
        lines, legal = view.choices(obs)
        if len(legal) == 1:  # no choice to make: said for him, as the news will tell
            return legal[0]
        for line in lines:
            self.say(line)
        what = "call" if obs.phase == "auction" else "card"
        while True:
            answer = self.ask(f"your {what} [1-{len(legal)}, q to stop]: ")
            if answer is None:
                raise EndOfInput("end of input")
            if answer.strip().lower() in ("q", "quit"):
                raise EndOfInput("stopped")
            action, why = read_choice(answer, legal)
            if action is not None:
                return action
            self.say(why)

    def _tell_result(self, state: State, record) -> None:
        """The hand's end, which the whole table sees: contract, sides, points and payouts."""
        d = record.to_dict()
        each = played_each_alone(self.rules, state.contract)
        by = "" if state.declarer is None else f" by seat {state.declarer}"
        won = "" if d["winner"] is None or each else f"; the {d['winner']} side wins ({d['tier']})"
        self.say(f"hand over: {state.contract}{by}; {sides_sentence(d, each)}{won}")
        self.say("card points by seat: " + " ".join(f"{p:g}" for p in state.points)
                 + "; tricks: " + " ".join(str(t) for t in state.tricks_won))
        self.say("payouts: " + "  ".join(f"seat {s} {p:+g}" for s, p in enumerate(record.payouts)))
