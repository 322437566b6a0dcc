"""The forest plot of the paired differences: every difference on one scale (its unit's
practical size), largest first, in the HTML report and as a PNG beside the Markdown."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402
from test_report_effects import DEALS, _deal, _mix  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from kopsim.report.plots import forest, forest_rows  # noqa: E402
from kopsim.rules.load import load_ruleset  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("forest")
    kop = load_ruleset("kop")
    hands = ([_deal("base", i, c) for i, c in enumerate(_mix(100, 0))]
             + [_deal("richer", i, c) for i, c in enumerate(_mix(200, 20))])
    src = fx.write_folder(root / "r", [("base", kop), ("richer", kop)], hands, chunk=100)
    return build_report(src, root / "out")


def test_rows_are_in_practical_sizes_largest_first(built):
    _, _, an = built
    rows = forest_rows(an)
    sizes = [abs(r["x"]) for r in rows]
    assert sizes == sorted(sizes, reverse=True)
    by = {r["metric"]: r for r in rows}
    # shares in percentage points: a practical size of 1 pp, so -30 pp is -30 sizes
    assert by["hands played as normal"]["x"] == pytest.approx(-30.0)
    assert by["hands played as zolo"]["x"] == pytest.approx(25.0)
    assert by["hands played as normal"]["lo"] < -30.0 < by["hands played as normal"]["hi"]
    # a payout in 2% of the baseline's mean stake: here a small stake, so a large move
    stake = an.stakes.filter(an.stakes["variant"] == "base")["mean"][0]
    assert by["stake per hand"]["x"] == pytest.approx(by["stake per hand"]["diff"] / (0.02 * stake))


def test_the_plot_is_in_both_reports(built):
    out, _, an = built
    png = forest(an)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "paired_differences.png").read_bytes()[:8] == png[:8]
    md = (out / "report.md").read_text(encoding="utf-8")
    paired = md[md.index("## Paired differences"):]
    assert "paired_differences.png" in paired
    assert "data:image/png;base64" in (out / "index.html").read_text(encoding="utf-8")


def test_one_variant_has_no_forest(tmp_path):
    src = fx.write_folder(tmp_path / "r", [("base", load_ruleset("kop"))],
                          [_deal("base", i, c) for i, c in enumerate(_mix(10, 0))][:DEALS])
    _, _, an = build_report(src, tmp_path / "out")
    assert forest(an) is None


def test_the_bars_of_a_category_are_centred_whichever_variants_have_one():
    from kopsim.report.plots import bar_y

    assert bar_y(3, ["b"], "b", 0.4) == 3  # a contract only one variant has: on its line
    assert [bar_y(2, ["a", "c"], v, 0.4) for v in ("a", "c")] == [1.8, 2.2]
    assert [bar_y(0, ["a", "b", "c"], v, 0.3) for v in ("a", "b", "c")] == [-0.3, 0.0, 0.3]
