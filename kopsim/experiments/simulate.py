"""`kopsim simulate`: hands of one ruleset, played by one bot in every seat (random by default) through the batch kernel, summarised."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterator

import numpy as np

from ..engine.layout import DealLayout, ruleset_layout
from ..engine.sessions import series_points
from ..records.format import HandRecord, batch_record, open_log
from ..rules.compile import CompiledRules, compile_rules
from ..rules.load import BUNDLED_DIR, resolve_path
from ..rules.model import Ruleset, Session
from ..terminal import compile_notice, progress_bar

if TYPE_CHECKING:  # the compiled kernel loads only when hands are played
    from ..engine.kernel import BatchResult


@dataclass
class Summary:
    rules: Ruleset
    bot: str = "random"
    build_seconds: float = 0.0  # building (or loading) the compiled code, before any play
    hands: int = 0
    seconds: float = 0.0
    contract_counts: dict[str, int] = field(default_factory=dict)
    old_wins: dict[str, int] = field(default_factory=dict)
    sessions_done: int = 0
    session_lengths: list[int] = field(default_factory=list)
    # one entry a seat (the ruleset's deck.players)
    pay_sum: np.ndarray = field(init=False)
    pay_sq: np.ndarray = field(init=False)
    session_points: np.ndarray = field(init=False)
    session_wins: np.ndarray = field(init=False)

    def __post_init__(self):
        n = self.rules.deck.players
        self.pay_sum, self.pay_sq = np.zeros(n), np.zeros(n)
        self.session_points, self.session_wins = np.zeros(n), np.zeros(n)

    def text(self) -> str:
        n = max(self.hands, 1)
        lines = [f"{self.rules.name}: {self.hands:,} hands in {self.seconds:.2f} s "
                 f"({self.hands / max(self.seconds, 1e-9):,.0f} hands/s, batch kernel, "
                 f"{self.bot} in every seat)"]
        if self.build_seconds >= 1.0:  # compiling is no play: said apart, never in hands/s
            lines.append(f"(before play: {self.build_seconds:.1f} s to build the compiled code, "
                         "once; later runs load it from the cache)")
        played = [name for name in self.rules.contracts if self.contract_counts.get(name, 0)]
        width = max([12] + [len(name) + 2 for name in played])
        lines += ["", f"{'contract':<{width}}{'hands':>10}{'share':>9}{'old side won':>15}"]
        for name in played:
            c = self.contract_counts[name]
            lines.append(f"{name:<{width}}{c:>10,}{100 * c / n:>8.2f}%"
                         f"{100 * self.old_wins.get(name, 0) / c:>14.1f}%")
        lines += ["", "mean payout per seat (95% CI):"]
        for s in range(len(self.pay_sum)):
            mean = self.pay_sum[s] / n
            var = max(self.pay_sq[s] / n - mean * mean, 0.0)
            half = 1.96 * math.sqrt(var / n)
            lines.append(f"  seat {s}: {mean:+.4f} ± {half:.4f}")
        if self.sessions_done:
            spec = self.rules.session
            lines += ["", f"sessions completed: {self.sessions_done:,} "
                      f"(mean length {np.mean(self.session_lengths):.1f} hands)"]
            if spec.kind == "series":
                lines.append("  mean placement points per seat: " + ", ".join(
                    f"{x / self.sessions_done:.3f}" for x in self.session_points))
            else:
                lines.append("  sessions won per seat (ties stand): " + ", ".join(
                    f"{int(x):,}" for x in self.session_wins))
        return "\n".join(lines)


@dataclass
class Chunk:
    result: BatchResult  # its hand_index is the index in the run, or in the session
    deal_id: np.ndarray
    session: np.ndarray | None  # session of each hand (None: the ruleset has no sessions)
    # bankroll sessions: result.payouts is what moved; these are the rules' price of each hand
    # and the cards each seat held before it, and the sessions that ended on these hands
    nominal_payouts: np.ndarray | None = None
    bankroll: np.ndarray | None = None
    ended: dict | None = None


def iter_run(cr: CompiledRules, run_seed: int, n_hands: int, chunk: int = 65536,
             bots: list | None = None) -> Iterator[Chunk]:
    """The first n_hands hands of a run of the ruleset's own sessions, chunk by chunk, in
    order; `bots` as play_batch takes them (default: random in every seat)."""
    from ..bots.seated import play_batch
    layout = ruleset_layout(cr, run_seed)
    if layout.session == "bankroll":
        yield from bankroll_run(cr, layout, n_hands, chunk, bots)
        return
    for first in range(0, n_hands, chunk):
        deals = layout.hands(first, min(chunk, n_hands - first))
        res = play_batch(cr, deals.seed, deals.dealer, deals.hand_index, bots)
        yield Chunk(res, deals.deal_id, deals.session)


def bankroll_run(cr: CompiledRules, layout: DealLayout, n_hands: int,
                 chunk: int, bots: list | None = None) -> Iterator[Chunk]:
    """Sessions end when a player is out, which only play reveals: play deals in order and let
    the bankroll scan keep the hands of each session."""
    from ..bots.seated import play_batch
    from ..engine.kernel import take
    from ..engine.session_rows import BankrollCarry, bankroll_scan, ended_before

    carry = BankrollCarry()
    produced, cursor = 0, 0
    while produced < n_hands:
        deals = layout.deals(cursor, cursor + chunk)
        cursor += chunk
        res = play_batch(cr, deals.seed, deals.dealer, deals.deal_id, bots)
        scan = bankroll_scan(cr.rules.session, carry, deals.deal_id, res.payouts, final=False)
        carry = scan.carry
        n = min(len(scan.keep), n_hands - produced)
        if n == 0:
            continue
        part = take(res, scan.keep[:n]).with_columns(payouts=scan.paid[:n])
        part.hand_index = scan.hand_index[:n].astype(np.int64)
        produced += n
        yield Chunk(part, deals.deal_id[scan.keep[:n]], scan.session[:n].astype(np.int64),
                    res.payouts[scan.keep[:n]], scan.held[:n], ended_before(scan, n))


def user_ruleset_file(name_or_path: str) -> str | None:
    """The absolute path of a ruleset file of the user's, None for a bundled ruleset: what the
    records of a log hold so that `kopsim replay` can name the file to pass."""
    path = resolve_path(name_or_path).resolve()
    return None if path.parent == BUNDLED_DIR.resolve() else str(path)


def simulate(rules: Ruleset, hands: int, seed: int, log_path: str | None = None,
             chunk: int = 65536, ruleset_file: str | None = None,
             progress: bool | None = None, bot=None) -> Summary:
    """Play and summarise `hands` hands, `bot` (a BotSpec that plays in the kernel; default
    random) in every seat; progress on stderr when it is a terminal (or forced)."""
    from ..engine.kernel import _play_batch

    cr = compile_rules(rules)
    out = Summary(rules, "random" if bot is None else bot.label)
    if bot is not None:
        from ..bots import prepare_bots
        import sys

        prepare_bots(cr, [bot], 1, lambda m: print(m, file=sys.stderr))
    log = open_log(log_path) if log_path else None
    compile_notice(_play_batch, force=progress)
    bar = progress_bar(hands, rules.name, force=progress)
    series = SeriesTally(rules.session, cr.tables.n_seats) \
        if rules.session and rules.session.kind == "series" else None
    out.build_seconds = _build(cr, bot)
    t0 = time.perf_counter()
    try:
        lineup = None if bot is None else [bot] * cr.tables.n_seats
        for ch in iter_run(cr, seed, hands, chunk, lineup):
            bar.update(len(ch.result))
            _count_hands(out, ch.result)
            if series is not None:
                series.add(out, ch.session, ch.result.payouts)
            if ch.ended is not None:
                _count_bankroll_sessions(out, ch.ended)
            if log is not None:
                _write_log(log, ch, ruleset_file)
    finally:
        bar.close()
        if log is not None:
            log.close()
    out.seconds = time.perf_counter() - t0
    return out


def _build(cr, bot) -> float:
    """Seconds to build (or load) the compiled code the run plays with: one hand played first,
    so that the time of play is play."""
    from ..bots.seated import play_batch
    from ..engine.layout import hand_seeds

    t0 = time.perf_counter()
    play_batch(cr, hand_seeds(0, 0, 1), np.zeros(1, np.int64), None,
               None if bot is None else [bot] * cr.tables.n_seats)
    return time.perf_counter() - t0


def _count_hands(out: Summary, res) -> None:
    out.hands += len(res)
    names = res.compiled.contract_names
    counts = np.bincount(res.contract, minlength=len(names))
    wins = np.bincount(res.contract[res.winner == 0], minlength=len(names))
    for k, name in enumerate(names):
        out.contract_counts[name] = out.contract_counts.get(name, 0) + int(counts[k])
        out.old_wins[name] = out.old_wins.get(name, 0) + int(wins[k])
    out.pay_sum += res.payouts.sum(axis=0)
    out.pay_sq += (res.payouts ** 2).sum(axis=0)


class SeriesTally:
    """The series in play, hand by hand: a series that reaches its length scores its placement
    points (one cut short by the number of hands does not count)."""

    def __init__(self, spec: Session, seats: int):
        self.spec, self.seats = spec, seats
        self.session, self.totals, self.hands = -1, np.zeros(seats), 0

    def add(self, out: Summary, session: np.ndarray, payouts: np.ndarray) -> None:
        for i in range(len(session)):
            s = int(session[i])
            if s != self.session:
                self.session, self.totals, self.hands = s, np.zeros(self.seats), 0
            self.totals += payouts[i]
            self.hands += 1
            if self.hands == self.spec.hands:
                out.sessions_done += 1
                out.session_lengths.append(self.hands)
                out.session_points += np.array(series_points(list(self.totals), self.spec))


def _count_bankroll_sessions(out: Summary, ended: dict) -> None:
    """The bankroll sessions the scan ended (each scored once, there): most cards wins, ties
    stand."""
    for hands, balance in zip(ended["hands"].tolist(), ended["balance"]):
        out.sessions_done += 1
        out.session_lengths.append(hands)
        out.session_wins += balance == balance.max()


def _write_log(log, ch: Chunk, ruleset_file: str | None) -> None:
    res = ch.result
    for i in range(len(res)):
        session = None if ch.session is None else int(ch.session[i])
        rec: HandRecord = batch_record(res, i, session)
        rec.ruleset_file = ruleset_file
        if ch.bankroll is not None:
            rec.nominal_payouts = [float(x) for x in ch.nominal_payouts[i]]
            rec.bankroll = [float(x) for x in ch.bankroll[i]]
        log.write(rec.to_json())
        log.write("\n")
