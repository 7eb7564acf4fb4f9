"""Where the work runs: in-process threads (the default), a local process pool or a Dask cluster.

``run``, ``game`` and ``tournament`` cut their work into picklable tasks handled by a
module-level function (``deals.play_chunk``, ``games.play_game_part``,
``tournament.play_seating``); any ``concurrent.futures.Executor`` can run them. This module
opens the executors the command line names (``--executor local|process|dask``,
``--workers N``, ``--scheduler ADDRESS``) and feeds them tasks (``run_tasks``): a bounded
number in flight, results as they finish, and a process pool that loses a worker process
(``BrokenProcessPool``: the OOM killer, a ``kill -9``) recreated with its unfinished tasks
resubmitted, up to ``MAX_RESTARTS`` times. A Dask cluster retries the tasks of a lost worker
by itself.

No kernel is ``parallel=True``, so numba never starts a thread pool of its own; a task plays
its deals on ``threads`` Python threads (1 by default with ``process`` and ``dask``), so N
worker processes use N cores and do not oversubscribe them.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    CancelledError,
    Executor,
    Future,
    ProcessPoolExecutor,
    wait,
)
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from bonken_sim.errors import UserFixableError
from bonken_sim.processes import stop_workers, usable_cores

EXECUTORS = ("local", "process", "dask")
WRITE_PARTS = ("workers", "driver")
MAX_WORKERS = 1024
#: how often a process pool that lost a worker process is recreated before the run stops
MAX_RESTARTS = 3
DASK_EXTRA = "--executor dask needs the dask extra: pip install 'bonken-sim[dask]'"


class ExecutorError(UserFixableError, ValueError):
    """A bad executor option, a missing extra, an unreachable scheduler (one line)."""


class WorkersLost(UserFixableError, RuntimeError):
    """Worker processes died more often than ``MAX_RESTARTS`` allows."""


class WorkerMismatch(UserFixableError, RuntimeError):
    """A worker runs another bonken-sim, engine or pyarrow than the driver."""


class PartWriteError(UserFixableError, RuntimeError):
    """A task could not write its part into the run directory (``reason``: the OS error)."""

    def __init__(self, root: str, exc: OSError | str):
        self.root = root
        self.reason = exc if isinstance(exc, str) else str(exc.strerror or exc)
        self.worker = worker_name()
        super().__init__(root, self.reason)

    def __reduce__(self):
        return (_part_write_error, (self.root, self.reason, self.worker))

    def __str__(self) -> str:
        return f"worker {self.worker} cannot write in {self.root}: {self.reason}"


def _part_write_error(root: str, reason: str, worker: str) -> PartWriteError:
    exc = PartWriteError(root, reason)
    exc.worker = worker
    return exc


SHARED_HINT = (
    "the run directory must be a path every worker sees (a shared filesystem), "
    "or use --write-parts driver"
)


def executor_failed(exc: BaseException) -> bool:
    """Whether ``exc``, raised where a task's result was awaited, says that the executor or
    its workers failed (a worker process that died, a pool that broke, a Dask cluster that
    went away or cannot be reached, a worker that cannot write its part or runs another
    version), something the user sees to: not an error in the task's own code, which is a
    bug and is left to end the command as one."""
    if isinstance(exc, UserFixableError | BrokenExecutor | CancelledError | TimeoutError):
        return True
    return type(exc).__module__.split(".")[0] in ("distributed", "dask")


def task_failure(exc: BaseException, kind: str) -> str:
    """One line for a task that failed on its worker, or an executor that gave up."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    if isinstance(exc, PartWriteError):
        return f"{text}; {SHARED_HINT}"
    if isinstance(exc, WorkerMismatch):
        return text
    name = type(exc).__name__
    what = "the executor" if kind == "executor" else f"the {kind} executor"
    return f"{what} failed: {name}" + (f": {text}" if text else "")


@dataclass(frozen=True)
class ExecutorSpec:
    """What ``--executor``, ``--workers``, ``--scheduler`` and ``--write-parts`` asked for.

    ``write_parts`` (for any executor but in-process threads, including one passed to
    ``run``): ``workers`` = each task writes its Parquet parts into the run directory itself
    (the directory must be visible at the same path to every worker: a shared filesystem);
    ``driver`` = tasks send the encoded parts back and the driver writes them.
    """

    kind: str = "local"
    workers: int | None = None
    scheduler: str | None = None
    write_parts: str = "workers"

    @property
    def local(self) -> bool:
        return self.kind == "local"

    def describe(self) -> str:
        if self.kind == "local":
            return "in-process threads"
        if self.kind == "process":
            return f"a process pool of {self.workers} workers"
        if self.scheduler:
            return f"the Dask scheduler at {self.scheduler}"
        return f"a local Dask cluster of {self.workers} worker processes"


