"""Argparse types for every option of `kopsim`: each number is range-checked while parsing, so a
bad value exits with code 2 and a message naming the option, never a traceback later on.

Argparse prefixes the message with "argument --OPT:", so the messages here do not repeat it.
Only the standard library is imported: the parser is built on every `kopsim` call.
"""

from __future__ import annotations

import argparse
from pathlib import Path

# Seeds fit an int64, the type of the seed columns in results (docs/results.md).
SEED_LIMIT = 2**63
# Far beyond what finishes in a day, small enough that every count fits an int64 array index.
COUNT_LIMIT = 10**12
# More processes than this are a typo, and each one costs memory before it plays a hand.
JOBS_LIMIT = 1024


def _whole_number(text: str) -> int:
    try:
        return int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def bounded_int(low: int, high: int, what: str = "a whole number"):
    """A parser of whole numbers in [low, high] ("2_000_000" reads as 2000000)."""
    def parse(text: str) -> int:
        n = _whole_number(text)
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"expected {what} from {low:,} to {high:,}, got {n:,}")
        return n
    parse.__name__ = what  # argparse names the type in "invalid <name> value" messages
    return parse


def count(low: int = 1):
    """Hands, deals, chunk sizes: at least `low`, at most COUNT_LIMIT."""
    return bounded_int(low, COUNT_LIMIT, "a count")


jobs = bounded_int(1, JOBS_LIMIT, "a number of jobs")
# a seat of the largest table a ruleset may have (rules.model.MAX_SEATS, not imported: the parser
# is built on every call); a command checks it against its ruleset's table (`seats_at_table`)
SEAT_LIMIT = 5
seat = bounded_int(0, SEAT_LIMIT, "a seat")


def seats_at_table(n_seats: int, seats: dict) -> list:
    """Problems with the seats given on the command line ({option: seat or None}) at a table of
    n_seats."""
    from ..errors import Problem

    return [Problem("command line", option, f"seat {s} is not at this ruleset's table of "
                    f"{n_seats} (seats 0 to {n_seats - 1})")
            for option, s in seats.items() if s is not None and s >= n_seats]


def seed(text: str) -> int:
    n = _whole_number(text)
    if not 0 <= n < SEED_LIMIT:
        raise argparse.ArgumentTypeError(f"expected 0 <= seed < 2**63, got {n}")
    return n


def jobs_list(text: str) -> list[int]:
    """"1,2,4": job counts to time, each in [1, JOBS_LIMIT]."""
    parts = [x.strip() for x in text.split(",") if x.strip()]
    if not parts:
        raise argparse.ArgumentTypeError(f"expected numbers such as 1,2, got {text!r}")
    return [jobs(x) for x in parts]


def output_file(text: str) -> str:
    """A file to write: its folder must exist and the path must not be a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a folder; expected a file name")
    folder = path.parent
    if not folder.is_dir():
        raise argparse.ArgumentTypeError(f"folder {folder} does not exist")
    return text


def output_folder(text: str) -> str:
    """A folder to write into (made if missing): the path must not be a file."""
    if Path(text).exists() and not Path(text).is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file; expected a folder")
    return text
