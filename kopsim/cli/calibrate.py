"""`kopsim calibrate`: learn (or show) what the ev bot (its call values) and the learnt bot (its
networks) learn from a ruleset, or from each variant of an experiment."""

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
    """(variant label, compiled rules, the ev and learnt bot specs) to calibrate."""
    from ..bots import LearntBot, split_lineup
    from ..engine.codes import BOT_EV
    from ..experiments.duel import parse_bot
    from ..experiments.spec import load_experiment
    from ..rules.cache import compiled
    from ..rules.load import load_ruleset

    def learns(b) -> bool:
        return b.kernel_kind == BOT_EV or b.cls is LearntBot

    if args.target.endswith(".toml") and _is_experiment(args.target):
        exp = load_experiment(args.target)
        bots = [b for b in split_lineup(exp.bots)[0] if learns(b)]
        return [(v.label, compiled(v.rules), bots) for v in exp.variants]
    bot = parse_bot(args.bot, "--bot")
    if not learns(bot):
        from ..errors import InputError, Problem
        raise InputError([Problem("command line", "--bot", f"{bot.label} is neither an ev nor "
                                  "a learnt bot: it learns nothing from the ruleset")])
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

    from ..experiments.parallel import default_jobs

    jobs = args.jobs or default_jobs()
    say = (lambda m: print(clean(m), file=sys.stderr)) if not args.json else None
    out = []
    for variant, cr, bots in _targets(args):
        out += _ev_entries(cr, bots, jobs, say, variant)
        out += _learnt_entries(cr, bots, jobs, say, variant)
    if args.json:
        print(json.dumps(out))
    else:
        for entry in out:
            print(clean(summary_text(entry) if "table_sha256" in entry
                        else learnt_text(entry)))
    return 0


def _ev_entries(cr, bots, jobs, say, variant) -> list[dict]:
    from ..bots.calibrate import prepare, verdict
    from ..engine.codes import BOT_EV

    evs = [b for b in bots if b.kernel_kind == BOT_EV]
    return [{"ruleset": cr.rules.name, "variant": variant, "ruleset_sha256": cr.sha256,
             "bot": bot.label, "table_sha256": table.sha256, **table.summary,
             "verdict": verdict(table.summary, bot.params)}
            for bot, table in zip(evs, prepare(cr, evs, jobs, say, variant))]


def _learnt_entries(cr, bots, jobs, say, variant) -> list[dict]:
    from ..bots import LearntBot
    from ..bots.learnt import prepare

    learnts = [b for b in bots if b.cls is LearntBot]
    return [{"ruleset": cr.rules.name, "variant": variant, "ruleset_sha256": cr.sha256,
             "bot": bot.label, "models_sha256": m.sha256, **(m.summary or {})}
            for bot, m in zip(learnts, prepare(cr, learnts, jobs, say, variant))]


def learnt_text(entry: dict) -> str:
    """A learnt bot's models in words: what they were trained on and how often they choose as
    their teacher did on it."""
    on = entry["ruleset"] if entry.get("variant") in (None, entry["ruleset"]) else \
        f"variant {entry['variant']} (ruleset {entry['ruleset']})"
    head = f"{entry['bot']} on {on} (models {entry['models_sha256'][:12]}…)"
    if "call_agreement" not in entry:
        return head + ": cached before training summaries were kept"
    teacher = entry.get("teacher", "pimc's play")  # (models trained before rollouts existed)
    return (f"{head}: learnt from {teacher} of {entry['deals']:,} deals in "
            f"{entry['seconds']:,.0f} s ({entry['teacher_seconds']:,.0f} s of it the "
            f"teacher's, {entry['jobs']} job{'s' * (entry['jobs'] != 1)})\n"
            f"  calls: {entry['call_decisions']:,} decisions, the teacher's choice taken on "
            f"{entry['call_agreement']:.1%}\n"
            f"  cards: {entry['card_decisions']:,} decisions, the teacher's choice taken on "
            f"{entry['card_agreement']:.1%}\n"
            "  (on the decisions it learnt from; a duplicate duel tells its strength: "
            "kopsim duel RULESET --a learnt --b pimc)")


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
