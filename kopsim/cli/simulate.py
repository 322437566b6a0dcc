"""`kopsim simulate`: random hands played and summarised."""

from __future__ import annotations

from ..terminal import clean
from . import args as cliargs


def add_parser(sub) -> None:
    sim = sub.add_parser("simulate", help="play hands (random bots unless --bot) and summarise them")
    sim.add_argument("ruleset")
    sim.add_argument("--hands", type=cliargs.count(), default=10000)
    sim.add_argument("--seed", type=cliargs.seed, default=0)
    sim.add_argument("--log", metavar="FILE.jsonl", type=cliargs.output_file,
                     help="write every hand record (JSON Lines)")
    sim.add_argument("--bot", metavar="BOT", help='the bot in every seat (default random): '
                     '"heuristic", "ev", "pimc:samples=16"; one that plays in the batch kernel')


def run(args) -> int:
    from ..experiments.simulate import simulate, user_ruleset_file
    from ..rules.load import load_ruleset

    rules = load_ruleset(args.ruleset)
    bot = None if args.bot is None else _kernel_bot(args.bot, rules)
    summary = simulate(rules, args.hands, args.seed, args.log,
                       ruleset_file=user_ruleset_file(args.ruleset), bot=bot)
    print(clean(summary.text()))
    if args.log:
        print(f"\nhand records written to {clean(args.log)}")
    return 0


def _kernel_bot(text: str, rules):
    from ..errors import InputError, Problem
    from ..experiments.duel import parse_bot

    bot = parse_bot(text, "--bot")
    why = bot.cannot_play(rules)
    if why:
        raise InputError([Problem("--bot", "", f"{bot.label} cannot play {rules.name}: {why}")])
    if bot.kernel_kind is None:
        raise InputError([Problem("--bot", "", f"{bot.label} plays only in the reference engine; "
                                  "simulate plays in the batch kernel (kopsim duel plays it)")])
    return bot
