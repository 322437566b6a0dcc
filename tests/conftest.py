import os
import tempfile

import pytest

# the ev bot's calibrations go to a cache of this test session, never the user's
os.environ["KOPSIM_CACHE"] = tempfile.mkdtemp(prefix="kopsim-test-cache-")

from kopsim.rules.load import bundled_names, load_ruleset

BUNDLED = bundled_names()


@pytest.fixture(scope="session")
def rulesets():
    return {name: load_ruleset(name) for name in BUNDLED}
