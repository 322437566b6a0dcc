"""Where chunks run: joblib with loky processes on this machine, or joblib's Dask backend.

Both backends run the same picklable task function on the same task objects, and every hand is a
pure function of its deal id, so the backend only changes where and when a chunk is played, never
what it holds. Results come back as they finish (`generator_unordered`): the caller writes each
chunk as soon as it is done, so an interruption loses at most the chunks still running.
"""

from __future__ import annotations

import contextlib
import logging
import os
from typing import Callable, Iterable, Iterator

BACKENDS = ("loky", "dask")


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


@contextlib.contextmanager
def _dask_client(jobs: int | None, scheduler: str | None):
    """A client of the given scheduler, or of a local cluster of `jobs` single-threaded worker
    processes started for this run and closed after it."""
    from dask.distributed import Client, LocalCluster

    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.worker",
                                              "distributed.nanny", "distributed.scheduler")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.ERROR)
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler)
        else:
            with _sigint_ignored(), _quiet_workers():
                cluster = LocalCluster(n_workers=jobs or default_jobs(), threads_per_worker=1,
                                       processes=True, dashboard_address=":0")
            client = Client(cluster)
    except BaseException:
        _restore(quiet, levels)
        raise
    try:
        yield client
    except BaseException:
        _silence_dask()
        raise
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    _restore(quiet, levels)


def _restore(loggers: list, levels: list[int]) -> None:
    for lg, level in zip(loggers, levels):
        lg.setLevel(level)


def _silence_dask() -> None:
    """Interrupted or failed: the run says so in one line, and the cluster's complaints about
    work cut short as it closes would only bury that line. They come from its event loop until
    after the client is closed, so they stay silenced for the rest of the process."""
    names = [n for n in logging.root.manager.loggerDict
             if n.split(".")[0] in ("distributed", "tornado", "asyncio")]
    for name in names + ["distributed", "tornado", "asyncio"]:
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


@contextlib.contextmanager
def _quiet_workers():
    """The worker processes started now log nothing short of critical: a chunk cut short by
    Ctrl-C or by a failure elsewhere is not news (the run reports what happened)."""
    key = "DASK_LOGGING__DISTRIBUTED"
    previous = os.environ.get(key)
    os.environ[key] = "critical"
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = previous


@contextlib.contextmanager
def _sigint_ignored():
    """SIGINT ignored while worker processes start, so they ignore it too (an ignored signal
    stays ignored across exec, and Python then installs no KeyboardInterrupt handler): a Ctrl-C
    at the terminal interrupts the run, which closes its cluster, instead of printing a
    traceback from every worker."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run_tasks(fn: Callable, tasks: Iterable, backend: str = "loky", jobs: int | None = None,
              scheduler: str | None = None) -> Iterator:
    """fn(task) for every task, yielded as each finishes. jobs=1 with loky runs in this process.
    The task iterable is consumed lazily (a few tasks ahead of the workers), so memory does not
    grow with the number of chunks."""
    import warnings

    from joblib import Parallel, delayed, parallel_config

    # closing the generator early (a failed chunk, Ctrl-C) cancels the queued tasks: expected
    warnings.filterwarnings("ignore", message=r".*tasks which were still being processed",
                            category=UserWarning)

    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r} (known: {', '.join(BACKENDS)})")
    if backend == "loky":
        n = jobs or default_jobs()
        with parallel_config(backend="loky", n_jobs=n):
            yield from Parallel(n_jobs=n, return_as="generator_unordered", batch_size=1,
                                pre_dispatch="2*n_jobs")(delayed(fn)(t) for t in tasks)
        return
    with _dask_client(jobs, scheduler):
        n = jobs if (jobs and scheduler) else -1
        with parallel_config(backend="dask"):
            yield from Parallel(n_jobs=n, return_as="generator_unordered", batch_size=1,
                                pre_dispatch="2*n_jobs")(delayed(fn)(t) for t in tasks)
