"""The report's worker pool, importable without the heavy modules of the report.

The command line starts the forkserver here before it imports matplotlib and pandas: the
server's preload (``_preload``: about 2 s of imports) then runs on the second core while
this process does its own imports, instead of after them.

Ctrl-C reaches every process of the terminal's foreground group, workers included. The
workers ignore it (a traceback from each otherwise): this process gets the
KeyboardInterrupt and stops them.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import warnings
from pathlib import Path
from typing import cast

from bonken_sim.files import NotJson, json_document
from bonken_sim.processes import usable_cores

PRELOAD = "bonken_sim.report.page._preload"
RUN_FORMAT = "bonken-sim-run"  # runs.storage.FORMAT (not imported: storage pulls in pyarrow)


def pool_context():
    """Workers forked from a forkserver that has the heavy modules imported (``_preload``);
    spawned where there is no forkserver. Never plain fork: this process may already run
    pyarrow's threads."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload([PRELOAD])
        return ctx
    return multiprocessing.get_context("spawn")  # pragma: no cover - not on Linux


def init_worker(warning_filters: list) -> None:
    """A worker's initializer: Ctrl-C is for the process that owns the pool, and warnings
    are filtered as they are there (``warning_filters``: its ``warnings.filters``; so
    ``report --quiet`` prints none from a worker either)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    cast(list, warnings.filters)[:] = warning_filters  # a list (typeshed says Sequence)


def start_forkserver() -> None:
    """Start the pool's forkserver, if it is not running, with Ctrl-C blocked.

    The server inherits the blocked SIGINT (across exec), so a Ctrl-C during its 2 s of
    preloading prints no traceback, and every worker forked from it keeps SIGINT blocked
    until it ignores it (``init_worker``). Blocked, not ignored, in this process: a Ctrl-C
    during the few milliseconds it takes to start the server is taken right after, and an
    interrupt the command's handler delivers again (``cli.interrupts``) is not dropped.
    Ignored, both were lost: a Ctrl-C that came during the report's imports, delivered
    again until they were done, met the pool's start and the report ran to its end.
    """
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return  # pragma: no cover - not on Linux
    from multiprocessing import forkserver, resource_tracker

    pool_context()
    # The tracker first: starting it unblocks SIGINT (its own block around its start).
    resource_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        forkserver.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def default_workers() -> int:
    """Worker processes: one per CPU available, at most 4 (each holds one part in memory)."""
    return min(4, usable_cores())


def start_early(run_dir: str | os.PathLike, workers: int) -> None:
    """Start the forkserver now when the report of ``run_dir`` will use a pool (a deal run,
    ``workers`` > 1); it only gets a head start, so any failure is left to the pool."""
    if workers <= 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return
    try:
        doc = json_document((Path(run_dir) / "_manifest.json").read_bytes())
    except (OSError, NotJson):
        return
    if not (isinstance(doc, dict) and doc.get("format") == RUN_FORMAT):
        return
    with contextlib.suppress(Exception):
        start_forkserver()
