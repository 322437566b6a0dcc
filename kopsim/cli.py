"""The `kopsim` command line. Bad input exits with code 2 and located messages, no traceback."""

from __future__ import annotations

import argparse
import sys

from . import cliargs
from .errors import InputError, Problem
from .terminal import clean


def _cmd_rules_list(args) -> int:
    from .ruleset import BUNDLED_DIR, bundled_names, load_ruleset

    rows = []
    for name in bundled_names():
        r = load_ruleset(name)
        rows.append([name, r.description, r.source.split(";")[0]])
    from .show import table

    print(clean(table(["name", "description", "source"], rows)))
    print(f"\n(bundled rulesets live in {BUNDLED_DIR}; any TOML file path works too)")
    return 0


def _cmd_rules_show(args) -> int:
    from .ruleset import load_ruleset
    from .show import show

    print(clean(show(load_ruleset(args.ruleset))))
    return 0


def _cmd_rules_validate(args) -> int:
    from .ruleset import load_ruleset

    problems = []
    for path in args.paths:
        try:
            r = load_ruleset(path)
            print(clean(f"{path}: ok ({r.name}, sha256 {r.sha256()[:12]})"))
        except InputError as e:
            problems += e.problems
    if problems:
        raise InputError(problems)
    return 0


def _cmd_simulate(args) -> int:
    from .ruleset import load_ruleset
    from .simulate import simulate, user_ruleset_file

    rules = load_ruleset(args.ruleset)
    summary = simulate(rules, args.hands, args.seed, args.log,
                       ruleset_file=user_ruleset_file(args.ruleset))
    print(clean(summary.text()))
    if args.log:
        print(f"\nhand records written to {clean(args.log)}")
    return 0


def _cmd_replay(args) -> int:
    from .replay import replay

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


def _lazy(module: str, name: str):
    """A handler imported only when its command runs (keeps `kopsim --help` fast)."""
    def run(args):
        import importlib

        return getattr(importlib.import_module(module), name)(args)
    return run


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kopsim")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


