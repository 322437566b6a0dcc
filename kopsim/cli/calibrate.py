"""`kopsim calibrate`: learn (or show) the ev bot's call values for a ruleset or an experiment."""

from __future__ import annotations

import sys

from ..terminal import clean
from . import args as cliargs


def add_parser(sub) -> None:
    c = sub.add_parser("calibrate", help="learn the ev bot's call values by self-play (cached by "
                       "ruleset sha256 and bot parameters) and print what it learnt")
    c.add_argument("target", metavar="RULESET|EXPERIMENT.toml")
    c.add_argument("--bot", default="ev", help="the ev bot and its parameters, e.g. "
                   "\"{name='ev', deals=200000}\" (for a ruleset; an experiment names its own)")
    c.add_argument("--jobs", type=cliargs.jobs, default=None, help="processes (default: all)")
    c.add_argument("--json", action="store_true")


def _targets(args):
    """(variant label, compiled rules, ev bot specs) to calibrate."""
    from ..engine.codes import BOT_EV
    from ..experiments.duel import parse_bot
    from ..experiments.spec import load_experiment
    from ..rules.cache import compiled
    from ..rules.load import load_ruleset

    if args.target.endswith(".toml") and _is_experiment(args.target):
        exp = load_experiment(args.target)
        bots = [b for b in exp.bots if b.kernel_kind == BOT_EV]
        return [(v.label, compiled(v.rules), bots) for v in exp.variants]
    bot = parse_bot(args.bot, "--bot")
    if bot.kernel_kind != BOT_EV:
        from ..errors import InputError, Problem
        raise InputError([Problem("command line", "--bot", f"{bot.label} is not an ev bot")])
    rules = load_ruleset(args.target)
    return [(rules.name, compiled(rules), [bot])]


def _is_experiment(path: str) -> bool:
    import tomllib
    try:
        with open(path, "rb") as f:
            return "variants" in tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError):
        return False


def run(args) -> int:
    import json

    from ..bots.calibrate import prepare, verdict
    from ..experiments.parallel import default_jobs

    jobs = args.jobs or default_jobs()
    say = (lambda m: print(clean(m), file=sys.stderr)) if not args.json else None
    out = []
    for variant, cr, bots in _targets(args):
        for bot, table in zip(bots, prepare(cr, bots, jobs, say, variant)):
            out.append({"ruleset": cr.rules.name, "variant": variant,
                        "ruleset_sha256": cr.sha256, "bot": bot.label,
                        "table_sha256": table.sha256, **table.summary,
                        "verdict": verdict(table.summary, bot.params)})
    if args.json:
        print(json.dumps(out))
    else:
        for entry in out:
            print(clean(summary_text(entry)))
    return 0


def summary_text(entry: dict) -> str:
    w = max([14, *(len(n) + 2 for n in entry["contracts"])])  # the longest name, and a gap
    on = entry["ruleset"] if entry.get("variant") in (None, entry["ruleset"]) else \
        f"variant {entry['variant']} (ruleset {entry['ruleset']})"
    lines = [f"{entry['bot']} on {on} (table {entry['table_sha256'][:12]}…), "
             f"four ev bots over {entry['deals']:,} fresh deals:",
             f"  {'contract':<{w}}{'played':>8}{'won':>8}{'mean payout':>13}{'from hands of':>15}"]
    for name, row in entry["contracts"].items():
        if not row["hands"]:
            lines.append(f"  {name:<{w}}{'never':>8}")
            continue
        strength = row["declarer_strength"]
        shown = "—" if strength is None else f"{strength:.2f}"
        lines.append(f"  {name:<{w}}{row['share']:>8.1%}{row['win_rate']:>8.1%}"
                     f"{row['mean_payout']:>+13.2f}{shown:>15}")
    lines.append("  (mean payout: to each seat of the declaring side; hands: the declarer's mean "
                 "strength in the contract's order, ≈ tricks it takes alone)")
    rounds = entry.get("rounds", [])
    if rounds:
        lines.append("  self-play: " + ", ".join(f"round {r['round']} {r['policy_changed']:.1%}"
                                                 for r in rounds) + " of decisions changed")
        lines.append("  " + entry["verdict"])
    return "\n".join(lines)
