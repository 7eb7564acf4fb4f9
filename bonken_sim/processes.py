"""Stop a process pool's workers at once, when the command that owns it stops.

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
import time
from concurrent.futures import Executor

WAIT_SECONDS = 5.0  # for killed workers to be gone: far more than the kernel needs


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