class _Parser(argparse.ArgumentParser):
    """A mistake on the command line is bad input like any other: `error: command line: ...`
    and exit code 2 from main(), the same lines as a bad file (subcommands inherit this)."""

    def error(self, message: str):
        raise InputError([Problem("command line", "", f"{message} (see {self.prog} --help)")])


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="kopsim", description="Rule-configured simulation of Kop, "
                                "Baśka and other Schafkopf-family card games.")
    p.add_argument("--version", action="version", version=f"kopsim {_version()}")
    sub = p.add_subparsers(dest="command", required=True)

    rules = sub.add_parser("rules", help="list, show and validate rulesets")
    rsub = rules.add_subparsers(dest="rules_command", required=True)
    rsub.add_parser("list", help="the bundled rulesets").set_defaults(func=_cmd_rules_list)
    s = rsub.add_parser("show", help="card orders, contracts, payout table, session scoring")
    s.add_argument("ruleset", help="a bundled name (kop, baska, ...) or a path to a TOML file")
    s.set_defaults(func=_cmd_rules_show)
    v = rsub.add_parser("validate", help="check ruleset files; exit code 2 on any problem")
    v.add_argument("paths", nargs="+")
    v.set_defaults(func=_cmd_rules_validate)

    sim = sub.add_parser("simulate", help="play random hands and summarise them")
    sim.add_argument("ruleset")
    sim.add_argument("--hands", type=cliargs.count(), default=10000)
    sim.add_argument("--seed", type=cliargs.seed, default=0)
    sim.add_argument("--log", metavar="FILE.jsonl", type=cliargs.output_file,
                     help="write every hand record (JSON Lines)")
    sim.set_defaults(func=_cmd_simulate)

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
    rp.set_defaults(func=_cmd_replay)

    b = sub.add_parser("bench", help="hands/s and peak memory per ruleset and engine")
    b.add_argument("rulesets", nargs="*", help="default: every bundled ruleset")
    b.add_argument("--hands", type=cliargs.count(), default=2_000_000,
                   help="hands for the batch kernel")
    b.add_argument("--reference-hands", type=cliargs.count(), default=5_000)
    b.add_argument("--heuristic-hands", type=cliargs.count(), default=None,
                   help="hands for four heuristic bots in the batch kernel (default: hands / 4)")
    b.add_argument("--bots", action="store_true",
                   help="also the solver's and pimc's decision times (medians)")
    b.add_argument("--jobs", type=cliargs.jobs_list, default=None, metavar="N,N",
                   help="also time `kopsim run` (Parquet written) at these job counts, "
                        "e.g. --jobs 1,2, with the speed-up over the first")
    b.add_argument("--run-deals", type=cliargs.count(), default=2_000_000,
                   help="deals per `kopsim run` timing (default 2,000,000)")
    b.add_argument("--lineups", default="random,heuristic",
                   help="line-ups timed with --jobs (default random,heuristic)")
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=_lazy("kopsim.bench", "cmd_bench"))

    # --- solver command (issue 3): kopsim solve
    def _cmd_solve(args) -> int:
        from .solvecli import cmd_solve

        return cmd_solve(args)

    sv = sub.add_parser("solve", help="exact double-dummy value and best line of a deal")
    sv.add_argument("ruleset")
    sv.add_argument("--hands", required=True,
                    help='four hands, seat 0 first, separated by "|": "AH 10H QC QS | ..."')
    sv.add_argument("--contract", required=True)
    sv.add_argument("--declarer", type=cliargs.seat,
                    help="the declarer's seat (alone/called contracts)")
    sv.add_argument("--dealer", type=cliargs.seat, default=0)
    sv.add_argument("--leader", type=cliargs.seat, help="default: the dealer's left (forehand)")
    sv.set_defaults(func=_cmd_solve)
    # --- bot commands (issue 3): kopsim duel
    d = sub.add_parser("duel", help="duplicate match of two bots: A − B per hand with a 95%% CI")
    d.add_argument("ruleset")
    d.add_argument("--a", required=True, help='a bot: "heuristic", "pimc:samples=16" or '
                   "\"{name='heuristic', solo=2.5}\"")
    d.add_argument("--b", required=True)
    d.add_argument("--deals", type=cliargs.count(2), default=2000)
    d.add_argument("--seed", type=cliargs.seed, default=0)
    d.add_argument("--jobs", type=cliargs.jobs, default=1, help="processes for plain-Python bots")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=_lazy("kopsim.duel", "cmd_duel"))
    # --- experiment commands (issue 4): kopsim run
    from .runcli import add_commands  # argparse only; handlers import the engine when run

    add_commands(sub)
    # --- report commands (issue 5): kopsim report, kopsim rules diff
    def _cmd_report(args) -> int:
        from .report import cmd_report

        return cmd_report(args)

    def _cmd_rules_diff(args) -> int:
        from .rulesdiff import cmd_rules_diff

        return cmd_rules_diff(args)

    rep = sub.add_parser("report", help="a results folder as an HTML/Markdown report with "
                         "plots and CSV tables")
    rep.add_argument("results_dir", metavar="RESULTS_DIR", help="a folder written by kopsim run")
    rep.add_argument("-o", "--output", metavar="DIR",
                     help="where to write it (default: reports/EXPERIMENT-NAME)")
    rep.set_defaults(func=_cmd_report)
    rd = rsub.add_parser("diff", help="the rule differences from ruleset A to ruleset B, "
                         "in plain words")
    rd.add_argument("a", metavar="A", help="a bundled name or a path to a TOML file")
    rd.add_argument("b", metavar="B", help="a bundled name or a path to a TOML file")
    rd.set_defaults(func=_cmd_rules_diff)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except InputError as e:
        for problem in e.problems:
            print(f"error: {clean(problem)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
