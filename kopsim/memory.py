"""The peak memory figure kopsim reports (bench rows, a run's manifest)."""

from __future__ import annotations

import sys


def peak_rss_mb() -> float:
    """This process's peak resident memory, in MB. On Linux from /proc (VmHWM, the peak of this
    process's own memory): getrusage's figure carries over the parent's peak at the fork, so a
    worker or a measurement started by a parent that had compiled the kernel (2.4 GB) would
    read that, whatever it used itself."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import resource

        kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return kb / 1024 if sys.platform != "darwin" else kb / 2**20
    except ImportError:  # pragma: no cover - Windows
        import psutil

        return psutil.Process().memory_info().rss / 2**20
