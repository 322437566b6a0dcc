"""`kopsim play` in a pseudo-terminal, as a person meets it: the prompts come, a bad answer is
asked again with the reason, a whole hand is played and its log replays clean; and with no
input at all (</dev/null) it exits 0 without a traceback. Every test has its own time limit."""

import os
import pty
import select
import subprocess
import sys
import time

import pytest

from kopsim.records.replay import replay

PROMPT = b"q to stop]: "


def _read_until(fd: int, want: bytes, deadline: float, seen: bytearray) -> bool:
    """Read the terminal into `seen` until it ends with a new `want` (True) or the child closes
    it (False)."""
    start = len(seen)
    while not (len(seen) > start and seen.endswith(want)):
        left = deadline - time.monotonic()
        assert left > 0, f"no {want!r} in time; the screen ends: {bytes(seen[-400:])!r}"
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # the child closed the terminal (Linux: EIO)
            return False
        if not chunk:
            return False
        seen += chunk
    return True


@pytest.mark.timeout(240)
def test_a_scripted_session_plays_a_hand_and_its_log_replays(tmp_path):
    log = tmp_path / "p.jsonl"
    main, child = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "kopsim", "play", "schafkopf", "--seed", "3",
                             "--seat", "2", "--hands", "1", "--log", str(log)],
                            stdin=child, stdout=child, stderr=child, close_fds=True)
    os.close(child)
    seen = bytearray()
    deadline = time.monotonic() + 180
    try:
        assert _read_until(main, PROMPT, deadline, seen)
        os.write(main, b"99\n")  # not a choice: asked again, with the reason
        assert _read_until(main, PROMPT, deadline, seen)
        assert b"99 is not a choice here: choose 1 to" in seen
        answered = True
        while answered:  # the first legal call or card, until the hand is over
            os.write(main, b"1\n")
            answered = _read_until(main, PROMPT, deadline, seen)
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        os.close(main)
    screen = seen.decode("utf-8", "replace")
    assert "Traceback" not in screen
    assert "hand over:" in screen and "1 hand played" in screen
    assert replay(log) == (1, [])


@pytest.mark.timeout(120)
def test_no_input_at_all_exits_0_without_a_traceback():
    done = subprocess.run([sys.executable, "-m", "kopsim", "play", "kop", "--seed", "1"],
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=100)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "end of input" in done.stdout and "0 hands played" in done.stdout
