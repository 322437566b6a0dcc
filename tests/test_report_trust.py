"""A report on doubtful results says so first, and its CSV tables cannot carry a formula."""

import sys
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

import kopsim.report.read as results_reader  # noqa: E402
from kopsim.cli import main  # noqa: E402
from kopsim.report import build_report  # noqa: E402
from kopsim.report.render import csv_safe  # noqa: E402
from kopsim.rules.load import load_ruleset, ruleset_from_dict  # noqa: E402

WARNINGS = ["the manifest says 200,000 deals; 8 are on disk <b>(run interrupted?)</b>",
            "hands/kop/chunk-000009.parquet is missing\x1b[31m"]


@pytest.fixture
def warned(monkeypatch):
    """The results reader returning an object with `warnings`, as the reader of an incomplete
    folder does."""
    real = results_reader.load_results

    def load_with_warnings(path):
        res = real(path)
        res.warnings = list(WARNINGS)
        return res

    monkeypatch.setattr(results_reader, "load_results", load_with_warnings)


def test_warnings_are_a_banner_at_the_top_of_the_page_and_of_report_md(warned, tmp_path):
    out, _, _ = build_report(fx.tiny(tmp_path / "tiny"), tmp_path / "out")
    page = (out / "index.html").read_text(encoding="utf-8")
    banner = page.index("<div class='warn' role='alert'>")
    assert banner < page.index("<header>")  # before anything else on the page
    assert "&lt;b&gt;(run interrupted?)&lt;/b&gt;" in page and "<b>(run" not in page
    assert page.index("chunk-000009.parquet is missing") > banner
    md = (out / "report.md").read_text(encoding="utf-8")
    lines = md.splitlines()
    assert lines[2].startswith("> **Warning:** the manifest says 200,000 deals")
    assert "&lt;b&gt;" in lines[2]
    assert lines[4].startswith("> **Warning:** hands/kop/chunk-000009.parquet is missing")
    assert md.index("Warning:") < md.index("## ")


def test_no_banner_without_warnings(tmp_path):
    out, _, _ = build_report(fx.tiny(tmp_path / "tiny"), tmp_path / "out")
    assert "class='warn'" not in (out / "index.html").read_text(encoding="utf-8")
    assert "Warning:" not in (out / "report.md").read_text(encoding="utf-8")


def test_report_command_prints_each_warning_once_on_stderr(warned, tmp_path, capsys):
    assert main(["report", str(fx.tiny(tmp_path / "tiny")), "-o", str(tmp_path / "o")]) == 0
    captured = capsys.readouterr()
    lines = [x for x in captured.err.splitlines() if x.startswith("warning: ")]
    assert lines == [f"warning: {WARNINGS[0]}",
                     "warning: hands/kop/chunk-000009.parquet is missing [31m"]
    assert "warning:" not in captured.out


def test_csv_cells_that_would_be_formulas_are_quoted_numbers_stay_numbers():
    df = pl.DataFrame({"text": ["=1+2", "+SUM(A1)", "-2+3", "@cmd", "\tx", "\rx", "plain",
                                "a=b", None],
                       "payout": [-1.5, 2.0, -3.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0]})
    safe = csv_safe(df)
    assert safe["text"].to_list() == ["'=1+2", "'+SUM(A1)", "'-2+3", "'@cmd", "'\tx", "'\rx",
                                      "plain", "a=b", None]
    assert safe["payout"].to_list() == df["payout"].to_list()


def test_report_tables_quote_a_hostile_description_and_keep_negative_payouts(tmp_path):
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["name"] = "evil"
    data["description"] = '=HYPERLINK("http://evil.example","click")'
    evil = ruleset_from_dict(data)
    hands = fx.kop_hands("kop", "kop") + fx.kop_hands("evil", "evil")
    src = fx.write_folder(tmp_path / "r", [("kop", load_ruleset("kop")), ("evil", evil)], hands,
                          experiment={"name": "csv"})
    out, _, _ = build_report(src, tmp_path / "out")
    variants = (out / "tables" / "variants.csv").read_text(encoding="utf-8")
    assert "'=HYPERLINK(" in variants and ",=HYPERLINK" not in variants
    seats = pl.read_csv(out / "tables" / "payout_by_position.csv")
    assert seats["mean"].dtype == pl.Float64 and seats["mean"].min() < 0
    raw = (out / "tables" / "payout_by_position.csv").read_text(encoding="utf-8")
    assert ",-" in raw and ",'-" not in raw
