"""`kopsim replay`: re-derive every hand of a log from its ruleset with the reference engine.

Each call and card is checked for legality in turn; then the contract, teams, trick winners,
points, counted doubles, result and payouts are recomputed. The first discrepancy of each hand is
reported (later ones usually follow from it).
"""

from __future__ import annotations

import math
import os
import shlex
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, Problem
from ..engine.reference import HAND, PICK_UP, Deal, IllegalAction, State
from .format import json_number, parse_records, read_lines, record_problem
from ..rules.load import bundled_names, load_ruleset
from ..rules.model import Ruleset
from ..engine.sessions import paid_amounts
from ..terminal import clean, progress_bar


@dataclass
class Discrepancy:
    line: int
    hand_index: int | None
    message: str

    def __str__(self) -> str:
        return clean(f"line {self.line} (hand {self.hand_index}): {self.message}")


def _logged_deal(rules: Ruleset, d: dict) -> Deal | str:
    """The deal a record logs (its hands, and its talon in rules with one), or what is wrong
    with it: a seat's cards too many or too few, a card not of the deck or dealt twice."""
    cards = set(rules.cards())
    n, per_seat, k = rules.deck.players, rules.hand_size(), rules.talon_cards()
    hands = d["hands"]
    if (not isinstance(hands, list) or len(hands) != n
            or any(not isinstance(h, list) or len(h) != per_seat for h in hands)):
        return f"hands: expected {n} lists of {per_seat} cards"
    talon = d.get("talon")
    if k and not (isinstance(talon, list) and len(talon) == k):
        return f"talon: expected the {k} cards dealt to the talon"
    if not k and talon is not None:
        return "talon: the rules deal no talon"
    flat = [c for h in hands for c in h] + list(talon or [])
    unknown = [c for c in flat if c not in cards]
    if unknown:
        return f"hands: {', '.join(map(str, unknown))} not in the deck"
    if len(set(flat)) != len(flat):
        return "hands: a card is dealt twice"
    return Deal(d["dealer"], tuple(tuple(h) for h in hands), tuple(talon or ()))


def check_record(rules: Ruleset, d: dict) -> str | None:
    """None if the record is consistent with the rules, else its first discrepancy."""
    deal = _logged_deal(rules, d)
    if isinstance(deal, str):
        return deal
    if d.get("session") is not None and rules.session is None:
        return "session: the rules score no sessions"
    dealer, n = d["dealer"], rules.deck.players
    if dealer not in range(n):
        return f"dealer: {dealer!r} is not a seat"
    if isinstance(d.get("hand_index"), int) and dealer != d["hand_index"] % n:
        return f"dealer: hand {d['hand_index']} is dealt by seat {d['hand_index'] % n}, not {dealer}"
    if isinstance(d.get("seed"), int):
        dealt = Deal.from_seed(rules, d["seed"], dealer)
        if dealt.hands != deal.hands:
            return f"hands: not the deal of seed {d['seed']}"
        if dealt.talon != deal.talon:
            return f"talon: not the deal of seed {d['seed']}"
    state = State(rules, deal)

    for i, call in enumerate(d["auction"]):
        if state.phase != "auction":
            return f"auction[{i}]: the auction was already over before {call!r}"
        if not isinstance(call, dict) or "seat" not in call or "call" not in call:
            return f"auction[{i}]: expected {{\"seat\": int, \"call\": str}}"
        if call["seat"] != state.current_player():
            return (f"auction[{i}]: seat {call['seat']} called out of turn "
                    f"(seat {state.current_player()} was to speak)")
        try:
            state.apply_action(call["call"])
        except IllegalAction as e:
            return f"auction[{i}]: {e}"
    if state.phase == "auction":
        return "auction: the log stops before the auction ends"
    problem = _replay_talon(state, d) or _replay_declaration(state, d)
    if problem:
        return problem
    for key, want in (("contract", state.contract), ("declarer", state.declarer)):
        if d[key] != want:
            return f"{key}: log says {d[key]!r}, the rules give {want!r}"
    # a hand played each for himself (Ramsch) learns its old side, the seat that settles
    # alone, only from the cards (HAND-RECORD.md §2.11): checked once the tricks are played
    each_alone = rules.contracts[state.contract].team == "each"
    if not each_alone and d["old_side"] != state.old_side:
        return f"old_side: log says {d['old_side']!r}, the rules give {state.old_side!r}"

    tricks = d["tricks"]
    if rules.contracts[state.contract].instant:
        if tricks:
            return f"tricks: contract {state.contract!r} wins at once, yet tricks were logged"
    else:
        if len(tricks) != rules.hand_size():
            return f"tricks: expected {rules.hand_size()} tricks, got {len(tricks)}"
        for t, trick in enumerate(tricks):
            if trick.get("leader") != state.current_player():
                return (f"tricks[{t}].leader: log says {trick.get('leader')!r}, "
                        f"seat {state.current_player()} leads")
            if len(trick.get("cards", [])) != n:
                return f"tricks[{t}].cards: expected {n} cards"
            for j, card in enumerate(trick["cards"]):
                try:
                    state.apply_action(card)
                except IllegalAction as e:
                    return f"tricks[{t}].cards[{j}]: {e}"
            won_by = state.tricks[-1].winner
            if trick.get("winner") != won_by:
                return f"tricks[{t}].winner: log says {trick.get('winner')!r}, seat {won_by} wins"
    o = state.outcome
    assert o is not None
    if each_alone and d["old_side"] != state.old_side:
        return f"old_side: log says {d['old_side']!r}, the rules give {state.old_side!r}"
    payouts = [float(x) for x in o.payouts]
    checks = [("points", [float(x) for x in d["points"]], [float(x) for x in state.points]),
              ("tricks_won", d["tricks_won"], state.tricks_won),
              ("doubles", d["doubles"], o.doubles),
              ("winner", d["winner"], o.winner),
              ("tier", d["tier"], o.tier)]
    if _in_bankroll_session(rules, d):  # the rules price the hand; the bankroll decides what
        # is paid (a bankroll ruleset played without sessions pays every price in full)
        problem = _bankroll_problem(rules, d)
        if problem:
            return problem
        checks.append(("nominal_payouts", [float(x) for x in d["nominal_payouts"]], payouts))
        payouts = paid_amounts([float(x) for x in d["bankroll"]], payouts)
    checks.append(("payouts", [float(x) for x in d["payouts"]], payouts))
    for key, logged, derived in checks:
        if logged != derived:
            return f"{key}: log says {d[key]!r}, the rules give {derived!r}"
    return None


