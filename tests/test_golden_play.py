"""Recorded play (tests/golden.py): the seeded hands of every bundled ruleset, a heuristic table
on each, and every shipped experiment play exactly as recorded in tests/data/golden_play.json."""

from __future__ import annotations

import json

from golden import GOLDEN, digests  # tests/golden.py


def test_seeded_play_is_exactly_as_recorded(tmp_path):
    recorded = json.loads(GOLDEN.read_text(encoding="utf-8"))
    found = digests(tmp_path, **recorded["sizes"])
    changed = sorted(k for k in recorded["digests"].keys() | found.keys()
                     if recorded["digests"].get(k) != found.get(k))
    assert not changed, (f"{len(changed)} of {len(found)} digests differ (if play is meant to "
                         f"change, run python tests/golden.py --write): {changed[:12]}")
    assert len(found) > 6 + 2 * 6  # simulate logs, and hands, sessions and logs of the runs
