"""`kopsim duel`: a duplicate match of two bots."""

from __future__ import annotations

import sys

from ..terminal import clean
from . import args as cliargs


def add_parser(sub) -> None:
    d = sub.add_parser("duel", help="duplicate match of two bots: A − B per hand with a 95%% CI")
    d.add_argument("ruleset")
    d.add_argument("--a", required=True, help='a bot: "heuristic", "pimc:samples=16" or '
                   "\"{name='heuristic', solo=2.5}\"")
    d.add_argument("--b", required=True)
    d.add_argument("--deals", type=cliargs.count(2), default=2000)
    d.add_argument("--seed", type=cliargs.seed, default=0)
    d.add_argument("--jobs", type=cliargs.jobs, default=1, help="processes for plain-Python bots")
    d.add_argument("--json", action="store_true")


def run(args) -> int:
    import json

    from ..errors import InputError, Problem
    from ..experiments.duel import duel, parse_bot
    from ..rules.load import load_ruleset

    rules = load_ruleset(args.ruleset)
    a = parse_bot(args.a, "--a")
    b = parse_bot(args.b, "--b")
    for flag, bot in (("--a", a), ("--b", b)):
        why = bot.cannot_play(rules)
        if why:
            raise InputError([Problem(flag, "", f"{bot.label} cannot play {rules.name}: {why}")])
    res = duel(rules, a, b, args.deals, args.seed, args.jobs, progress=not args.json
               and sys.stderr.isatty())
    print(json.dumps(res.to_json()) if args.json else clean(res.text()))
    return 0
