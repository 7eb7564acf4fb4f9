"""Processes: the cores to run on, and a process pool's workers: watched while a command
uses them, stopped at once when the command stops, and a stop signal let in before a
broken pool is reported as an error.

A worker that dies while it sends its result (SIGTERM reaches the whole process group,
workers included; the kernel's OOM killer picks one) leaves part of a message in the
pool's result pipe. The pool's manager thread then waits for the rest for ever, since this
process holds the pipe's other end too: no future of the pool completes, and joining the
pool, or merely leaving the interpreter, hangs. ``ProcessPoolExecutor`` has no public way
to kill its workers before Python 3.14, so the two private attributes it needs are read in
this one place, and left alone where they are missing.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from typing import Any, TypeVar

T = TypeVar("T")

WAIT_SECONDS = 5.0  # for killed workers to be gone: far more than the kernel needs
WATCH_EVERY = 0.1  # how often workers_watched looks at the workers
SIGNAL_GRACE = 0.25  # for a stop signal's handler that waits for another thread's import


def usable_cores() -> int:
    """The cores this process may run on (all of the machine's where that is not known):
    the default for threads and worker processes."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform (macOS)
        return max(1, os.cpu_count() or 1)


def stop_workers(executor: Executor) -> None:
    """Kill ``executor``'s worker processes (if it is a process pool) and wait until they
    are gone; then close this process's end of the result pipe, so the pool sees the end
    of it instead of waiting for the rest of a result cut short. Pending futures then fail
    with ``BrokenProcessPool`` and the pool can be shut down. For a pool being abandoned:
    an interrupt, or an error that ends the command."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    for proc in processes:
        with contextlib.suppress(Exception):  # already gone
            proc.kill()
    deadline = time.monotonic() + WAIT_SECONDS
    for proc in processes:
        with contextlib.suppress(Exception):
            proc.join(max(0.0, deadline - time.monotonic()))
    if any(_alive(proc) for proc in processes):
        return  # a worker may still send whole results: its pipe must stay open
    writer = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if writer is not None:
        with contextlib.suppress(OSError):
            writer.close()


def _alive(proc) -> bool:
    try:
        return bool(proc.is_alive())
    except Exception:  # noqa: BLE001 - a process whose state cannot be read is gone
        return False


def let_a_stop_signal_land() -> None:
    """Wait a moment in short sleeps, so that a stop signal already received is raised here.

    SIGTERM sent to the process group kills the workers and reaches this process at the same
    moment, but its handler may run a few milliseconds later (``cli.interrupts`` delays it
    while another thread imports). A pool found broken meanwhile must not be reported as
    an error of its own: call this first, and the interrupt wins."""
    deadline = time.monotonic() + SIGNAL_GRACE
    while time.monotonic() < deadline:
        time.sleep(0.01)  # a delayed interrupt is raised between two sleeps


@contextlib.contextmanager
def workers_watched(executor: Executor) -> Iterator[None]:
    """While the block runs, a thread looks at ``executor``'s worker processes every
    ``WATCH_EVERY`` seconds; once one has died (killed, out of memory) it stops the rest
    (``stop_workers``), so the pool's futures fail with ``BrokenProcessPool`` instead of
    waiting for ever for a result the dead worker had begun to send. The block must shut
    the pool down after it ends, not inside it (workers leaving then are no loss)."""
    processes = getattr(executor, "_processes", None)
    if processes is None:  # not a process pool
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(WATCH_EVERY):
            if any(proc.exitcode is not None for proc in list(processes.values())):
                stop_workers(executor)
                return

    watcher = threading.Thread(target=watch, name="pool-watch", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def interruptible(fn: Callable[..., T], *args: Any) -> T:
    """``fn(*args)``, run in a daemon thread while this thread waits in short joins.

    A numba kernel holds the thread that calls it until it returns, and Python runs a
    signal's handler in the main thread only between bytecodes: Ctrl-C or SIGTERM during a
    long kernel (an expert seat searching with many samples, say) waited for it, for hours.
    Waiting here instead, the main thread takes the signal at once and the command stops as
    it does anywhere else; the kernel's thread is left to end with the process (the arrays it
    writes stay alive with its frame). For kernels whose arrays nothing else shares, and
    calls long enough that a thread's start (tens of microseconds) does not count."""
    box: list[Any] = []

    def work() -> None:
        try:
            box.append((True, fn(*args)))
        except BaseException as exc:  # handed to the caller
            box.append((False, exc))

    thread = threading.Thread(target=work, name="kernel", daemon=True)
    thread.start()
    while thread.is_alive():
        thread.join(WATCH_EVERY)
    ok, value = box[0]
    if not ok:
        raise value
    return value


_held = [0]  # how many held_interrupts sections the main thread is in


@contextlib.contextmanager
def held_interrupts() -> Iterator[None]:
    """A section of the main thread that Ctrl-C and SIGTERM do not break into: the command's
    handler (``cli.interrupts``) delivers them again a few milliseconds later, until the
    section is over, as it does inside an import.

    For library code that calls back into Python and turns an exception raised there into
    an error of its own (a Ctrl-C that landed while matplotlib drew a figure came out as
    ``ValueError: Invalid bounding box``, an internal error instead of a stop), and for the
    cleanup after a failure (an interrupt that lands in it leaves the cleanup half done).
    Nothing is held in another thread (signals are handled in the main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _held[0] += 1
    try:
        yield
    finally:
        _held[0] -= 1


def interrupts_held() -> bool:
    """Whether the main thread is inside ``held_interrupts``."""
    return _held[0] > 0
