"""`kopsim replay`: every hand of a log re-derived from its ruleset."""

from __future__ import annotations

from ..terminal import clean
from . import args as cliargs


def add_parser(sub) -> None:
    rp = sub.add_parser("replay", help="re-derive every hand of a log from its ruleset")
    rp.add_argument("log", metavar="FILE.jsonl")
    rp.add_argument("--rules", metavar="FILE",
                    help="the ruleset to replay under (default: the bundled ruleset each record "
                         "names, checked against its ruleset_sha256)")
    rp.add_argument("--rules-from-log", action="store_true",
                    help="also read the ruleset file a record names (ruleset_file, written by "
                         "simulate for a ruleset file of yours); off by default, as a log may "
                         "name any path")
    rp.add_argument("--max-report", type=cliargs.count(0), default=20,
                    help="discrepancies printed (default 20; 0: only the count)")
    rp.add_argument("--jobs", type=cliargs.jobs, default=1,
                    help="processes checking blocks of hands")
    rp.add_argument("--show", type=cliargs.count(1), metavar="N", default=None,
                    help="draw the N-th hand of the log (1: the first): the deal, the auction, "
                         "each trick and who took it, the payouts; nothing is replayed")


def run(args) -> int:
    from ..records.replay import replay

    if args.show is not None:
        return _show(args)
    n, found = replay(args.log, args.rules, args.jobs, args.rules_from_log)
    for d in found[: args.max_report]:
        print(d)
    if len(found) > args.max_report:
        print(f"... and {len(found) - args.max_report} more")
    if found:
        print(f"{clean(args.log)}: {n:,} hands, {len(found):,} with a discrepancy")
        return 1
    print(f"{clean(args.log)}: {n:,} hands replayed, every call, card, trick, score and payout "
          "agrees with the rules")
    return 0


def _show(args) -> int:
    """Draw one hand; with its ruleset at hand (bundled, --rules, --rules-from-log) the sides of
    a hand played each for himself are told as the ruleset settles them."""
    from ..errors import InputError, Problem
    from ..records.replay import RulesSource, rules_for
    from ..records.show import find_record, show_hand

    d = find_record(args.log, args.show)
    try:
        rules = rules_for(d, RulesSource(args.rules, args.rules_from_log),
                          Problem(str(args.log), "--show", ""))
    except InputError:
        rules = None
    print(show_hand(d, args.show, rules))
    if rules is None:
        print(f"(ruleset {clean(d['ruleset'])!r} not at hand: the sides as the record names them; "
              "--rules FILE tells them as the ruleset plays)")
    return 0
