"""The command line: show, simulate with a log, replay that finds nothing wrong, and tampering."""

import json
from pathlib import Path

import pytest

from kopsim.cli import main

DATA = Path(__file__).parent / "data"


def test_rules_list(capsys):
    assert main(["rules", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("kop", "kop-trzy-dychy", "kop-catsatcards", "baska", "kop-sportowy",
                 "kop-victory-cards"):
        assert name in out


def test_rules_show_kop_prints_classic_order_and_payouts(capsys):
    assert main(["rules", "show", "kop"]) == 0
    out = capsys.readouterr().out
    assert "A♥ 10♥ Q♣ Q♠ Q♥ Q♦ J♣ J♠ J♥ J♦ A♦ 10♦" in out
    # zolo du: 10, doubled by each of kontra, re, bok, słup
    assert any(line.split()[:2] == ["zolo", "du"] and line.split()[-5:] == ["10", "20", "40", "80", "160"]
               for line in out.splitlines())
    # the normal game's schneider row: 2, 4, 8, 16, 32
    assert any(line.split()[:3] == ["normal", "won", "schneider"]
               and line.split()[-5:] == ["2", "4", "8", "16", "32"] for line in out.splitlines())


def test_rules_show_sportowy_marks_forbidden_doubles(capsys):
    assert main(["rules", "show", "kop-sportowy"]) == 0
    out = capsys.readouterr().out
    rows = {tuple(line.split()[:3]): line.split()[3:] for line in out.splitlines()}
    assert rows[("zolo", "won", "—")] == ["5", "10", "20", "x"]
    assert rows[("cicha", "lost", "—")] == ["4", "8", "16", "x"]
    assert "series of 32 hands" in out


@pytest.fixture(scope="module")
def sportowy_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("logs") / "x.jsonl"
    assert main(["simulate", "kop-sportowy", "--hands", "3000", "--seed", "1",
                 "--log", str(path)]) == 0
    return path


def test_simulate_writes_a_log_that_replays_clean(sportowy_log, capsys):
    lines = sportowy_log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3000
    recs = [json.loads(x) for x in lines]
    assert [r["session"] for r in recs[:33]] == [0] * 32 + [1]
    assert [r["hand_index"] for r in recs[30:34]] == [30, 31, 0, 1]
    assert main(["replay", str(sportowy_log)]) == 0
    assert "3,000 hands replayed" in capsys.readouterr().out


def test_simulate_is_reproducible(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for p in (a, b):
        assert main(["simulate", "baska", "--hands", "500", "--seed", "9", "--log", str(p)]) == 0
    assert a.read_bytes() == b.read_bytes()


def tamper(src, dst, index, change):
    lines = src.read_text(encoding="utf-8").splitlines()
    d = json.loads(lines[index])
    change(d)
    lines[index] = json.dumps(d, ensure_ascii=False)
    dst.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _first_played(lines):
    return next(i for i, x in enumerate(lines) if json.loads(x)["tricks"])


@pytest.mark.parametrize("what,expect", [
    ("payouts", "payouts"),
    ("winner_of_trick", "tricks[0].winner"),
    ("swap_cards", "tricks[0].cards"),
    ("points", "points"),
    ("extra_call", "auction"),
])
def test_replay_reports_the_first_discrepancy(sportowy_log, tmp_path, capsys, what, expect):
    lines = sportowy_log.read_text(encoding="utf-8").splitlines()
    i = _first_played(lines)

    def change(d):
        if what == "payouts":
            d["payouts"][0] += 1
        elif what == "winner_of_trick":
            d["tricks"][0]["winner"] = (d["tricks"][0]["winner"] + 1) % 4
        elif what == "swap_cards":
            d["tricks"][0]["cards"][0] = "QX"  # not a card of the deck
        elif what == "points":
            d["points"][0] += 2
            d["points"][1] -= 2
        else:
            d["auction"].append({"seat": 0, "call": "pass"})
    bad = tmp_path / "bad.jsonl"
    tamper(sportowy_log, bad, i, change)
    assert main(["replay", str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"line {i + 1} " in out and expect in out
    assert "1 with a discrepancy" in out


def test_replay_of_garbage_is_a_located_input_error(tmp_path, capsys):
    p = tmp_path / "x.jsonl"
    p.write_text('{"ruleset": "kop"}\nnot json\n', encoding="utf-8")
    assert main(["replay", str(p)]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "missing" in err


# the ev line-up's table learnt from 2,000 deals a round, not the ev bot's 100,000: the same
# kernel is timed, and the full calibration alone took a minute of the suite
SMALL_EV = ["--ev-deals", "2000"]


def test_bench_json(capsys):
    from kopsim.bots.calibrate import is_cached
    from kopsim.bots.ev import EvParams
    from kopsim.rules.cache import compiled
    from kopsim.rules.load import load_ruleset

    assert main(["bench", "kop", "--hands", "20000", "--reference-hands", "50", *SMALL_EV,
                 "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["ruleset"], r["engine"]) for r in rows} == {("kop", "batch"), ("kop", "reference")}
    assert {r["lineup"] for r in rows} == {"random", "heuristic", "ev"}
    for r in rows:
        assert r["hands_per_s"] > 0 and r["peak_rss_mb"] > 0
    assert is_cached(compiled(load_ruleset("kop")), EvParams(deals=2000))  # learnt as asked


def test_bench_learnt_row(capsys):
    """--learnt adds four learnt bots to the batch rows, their (tiny) models trained first; a
    ruleset with Ramsch, which learnt's teacher cannot play, would leave its row out."""
    from kopsim.bench.engine import _plays
    from kopsim.bots.learnt import LearntParams, is_cached
    from kopsim.rules.cache import compiled
    from kopsim.rules.load import load_ruleset

    assert main(["bench", "kop", "--hands", "2000", "--reference-hands", "10", *SMALL_EV,
                 "--learnt", "--learnt-deals", "20", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    batch = {r["lineup"]: r for r in rows if r["engine"] == "batch"}
    assert set(batch) == {"random", "heuristic", "ev", "learnt"}
    assert batch["learnt"]["hands_per_s"] > 0 and batch["learnt"]["peak_rss_mb"] > 0
    # rolled out by the ev bench's own (smaller) ev line-up: no full ev calibration to time it
    assert is_cached(compiled(load_ruleset("kop")),
                     LearntParams(deals=20, rollout_bot={"name": "ev", "deals": 2000}))
    ramsch = str(DATA / "knobs" / "schafkopf-ramsch.toml")
    assert _plays("heuristic", ramsch) and not _plays("learnt", ramsch)


def test_bench_rows_cover_heuristic_and_bots(capsys):
    assert main(["bench", "kop", "--hands", "20000", "--heuristic-hands", "5000",
                 "--reference-hands", "20", *SMALL_EV, "--bots", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    lineups = {(r.get("engine"), r.get("lineup")) for r in rows if "engine" in r}
    assert {("batch", "random"), ("batch", "heuristic"), ("reference", "random")} <= lineups
    benches = {r["bench"]: r for r in rows if "bench" in r}
    assert benches["solver_full_position"]["median_ms"] > 0
    pimc = benches["pimc_card_decision"]
    assert pimc["lineup"] == "pimc" and pimc["engine"] == "batch"
    assert pimc["decisions"] > 0 and pimc["calls"] > 0
    assert pimc["hands_per_s"] > 0 and pimc["reference_hands_per_s"] > 0
    assert 0 < pimc["median_ms"] <= pimc["p90_ms"] and 0 < pimc["call_median_ms"]


def test_parallel_replay_reports_the_same(sportowy_log, tmp_path, capsys):
    lines = sportowy_log.read_text(encoding="utf-8").splitlines()
    i = len(lines) - 5  # in the last block of 2000 lines
    bad = tmp_path / "bad.jsonl"
    tamper(sportowy_log, bad, i, lambda d: d["payouts"].__setitem__(1, d["payouts"][1] - 2))
    assert main(["replay", str(bad), "--jobs", "2"]) == 1
    out = capsys.readouterr().out
    assert f"line {i + 1} " in out and "payouts" in out and "3,000 hands" in out
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("\n".join(lines[:2500] + ["{oops"]) + "\n", encoding="utf-8")
    assert main(["replay", str(garbage), "--jobs", "2"]) == 2
    assert "line 2501" in capsys.readouterr().err


def _payout_rows(out):
    """{(contract, result, tier): [value with 0, 1, ... doubles]} of `rules show`'s payout table."""
    rows = {}
    for line in out.splitlines():
        cells = line.split("  ")
        cells = [c.strip() for c in cells if c.strip()]
        if len(cells) >= 4 and cells[1] in ("won", "lost"):
            rows[tuple(cells[:3])] = cells[3:]
    return rows


def test_rules_show_baska_prints_what_is_paid(capsys):
    # BUNDLED.md, baska: simple 1, wesele 1 (x2 schneider, x3 schwarz), cicha 4, gran 5, zolo 5,
    # gran du 10, zolo du 10, baśka 10; a further x2 when the old side loses a simple game or
    # wesele, and when a lone player loses; each counted double x2
    assert main(["rules", "show", "baska"]) == 0
    rows = _payout_rows(capsys.readouterr().out)
    assert rows[("normal", "won", "out")][:3] == ["1", "2", "4"]
    assert rows[("normal", "lost", "out")][:3] == ["2", "4", "8"]
    assert rows[("wesele", "lost", "schwarz")][0] == "6"
    assert rows[("cicha", "lost", "—")][0] == "8"
    assert rows[("zolo", "won", "—")][0] == "5" and rows[("zolo", "lost", "—")][0] == "10"
    assert rows[("gran du", "lost", "—")][0] == "20"
    assert rows[("baśka", "won", "—")] == ["10", "x", "x", "x", "x"]


def test_rules_show_table_is_what_scoring_pays(capsys):
    from kopsim.rules.load import load_ruleset
    from kopsim.engine.scoring import score

    rules = load_ruleset("baska")
    assert main(["rules", "show", "baska"]) == 0
    rows = _payout_rows(capsys.readouterr().out)
    # old side (seats 0, 2) takes 30 points in one trick: lost, out; one counted double (seat 1)
    team = score(rules, "normal", [0, 2], [1], [30, 40, 0, 34], [1, 2, 0, 1])
    assert float(rows[("normal", "lost", "out")][1]) == -team.payouts[0]
    lone = score(rules, "zolo", [3], [], [30, 40, 0, 34], [1, 2, 0, 1])
    assert float(rows[("zolo", "lost", "—")][0]) == lone.payouts[0]


def test_rules_show_says_who_may_double_first(capsys):
    # BUNDLED.md: the declarer of the bid in force may not say the first double, except that
    # kop-sportowy lets the wesele caller double his own wesele
    assert main(["rules", "show", "kop"]) == 0
    kop = capsys.readouterr().out
    assert "first double may not come from the declarer" in kop and "except" not in kop
    assert main(["rules", "show", "kop-sportowy"]) == 0
    assert "except in wesele, whose declarer may double first" in capsys.readouterr().out


@pytest.mark.parametrize("path,value", [
    ("contracts.zolo.declarer_may_double_first", True),
    ("doubling.without_bid", False),
    ("contracts.wesele.first_call_only", True),
    ("contracts.zolo.max_doubles", 2),
    ("scoring.tie_value_without_double", 3),
    ("scoring.schneider_max_points", 24),
    ("auction.end_after_passes", 4),
    ("play.must_beat", False),
    ("scoring.multipliers", [{"factor": 3, "when": "tie"}]),
])
def test_rules_show_prints_every_setting(path, value, tmp_path, capsys):
    """Changing one setting changes what `rules show` prints."""
    from kopsim.rules.load import load_ruleset, ruleset_from_dict
    from kopsim.rules.show import show

    base = load_ruleset("kop")
    data = base.model_dump(mode="json", by_alias=True)
    node = data
    *parents, last = path.split(".")
    for key in parents:
        node = node[key]
    node[last] = value
    changed = ruleset_from_dict(data)
    assert changed.sha256() != base.sha256()
    strip = lambda text: "\n".join(x for x in text.splitlines() if not x.startswith("sha256"))  # noqa: E731
    assert strip(show(changed)) != strip(show(base))


def test_rules_show_and_diff_name_no_bonus_where_a_series_has_none(tmp_path, capsys):
    path = tmp_path / "no-bonus.toml"
    path.write_text('extends = "kop-sportowy"\nname = "no-bonus"\n'
                    "[session]\npositive_bonus = 0\n", encoding="utf-8")
    assert main(["rules", "show", str(path)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "Session scoring" in x)
    assert "series of 32 hands" in line and "bonus" not in line
    assert main(["rules", "diff", "kop-sportowy", str(path)]) == 0
    out = capsys.readouterr().out
    assert "bonus for ending positive 0 instead of 3" in out
    assert "0 bonus" not in out
