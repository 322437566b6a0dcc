"""The short public API of kopsim/__init__.py: its docstring's example runs, its names resolve,
and importing the package stays cheap."""

import doctest
import os
import subprocess
import sys

import kopsim


def test_the_package_docstring_example_runs():
    result = doctest.testmod(kopsim, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 10
    assert result.failed == 0


def test_every_public_name_resolves():
    for name in kopsim.__all__:
        assert callable(getattr(kopsim, name)), name


def test_importing_kopsim_loads_neither_numba_nor_polars():
    code = "import sys, kopsim; print(sorted({'numba', 'polars', 'numpy'} & set(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_help_shows_every_public_name_with_its_docstring():
    import pydoc

    text = pydoc.render_doc(kopsim, renderer=pydoc.plaintext)
    for name in kopsim.__all__:
        doc = getattr(kopsim, name).__doc__
        assert doc, f"{name} has no docstring"
        first = doc.strip().splitlines()[0].strip()
        assert first in text, name
    assert "build_report" in kopsim.__all__  # a report is made from Python too