def default_workers() -> int:
    return usable_cores()


def _parse_workers(value: Any) -> int:
    try:
        n = value if isinstance(value, int) else int(str(value).strip())
    except ValueError:
        n = 0
    if isinstance(value, bool) or not 1 <= n <= MAX_WORKERS:
        raise ExecutorError(
            f"--workers must be a whole number from 1 to {MAX_WORKERS}, got {value!r}"
        )
    return n


def dask_available() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def make_spec(
    executor: Any = None, workers: Any = None, scheduler: Any = None, write_parts: Any = None
) -> ExecutorSpec:
    """Validate the executor options (``None`` = not given) into an ExecutorSpec."""
    kind = "local" if executor is None else str(executor).strip().lower()
    if kind not in EXECUTORS:
        raise ExecutorError(f"--executor must be local, process or dask, got {executor!r}")
    scheduler = None if scheduler is None or str(scheduler).strip() == "" else str(scheduler)
    if scheduler is not None and kind != "dask":
        raise ExecutorError("--scheduler needs --executor dask")
    n: int | None = None
    if workers is not None:
        if kind == "local":
            raise ExecutorError(
                "--workers needs --executor process or dask (in-process threads: --threads)"
            )
        if scheduler is not None:
            raise ExecutorError(
                "--workers starts a local Dask cluster; with --scheduler the cluster's own "
                "workers are used: give one or the other"
            )
        n = _parse_workers(workers)
    parts = "workers" if write_parts is None else str(write_parts).strip().lower()
    if parts not in WRITE_PARTS:
        raise ExecutorError(f"--write-parts must be workers or driver, got {write_parts!r}")
    if kind == "dask" and not dask_available():
        raise ExecutorError(DASK_EXTRA)
    if kind != "local" and scheduler is None and n is None:
        n = default_workers()
    return ExecutorSpec(kind, n, scheduler, parts)


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


# ---------------------------------------------------------------------------------------
# Backends: an opened executor


class Backend:
    """An executor and what the task feeder needs to know about it."""

    kind = "executor"

    def __init__(self, executor: Executor, slots: int = 2, own: bool = False):
        self.executor = executor
        self._slots = max(1, slots)
        self.own = own
        self.restarts = 0

    def slots(self) -> int:
        """How many tasks can run at once (the feeder keeps twice that many in flight)."""
        return self._slots

    def can_restart(self) -> bool:
        return False

    def restart(self) -> None:  # pragma: no cover - only process pools restart
        raise NotImplementedError

    def close(self, cancel: bool = False) -> None:
        if self.own:
            self.executor.shutdown(wait=True, cancel_futures=cancel)


