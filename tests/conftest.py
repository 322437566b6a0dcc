import os
import tempfile
from pathlib import Path

import pytest

# pytest-xdist's workers of one run (`pytest -n 2`) share the folders below, named by the run's
# id, so that what one worker learnt or compiled the other reads instead of doing it again
XDIST_RUN = os.environ.get("PYTEST_XDIST_TESTRUNUID")
XDIST_VARIABLES = ("PYTEST_XDIST_TESTRUNUID", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT")


def _folder_of_this_run(prefix: str) -> str:
    if XDIST_RUN is None:
        return tempfile.mkdtemp(prefix=prefix)
    folder = Path(tempfile.gettempdir()) / f"{prefix}{XDIST_RUN}"
    folder.mkdir(exist_ok=True)  # calibrate._save writes atomically: workers may share it
    return str(folder)


# the ev bot's calibrations go to a cache of this test session, never the user's
os.environ["KOPSIM_CACHE"] = _folder_of_this_run("kopsim-test-cache-")

from kopsim.rules.load import bundled_names, load_ruleset

BUNDLED = bundled_names()


# The quick lane (`python -m pytest -m quick`, README "Development"): a few tests that touch every
# stage once — rules loaded, validated, shown and compared; both engines on the same deals; each
# bot; an experiment, its log replayed, its report; the recorded golden play. Node ids, or the
# start of one (every parameter of a test), in the tests folder
QUICK = (
    "test_validation.py::test_every_bundled_ruleset_validates",
    "test_validation.py::test_cli_exit_code_2_and_no_traceback",
    "test_cli.py::test_rules_show_kop_prints_classic_order_and_payouts",
    "test_rulesdiff.py::test_sportowy_covers_every_section",
    "test_engines_agree.py::test_same_records_from_both_engines[kop-heuristic]",
    "test_engines_agree.py::test_same_records_from_both_engines[schafkopf-random]",
    "test_duel.py::test_same_seed_same_duel_on_both_engines",
    "test_bots.py::test_pimc_and_cheat_play_whole_hands_reproducibly",
    "test_ev.py::test_every_contract_worth_playing_is_played",
    "test_experiment.py::test_logs_replay_and_match_the_rows",
    "test_report_cli.py::test_report_writes_every_file_and_says_where",
    "test_replay_knobs.py::test_replay_refuses_a_ramsch_hand_with_the_wrong_seat",
    "test_rules_validated_play_right.py::test_the_order_named_empty_of_the_fuzzing_round",
    "test_golden_play.py::test_seeded_play_is_exactly_as_recorded",
)


def pytest_configure(config):
    config.addinivalue_line("markers", "last: run after every other test (it waits for "
                                       "what a first one started)")
    config.addinivalue_line("markers", "quick: the quick lane, every stage once (conftest.QUICK)")


def pytest_collection_modifyitems(items):
    """The quick lane's marks; the bounds-checked tests first, and the test marked `last` last:
    the child pytest of test_boundscheck is the longest piece of the suite (it compiles the
    kernel afresh with the checks); started first and awaited last, it runs beside the rest."""
    for item in items:
        if f"{item.path.name}::{item.nodeid.partition('::')[2]}".startswith(QUICK):
            item.add_marker(pytest.mark.quick)

    def order(item) -> int:
        if item.get_closest_marker("last"):
            return 2
        return 0 if "boundscheck_env" in getattr(item, "fixturenames", ()) else 1
    items.sort(key=order)


@pytest.fixture(scope="session")
def run_tmp(tmp_path_factory) -> Path:
    """A temporary folder of this run: of the session, or shared by every xdist worker of it."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if XDIST_RUN else base


@pytest.fixture(scope="session")
def boundscheck_env(run_tmp):
    """The environment of a child process compiled with numba's bounds checks. Its own numba
    cache folder (numba's cache does not tell bounds-checked builds apart from the others),
    shared by every such child of the session (and of every xdist worker of the run), so that
    the kernel compiles checked once; in a session that is itself bounds-checked, that
    session's folder. A child pytest is a session of its own, not an xdist worker: it gets its
    own ev calibrations, learnt under the bounds checks too."""
    if os.environ.get("NUMBA_BOUNDSCHECK") == "1" and "NUMBA_CACHE_DIR" in os.environ:
        return dict(os.environ)
    folder = run_tmp / "numba-boundscheck"
    folder.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in XDIST_VARIABLES}
    # every line-up in the one kernel that holds them all: one checked build, not four
    return dict(env, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(folder), KOPSIM_ONE_KERNEL="1")


@pytest.fixture(scope="session")
def rulesets():
    return {name: load_ruleset(name) for name in BUNDLED}
