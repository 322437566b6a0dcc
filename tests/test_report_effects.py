"""The report's answer up front: effects ranked by size with the contract mix first, effects
under the practical size left to the table, and a payout difference the prices alone made said
to be so. Results written by hand, so every share and difference below is known exactly."""

import math
import sys
from pathlib import Path

import polars as pl
import pytest

sys.path.insert(0, str(Path(__file__).parent / "data"))
import results_fixtures as fx  # noqa: E402

from kopsim.report import build_report  # noqa: E402
from kopsim.report.analysis import PAIRED_SCHEMA  # noqa: E402
from kopsim.report.effects import effects  # noqa: E402
from kopsim.rules.load import load_ruleset  # noqa: E402

DEALS = 400


def _deal(v: str, deal: int, contract: str, double_pay: bool = False) -> dict:
    k = 2 if double_pay else 1
    if contract == "zolo":
        return fx.hand(v, "kop", deal, "zolo", (0,), "old", "lone", [60, 20, 24, 0],
                       [15 * k, -5 * k, -5 * k, -5 * k], declarer=0)
    if contract == "cicha":
        return fx.hand(v, "kop", deal, "cicha", (1,), "old", "lone", [20, 70, 14, 0],
                       [-4 * k, 12 * k, -4 * k, -4 * k], declarer=1)
    return fx.hand(v, "kop", deal, "normal", (0, 1), "old", "out", [40, 20, 30, 14],
                   [k, k, -k, -k])


def _mix(zolo: int, cicha: int) -> list[str]:
    """Deals 0.. zolo, then cicha, then normal games."""
    return ["zolo"] * zolo + ["cicha"] * cicha + ["normal"] * (DEALS - zolo - cicha)


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """base: zolo on 25% of the deals, normal games on 75%; richer: zolo on 50%, cicha on 5%,
    normal games on 45% (the same deals: each deal's contract known); pricey: the base's play,
    every payout doubled."""
    root = tmp_path_factory.mktemp("effects")
    kop = load_ruleset("kop")
    hands = ([_deal("base", i, c) for i, c in enumerate(_mix(100, 0))]
             + [_deal("richer", i, c) for i, c in enumerate(_mix(200, 20))]
             + [_deal("pricey", i, c, double_pay=True) for i, c in enumerate(_mix(100, 0))])
    src = fx.write_folder(root / "r", [("base", kop), ("richer", kop), ("pricey", kop)], hands,
                          experiment={"name": "effects"}, chunk=100)
    out, _, an = build_report(src, root / "out")
    return (out / "report.md").read_text(encoding="utf-8"), an


def test_each_contracts_share_is_paired_deal_by_deal(report):
    _, an = report
    rows = {r["contract"]: r for r in an.paired.filter(
        (pl.col("variant") == "richer") & (pl.col("kind") == "contract")).iter_rows(named=True)}
    assert rows["zolo"]["baseline_mean"] == 0.25 and rows["zolo"]["variant_mean"] == 0.5
    assert rows["zolo"]["diff"] == pytest.approx(0.25)
    assert rows["normal"]["diff"] == pytest.approx(-0.30)
    assert rows["cicha"]["diff"] == pytest.approx(0.05) and rows["cicha"]["baseline_mean"] == 0
    # 100 deals moved from normal to zolo, 20 from normal to cicha: the normal game's paired
    # difference is -1 on 120 deals, so its sd is known exactly
    sd = math.sqrt((120 - DEALS * 0.3 ** 2) / (DEALS - 1))
    assert rows["normal"]["diff_hi"] - rows["normal"]["diff"] == pytest.approx(
        1.959963984540054 * sd / math.sqrt(DEALS))
    assert all(r["significant"] for r in rows.values())


def test_the_largest_effect_leads_and_the_contract_mix_comes_first(report):
    md, _ = report
    head = md[md.index("## In short"):md.index("## Variants")]
    lines = [line for line in head.splitlines() if line.startswith("- ")]
    assert lines[0].startswith("- richer: normal: 45.0% of hands instead of 75.0% (−30.0 pp")
    richer = head[head.index("**richer compared with base"):head.index("**pricey compared")]
    order = [richer.index(f"- {c}: ") for c in ("normal", "zolo", "cicha")]
    assert order == sorted(order)
    assert richer.index("- cicha: ") < richer.index("stake per hand")


