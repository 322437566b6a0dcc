"""The report answers first: the significant paired differences at the top, the bots of every
seat, a flag when only the price table differs, and no session credit to a bot that changed seats
inside the session."""

import sys
from dataclasses import replace
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from kopsim.report.analysis import analyse  # noqa: E402
from kopsim.report.render import markdown_report, sections  # noqa: E402
from kopsim.report.read import load_results  # noqa: E402
from kopsim.rules.diff import Change  # noqa: E402
from kopsim.rules.load import load_ruleset, ruleset_from_dict  # noqa: E402


STAKE = "stake per hand: higher, +14.88 (14.88 → 29.75; 95% interval +7.435 … +22.31)"


def pricey_rules():
    """kop under its own name; its hands below are kop's with every payout doubled (the report
    compares what the hands record)."""
    data = load_ruleset("kop").model_dump(mode="json", by_alias=True)
    data["name"] = "pricey"
    return ruleset_from_dict(data)


def pricey_hands():
    """kop's eight deals played the same, every payout doubled."""
    rows = fx.kop_hands("pricey", "pricey")
    for r in rows:
        for s in range(4):
            r[f"payout_{s}"] *= 2
    return rows


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("answers")
    hands = fx.kop_hands("kop", "kop") + fx.cheap_hands() + pricey_hands()
    src = fx.write_folder(root / "r", [("kop", load_ruleset("kop")), ("cheap", fx.cheap_rules()),
                                       ("pricey", pricey_rules())], hands,
                          experiment={"name": "answers"})
    out, _, an = build_report(src, root / "out")
    return out, an


def test_the_summary_comes_first_with_the_significant_differences(report):
    out, an = report
    assert sections(an)[0].title == "In short"
    page = (out / "index.html").read_text(encoding="utf-8")
    summary = page.index("<section id='summary'>")
    assert summary < page.index("<section id='variants'>")
    # every payout doubled: each deal's stake doubles, so the mean rises by kop's mean stake,
    # (2 + 30 + 30 + 16 + 12 + 2 + 15 + 12) / 8 = 14.875
    stake = an.paired.filter((pl.col("variant") == "pricey")
                             & (pl.col("metric") == "stake per hand")).row(0, named=True)
    assert stake["significant"] and stake["diff"] == pytest.approx(14.875)
    lead = page[summary:page.index("<section id='variants'>")]
    assert "pricey compared with kop, over 8 common deals" in lead
    assert STAKE in lead
    md = (out / "report.md").read_text(encoding="utf-8")
    assert md.index("## In short") < md.index("## Variants")
    assert f"- {STAKE}" in md


def test_a_variant_without_significant_differences_says_so(report):
    _, an = report
    md = markdown_report(replace(an, paired=an.paired.with_columns(significant=pl.lit(False))),
                         {})
    head = md[md.index("## In short"):md.index("## Variants")]
    assert head.count("no difference of practical size is significant at the 95% level") == 2
    assert head.count("no effect of practical size") == 2  # the lead line of each


def test_the_bots_of_every_seat_are_named(report):
    out, an = report
    assert an.lineups.filter(pl.col("variant") == "kop").select(
        "bot_0", "bot_1", "bot_2", "bot_3", "hands").row(0) == (*fx.BOTS, 8)
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "| pricey | alice | bob | random | random | 100.0% |" in md
    assert (out / "tables" / "lineups.csv").exists()


def test_only_a_price_table_difference_is_flagged_as_such(report):
    out, an = report
    sp = {r["variant"]: r for r in an.same_play.iter_rows(named=True)}
    assert sp["pricey"]["same_play"] == 8 and sp["pricey"]["same_play_and_payouts"] == 0
    # cheap changes the play of deal 4 (a zolo instead of a cicha) and the pay of deal 2
    assert sp["cheap"]["same_play"] == 7 and sp["cheap"]["same_play_and_payouts"] == 6
    md = (out / "report.md").read_text(encoding="utf-8")
    pricey = md[md.index("**pricey compared with kop"):md.index("## Variants")]
    assert "pure arithmetic of the price table, not a change of play" in pricey
    cheap = md[md.index("**cheap compared with kop"):md.index("**pricey compared")]
    assert "price table" not in cheap and "The play differs on 1 of 8 deals" in cheap
    paired = md[md.index("## Paired differences"):]
    assert "pricey: every deal is played the same" in paired.split("\n\n")[1]


def rotating_sessions(path):
    """One series variant, two complete sessions of 8 hands; the line-up moves one seat every
    4 deals, so the bots of a session row (its first hand) sit elsewhere for half of it."""
    sp = "kop-sportowy"
    lineups = [("heuristic", "random", "heuristic", "random"),
               ("random", "heuristic", "random", "heuristic")]
    hands = [fx.hand("sp", sp, d, "normal", (0, 1), "old", "out", [60, 30, 20, 10],
                     [1, 1, -1, -1], session=d // 8, hand_index=d % 8,
                     bots=lineups[(d // 4) % 2]) for d in range(16)]
    rows = [fx._session("sp", sp, i, 8, True, [8, 8, -8, -8], [True, True, False, False],
                        pp=(3.0, 3.0, 1.0, 1.0), bots=lineups[0]) for i in range(2)]
    return fx.write_folder(path, [("sp", load_ruleset(sp))], hands, rows,
                           experiment={"name": "rotating"})


def test_sessions_are_not_credited_to_bots_that_changed_seats(tmp_path):
    an = analyse(load_results(rotating_sessions(tmp_path / "rot")))
    assert an.session_rotation.row(0, named=True) == {"variant": "sp", "sessions": 2,
                                                      "rotating": 2}
    assert an.session_bots.is_empty()
    md = markdown_report(an, {})
    sessions = md[md.index("## Sessions"):md.index("## Paired differences")]
    assert "### By bot" not in sessions
    assert "Sessions are not credited to bots in sp: the line-up changes seats" in sessions
    assert "Sessions won per seat" in sessions


def test_sessions_with_a_fixed_line_up_keep_their_by_bot_table(tmp_path):
    an = analyse(load_results(fx.sessions(tmp_path / "s")))
    assert an.session_rotation["rotating"].to_list() == [0, 0]
    md = markdown_report(an, {})
    assert "### By bot" in md[md.index("## Sessions"):] and "not credited" not in md


def test_every_rule_difference_is_shown_whatever_its_section(report):
    """The report shows kopsim.rules.diff's words (so gran's own card order, once rulesdiff
    states it); a section rulesdiff adds later is shown too, not dropped."""
    _, an = report
    diffs = {**an.rule_diffs, "cheap": [
        Change("card order", "gran plays with its own card order: jacks only are trumps"),
        Change("a later section", "something new")]}
    md = markdown_report(replace(an, rule_diffs=diffs), {})
    rules = md[md.index("## Rule differences"):md.index("## Contracts")]
    assert "- **card order**: gran plays with its own card order: jacks only are trumps" in rules
    assert "- **a later section**: something new" in rules
