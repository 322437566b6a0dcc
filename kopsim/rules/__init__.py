"""Stage 1, the rules: a TOML ruleset read (`load`) into pydantic models (`model`) and checked for
meaning (`validate`), compiled into integer tables for the batch kernel (`compile`), shown (`show`)
and compared (`diff`).

`compile_rules` is imported on first use, so reading a ruleset does not load numpy.
"""

from .load import BUNDLED_DIR, bundled_names, load_ruleset, ruleset_from_dict
from .model import Ruleset

__all__ = ["BUNDLED_DIR", "Ruleset", "bundled_names", "compile_rules", "load_ruleset",
           "ruleset_from_dict"]


def __getattr__(name: str):
    if name == "compile_rules":
        from .compile import compile_rules

        return compile_rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
