"""Issue 9: no function in kopsim/ is over 120 lines or takes more than 12 parameters.

Lines run from the ``def`` line to the function's last line (decorators excluded);
parameters count positional-only, positional, keyword-only, *args and **kwargs.
Nested functions and methods are checked too, numba helpers included.
"""
import ast
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "kopsim"
MAX_FUNCTION_LINES = 120
MAX_PARAMETERS = 12


def function_length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    return node.end_lineno - node.lineno + 1


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    arguments = node.args
    starred = [a for a in (arguments.vararg, arguments.kwarg) if a is not None]
    return (len(arguments.posonlyargs) + len(arguments.args)
            + len(arguments.kwonlyargs) + len(starred))


def functions_in(source: str, filename: str):
    tree = ast.parse(source, filename=filename)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def offenders_in(source: str, filename: str) -> list[str]:
    """One line per function breaking a limit: file:line name, its length and parameters."""
    found = []
    for node in functions_in(source, filename):
        length, parameters = function_length(node), parameter_count(node)
        if length > MAX_FUNCTION_LINES or parameters > MAX_PARAMETERS:
            found.append(f"{filename}:{node.lineno} {node.name}: "
                         f"{length} lines, {parameters} parameters")
    return found


def test_limits_count_def_line_to_last_line_and_every_kind_of_parameter():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    exactly_at_limit = f"@decorator\ndef at_limit(a, /, b, *args, c, **kwargs):\n{body}\n"
    assert offenders_in(exactly_at_limit, "f.py") == []
    one_line_over = exactly_at_limit + "    y = 0\n"
    assert offenders_in(one_line_over, "f.py") == [
        "f.py:2 at_limit: 121 lines, 5 parameters"]
    names = ", ".join(f"p{i}" for i in range(MAX_PARAMETERS - 2))
    thirteen = f"class C:\n    def method(self, {names}, *rest, **options):\n        pass\n"
    assert offenders_in(thirteen, "g.py") == ["g.py:2 method: 2 lines, 13 parameters"]


def test_no_function_in_kopsim_is_too_long_or_takes_too_many_parameters():
    paths = sorted(PACKAGE_DIR.rglob("*.py"))
    assert paths, f"no Python files under {PACKAGE_DIR}"
    offenders = []
    for path in paths:
        relative = path.relative_to(PACKAGE_DIR.parent).as_posix()
        offenders += offenders_in(path.read_text(encoding="utf-8"), relative)
    assert not offenders, (
        f"functions over {MAX_FUNCTION_LINES} lines or {MAX_PARAMETERS} parameters:\n"
        + "\n".join(offenders))
