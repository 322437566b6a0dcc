"""The report's words for a tie and for the plain game's old side come from the rulesets it
compares, not from Kop's 104-point deck and black queens."""

import sys
from pathlib import Path

import polars as pl

from kopsim.report.analysis import analyse
from kopsim.report.read import load_results
from kopsim.report.render import sections
from kopsim.report.wording import GENERIC_TIE, cards_name, wording
from kopsim.rules.load import load_raw, load_ruleset, ruleset_from_dict

sys.path.insert(0, str(Path(__file__).parent / "data"))
from synthetic import write_results  # noqa: E402


def _rich(name="rich", team_cards=("QC", "QS")):
    """Kop with aces worth 15: a 120-point deck, so a tie is 60:60."""
    data, _ = load_raw("kop")
    deck = {**data["deck"], "points": {**data["deck"]["points"], "A": 15}}
    contracts = {**data["contracts"],
                 "normal": {**data["contracts"]["normal"], "team_cards": list(team_cards)}}
    return ruleset_from_dict({**data, "name": name, "deck": deck, "contracts": contracts},
                             "<test>")


def test_kop_is_worded_as_before():
    words = wording([load_ruleset("kop"), load_ruleset("baska"), None])
    assert words.tie == "52:52"
    assert words.team_game == "in a normal game the holders of the black queens"


def test_the_tie_is_half_of_the_decks_points():
    assert wording([_rich()]).tie == "60:60"
    assert wording([_rich(), load_ruleset("kop")]).tie == GENERIC_TIE


def test_team_cards_are_named_from_the_ruleset():
    assert cards_name(["QH", "QD"]) == "the red queens"
    assert cards_name(["JC", "JS", "JH", "JD"]) == "the four jacks"
    assert cards_name(["QC", "JS"]) == "Q♣ and J♠"
    assert wording([_rich(team_cards=("AC", "10S"))]).team_game == \
        "in a normal game the holders of A♣ and 10♠"
    assert wording([_rich(team_cards=("AC",)), load_ruleset("kop")]).team_game == ""


def test_a_report_on_a_120_point_deck_says_60_60(tmp_path):
    folder = write_results(tmp_path / "r", [("rich", _rich()), ("rich-red", _rich(
        "rich-red", ("QH", "QD")))], hands=200, seed=3)
    an = analyse(load_results(folder))
    assert an.tiers["outcome"].unique().sort().to_list() == ["60:60", "schneider", "schwarz"]
    assert "60:60" in an.paired["metric"].to_list()
    text = " ".join(s.title + " " + s.intro for s in sections(an))
    assert "60:60" in text and "52:52" not in text and "black queens" not in text
    assert an.paired.filter(pl.col("metric") == "60:60")["deals"].to_list() == [200]


def test_rules_show_and_diff_name_the_tie_from_the_deck():
    from kopsim.rules.diff import diff_rules
    from kopsim.rules.show import show

    rich = _rich()
    assert "60:60: the side of the last counted double loses" in show(rich)
    assert "52:52" not in show(rich)
    data = rich.model_dump(mode="json", by_alias=True, exclude_none=True)
    nobody = ruleset_from_dict({**data, "scoring": {**data["scoring"], "tie": "nobody_wins"}},
                               "<test>")
    texts = [c.text for c in diff_rules(rich, nobody)]
    assert "60:60: nobody wins, nothing is paid instead of the side of the last counted " \
           "double loses" in texts
