"""Plots: a title never overlaps its subtitle, and no plot is drawn that would show one bar."""

import sys
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report.analysis import analyse  # noqa: E402
from kopsim.report.plots import _figure, _title, draw_all  # noqa: E402
from kopsim.report.read import load_results  # noqa: E402
from kopsim.rules.load import load_ruleset  # noqa: E402


@pytest.mark.parametrize("height", [2.6, 4.6, 9.0, 16.0])
def test_title_and_subtitle_do_not_overlap_however_tall_the_plot(height):
    fig = _figure(8.6, height)
    ax = fig.add_subplot()
    _title(fig, ax, "Contract mix", "share of hands in which each contract is played")
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    title = ax.title.get_window_extent(renderer)
    (subtitle,) = [t.get_window_extent(renderer) for t in ax.texts]
    axes_top = ax.get_window_extent(renderer).y1
    assert subtitle.y0 >= axes_top  # above the plot ...
    assert subtitle.y1 <= title.y0  # ... and below the title
    assert title.y1 <= fig.bbox.height  # the title is inside the picture


def one_contract_hands(v):
    """Three deals, all a normal game with every seat +1/−1: one contract, one payout size."""
    return [fx.hand(v, "kop", d, "normal", (0, 1), "old", "out", [60, 30, 20, 10],
                    [1, 1, -1, -1]) for d in range(3)]


def test_plots_of_a_single_bar_or_category_are_left_out(tmp_path):
    src = fx.write_folder(tmp_path / "one", [("kop", load_ruleset("kop"))],
                          one_contract_hands("kop"))
    plots = draw_all(analyse(load_results(src)))
    # one contract: no contract mix and no win-rate bars; one points bin: no histogram
    assert sorted(plots) == ["payout_distribution", "seat_advantage"]


def test_series_of_one_length_are_not_a_session_length_plot(tmp_path):
    an = analyse(load_results(fx.sessions(tmp_path / "s")))
    plots = draw_all(an)
    assert "session_length" in plots  # the victory-card sessions have lengths 3, 5, 10
    # the series variant (every session 32 hands) is left out of it
    an.session_length_hist = an.session_length_hist.filter(an.session_length_hist["variant"]
                                                           == "sp")
    assert "session_length" not in draw_all(an)
