import pytest

from kopsim.rules.load import bundled_names, load_ruleset

BUNDLED = bundled_names()


@pytest.fixture(scope="session")
def rulesets():
    return {name: load_ruleset(name) for name in BUNDLED}