def _replay_talon(state: State, d: dict) -> str | None:
    """The declarer's pick-up (or hand) and the cards he laid away, replayed where the contract
    has him pick the talon up (HAND-RECORD.md §2.23-2.24); what is wrong with them, or None."""
    taken, laid = d.get("talon_taken"), d.get("laid_away")
    if state.phase != "talon":
        if taken is not None or laid is not None:
            return (f"talon_taken: nobody picks the talon up in {state.contract!r}, yet the "
                    "log says whether it was")
        return None
    if taken is None:
        return f"talon_taken: missing; in {state.contract!r} the declarer picks the talon up"
    if state.legal_actions() == [PICK_UP, HAND]:
        state.apply_action(PICK_UP if taken else HAND)
    elif not taken:
        return f"talon_taken: log says false, but in {state.contract!r} the talon is picked up"
    if not taken:
        return None if laid is None else "laid_away: logged for a hand played without the talon"
    if not isinstance(laid, list) or len(laid) != len(state.deal.talon):
        return f"laid_away: expected the {len(state.deal.talon)} cards laid away"
    for i, card in enumerate(laid):
        try:
            state.apply_action(card)
        except IllegalAction as e:
            return f"laid_away[{i}]: {e}"
    return None


def _replay_declaration(state: State, d: dict) -> str | None:
    """Bid by value, the declarer declares the logged contract: one he may declare at his
    bid (docs/rules/SKAT.md §4.5); what is wrong with it, or None."""
    if state.phase != "declare":
        return None
    try:
        state.apply_action(d["contract"])
    except IllegalAction as e:
        return f"contract: {e}"
    return None


def _in_bankroll_session(rules: Ruleset, d: dict) -> bool:
    return (rules.session is not None and rules.session.kind == "bankroll"
            and d.get("session") is not None)


