"""Stage 1, the rules: a TOML ruleset read and validated (`format`), compiled into integer tables
for the batch kernel (`compile`), shown (`show`) and compared (`diff`).

`compile_rules` is imported on first use, so reading a ruleset does not load numpy.
"""

from .format import BUNDLED_DIR, Ruleset, bundled_names, load_ruleset, ruleset_from_dict

__all__ = ["BUNDLED_DIR", "Ruleset", "bundled_names", "compile_rules", "load_ruleset",
           "ruleset_from_dict"]


def __getattr__(name: str):
    if name == "compile_rules":
        from .compile import compile_rules

        return compile_rules
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
