"""What one module of kopsim uses from another has a public name: no `from .x import _private`,
no `obj._private` on an object of another class."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kopsim"

# numba dispatchers handed to terminal.compile_notice; they get public names with the kernel's
# rewrite (issue 9, items 2-3), which owns kernel.py and solver.py
KERNEL_DISPATCHERS = {"_play_batch", "_play_batch_endgame", "_play_batch_pimc", "_play_batch_pimc_endgame"}
# attributes of objects that are not kopsim's: numba's cache layout, os._exit, and the methods
# NamedTuple names with an underscore so they cannot clash with fields (its public API)
FOREIGN = {"_cache", "_cache_file", "_index_path", "_exit", "_asdict", "_replace", "_fields"}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _uses(path: Path):
    tree = ast.parse(path.read_text("utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith(
                "kopsim")):
            for alias in node.names:
                if _private(alias.name) and alias.name not in KERNEL_DISPATCHERS:
                    yield node.lineno, f"imports {alias.name} from {node.module}"
        elif isinstance(node, ast.Attribute) and _private(node.attr) \
                and node.attr not in FOREIGN:
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")) \
                    and not (isinstance(owner, ast.Name) and owner.id[0].isupper()):
                yield node.lineno, f"uses {ast.unparse(node)}"


def test_no_private_name_is_used_across_modules():
    found = [f"{p.relative_to(PACKAGE.parent)}:{line}: {what}"
             for p in sorted(PACKAGE.rglob("*.py")) for line, what in _uses(p)]
    assert found == []
