"""`kopsim play`: a seat at the table against bots, a hand at a time in the terminal."""

from __future__ import annotations

from . import args as cliargs


def add_parser(sub) -> None:
    pl = sub.add_parser("play", help="play one seat against bots in the terminal",
                        description="Play hands of a ruleset against bots (one for each other seat "
                        "of its table, three at most): your cards in "
                        "the contract's order, your legal calls and cards numbered, the bots' "
                        "calls and cards as they come. Type a number (or the call or card), q "
                        "or end of input (Ctrl-D) to stop; finished hands stay in the log.")
    pl.add_argument("ruleset", help="a bundled ruleset's name or a ruleset file")
    pl.add_argument("--seat", type=cliargs.seat, default=0,
                    help="your seat, counted from 0 (default 0; at a table of n seats deal k is "
                         "dealt by seat k %% n)")
    pl.add_argument("--bots", default="heuristic", metavar="B,B,B",
                    help="the bots in the other seats, in seat order, or one bot for all of them "
                         '(default heuristic); e.g. "ev,pimc:samples=16,seed=3,heuristic"; '
                         "ev and learnt learn the ruleset first (minutes, once)")
    pl.add_argument("--seed", type=cliargs.seed, default=0,
                    help="the run seed: deal k is deal k of `kopsim simulate` with this seed")
    pl.add_argument("--hands", type=cliargs.count(), default=None,
                    help="stop after this many hands (default: until the input ends)")
    pl.add_argument("--log", metavar="FILE.jsonl", type=cliargs.output_file,
                    help="write each finished hand's record (kopsim replay checks it, "
                         "--show N draws it)")


def split_bots(text: str) -> list[str]:
    """"ev,pimc:samples=16,seed=3,{name='heuristic', zolo=0.5}" -> its three bots: commas inside
    braces belong to the table, and a key=value piece continues the bot before it."""
    pieces, depth, start = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if ch == "," and depth <= 0:
            pieces.append(text[start:i].strip())
            start = i + 1
    bots: list[str] = []
    for piece in pieces:
        continues = "=" in piece and ":" not in piece and not piece.startswith("{")
        if continues and bots:
            bots[-1] += "," + piece
        else:
            bots.append(piece)
    return bots


def _bots(text: str, seat: int, rules) -> list:
    from ..errors import InputError, Problem
    from ..experiments.duel import parse_bot

    n = rules.deck.players
    if seat >= n:
        raise InputError(cliargs.seats_at_table(n, {"--seat": seat}))
    names = split_bots(text)
    if len(names) == 1:
        names *= n - 1
    if len(names) != n - 1 or not all(names):
        raise InputError([Problem("--bots", "", f"expected one bot or {n - 1} (one for each "
                                  f"other seat), got {len(names)}: {text!r}")])
    specs = [parse_bot(n, "--bots") for n in names]
    for spec in specs:
        why = spec.cannot_play(rules)
        if why:
            raise InputError([Problem("--bots", "", f"{spec.label} cannot play {rules.name}: "
                                      f"{why}")])
        if getattr(spec.cls, "sees_all", False):
            raise InputError([Problem("--bots", "", f"{spec.label} is the bound of perfect "
                                      "information; it takes no seat at a table "
                                      "with a person")])
    specs.insert(seat, None)
    return specs


def run(args) -> int:
    import sys

    from ..bots import prepare_bots
    from ..experiments.simulate import user_ruleset_file
    from ..records.format import open_log
    from ..rules.cache import compiled
    from ..rules.load import load_ruleset
    from ..table.game import Table
    from ..terminal import clean

    rules = load_ruleset(args.ruleset)
    bots = _bots(args.bots, args.seat, rules)
    prepare_bots(compiled(rules), [b for b in bots if b is not None], 1,
                 lambda m: print(m, file=sys.stderr))
    print(f"kopsim play: {clean(rules.name)}, {clean(rules.description)}")
    print("you are seat {0}; the bots: {1}".format(args.seat, ", ".join(
        f"seat {s} {b.label}" for s, b in enumerate(bots) if b is not None)))
    log = open_log(args.log) if args.log else None
    try:
        table = Table(rules, args.seat, bots, args.seed, _ask, print, log,
                      user_ruleset_file(args.ruleset))
        done = table.play(args.hands)
    finally:
        if log is not None:
            log.close()
    logged = f"; their records are in {clean(args.log)}" if args.log else ""
    print(f"{done} hand{'s' * (done != 1)} played{logged}")
    return 0


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        print()
        return None
