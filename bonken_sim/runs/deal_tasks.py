"""What a deal run plays: tasks of at most ``TASK_DEALS`` deals (``play_task``, on a thread
pool of the driver), and chunk tasks for any other executor (``play_chunk``: a whole chunk,
played, encoded and written or sent back). Module-level and picklable, so any executor runs
them; every deal's cards and play come from (seed, deal index, variant) alone, so any
thread count, chunk size or executor gives the same bytes."""

from __future__ import annotations

import gc
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bonken_sim.rules.names import N_VARIANTS, Strategy
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.runs.deal_config import RunConfig
from bonken_sim.runs.directory import check_worker_versions
from bonken_sim.runs.executors import worker_name
from bonken_sim.runs.pipeline import deliver
from bonken_sim.runs.schema import Chunk

TASK_DEALS = 8192
# The run's last chunk is cut finer: nothing is queued behind it, so the threads wait for the
# longest of its last tasks (and its write waits for them all).
LAST_TASK_DEALS = 2048
# The warm-up task's seats: both card-play codes a run of basic or random seats compiles.
WARM_STRATEGIES = (Strategy.BASIC, Strategy.RANDOM, Strategy.BASIC, Strategy.RANDOM)


@dataclass(frozen=True)
class Task:
    seed: int
    start: int
    n: int
    dealer: int
    variants: tuple[int, ...]
    strategies: tuple[int, ...]
    ruleset: Ruleset = STANDARD


@dataclass
class TaskResult:
    start: int
    hands: np.ndarray  # (n, 4) uint64
    features: np.ndarray  # (N_FEATURES, n) int8
    scores: np.ndarray  # (4, nv, n) int16
    tricks: np.ndarray  # (4, nv, n) int8
    order: np.ndarray  # (4, nv, n) int8
    cpu_seconds: float


def play_task(task: Task) -> TaskResult:
    """Play deals ``[task.start, task.start + task.n)`` in every variant; column layout out."""
    from bonken_sim.engine.deals import play_deal_columns

    c0 = time.thread_time()
    cols = play_deal_columns(
        task.seed,
        task.start,
        task.n,
        task.dealer,
        task.variants,
        task.strategies,
        task.ruleset.table,
    )
    return TaskResult(
        task.start,
        cols.hands,
        cols.features,
        cols.scores,
        cols.tricks,
        cols.order,
        time.thread_time() - c0,
    )


def warm_kernels(strategies: tuple[int, ...] = WARM_STRATEGIES) -> float:
    """Compile or load every kernel a run of these seats (kernel codes) uses; the seconds it
    took. Warmed with other seats, a run of a higher level loaded a build it never plays.

    When they are cached, Python's cyclic garbage collector is paused meanwhile: loading the
    kernels makes numba create tens of thousands of objects, all kept, and the collections
    they set off (one a full one over everything imported) cost about 0.1 s CPU before any
    deal is played (measured with benchmarks/profile_run.py). A compile (minutes, with much
    garbage) runs with the collector as it was."""
    from bonken_sim.engine.warmup import is_warm

    t0 = time.perf_counter()
    pause = gc.isenabled() and is_warm()
    if pause:
        gc.disable()
    try:
        play_task(Task(0, 0, 2, 0, tuple(range(N_VARIANTS)), strategies))
    finally:
        if pause:
            gc.enable()
    return time.perf_counter() - t0


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of a run, for any executor: (run key and options, chunk index) → parts.

    ``config`` carries the seed (the run key), the options that decide the bytes and the
    threads the task may use; ``root`` is the run directory as an absolute path when the
    worker writes the parts itself, or None to get their bytes back; ``meta`` is the schema
    metadata of the parts; ``versions`` the driver's, checked by the worker."""

    config: RunConfig
    index: int
    root: str | None
    meta: dict
    versions: dict


@dataclass
class ChunkResult:
    """What a chunk task returns: the manifest entry and, with ``root=None``, the parts."""

    entry: dict
    parts: tuple | None  # (EncodedPart results, EncodedPart deals) or None
    play_cpu: float
    write_cpu: float
    worker: str


def play_chunk(task: ChunkTask) -> ChunkResult:
    """Play chunk ``task.index`` of a run and encode (and, with ``root``, write) its parts.

    A pure function of the task: run twice, it writes the same bytes (each writer through a
    temporary file of its own, renamed into place)."""
    from bonken_sim.runs.storage import encode_chunk, part_entry

    check_worker_versions(task.versions)
    cfg = task.config
    threads = max(1, cfg.threads)
    tasks = chunk_tasks(cfg, task.index, threads)
    if threads == 1:
        results = [play_task(t) for t in tasks]
    else:
        with ThreadPoolExecutor(threads, thread_name_prefix="bonken-sim") as pool:
            results = list(pool.map(play_task, tasks))
    chunk = assemble(cfg, task.index, results)
    play_cpu = sum(r.cpu_seconds for r in results)
    del results
    c0 = time.thread_time()
    res, dl = encode_chunk(task.index, chunk, task.meta)
    files, parts = deliver(task.root, (res, dl))
    entry = part_entry(task.index, chunk.start, chunk.n, files[0], files[1])
    return ChunkResult(
        entry,
        parts,
        play_cpu,
        time.thread_time() - c0,
        worker_name(),
    )


def chunk_tasks(cfg: RunConfig, index: int, threads: int) -> list[Task]:
    """The tasks of chunk ``index``: at least one per thread, at most TASK_DEALS deals each
    (LAST_TASK_DEALS in the run's last chunk)."""
    start = index * cfg.chunk_size
    n = min(cfg.chunk_size, cfg.deals - start)
    most = LAST_TASK_DEALS if index == cfg.n_chunks - 1 else TASK_DEALS
    pieces = max(threads, -(-n // most))
    pieces = min(pieces, n)
    size = -(-n // pieces)
    variants = tuple(int(v) for v in cfg.variant_ids)
    strategies = cfg.strategy_ids
    return [
        Task(cfg.seed, start + a, min(size, n - a), cfg.dealer, variants, strategies, cfg.ruleset)
        for a in range(0, n, size)
    ]


def assemble(cfg: RunConfig, index: int, results: list[TaskResult]) -> Chunk:
    """A chunk's task results (in any order) as one Chunk in column layout."""
    results = sorted(results, key=lambda r: r.start)
    start = index * cfg.chunk_size

    def cat(name: str, axis: int) -> np.ndarray:
        arrays = [getattr(r, name) for r in results]
        return arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=axis)

    return Chunk(
        start=start,
        variants=cfg.variant_ids,
        hands=cat("hands", 0),
        features=cat("features", 1),
        scores=cat("scores", 2),
        tricks=cat("tricks", 2),
        order=cat("order", 2),
        beer_card=cfg.ruleset.beer_card,
    )
