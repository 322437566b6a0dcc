"""The stages import one way: data flows TOML -> rules -> engine -> bots -> records -> experiments
-> report, and a stage's code imports only the stages before it (lazy imports inside functions
and imports for type checking included), so no stage can reach back into one after it."""

import ast
from pathlib import Path

import kopsim

PACKAGE = Path(kopsim.__file__).parent
# shared helpers first, then the stages in the order data flows; the CLI and the top-level
# module may import every stage
ORDER = ["errors", "terminal", "memory", "_compiled_cache", "rules", "engine", "bots", "records",
         "table", "experiments", "bench", "report", "cli", "__main__", "__init__"]


def _stage(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def _imported_stages(path: Path, root: Path = PACKAGE.parent):
    """(line, stage) of every kopsim module `path` (under `root`) imports."""
    here = list(path.relative_to(root).with_suffix("").parts[:-1])
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[:len(here) - (node.level - 1)]
                target = base + (node.module.split(".") if node.module else [])
            else:
                target = (node.module or "").split(".")
            if target[0] != "kopsim":
                continue
            if len(target) == 1:  # from kopsim import x: x is a stage or a helper
                for alias in node.names:
                    yield node.lineno, alias.name
            else:
                yield node.lineno, target[1]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                target = alias.name.split(".")
                if target[0] == "kopsim" and len(target) > 1:
                    yield node.lineno, target[1]


def test_every_stage_imports_only_the_stages_before_it():
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        stage = _stage(path)
        assert stage in ORDER, f"{path}: stage {stage!r} has no place in ORDER"
        for line, target in _imported_stages(path):
            if target == stage or target not in ORDER:
                continue
            if ORDER.index(target) > ORDER.index(stage):
                wrong.append(f"{path.relative_to(PACKAGE)}:{line} ({stage}) imports {target}")
    assert not wrong, "\n".join(wrong)


def test_the_check_sees_a_lazy_import_reaching_back(tmp_path):
    """The walk finds an import inside a function, the kind that once let engine/ reach bots/."""
    module = tmp_path / "kopsim" / "engine" / "probe.py"
    module.parent.mkdir(parents=True)
    module.write_text("import numpy\n\ndef f():\n    from ..bots.seated import play_batch\n"
                      "    import kopsim.records.format\n", encoding="utf-8")
    assert list(_imported_stages(module, tmp_path)) == [(4, "bots"), (5, "records")]