def _bankroll_problem(rules: Ruleset, d: dict) -> str | None:
    """Is the record's `bankroll` (cards held before the hand) possible? A session starts with
    `start` each, never changes the number of cards in play, and ends when a seat holds none."""
    n = rules.deck.players
    for key in ("nominal_payouts", "bankroll"):
        if key not in d:
            return (f"{key}: missing; a hand of a bankroll session records its nominal_payouts "
                    "and the bankroll before it, so that what it paid can be checked (older "
                    "kopsim logs lack both: play the hands again)")
        value = d[key]
        if (not isinstance(value, list) or len(value) != n
                or not all(_finite_number(x) for x in value)):
            return f"{key}: log says {value!r}, expected a list of {n} numbers"
    held = [float(x) for x in d["bankroll"]]
    start = float(rules.session.start)
    if d.get("hand_index") == 0 and held != [start] * n:
        return (f"bankroll: log says {d['bankroll']!r}, a session starts with "
                f"{json_number(start)} each")
    if min(held) <= 0:
        return f"bankroll: log says {d['bankroll']!r}, but a session ends when a seat holds none"
    if not math.isclose(sum(held), n * start):
        return (f"bankroll: log says {d['bankroll']!r}, {json_number(sum(held))} cards in all; a "
                f"session keeps the {json_number(n * start)} it starts with")
    return None


def _finite_number(x) -> bool:
    if isinstance(x, float):
        return math.isfinite(x)
    return isinstance(x, int) and not isinstance(x, bool) and abs(x) < 2**53


@dataclass
class BankrollHand:
    """A checked hand of a bankroll session, for the check that each hand starts where the one
    before it in the log left the session."""

    line: int
    session: object
    hand_index: object
    held: list[float]
    paid: list[float]


def _chain_problems(prev: BankrollHand | None, hands: list[BankrollHand]
                    ) -> tuple[list[Discrepancy], BankrollHand | None]:
    """Discrepancies between consecutive hands of one session, and the hand the next one is to
    follow. A log cut into chunks may start in the middle of a session: its first hand is checked
    on its own, as is the hand after a discrepancy, which would only repeat it."""
    found = []
    for h in hands:
        follows = (prev is not None and h.session == prev.session
                   and isinstance(prev.hand_index, int) and h.hand_index == prev.hand_index + 1)
        problem = _follow_problem(prev, h) if follows else None
        if problem:
            found.append(Discrepancy(h.line, h.hand_index, problem))
        prev = None if problem else h
    return found, prev


def _follow_problem(prev: BankrollHand, h: BankrollHand) -> str | None:
    left = [a + b for a, b in zip(prev.held, prev.paid)]
    if min(left) <= 0:
        return (f"session {h.session} ended with hand {prev.hand_index} (a seat holds no "
                "cards), yet this hand follows it")
    if not all(math.isclose(a, b, abs_tol=1e-9) for a, b in zip(h.held, left)):
        return (f"bankroll: log says {[json_number(x) for x in h.held]}, the hand before leaves "
                f"{[json_number(x) for x in left]}")
    return None


@dataclass(frozen=True)
class RulesSource:
    """The rulesets a replay may read. A log is untrusted input, so the name a record gives is
    looked up among the bundled rulesets only; the file it names (ruleset_file) is read only
    when the user said so (--rules-from-log), and only if it is a regular file.

    Each ruleset is read once per replay (per worker block with jobs > 1): a file edited between
    two replays is read again."""
    rules_file: str | None = None
    from_log: bool = False
    bundled: frozenset[str] = field(default_factory=lambda: frozenset(bundled_names()))
    loaded: dict[str, Ruleset] = field(default_factory=dict, compare=False, repr=False)

    def load(self, name_or_path: str) -> Ruleset:
        if name_or_path not in self.loaded:
            self.loaded[name_or_path] = load_ruleset(name_or_path)
        return self.loaded[name_or_path]


def rules_for(d: dict, source: RulesSource, where: Problem) -> Ruleset:
    """The ruleset to replay record d under. With --rules it is that file (a hash mismatch is
    then a discrepancy of the record); otherwise a bundled ruleset or the logged file whose
    sha256 is the record's, or an InputError saying which --rules FILE to pass."""
    if source.rules_file is not None:
        return source.load(source.rules_file)
    name, sha, logged = d["ruleset"], d["ruleset_sha256"], d.get("ruleset_file")
    if name in source.bundled and source.load(name).sha256() == sha:
        return source.load(name)
    if logged is not None and source.from_log:
        if not os.path.isfile(logged):
            raise InputError([Problem(where.source, where.where,
                                      f"ruleset_file {clean(logged)!r} is not a regular file")])
        if source.load(logged).sha256() == sha:
            return source.load(logged)
        raise InputError([Problem(where.source, where.where,
                                  f"{clean(logged)} has changed since the log was written "
                                  f"(sha256 {source.load(logged).sha256()[:12]}…, the log says "
                                  f"{clean(sha[:12])}…); pass --rules FILE with the rules it "
                                  "was played under")])
    raise InputError([Problem(where.source, where.where,
                              _which_rules(name, sha, logged, source.bundled))])


