"""One logged hand drawn as text (`kopsim replay FILE --show N`): the deal, the auction, each
trick and who took it, and what each seat was paid — read from the record alone, so a hand of
any ruleset, Ramsch (every seat for himself) included, draws the same way."""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError, Problem
from ..rules.model import position_of  # counted from the dealer's left
from ..rules.show import pretty_card
from .format import parse_records, read_lines, record_problem


def find_record(path: str | Path, n: int) -> dict:
    """The n-th hand record of the log (1 = the first), checked as replay checks one."""
    for count, (lineno, d) in enumerate(parse_records(path, read_lines(path)), start=1):
        if count == n:
            problem = record_problem(d)
            if problem:
                raise InputError([Problem(str(path), f"line {lineno}", problem)])
            return d
    raise InputError([Problem(str(path), "--show", f"the log holds fewer than {n} hands")])


def _seat(d: dict, seat: int) -> str:
    n = len(d["hands"])
    return f"seat {seat} ({position_of(seat, d['dealer'], n)})"


def _cards(cards: list[str]) -> str:
    return " ".join(pretty_card(c) for c in cards)


def sides_sentence(d: dict, each: bool | None = None) -> str:
    """Who played with whom in record d. each: is its contract played each for himself (the
    ruleset's word; None: not known), where old_side is the one seat that settles alone."""
    old = d.get("old_side") or []
    if not old:
        return "every seat plays for himself"
    if each:
        seat = old[0]
        if d.get("winner") == "old":
            return f"every seat plays for himself; seat {seat} wins alone (a Durchmarsch)"
        return f"every seat plays for himself; seat {seat}, with the most points, loses alone"
    young = [s for s in range(len(d["hands"])) if s not in old]
    return (f"old side {', '.join(f'seat {s}' for s in old)} against "
            f"{', '.join(f'seat {s}' for s in young)}")


def played_each_alone(rules, contract: str) -> bool | None:
    """Is `contract` of `rules` played each for himself (None: no ruleset, or not its contract)."""
    if rules is None or contract not in rules.contracts:
        return None
    return rules.contracts[contract].team == "each"


def show_hand(d: dict, n: int, rules=None) -> str:
    """The record d (the n-th of its log) as lines of text; with the ruleset it was played
    under, a hand played each for himself says who settled alone and why."""
    each = played_each_alone(rules, d["contract"])
    out = [f"hand {n}: {d['ruleset']}, seed {d['seed']}, hand {d['hand_index']}, "
           f"dealer seat {d['dealer']}", "", "deal:"]
    n = len(d["hands"])
    out += [f"  {_seat(d, s):18} {_cards(d['hands'][s])}" for s in range(n)]
    calls = [f"seat {c['seat']}: {c['call']}" for c in d["auction"]]
    out += ["", "auction: " + (" · ".join(calls) if calls else "no calls")]
    by = "" if d.get("declarer") is None else f" by seat {d['declarer']}"
    doubles = f", doubled {d['doubles']} time{'s' * (d['doubles'] != 1)}" if d["doubles"] else ""
    out += [f"contract: {d['contract']}{by}{doubles}; {sides_sentence(d, each)}", ""]
    if d["tricks"]:
        out.append("tricks:")
    for k, t in enumerate(d["tricks"], start=1):
        played = " ".join(f"{pretty_card(c)}(s{(t['leader'] + i) % n})"
                          for i, c in enumerate(t["cards"]))
        out.append(f"  {k:2}. seat {t['leader']} leads: {played}  -> seat {t['winner']} takes it")
    pts = " ".join(f"{p:g}" for p in d["points"])
    won = "" if d.get("winner") is None or each else f"; {d['winner']} side wins ({d['tier']})"
    out += ["", f"card points by seat: {pts}; tricks by seat: "
                f"{' '.join(str(x) for x in d['tricks_won'])}{won}",
            "payouts: " + "  ".join(f"seat {s} {p:+g}" for s, p in enumerate(d["payouts"]))]
    return "\n".join(out)
