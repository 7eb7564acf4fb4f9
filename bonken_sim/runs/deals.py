"""Many deals: ``run`` (a run directory) and ``simulate`` (a DataFrame). No numba here.

``run(config, executor=None)`` plays ``config.deals`` deals in every chosen contract variant
and writes a run directory (see ``storage.py``; its lifecycle is ``directory.py``, one
session of it ``deal_session.py``, its options and directory kind ``deal_config.py``, read by
``run_config.py`` as a game run's are, what it plays ``deal_tasks.py``); ``simulate(...)``
does the same in memory and returns a pandas DataFrame.

How a run flows: the deals are cut into chunks of ``chunk_size`` (one Parquet part each) and
every chunk into tasks of at most ``TASK_DEALS`` deals. Tasks go to the executor (by default
a thread pool; the kernels release the GIL) and return column-ready arrays; the main thread
assembles each chunk in order and hands it to the writer, so the part is written while the
next chunk plays. With ``--threads 1`` the write is queued on the playing thread, behind the
next chunk's tasks (one core busy, not one core plus a writer); with more threads a writer
thread of its own starts it at once, so that only the last chunk's write is left when the
playing ends. At most two chunks are in play and one is being written, so memory is
bounded by the chunk size, never by ``deals``. Every deal's cards and play come from (seed,
deal index, variant) alone, so any thread count, chunk size or executor gives the same
results.

With another executor (``--executor process|dask``, or ``run(config, executor=...)``) the
unit of work is a whole chunk: ``play_chunk(ChunkTask)`` plays the chunk's deals (on
``threads`` threads of the worker, 1 by default), encodes its two Parquet parts and either
writes them into the run directory itself (``write_parts="workers"``: the directory must be
on a filesystem every worker sees at the same path) or returns their bytes for the driver
to write (``"driver"``). It returns the manifest entry (files, rows, bytes, SHA-256) and its
CPU seconds. The driver keeps twice as many chunks in flight as the executor has slots,
records each finished part in the manifest as it arrives (in any order) and never holds
more than those chunks' bytes.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import numpy as np

from bonken_sim.runs.deal_config import (
    DEAL_CONFIG,
    DEFAULT_CHUNK,
    IDENTITY_OPTIONS,
    MAX_CHUNK,
    RunConfig,
    make_config,
)
from bonken_sim.runs.deal_session import DealSession, Players, RunResult, new_manifest
from bonken_sim.runs.deal_tasks import (
    TASK_DEALS,
    ChunkResult,
    ChunkTask,
    Task,
    TaskResult,
    assemble,
    chunk_tasks,
    play_chunk,
    play_task,
    warm_kernels,
)
from bonken_sim.runs.directory import (
    CHECKED_VERSIONS,
    RESULTS_DIR,
    check_worker_versions,
    default_out,
    versions,
)
from bonken_sim.runs.errors import RunError, RunInterrupted
from bonken_sim.runs.options import MAX_THREADS, default_threads
from bonken_sim.runs.pipeline import (
    ProgressFn,
    Stats,
    open_run,
    played_chunks,
)


def run(
    config: RunConfig | None = None,
    executor: Executor | str | None = None,
    *,
    progress: ProgressFn | None = None,
    on_start: Callable[[RunConfig, int], None] | None = None,
    **options: Any,
) -> RunResult:
    """Play a run and write its directory, exactly as ``bonken-sim run`` does.

    Pass a RunConfig or the options as keywords (``deals``, ``seed``, ``strategies``,
    ``contracts``, ``threads``, ``chunk_size``, ``out``, ``resume``, ``force``, ``executor``,
    ``workers``, ``scheduler``, ``write_parts``). ``executor`` (the argument) is any
    ``concurrent.futures.Executor`` (a process pool, a Dask client's ``get_executor()``):
    chunk tasks (``play_chunk``) run on it and write their parts into the run directory
    (``write_parts="workers"``, the default: the directory must be visible to every worker)
    or send them back (``"driver"``); it is not shut down here. Without it the config's
    executor (``local`` by default: a thread pool of ``threads`` threads) is used. The bytes
    never depend on the executor. ``progress(done, total)`` is called about ten times a
    second with the number of deals finished; ``on_start(config, deals_done)`` once the run
    directory is ready.

    >>> import bonken_sim, tempfile
    >>> r = bonken_sim.run(deals=2000, seed=7, out=tempfile.mkdtemp() + "/run")
    >>> r.rows, r.parts
    (24000, 1)
    """
    if isinstance(executor, str):  # run(deals=..., executor="process", workers=2)
        options["executor"], executor = executor, None
    if config is None:
        config = make_config(**options)
    elif options:
        raise TypeError("give either a RunConfig or options, not both")
    t_start = time.perf_counter()
    # importing pyarrow (~0.3 s) overlaps loading the kernels (LLVM work without the GIL)
    arrow = threading.Thread(target=_import_arrow, name="bonken-sim-import", daemon=True)
    arrow.start()
    open_dir = functools.partial(DEAL_CONFIG.open_dir, config, new_manifest)
    backend, rundir = open_run(config.executor_spec, executor, RunError, open_dir)
    try:
        kind = config.executor_spec.kind if executor is None else "executor"
        # looked up now, not at import, so a test may replace them
        players = Players(play_task, play_chunk, warm_kernels)
        session = DealSession(config, rundir, backend, kind, players, progress)
        if on_start is not None:
            on_start(session.cfg, session.already)
        session.play(arrow)
        return session.finish(t_start)
    finally:
        rundir.release()


def _import_arrow() -> None:
    import pyarrow.parquet  # noqa: F401


# ---------------------------------------------------------------------------------------
# In memory


def simulate(
    deals: Any,
    seed: Any = None,
    strategies: Any = "basic",
    contracts: Any = "all",
    *,
    threads: Any = None,
    features: bool = True,
    executor: Executor | None = None,
    ruleset: Any = None,
):
    """Play ``deals`` deals in every chosen contract variant and return a pandas DataFrame.

    One row per (deal, variant), ordered by deal then variant, with the columns of a run's
    results (see the README) and, with ``features=True``, the deal's hands and hand features
    on every row. ``ruleset``: a Ruleset, preset name or ruleset record (default RULES.md).
    The seed (drawn when not given) is in ``df.attrs["seed"]``. Memory grows
    with ``deals``; for large runs use ``run`` and read the Parquet directory.

    >>> import bonken_sim
    >>> df = bonken_sim.simulate(deals=100, seed=1, contracts="bukken,troeven_H")
    >>> len(df), df.groupby("variant", observed=True)["score_0"].sum().to_dict()["bukken"] <= 0
    (200, True)
    """
    import pyarrow as pa

    from bonken_sim.runs.storage import (
        DEAL_COLUMNS,
        deals_schema,
        deals_table,
        results_schema,
        results_table,
    )

    cfg = make_config(deals, seed, strategies, contracts, threads, ruleset=ruleset)
    cfg = replace(cfg, chunk_size=min(cfg.deals, MAX_CHUNK))
    own_pool = executor is None
    pool = executor if executor is not None else ThreadPoolExecutor(cfg.threads)
    stats = Stats()
    tables = []
    rs, ds_ = results_schema(), deals_schema()
    try:
        threads = getattr(pool, "_max_workers", cfg.threads)
        gen = played_chunks(
            range(cfg.n_chunks),
            functools.partial(chunk_tasks, cfg, threads=threads),
            play_task,
            functools.partial(assemble, cfg),
            pool,
            stats,
        )
        with contextlib.closing(gen):
            for _, chunk in gen:
                res = results_table(chunk, rs)
                nv = len(chunk.variants)
                perm = np.arange(nv * chunk.n).reshape(nv, chunk.n).T.reshape(-1)
                res = res.take(pa.array(perm))
                if features:
                    dl = deals_table(chunk, ds_)
                    rep = pa.array(np.repeat(np.arange(chunk.n), nv))
                    dl = dl.select(list(DEAL_COLUMNS[1:])).take(rep)
                    for name in dl.column_names:
                        res = res.append_column(dl.schema.field(name), dl.column(name))
                tables.append(res)
    finally:
        if own_pool:
            pool.shutdown(wait=True, cancel_futures=True)
    table = pa.concat_tables(tables).replace_schema_metadata(None)
    frame = table.to_pandas()
    frame.attrs["seed"] = cfg.seed
    frame.attrs["config"] = cfg.identity()
    return frame


__all__ = [
    "CHECKED_VERSIONS",
    "DEFAULT_CHUNK",
    "IDENTITY_OPTIONS",
    "MAX_CHUNK",
    "MAX_THREADS",
    "RESULTS_DIR",
    "TASK_DEALS",
    "ChunkResult",
    "ChunkTask",
    "RunConfig",
    "RunError",
    "RunInterrupted",
    "RunResult",
    "Task",
    "TaskResult",
    "assemble",
    "check_worker_versions",
    "chunk_tasks",
    "default_out",
    "default_threads",
    "make_config",
    "play_chunk",
    "play_task",
    "run",
    "simulate",
    "versions",
    "warm_kernels",
]
