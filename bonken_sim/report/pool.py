"""The report's worker pool, importable without the heavy modules of the report.

The command line starts the forkserver here before it imports matplotlib and pandas: the
server's preload (``_preload``: about 2 s of imports) then runs on the second core while
this process does its own imports, instead of after them.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
from pathlib import Path

PRELOAD = "bonken_sim.report._preload"
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


def default_workers() -> int:
    """Worker processes: one per CPU available, at most 4 (each holds one part in memory)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(4, cpus))


def start_early(run_dir: str | os.PathLike, workers: int) -> None:
    """Start the forkserver now when the report of ``run_dir`` will use a pool (a deal run,
    ``workers`` > 1); it only gets a head start, so any failure is left to the pool."""
    if workers <= 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return
    try:
        doc = json.loads((Path(run_dir) / "_manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if not (isinstance(doc, dict) and doc.get("format") == RUN_FORMAT):
        return
    from multiprocessing import forkserver

    pool_context()
    with contextlib.suppress(Exception):
        forkserver.ensure_running()
