"""`kopsim report RESULTS_DIR`: a results folder (docs/results.md) as a report people can read.

`results` reads and checks the folder, `analysis` computes every number with polars (lazily, over
the Parquet files), `plots` draws them with matplotlib, `render` writes index.html (self-contained,
every string from a ruleset or experiment escaped), report.md, the PNG plots and the CSV tables.
Importing this package is cheap: polars and matplotlib load only when a report is built.
"""

from __future__ import annotations

import json
import re
from pathlib import Path


SOURCE_FILE = "source.json"  # in a report folder: the results folder it was made from


def default_output(results_dir: str | Path) -> Path:
    """reports/NAME, NAME the results folder's own name reduced to safe file-name characters:
    two results folders (a quick run beside the main one) never share a report folder."""
    name = Path(results_dir).resolve().name
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.") or "report"
    return Path("reports") / slug[:80]


def other_source(out: Path, results_dir: str | Path) -> str | None:
    """The results folder a report already in `out` was made from, if not this one ("an
    unknown results folder" for a report of older kopsim without source.json); else None."""
    if not (out / "index.html").exists():
        return None
    try:
        made_from = json.loads((out / SOURCE_FILE).read_text(encoding="utf-8"))["results"]
    except (OSError, ValueError, KeyError, TypeError):
        return "an unknown results folder"
    here = str(Path(results_dir).resolve())
    return None if made_from == here else str(made_from)


def build_report(results_dir: str | Path, out: str | Path | None = None,
                 replace: bool = False):
    """Read, analyse, plot and write; returns (output folder, files written, Analysis). A
    report made from another results folder is not replaced unless `replace`."""
    from ..errors import InputError, Problem
    from .analysis import analyse
    from .plots import draw_all
    from .render import write_report
    from .read import load_results

    out = Path(out) if out is not None else default_output(results_dir)
    other = None if replace else other_source(out, results_dir)
    if other is not None:
        raise InputError([Problem(str(out), "", f"holds the report of {other}: name another "
                                  "folder (-o DIR), or pass --replace to replace it")])
    res = load_results(results_dir)
    an = analyse(res)
    plots = draw_all(an)
    try:
        files = write_report(an, plots, out)
        (out / SOURCE_FILE).write_text(json.dumps(
            {"results": str(Path(results_dir).resolve())}) + "\n", encoding="utf-8")
    except OSError as e:
        raise InputError([Problem(str(out), "", f"cannot write the report: {e}")])
    return out, files, an
