"""The deal the report cites for each variant: the one whose payouts the rule change moved most
at the same table, drawn in both variants from the run's hand records (`kopsim run --log`).
Which deal that is gets worked out here from the logs themselves, not from the report's code."""

import json

import polars as pl
import pytest

from kopsim.cli import main
from kopsim.report import build_report


def _run(tmp_path, name: str, log: bool):
    exp = tmp_path / f"{name}.toml"
    exp.write_text('deals = 300\nbots = "heuristic"\nvariants = ["kop", "kop-trzy-dychy"]\n',
                   encoding="utf-8")
    out = tmp_path / f"{name}-results"
    argv = ["run", str(exp), "--out", str(out), "--jobs", "1", "--no-progress"]
    assert main(argv + (["--log"] if log else [])) == 0
    return out


@pytest.fixture(scope="module")
def logged(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cited")
    out = _run(tmp, "logged", log=True)
    report, _, an = build_report(out, tmp / "report")
    return out, report, an


def _records(out, variant):
    recs = []
    for f in sorted((out / "logs" / variant).glob("*.jsonl")):
        recs += [json.loads(line) for line in f.read_text(encoding="utf-8").splitlines()]
    return {r["seed"]: r for r in recs}


def test_the_cited_deal_is_the_one_whose_payouts_moved_most(logged):
    out, report, an = logged
    base, other = _records(out, "kop"), _records(out, "kop-trzy-dychy")
    moved = {seed: sum(abs(a - b) for a, b in zip(other[seed]["payouts"], base[seed]["payouts"]))
             for seed in base}
    most = max(moved.values())
    assert most > 0
    rows = pl.read_parquet(sorted((out / "hands" / "kop").glob("*.parquet")))
    ids = dict(zip(rows["seed"].to_list(), rows["deal_id"].to_list()))
    best = min(ids[s] for s, m in moved.items() if m == most)  # ties: the lowest deal id
    [cited] = an.cited
    assert (cited.variant, cited.deal_id, cited.change) == ("kop-trzy-dychy", best, most)
    seed = next(s for s, d in ids.items() if d == best)
    md = (report / "report.md").read_text(encoding="utf-8")
    assert f"deal {best} (heuristic in every seat) moved most" in md
    for rec in (base[seed], other[seed]):
        calls = " · ".join(f"seat {c['seat']}: {c['call']}" for c in rec["auction"])
        assert f"auction: {calls}" in md
        pay = "  ".join(f"seat {s} {p:+g}" for s, p in enumerate(rec["payouts"]))
        assert f"payouts: {pay}" in md


def test_the_html_draws_both_hands_escaped(logged):
    _, report, an = logged
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "<section id='cited'>" in page
    section = page.split("<section id='cited'>")[1].split("</section>")[0]
    assert section.count("<pre>") == 2 and "-&gt; seat" in section
    assert "<figcaption>kop</figcaption>" in section
    assert "<figcaption>kop-trzy-dychy</figcaption>" in section


def test_without_logs_the_deal_is_named_and_how_to_see_it_said(tmp_path):
    out = _run(tmp_path, "unlogged", log=False)
    report, _, an = build_report(out, tmp_path / "report")
    [cited] = an.cited
    assert cited.drawn is None
    md = (report / "report.md").read_text(encoding="utf-8")
    assert f"deal {cited.deal_id} (heuristic in every seat) moved most" in md
    assert "kopsim run --log" in md


def test_logs_no_chunk_index_vouches_for_are_not_drawn(logged, tmp_path):
    import shutil

    out, _, an = logged
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    (copy / "chunks.jsonl").unlink()  # no index: files are read, but none vouched for
    _, _, an2 = build_report(copy, tmp_path / "report")
    assert an2.cited[0].deal_id == an.cited[0].deal_id and an2.cited[0].drawn is None
