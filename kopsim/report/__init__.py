"""`kopsim report RESULTS_DIR`: a results folder (docs/results.md) as a report people can read.

`results` reads and checks the folder, `analysis` computes every number with polars (lazily, over
the Parquet files), `plots` draws them with matplotlib, `render` writes index.html (self-contained,
every string from a ruleset or experiment escaped), report.md, the PNG plots and the CSV tables.
Importing this package is cheap: polars and matplotlib load only when a report is built.
"""

from __future__ import annotations

import re
from pathlib import Path


def default_output(name: str) -> Path:
    """reports/NAME, with NAME reduced to safe file-name characters (it comes from the
    experiment file, so it must not be able to point anywhere else)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "report"
    return Path("reports") / slug[:80]


def build_report(results_dir: str | Path, out: str | Path | None = None):
    """Read, analyse, plot and write; returns (output folder, files written, Analysis)."""
    from ..errors import InputError, Problem
    from .analysis import analyse
    from .plots import draw_all
    from .render import write_report
    from .read import load_results

    res = load_results(results_dir)
    an = analyse(res)
    plots = draw_all(an)
    out = Path(out) if out is not None else default_output(res.name)
    try:
        files = write_report(an, plots, out)
    except OSError as e:
        raise InputError([Problem(str(out), "", f"cannot write the report: {e}")])
    return out, files, an