def _which_rules(name: str, sha: str, logged: str | None, bundled: frozenset[str]) -> str:
    what = ("not the bundled ruleset of that name" if name in bundled
            else "not a bundled ruleset")
    text = (f"played under ruleset {clean(name)!r} (sha256 {clean(sha[:12])}…), {what}; pass "
            "--rules FILE with the ruleset file it was played under")
    if logged is not None:
        text += (f": the log says it was read from {clean(logged)} "
                 f"(--rules {shlex.quote(clean(logged))}, or --rules-from-log to read that file)")
    return text


def _check_block(path: str, block: list[tuple[int, bytes]], source: RulesSource
                 ) -> tuple[list[Discrepancy], list[Problem], list[BankrollHand]]:
    """Discrepancies of a block of raw log lines, or the input problems that stop the replay
    (returned, not raised: they travel back from worker processes intact), and the block's
    consistent bankroll hands, whose sequence the caller checks across blocks."""
    found, chain = [], []
    try:
        for lineno, d in parse_records(path, block):
            hand = d["hand_index"] if type(d["hand_index"]) is int else None
            problem = record_problem(d)
            if problem is None:
                rules = rules_for(d, source, Problem(path, f"line {lineno}", ""))
                problem = _check_against(rules, d, source)
            if problem:
                found.append(Discrepancy(lineno, hand, problem))
            elif _in_bankroll_session(rules, d):
                chain.append(BankrollHand(lineno, d.get("session"), hand,
                                          [float(x) for x in d["bankroll"]],
                                          [float(x) for x in d["payouts"]]))
    except InputError as e:
        return found, e.problems, chain
    return found, [], chain


def _check_against(rules: Ruleset, d: dict, source: RulesSource) -> str | None:
    if d["ruleset_sha256"] != rules.sha256():
        return (f"ruleset_sha256: the log was played under other rules than "
                f"{source.rules_file!r} ({rules.sha256()[:12]}…)")
    try:
        return check_record(rules, d)
    except (TypeError, KeyError, ValueError, IndexError, OverflowError) as e:
        return f"malformed record: {e}"[:300]


def _blocks(path, size: int, counter: list[int], bar):
    block: list[tuple[int, bytes]] = []
    for lineno, line in read_lines(path):
        counter[0] += 1
        block.append((lineno, line))
        bar.update(len(line))
        if len(block) == size:
            yield block
            block = []
    if block:
        yield block


def replay(path: str | Path, rules_override: str | None = None, jobs: int = 1,
           rules_from_log: bool = False, progress: bool | None = None
           ) -> tuple[int, list[Discrepancy]]:
    """(hands checked, discrepancies), in log order. Each record is replayed under the bundled
    ruleset it names, the --rules file, or (rules_from_log) the file it names; see RulesSource.
    With jobs > 1 blocks of lines are parsed and checked in parallel processes; the log is read
    as a stream either way, so memory stays flat."""
    source = RulesSource(rules_override, rules_from_log)
    if rules_override is not None:
        source.load(rules_override)  # a bad --rules file is reported once, before any work
    counter = [0]
    try:
        size = os.path.getsize(path)
    except OSError:
        size = None  # read_lines says why, with the path
    bar = progress_bar(size, "replay", unit="B", force=progress)
    blocks = _blocks(path, 2000, counter, bar)
    if jobs == 1:
        parts = (_check_block(str(path), b, source) for b in blocks)
    else:
        from joblib import Parallel, delayed

        parts = Parallel(n_jobs=jobs, return_as="generator")(
            delayed(_check_block)(str(path), b, source) for b in blocks)
    found: list[Discrepancy] = []
    last: BankrollHand | None = None
    try:
        for part, problems, chain in parts:
            if problems:
                raise InputError(problems)
            unfollowed, last = _chain_problems(last, chain)
            found += sorted(part + unfollowed, key=lambda x: x.line)
    finally:
        bar.close()
        with warnings.catch_warnings():  # stopping at a bad line cancels blocks on purpose
            warnings.filterwarnings("ignore", "(?s).*tasks which were still being processed")
            parts.close()
    return counter[0], found
