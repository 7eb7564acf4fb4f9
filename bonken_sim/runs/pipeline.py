"""The machinery of a run: chunks of work → an executor → results recorded in order.

In-process (``--executor local``) a chunk is cut into tasks that play on a thread pool;
``played_chunks`` keeps the pool busy with the next chunk while it hands out the current one,
in order, and ``OrderedWrites`` writes each chunk on a pool of its caller's choice (the
playing pool for one thread, a writer thread otherwise), one write in flight, so memory is
bounded by the chunk size. With another executor a whole chunk is one task
(``play_on_backend``) and a finished chunk's files are put in place by ``land``.

The state of each piece is explicit (a small class or the generator's locals), never a dict
shared by closures.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonken_sim.runs.directory import RunDir
from bonken_sim.runs.executors import (
    SHARED_HINT,
    Backend,
    ExecutorError,
    ExecutorSpec,
    PartWriteError,
    executor_failed,
    open_backend,
    run_tasks,
    task_failure,
    wrap_executor,
)
from bonken_sim.runs.files import EncodedPart, PartFile, write_bytes

ProgressFn = Callable[[int, int], None]


class Progress:
    """Counts finished units (from task futures) and reports them at most ~10 times a second."""

    def __init__(self, total: int, already: int, fn: ProgressFn | None):
        self.total = total
        self.done = already
        self.fn = fn
        self._last = 0.0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n

    def __call__(self, force: bool = False) -> None:
        if self.fn is None:
            return
        now = time.monotonic()
        if force or now - self._last >= 0.1:
            self._last = now
            self.fn(self.done, self.total)


@dataclass
class Stats:
    """Where a session's time went (CPU seconds of the tasks and writes, waits) and how much
    it played."""

    task_cpu: float = 0.0
    write_cpu: float = 0.0
    write_wait: float = 0.0
    write_tail: float = 0.0
    played: int = 0


def _count_done(prog: Progress, fut: Future, *, n: int) -> None:
    if not fut.cancelled() and fut.exception() is None:
        prog.add(n)


def played_chunks(
    indices: Iterable[int],
    tasks_of: Callable[[int], Sequence[Any]],
    play: Callable[[Any], Any],
    assemble: Callable[[int, list[Any]], Any],
    executor: Executor,
    stats: Stats,
    prog: Progress | None = None,
) -> Generator[tuple[int, Any], None, None]:
    """Yield ``(index, assemble(index, results))`` in order, keeping the executor busy with
    the next chunk. ``tasks_of(index)`` are a chunk's tasks (with ``n``, the units each
    plays), ``play(task)`` runs one (its result has ``cpu_seconds``). Closing the generator
    cancels the queued tasks and waits for the running ones."""
    todo = deque(indices)
    inflight: deque[tuple[int, list[Future]]] = deque()

    def submit(task: Any) -> Future:
        fut = executor.submit(play, task)
        if prog is not None:
            fut.add_done_callback(functools.partial(_count_done, prog, n=task.n))
        return fut

    try:
        while todo or inflight:
            while todo and len(inflight) < 2:
                k = todo.popleft()
                inflight.append((k, [submit(t) for t in tasks_of(k)]))
            k, futures = inflight[0]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                if prog is not None:
                    prog()
            inflight.popleft()
            results = [f.result() for f in futures]
            stats.task_cpu += sum(r.cpu_seconds for r in results)
            yield k, assemble(k, results)
    finally:
        for _, futures in inflight:
            for f in futures:
                f.cancel()
        # tasks already running cannot be stopped; they finish within a task's time
        wait([f for _, fs in inflight for f in fs])


class OrderedWrites:
    """Chunks written in order on ``pool``, one write in flight: the next chunk's write is
    queued when the previous one has been recorded. ``write(index, chunk)`` returns
    ``(manifest entry, CPU seconds)``; ``record(entry)`` is called for each, in order."""

    def __init__(
        self,
        pool: Executor,
        write: Callable[[int, Any], tuple[dict, float]],
        record: Callable[[dict], None],
        stats: Stats,
        prog: Progress,
    ):
        self.pool = pool
        self.write = write
        self.record = record
        self.stats = stats
        self.prog = prog
        self.pending: Future | None = None

    def put(self, index: int, chunk: Any) -> None:
        if self.pending is not None:
            self._collect()
        self.pending = self.pool.submit(self.write, index, chunk)

    def finish(self) -> None:
        """Wait for the last write (its wait is the run's write tail)."""
        if self.pending is not None:
            t0 = time.perf_counter()
            self._collect()
            self.stats.write_tail = time.perf_counter() - t0

    def _collect(self) -> None:
        assert self.pending is not None
        t0 = time.perf_counter()
        while True:
            try:
                entry, cpu = self.pending.result(timeout=0.1)
                break
            except TimeoutError:
                self.prog()
        self.stats.write_wait += time.perf_counter() - t0
        self.stats.write_cpu += cpu
        self.pending = None
        self.record(entry)

    def abandon(self) -> dict | None:
        """After an interrupt or error: let the pending write run to its end (a chunk that
        was played is kept); its entry, or None if there was none or it failed (then its
        temporary file is gone)."""
        pending, self.pending = self.pending, None
        if pending is None:
            return None
        try:
            entry, _ = pending.result()
            return entry
        except BaseException:
            return None


def open_backend_for(
    spec: ExecutorSpec, executor: Executor | None, error: type[Exception]
) -> Backend | None:
    """The backend chunk tasks run on: the caller's executor, the one the options name, or
    None for in-process threads."""
    if executor is not None:
        return wrap_executor(executor)
    if spec.local:
        return None
    try:
        return open_backend(spec)
    except ExecutorError as exc:
        raise error(str(exc)) from None


def open_run(
    spec: ExecutorSpec,
    executor: Executor | None,
    error: type[Exception],
    open_dir: Callable[[], RunDir],
) -> tuple[Backend | None, RunDir]:
    """The backend (``open_backend_for``) and the run directory (``open_dir()``); a backend
    opened here is closed again when the directory cannot be opened."""
    backend = open_backend_for(spec, executor, error)
    try:
        return backend, open_dir()
    except BaseException:
        close_quietly(backend, cancel=True)
        raise


def close_quietly(backend: Backend | None, cancel: bool) -> None:
    if backend is not None:
        with contextlib.suppress(BaseException):
            backend.close(cancel=cancel)


def play_on_backend(
    backend: Backend,
    fn: Callable[[Any], Any],
    tasks: Iterable[Any],
    record: Callable[[Any], None],
    error: type[Exception],
    tick: Callable[[], None] | None = None,
) -> str | None:
    """Run the tasks on the backend and ``record`` each result as it finishes (in any order).
    Returns None when all are done, or the one-line reason the run cannot go on (a task
    failed on its worker, the executor gave up, or ``record`` raised ``error``). OSError,
    interrupts and an error in the task's own code (a bug: ``executor_failed``) propagate."""
    try:
        for _, res in run_tasks(backend, fn, tasks, tick=tick):
            record(res)
    except OSError:
        raise
    except Exception as exc:
        if isinstance(exc, error):
            return str(exc)
        if not executor_failed(exc):
            raise
        return task_failure(exc, backend.kind)
    return None


def deliver(
    root: str | None, encoded: Sequence[EncodedPart]
) -> tuple[list[PartFile], tuple[EncodedPart, ...] | None]:
    """On a worker: its encoded files written into the run directory ``root`` (their
    entries, and None), or with ``root`` None kept to send back (their entries, the files)."""
    if root is None:
        return [PartFile(p.file, p.rows, len(p.data), p.sha256) for p in encoded], tuple(encoded)
    try:
        return [write_bytes(Path(root), p.file, p.data, p.rows) for p in encoded], None
    except OSError as exc:
        raise PartWriteError(root, exc) from None


def land(
    root: Path,
    entry: dict,
    parts: Sequence[EncodedPart] | None,
    part_files: Sequence[tuple[str, str, str]],
    worker: str,
    error: type[Exception],
) -> dict:
    """Put a finished chunk's files in place: write the bytes a worker sent (``parts``, in
    the order of ``part_files``, the (file, bytes, sha256) keys of ``entry``), or check that
    the files a worker wrote are here (the run directory must be shared)."""
    if parts is not None:
        for part, (_, _, sha) in zip(parts, part_files, strict=True):
            write_bytes(root, part.file, part.data, part.rows, entry[sha])
        return entry
    for f, b, _ in part_files:
        path = root / entry[f]
        try:
            size = path.stat().st_size
        except OSError:
            size = -1
        if size != entry[b]:
            raise error(
                f"worker {worker} wrote {entry[f]} but {path} is "
                + ("missing" if size < 0 else f"{size:,} bytes, not {entry[b]:,}")
                + f" here: {SHARED_HINT}"
            )
    return entry