def test_a_difference_the_prices_alone_made_is_said_so(report):
    md, an = report
    pricey = md[md.index("**pricey compared with base"):md.index("## Variants")]
    stake = next(line for line in pricey.splitlines() if line.startswith("- stake per hand"))
    assert "of it on deals played the same in both: the price table, not the play" in stake
    assert not any(line.startswith("- zolo: ") for line in pricey.splitlines())  # same mix
    richer = md[md.index("**richer compared with base"):md.index("**pricey compared")]
    assert "the price table" not in richer  # there the play changed, not the prices


def _paired(rows: list[dict]) -> pl.DataFrame:
    base = {"variant": "v", "baseline": "b", "kind": "measure", "contract": None, "deals": 10**6,
            "baseline_mean": 0.0, "variant_mean": 0.0, "same_play_diff": None}
    return pl.DataFrame([{**base, **r} for r in rows], schema=PAIRED_SCHEMA)


def test_effects_under_the_practical_size_are_dropped_and_the_rest_ranked():
    """Significant at a million deals yet too small to matter: 0.002 doubles a hand, 0.1 of a
    stake of 15 (the payout's practical size is 2% of it, 0.3). Of the rest, a rate moved by
    5 practical sizes ranks above card points moved by 3, a payout by 2 and a tie rate by 1.5,
    and every contract above them all."""
    rows = [("counted doubles", "doubles", 0.002), ("stake per hand", "payout", 0.1),
            ("payout, dealer", "payout", 0.6), ("old-side card points", "points", 3.0),
            ("old side (declarer) wins", "rate", 0.05), ("tie", "rate", 0.015)]
    paired = _paired([{"metric": m, "unit": u, "diff": d, "diff_lo": d / 2, "diff_hi": 2 * d,
                       "significant": True} for m, u, d in rows]
                     + [{"metric": "hands played as zolo", "unit": "rate", "kind": "contract",
                         "contract": "zolo", "diff": 0.011, "diff_lo": 0.005,
                         "diff_hi": 0.017, "significant": True},
                        {"metric": "hands played as cicha", "unit": "rate", "kind": "contract",
                         "contract": "cicha", "diff": 0.3, "diff_lo": -0.1, "diff_hi": 0.7,
                         "significant": False}])
    found, small = effects(paired, "v", baseline_stake=15.0)
    assert small == 2
    assert [r["metric"] for r in found] == ["hands played as zolo", "old side (declarer) wins",
                                            "old-side card points", "payout, dealer", "tie"]


def test_a_variant_with_another_deck_is_not_paired(tmp_path):
    """The same deal id under another deck is another deal: such a variant is compared by its
    intervals, never deal by deal, and the report says why."""
    hands = ([_deal("kop", i, c) for i, c in enumerate(_mix(100, 0))]
             + [fx.hand("short", "schafkopf-kurz", i, "thrown in", (), "young", "out",
                        [0, 0, 0, 0], [0, 0, 0, 0]) for i in range(DEALS)])
    src = fx.write_folder(tmp_path / "r", [("kop", load_ruleset("kop")),
                                           ("short", load_ruleset("schafkopf-kurz"))], hands,
                          chunk=200)
    out, _, an = build_report(src, tmp_path / "out")
    assert an.paired.filter(pl.col("variant") == "short").is_empty()
    assert any("short deals other cards than kop" in n for n in an.notes)
    md = (out / "report.md").read_text(encoding="utf-8")
    head = md[md.index("## In short"):md.index("## Variants")]
    assert "- short: another deck, so other deals: not paired with the baseline" in head


def test_a_win_rate_moved_by_the_contract_mix_is_said_so():
    """Each contract won exactly as often as before, only played more or less often: the
    whole move of the declarers' win rate is the mix's (0.07 = 0.45 * 0.6 + 0.5 * 0.8 + 0.05
    * 1.0 - (0.75 * 0.6 + 0.25 * 0.8)); a contract won more often moves it within."""
    from kopsim.report.effects import win_rate_parts

    def table(rows):
        return pl.DataFrame([{"variant": v, "contract": c, "hands": 1, "share": s,
                              "win_rate": w} for v, c, s, w in rows])
    base = [("b", "normal", 0.75, 0.6), ("b", "zolo", 0.25, 0.8)]
    mix, within = win_rate_parts(table(base + [("v", "normal", 0.45, 0.6),
                                               ("v", "zolo", 0.5, 0.8),
                                               ("v", "cicha", 0.05, 1.0)]), "b", "v")
    assert mix == pytest.approx(0.07) and within == pytest.approx(0.0)
    mix, within = win_rate_parts(table(base + [("v", "normal", 0.75, 0.7),
                                               ("v", "zolo", 0.25, 0.8)]), "b", "v")
    assert mix == pytest.approx(0.0) and within == pytest.approx(0.075)
