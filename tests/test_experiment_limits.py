"""What an experiment file or the command line cannot do: name a path outside results/, ask for
more deals than documented, point --out at a file, or grow memory with --deals; and a folder of
another run is refused with what differs in plain words."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kopsim.cli import main
from kopsim.errors import InputError
from kopsim.experiments.spec import MAX_DEALS, experiment_from_dict
from kopsim.experiments.run import run_experiment

BASE = {"deals": 300, "seed": 5, "chunk": 128, "bots": "random", "variants": ["kop"]}


def write(tmp_path: Path, text: str, name: str = "exp.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["../../x", "/abs", "a/b", "..", ".hidden", "x\n", "a\\b",
                                  "", "n" * 101, "x y"])
def test_an_experiment_name_must_be_a_safe_file_name(tmp_path, capsys, name):
    path = write(tmp_path, f"name = {name!r}\n".replace("'", '"') if "\\" not in name
                 else 'name = "a\\\\b"\n')
    path.write_text(path.read_text() + 'deals = 10\nbots = "random"\nvariants = ["kop"]\n')
    assert main(["run", str(path), "--check"]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: name: " in err and "cannot name a results folder" in err
    assert not (tmp_path / "x").exists() and "Traceback" not in err


def test_the_file_stem_as_name_must_be_safe_too(tmp_path, capsys):
    path = write(tmp_path, 'deals = 10\nbots = "random"\nvariants = ["kop"]\n', "my exp.toml")
    assert main(["run", str(path), "--check"]) == 2
    assert "name: 'my exp' (the file's name, as no `name` is given)" in capsys.readouterr().err
    assert experiment_from_dict({**BASE, "name": "my-exp_2.b+c=d"}).name == "my-exp_2.b+c=d"


@pytest.mark.parametrize("deals", [str(2**70), str(MAX_DEALS + 1)])
def test_deals_are_bounded_in_the_file(tmp_path, capsys, deals):
    path = write(tmp_path, f'deals = {deals}\nbots = "random"\nvariants = ["kop"]\n')
    assert main(["run", str(path), "--check"]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: deals: expected a number at most {MAX_DEALS}" in err


def test_deals_and_chunk_are_bounded_on_the_command_line(tmp_path, capsys):
    path = write(tmp_path, 'deals = 10\nbots = "random"\nvariants = ["kop"]\n')
    assert main(["run", str(path), "--check", "--deals", str(MAX_DEALS)]) == 0
    capsys.readouterr()
    assert main(["run", str(path), "--check", "--deals", str(10 * MAX_DEALS)]) == 2
    assert f"argument --deals: expected a count from 1 to {MAX_DEALS:,}" in capsys.readouterr().err
    assert main(["run", str(path), "--check", "--chunk", str(2**30)]) == 2
    assert "chunk: expected a number at most" in capsys.readouterr().err


def test_out_onto_a_file_is_refused(tmp_path, capsys):
    path = write(tmp_path, 'deals = 10\nbots = "random"\nvariants = ["kop"]\n')
    target = write(tmp_path, "not a folder", "file.txt")
    for extra in ([], ["--check"]):
        assert main(["run", str(path), "--out", str(target), "--no-progress", *extra]) == 2
        err = capsys.readouterr().err
        assert f"argument --out: {target} is a file; expected a folder" in err
        assert "Traceback" not in err
    assert main(["run", str(path), "--out", str(target / "sub"), "--no-progress"]) == 2
    assert f"error: {target / 'sub'}: cannot make the results folder" in capsys.readouterr().err
    assert target.read_text() == "not a folder"


RSS = """
import resource, sys
from kopsim.experiments.spec import experiment_from_dict
from kopsim.experiments.run import run_experiment
class Stop(Exception):
    pass
def stop(result):
    raise Stop
exp = experiment_from_dict({"deals": int(sys.argv[2]), "chunk": 4096, "bots": "random",
                            "variants": ["kop"]})
try:
    run_experiment(exp, sys.argv[1], jobs=1, on_chunk=stop)
except Stop:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024)
"""


def test_memory_does_not_grow_with_the_number_of_deals(tmp_path):
    """One chunk of 4,096 deals played, out of 2.4 thousand or 2.4 million planned: the plan is
    made lazily, so the peak memory is the same (before: +240 MB for the larger)."""
    peak = {}
    for deals in (10**4, 10**10):
        done = subprocess.run([sys.executable, "-c", RSS, str(tmp_path / str(deals)), str(deals)],
                              capture_output=True, text=True, check=True)
        peak[deals] = int(done.stdout.split()[-1])
    assert peak[10**10] < peak[10**4] + 60, peak


# ------------------------------------------------------------------------- another run


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("run") / "out"
    run_experiment(experiment_from_dict(BASE), out, jobs=1)
    return out


@pytest.mark.parametrize("change, words", [
    ({"seed": 6}, "the seed: 5 in the folder, 6 now"),
    ({"deals": 200}, "the number of deals: 300 in the folder, 200 now"),  # more: it grows
    ({"chunk": 64}, "the chunk size: 128 deals in the folder, 64 deals now"),
    ({"variants": ["kop", "baska"]}, "the variants: kop in the folder, kop, baska now"),
    ({"variants": [{"ruleset": "kop", "overrides": {"scoring": {"schneider_max_points": 29}}}]},
     "the ruleset or session scoring of variant kop"),
    ({"bots": ["random", "heuristic", "random", "random"]},
     "the bots: random, random, random, random in the folder, random, heuristic, random, random"),
    ({"bots": {"name": "heuristic", "label": "random"}},
     "the bots behind the same labels (their kind or parameters)"),
    ({"rotate": True}, "the seat rotation: fixed in the folder, round now"),
])
def test_a_different_run_is_refused_naming_what_differs(folder, change, words):
    with pytest.raises(InputError) as e:
        run_experiment(experiment_from_dict({**BASE, **change}), folder, jobs=1)
    text = str(e.value)
    assert "holds results of a different run (" in text and words in text
    assert "{" not in text and "[" not in text  # no JSON blob, cut or whole
