"""The `kopsim` command line. Bad input exits with code 2 and located messages, no traceback.

Each command is a module of this package with `add_parser(subparsers)` (argparse only: the parser
is built on every call) and `run(args) -> int`, which imports the engine when the command runs,
so `kopsim --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import sys

from ..errors import InputError, Problem
from ..terminal import clean

COMMANDS = ("rules", "simulate", "replay", "play", "bench", "solve", "duel", "calibrate", "run", "report",
            "bots")


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
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return importlib.import_module(f"{__name__}.{args.command}").run(args)
    except InputError as e:
        for problem in e.problems:
            print(f"error: {clean(problem)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
