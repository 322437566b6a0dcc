"""Random-play results folders for tests and the report benchmark come from the real writer
(`run_experiment`), not from a second writer inside the package."""

import importlib.util
import sys
from pathlib import Path

from kopsim.bench.report import write_results as bench_results
from kopsim.experiments import results_folder as R
from kopsim.report.read import load_results
from kopsim.rules.load import load_ruleset

sys.path.insert(0, str(Path(__file__).parent / "data"))
from synthetic import write_results  # noqa: E402


def test_the_package_has_no_second_results_writer():
    assert importlib.util.find_spec("kopsim.report.synthetic") is None


def test_a_test_fixture_folder_is_a_verified_run(tmp_path):
    folder = write_results(tmp_path / "r", [("kop", load_ruleset("kop")),
                                            ("sportowy", load_ruleset("kop-sportowy"))],
                           hands=600, seed=2, experiment={"name": "fixture check"})
    res = load_results(folder)
    assert res.warnings == []
    assert res.name == "fixture check"
    assert len(R.read_index(folder).lines) == 2
    assert R.read_manifest(folder)["status"]["complete"] is True


def test_the_report_benchmark_folder_is_a_verified_run(tmp_path):
    bench_results(tmp_path / "b", ["kop", "baska"], 500, seed=4)
    res = load_results(tmp_path / "b")
    assert res.warnings == []
    assert [v.label for v in res.variants] == ["kop", "baska"]
    assert res.hands().collect().height == 1000
