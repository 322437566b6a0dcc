"""`kopsim simulate`: random hands played and summarised."""

from __future__ import annotations

from ..terminal import clean
from . import args as cliargs


def add_parser(sub) -> None:
    sim = sub.add_parser("simulate", help="play random hands and summarise them")
    sim.add_argument("ruleset")
    sim.add_argument("--hands", type=cliargs.count(), default=10000)
    sim.add_argument("--seed", type=cliargs.seed, default=0)
    sim.add_argument("--log", metavar="FILE.jsonl", type=cliargs.output_file,
                     help="write every hand record (JSON Lines)")


def run(args) -> int:
    from ..engine.simulate import simulate, user_ruleset_file
    from ..rules.load import load_ruleset

    rules = load_ruleset(args.ruleset)
    summary = simulate(rules, args.hands, args.seed, args.log,
                       ruleset_file=user_ruleset_file(args.ruleset))
    print(clean(summary.text()))
    if args.log:
        print(f"\nhand records written to {clean(args.log)}")
    return 0