def _worker_init() -> None:
    """In each pool process: Ctrl-C is the driver's to handle (it stops the pool in order)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _mp_context():
    """Never fork this process (it may have threads running: numba, pyarrow, our pools):
    workers fork from a single-threaded forkserver that has the kernels loaded (see
    ``_forkserver_preload``), or are spawned where there is no forkserver."""
    if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    # takes effect when the server starts (the first pool of this process)
    ctx.set_forkserver_preload(["__main__", "bonken_sim.runs._forkserver_preload"])
    return ctx


class ProcessBackend(Backend):
    kind = "process"

    def __init__(self, workers: int):
        self.workers = workers
        super().__init__(self._pool(), workers, own=True)

    def _pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(self.workers, mp_context=_mp_context(), initializer=_worker_init)

    def can_restart(self) -> bool:
        return True

    def restart(self) -> None:
        # The workers of a broken pool are killed first: a worker still waiting for work
        # could keep shutdown() waiting for ever (seen under load: the pool's manager thread
        # joined a live worker that never got its stop sentinel).
        stop_workers(self.executor)
        self.executor.shutdown(wait=True, cancel_futures=True)
        self.executor = self._pool()
        self.restarts += 1

    def close(self, cancel: bool = False) -> None:
        """With ``cancel`` (an interrupt or an error) the worker processes are stopped at once:
        a task cut short leaves only a hidden temporary file, never a part."""
        pool = self.executor
        if cancel:
            stop_workers(pool)
        pool.shutdown(wait=True, cancel_futures=cancel)


class DaskBackend(Backend):
    kind = "dask"

    def __init__(self, client, cluster=None):
        self.client = client
        self.cluster = cluster
        self._checked = 0.0
        super().__init__(client.get_executor(pure=False), 1, own=True)

    def slots(self) -> int:
        now = time.monotonic()
        if now - self._checked > 2.0:  # workers may join or leave while a run goes on
            self._checked = now
            try:
                self._slots = max(1, sum(self.client.nthreads().values()))
            except Exception:  # noqa: BLE001 - keep the last known count
                pass
        return self._slots

    def close(self, cancel: bool = False) -> None:
        try:
            self.executor.shutdown(wait=not cancel)
        finally:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()


def open_backend(spec: ExecutorSpec) -> Backend:
    """Open the executor of a spec (not ``local``); close it with ``backend.close()``."""
    if spec.kind == "process":
        return ProcessBackend(spec.workers or default_workers())
    if spec.kind != "dask":
        raise ExecutorError(f"no executor to open for {spec.kind!r}")
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ExecutorError(DASK_EXTRA) from None
    if spec.scheduler is not None:
        try:
            client = Client(spec.scheduler)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ExecutorError(
                f"cannot connect to the Dask scheduler at {spec.scheduler}: "
                f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            ) from None
        return DaskBackend(client)
    cluster = LocalCluster(
        n_workers=spec.workers or default_workers(),
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",  # any free port: never collide with another cluster
        silence_logs=logging.ERROR,
    )
    return DaskBackend(Client(cluster), cluster)


def wrap_executor(executor: Executor) -> Backend:
    """A caller's executor (never shut down here, never restarted)."""
    slots = getattr(executor, "_max_workers", None)
    client = getattr(executor, "_client", None)
    if slots is None and client is not None:
        try:
            slots = sum(client.nthreads().values())
        except Exception:  # noqa: BLE001
            slots = None
    return Backend(executor, int(slots or 2), own=False)


# ---------------------------------------------------------------------------------------
# Feeding tasks


def run_tasks(
    backend: Backend,
    fn: Callable[[Any], Any],
    tasks: Iterable[Any],
    *,
    tick: Callable[[], None] | None = None,
    window: int | None = None,
    max_restarts: int | None = None,
) -> Iterator[tuple[Any, Any]]:
    """Run ``fn(task)`` for every task on the backend; yield ``(task, result)`` as they finish.

    At most ``window`` tasks (default: twice the backend's slots) are in flight, so memory
    stays bounded. ``tick()`` is called about ten times a second. When a process pool breaks
    (a worker process died), the pool is recreated and every task without a result is
    submitted again (a task is a pure function of its inputs and writes its files
    atomically, so running it twice is harmless); after ``max_restarts`` breaks WorkersLost
    is raised. Any other exception of a task is raised here. Closing the generator cancels
    the tasks not started yet.
    """
    limit_restarts = MAX_RESTARTS if max_restarts is None else max_restarts
    todo: deque[tuple[int, Any]] = deque(enumerate(tasks))
    running: dict[Future, tuple[int, Any]] = {}
    try:
        while todo or running:
            broken: BaseException | None = None
            limit = window or 2 * backend.slots()
            while todo and len(running) < limit:
                seq, task = todo[0]
                try:
                    fut = backend.executor.submit(fn, task)
                except BrokenProcessPool as exc:  # the pool broke since the last submit
                    if not backend.can_restart():
                        raise
                    broken = exc
                    break
                todo.popleft()
                running[fut] = (seq, task)
            lost: list[tuple[int, Any]] = []
            if broken is None:
                done, _ = wait(list(running), timeout=0.1, return_when=FIRST_COMPLETED)
                if tick is not None:
                    tick()
                for fut in sorted(done, key=lambda f: running[f][0]):
                    seq, task = running.pop(fut)
                    error = fut.exception()
                    if error is None:
                        yield task, fut.result()
                    elif isinstance(error, BrokenProcessPool) and backend.can_restart():
                        lost.append((seq, task))
                        broken = error
                    else:
                        raise error
                if broken is None:
                    continue
            # every other task of a broken pool fails too: keep what did finish
            if running:
                wait(list(running))
                for fut in sorted(running, key=lambda f: running[f][0]):
                    seq, task = running[fut]
                    if fut.exception() is None:
                        yield task, fut.result()
                    else:
                        lost.append((seq, task))
                running.clear()
            if backend.restarts >= limit_restarts:
                raise WorkersLost(
                    f"worker processes died {backend.restarts + 1} times (killed, or out of "
                    f"memory?)"
                ) from broken
            backend.restart()
            todo.extendleft(sorted(lost, reverse=True))
    finally:
        for fut in running:
            fut.cancel()
