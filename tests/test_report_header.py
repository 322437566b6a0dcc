"""The report's header and variants table in words: the experiment's settings said as what
they mean (never `sessions True` or `rotate round`), and a variant made by overriding a ruleset
described by what it overrides, not by its ruleset's description alone."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from kopsim.rules.load import load_ruleset  # noqa: E402


def _report(tmp_path, experiment: dict) -> str:
    kop = load_ruleset("kop")
    rich = {"contracts": {"zolo": {"payout": {"won": 10, "lost": 5}}}}
    src = fx.write_folder(tmp_path / "r", [("kop", kop), ("rich", kop)],
                          fx.kop_hands("kop", "kop") + fx.kop_hands("rich", "kop"),
                          experiment={"name": "h", **experiment}, overrides={"rich": rich})
    out, _, _ = build_report(src, tmp_path / "out")
    return (out / "report.md").read_text(encoding="utf-8")


def test_settings_are_said_in_words(tmp_path):
    md = _report(tmp_path, {"sessions": True, "rotate": "round", "rotation_period": 4,
                            "engine": "kernel"})
    header = md[:md.index("## In short")]
    assert "sessions: **scored as each ruleset says**" in header
    assert "seats: **the line-up moves one seat every round of four deals**" in header
    assert "engine: **batch kernel**" in header
    for raw in ("True", "False", "**round**", "rotation_period", "**kernel**"):
        assert raw not in header, raw


def test_settings_that_say_nothing_are_left_out(tmp_path):
    header = _report(tmp_path, {"sessions": False, "rotate": None, "engine": "reference"})
    header = header[:header.index("## In short")]
    assert "sessions" not in header and "seats" not in header
    assert "engine: **reference engine**" in header


def test_an_override_variant_says_what_it_overrides(tmp_path):
    md = _report(tmp_path, {})
    table = md[md.index("## Variants"):]
    kop_row = next(line for line in table.splitlines() if line.startswith("| kop |"))
    rich_row = next(line for line in table.splitlines() if line.startswith("| rich |"))
    assert "changed" not in kop_row
    assert ("changed: contracts.zolo.payout.won = 10, contracts.zolo.payout.lost = 5"
            in rich_row)


def test_rule_differences_that_never_applied_are_marked(tmp_path):
    """A rule changed (a lost zolo du paid 4) with no hand of the run reaching it: every deal
    played and paid the same, so the report says the difference never applied."""
    kop = load_ruleset("kop")
    hands = fx.kop_hands("kop", "kop") + fx.kop_hands("cheap", "cheap")
    src = fx.write_folder(tmp_path / "r", [("kop", kop), ("cheap", fx.cheap_rules())], hands)
    out, _, _ = build_report(src, tmp_path / "out")
    md = (out / "report.md").read_text(encoding="utf-8")
    diffs = md[md.index("## Rule differences"):]
    assert "None of these differences changed a hand in this run" in diffs
    # where a hand did change (deal 2's zolo du paid 4), nothing is marked
    src = fx.tiny(tmp_path / "t")
    out, _, _ = build_report(src, tmp_path / "out2")
    md = (out / "report.md").read_text(encoding="utf-8")
    assert "None of these differences changed a hand" not in md


def _seat_report(tmp_path, only_alice: bool):
    """400 deals, the dealer gaining 3 and the others paying 1 each: at every deal, or only
    where alice deals (the line-up alice, bob, random, random sits still while the deal moves
    round, so every bot deals a quarter of the hands)."""
    from kopsim.report.render import seat_effect_sentences

    hands = []
    for d in range(400):
        dealer = d % 4
        pays = [3 if s == dealer else -1 for s in range(4)]
        if only_alice and fx.BOTS[dealer] != "alice":
            pays = [0, 0, 0, 0]
        hands.append(fx.hand("kop", "kop", d, "normal", (0, 1), "old", "out", [40, 20, 30, 14],
                             pays))
    src = fx.write_folder(tmp_path / "r", [("kop", load_ruleset("kop"))], hands, chunk=100)
    _, _, an = build_report(src, tmp_path / "out")
    return an, seat_effect_sentences(an)


def test_a_seat_effect_every_bot_shares_is_the_rules(tmp_path):
    an, said = _seat_report(tmp_path, only_alice=False)
    dealer = an.position_bots.filter(an.position_bots["position"] == "dealer")
    assert sorted(dealer["bot"].to_list()) == ["alice", "bob", "random"]
    assert all(m == 3 for m in dealer["mean"].to_list())
    assert any("kop, dealer +3.000 a hand: every bot gains there alike" in t
               and "the rules" in t for t in said), said


def test_a_seat_effect_of_one_bot_is_the_bots(tmp_path):
    _, said = _seat_report(tmp_path, only_alice=True)
    line = next(t for t in said if t.startswith("kop, dealer"))
    assert "only alice of" in line and "the bots' play, not the seat" in line
