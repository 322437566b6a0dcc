import os
import tempfile

import pytest

# the ev bot's calibrations go to a cache of this test session, never the user's
os.environ["KOPSIM_CACHE"] = tempfile.mkdtemp(prefix="kopsim-test-cache-")

from kopsim.rules.load import bundled_names, load_ruleset

BUNDLED = bundled_names()


@pytest.fixture(scope="session")
def boundscheck_env(tmp_path_factory):
    """The environment of a child process compiled with numba's bounds checks. Its own numba
    cache folder (numba's cache does not tell bounds-checked builds apart from the others),
    shared by every such child of the session, so that the kernel compiles checked once; in a
    session that is itself bounds-checked, that session's folder."""
    if os.environ.get("NUMBA_BOUNDSCHECK") == "1" and "NUMBA_CACHE_DIR" in os.environ:
        return dict(os.environ)
    folder = tmp_path_factory.mktemp("numba-boundscheck")
    return dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(folder))


@pytest.fixture(scope="session")
def rulesets():
    return {name: load_ruleset(name) for name in BUNDLED}
