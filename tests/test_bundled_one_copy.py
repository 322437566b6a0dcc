"""Issue 31: the bundled rulesets exist once, in the folder the package reads. A second copy
(the old top-level `rulesets/`) could be edited to no effect; a symlink between the two is a
plain text file on a checkout without symlinks, and a wheel built from it may hold either."""

import hashlib
import subprocess
import tomllib
from pathlib import Path

from kopsim.rules.load import BUNDLED_DIR, bundled_names, load_ruleset

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_reads_a_real_folder_of_its_own():
    assert not BUNDLED_DIR.is_symlink() and BUNDLED_DIR.is_dir()
    assert BUNDLED_DIR.resolve().parent == (ROOT / "kopsim").resolve()
    assert not (ROOT / "rulesets").exists()


def test_no_other_file_of_the_repository_holds_a_bundled_ruleset():
    tracked = subprocess.run(["git", "ls-files", "-s"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert not [line for line in tracked if line.startswith("120000")]  # no symlink at all
    bundled = {hashlib.sha256(p.read_bytes()).hexdigest(): p for p in BUNDLED_DIR.glob("*.toml")}
    for line in tracked:
        path = ROOT / line.split("\t", 1)[1]
        if path.suffix == ".toml" and path.parent != BUNDLED_DIR:
            assert hashlib.sha256(path.read_bytes()).hexdigest() not in bundled, path


def test_the_package_data_ships_every_bundled_ruleset():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = meta["tool"]["setuptools"]["package-data"]["kopsim"]
    shipped = {p for g in globs for p in (ROOT / "kopsim").glob(g)}
    assert {BUNDLED_DIR / f"{n}.toml" for n in bundled_names()} <= shipped
    assert load_ruleset("kop").name == "kop"
