"""Every reference in the repository resolves inside the repository, and no test depends on the
working directory.

A clone has no `shared/` folder: the rule documents live in docs/rules/. These tests read the
repository's own text files (docs, README, code, tests, rulesets, experiments, CI) and fail on a
broken markdown link, a `docs/...` path that does not exist, a citation of a rule item
("B §2.2", "BUNDLED.md §6") that no rule document defines, or a test that opens a repository
path relative to the current directory.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
THIS = Path(__file__).resolve()

# the repository's own text, not what a run or an install leaves in the tree
SCANNED = (["README.md", "pyproject.toml"] + [f"docs/{g}" for g in ("*.md", "rules/*.md")]
           + ["kopsim/**/*.py", "tests/**/*.py", "kopsim/rulesets/*.toml", "experiments/*.toml", ".ci/*"])

# short and long names of the rule documents, as code and tests cite them
DOCUMENTS = {"B": "BUNDLED.md", "KF": "KOP-FAMILY.md", "HR": "HAND-RECORD.md", "SK": "SKAT.md"}
DOCUMENTS.update({name: name for name in list(DOCUMENTS.values())})


def scanned_files() -> list[Path]:
    files = {p for pattern in SCANNED for p in ROOT.glob(pattern)
             if p.is_file() and "__pycache__" not in p.parts}
    return sorted(files)


def lines_of(path: Path):
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        yield f"{path.relative_to(ROOT)}:{lineno}", line


def defined_labels(doc: str) -> set[str]:
    """Item labels a rule document defines: '**§2.4 ...**' items, '## §2 ...' headings and
    '| §2.4 |' table rows."""
    text = (RULES / doc).read_text(encoding="utf-8")
    return set(re.findall(r"(?:\*\*|^#+ |^\| )§(\d+(?:\.\d+)?)", text, flags=re.M))


def test_the_rule_documents_exist_and_number_their_items():
    for doc in ("KOP-FAMILY.md", "BUNDLED.md", "HAND-RECORD.md", "SOURCES.md"):
        assert (RULES / doc).is_file(), doc
    assert {"1", "2", "3", "4", "5", "6", "7", "2.4", "6.3", "7.2"} <= defined_labels("BUNDLED.md")
    assert {"1.3", "2.2", "3.3", "6.6"} <= defined_labels("KOP-FAMILY.md")
    assert {"1.2", "2.1", "2.18"} <= defined_labels("HAND-RECORD.md")


MD_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def broken_links(md: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for lineno, line in enumerate(md.read_text(encoding="utf-8").splitlines(), 1):
        for target in MD_LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address or an anchor on the same page
            if not (md.parent / target.split("#")[0]).exists():
                broken.append(f"{md.relative_to(root)}:{lineno}: {target}")
    return broken


DOCS_PATH = re.compile(r"(?<![\w./-])docs/[\w./-]*\w")


def missing_docs_paths(path: Path, root: Path = ROOT) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [f"{path.relative_to(root)}: {m}" for m in DOCS_PATH.findall(text)
            if not (root / m).exists()]


def test_the_link_and_path_checks_see_a_broken_reference(tmp_path):
    (tmp_path / "docs" / "rules").mkdir(parents=True)
    (tmp_path / "docs" / "rules" / "BUNDLED.md").write_text("# B\n")
    readme = tmp_path / "README.md"
    readme.write_text("[ok](docs/rules/BUNDLED.md#x) [web](https://x.org) [gone](docs/GONE.md)\n"
                      "see docs/rules/BUNDLED.md §2 and docs/rules/MISSING.md.\n")
    assert broken_links(readme, tmp_path) == ["README.md:1: docs/GONE.md"]
    assert missing_docs_paths(readme, tmp_path) == ["README.md: docs/GONE.md",
                                                     "README.md: docs/rules/MISSING.md"]


def test_every_relative_markdown_link_exists():
    assert not [b for path in scanned_files() if path.suffix == ".md" for b in broken_links(path)]


def test_every_docs_path_mentioned_exists():
    # this file is left out: its check of the checker names missing paths on purpose
    assert not [m for path in scanned_files() if path != THIS for m in missing_docs_paths(path)]


def test_nothing_points_outside_the_repository():
    outside = ("shared/" + "rules", "../" + "shared", "seeds" + "/", "/work" + "/")
    found = [f"{where}: {line.strip()}" for path in scanned_files() if path != THIS
             for where, line in lines_of(path) if any(s in line for s in outside)]
    assert not found


CITED = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, DOCUMENTS)) + r")(?![\w-])|§(\d+(?:\.\d+)?)")


def test_every_cited_rule_item_is_defined():
    labels = {doc: defined_labels(doc) for doc in set(DOCUMENTS.values())}
    unresolved = []
    for path in scanned_files():
        if path.parent == RULES or path == THIS:
            continue  # the rule documents define items; this file only names the pattern
        for where, line in lines_of(path):
            doc = None  # a label belongs to the document named last before it on its line
            for m in CITED.finditer(line):
                if m.group(1):
                    doc = DOCUMENTS[m.group(1)]
                elif doc is None or m.group(2) not in labels[doc]:
                    unresolved.append(f"{where}: §{m.group(2)} of {doc or 'no document'}")
    assert not unresolved


def test_each_bundled_ruleset_cites_its_own_section():
    headings = dict(re.findall(r"^## §(\d+) `([\w-]+)`", (RULES / "BUNDLED.md").read_text(), re.M))
    files = sorted((ROOT / "kopsim" / "rulesets").glob("*.toml"))
    assert len(files) == len(headings)  # every bundled ruleset, each with its section
    for toml in files:
        text = toml.read_text(encoding="utf-8")
        [section] = re.findall(r'^source = ".*BUNDLED\.md §(\d+)"$', text, re.M)
        assert headings[section] == toml.stem, toml.name


def test_disagreement_numbers_exist():
    text = (RULES / "KOP-FAMILY.md").read_text(encoding="utf-8")
    section = text.split("## Where the seeds disagree or are silent", 1)[1]
    numbered = {int(n) for n in re.findall(r"^(\d+)\. ", section, re.M)}
    cited = {int(n) for path in scanned_files() for _, line in lines_of(path)
             for n in re.findall(r"disagreements? (\d+)", line)}
    assert numbered == set(range(1, 14)) and cited <= numbered


TOP_FOLDERS = ("rulesets/", "experiments/", "docs/", "tests/", "kopsim/")


def cwd_relative_paths(source: str) -> list[str]:
    """String literals (plain or f-strings) that start with a repository folder and are not the
    right-hand side of a `/` join onto an absolute base."""
    tree = ast.parse(source)
    joined = {id(n.right) for n in ast.walk(tree) if isinstance(n, ast.BinOp)
              and isinstance(n.op, ast.Div)}
    found = []
    for node in ast.walk(tree):
        if id(node) in joined:
            continue
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            head = node.values[0].value
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            head = node.value
        else:
            continue
        if head.startswith(TOP_FOLDERS):
            found.append(f"line {node.lineno}: {head!r}")
    return found


def test_the_cwd_check_sees_relative_paths():
    assert cwd_relative_paths('main(["validate", f"rulesets/{name}.toml"])\ngood = "rulesets/kop.toml"')
    assert not cwd_relative_paths('p = ROOT / "rulesets/kop.toml"\nq = "kop"')


# this file is left out: its folder names are patterns applied to ROOT, not paths it opens
TESTS = sorted(p for p in (ROOT / "tests").glob("**/*.py") if p.resolve() != THIS)


@pytest.mark.parametrize("path", TESTS, ids=lambda p: p.name)
def test_no_test_opens_a_path_relative_to_the_working_directory(path):
    assert not cwd_relative_paths(path.read_text(encoding="utf-8"))


def test_ci_runs_the_readme_test_command():
    """.ci/run's copy of the README's test command is the README's, pytest's options and all."""
    command = "pip install -q -e '.[test]' && python -m pytest"
    found = []
    for path in (ROOT / "README.md", ROOT / ".ci" / "run"):
        lines = [x for x in path.read_text(encoding="utf-8").splitlines() if command in x]
        assert len(lines) == 1, path
        found.append(lines[0][lines[0].index(command):])
    assert found[0] == found[1]
