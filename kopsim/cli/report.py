"""`kopsim report RESULTS_DIR`: a results folder as an HTML/Markdown report."""

from __future__ import annotations

import re
import sys


def add_parser(sub) -> None:
    rep = sub.add_parser("report", help="a results folder as an HTML/Markdown report with "
                         "plots and CSV tables")
    rep.add_argument("results_dir", metavar="RESULTS_DIR", help="a folder written by kopsim run")
    rep.add_argument("-o", "--output", metavar="DIR",
                     help="where to write it (default: reports/ and the results folder's name)")
    rep.add_argument("--replace", action="store_true",
                     help="replace a report that DIR holds of another results folder")


def _printable(text: str) -> str:
    """A string from a results folder as one terminal line: control characters (escape
    sequences, line breaks) become spaces."""
    return re.sub(r"[\x00-\x1f\x7f-\x9f]", " ", text)


def run(args) -> int:
    from ..report import build_report
    from ..report.render import headlines, warnings

    out, files, an = build_report(args.results_dir, args.output, args.replace)
    for w in warnings(an):  # printed here only, once; the page shows them as a banner
        print(f"warning: {_printable(w)}", file=sys.stderr)
    hands = int(an.overview["hands"].sum())
    n_png = sum(f.suffix == ".png" for f in files)
    n_csv = sum(f.suffix == ".csv" for f in files)
    print(f"report on {hands:,} hands of {len(an.variants)} variant"
          f"{'s' if len(an.variants) != 1 else ''} written to {out}/")
    print(f"  {out / 'index.html'}   (self-contained: open it in a browser)")
    print(f"  {out / 'report.md'}")
    print(f"  {n_png} plots: {out}/*.png")
    print(f"  {n_csv} tables: {out / 'tables'}/*.csv")
    for note in an.notes:
        print(f"note: {note}")
    for line in headlines(an):  # the answer, in short; the report has the whole of it
        print(_printable(line))
    print(f"next: open {out / 'index.html'} in a browser")
    return 0
