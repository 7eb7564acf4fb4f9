"""processes: a pool whose worker died half-way through sending its result can still be
stopped and shut down (``stop_workers``), or is stopped by the watch (``workers_watched``);
and a stop signal a moment late is raised before a broken pool is reported.

Each scenario runs in its own interpreter: a pool that hangs would otherwise hang pytest's
own exit (the interpreter joins every pool's manager thread when it ends).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCENARIO = textwrap.dedent(
    """
    import multiprocessing, os, signal, struct, sys, time
    from concurrent.futures import ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    from contextlib import nullcontext
    from bonken_sim.processes import stop_workers, workers_watched


    def die_half_way_through_the_result():
        # what a worker killed by a signal in the middle of a large result leaves behind:
        # a message header and part of its body in the result pipe
        frame = sys._getframe()
        while "result_queue" not in frame.f_locals:
            frame = frame.f_back
        fd = frame.f_locals["result_queue"]._writer.fileno()
        os.write(fd, struct.pack("!i", 1_000_000) + b"x" * 100)
        os.kill(os.getpid(), signal.SIGKILL)


    def square(x):
        return x * x


    pool = ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("fork"))
    assert pool.submit(square, 3).result(timeout=30) == 9
    with WATCH:
        cut_short = pool.submit(die_half_way_through_the_result)
        done = wait([cut_short], timeout=1.5).done
        print("stuck" if not done else "completed", flush=True)  # the pool waits for the rest
        STOP
    try:
        cut_short.result(timeout=RESULT_WAIT)
    except BrokenProcessPool:
        print("broken")
    pool.shutdown(wait=True, cancel_futures=True)
    print("shut down")
    """
)


def _run(
    stop: str, result_wait: float, timeout: float, watch: str = "nullcontext()"
) -> tuple[int | None, list[str]]:
    script = SCENARIO.replace("STOP", stop).replace("RESULT_WAIT", str(result_wait))
    script = script.replace("WATCH", watch)
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        return None, out.splitlines()
    return done.returncode, done.stdout.splitlines()


def test_a_pool_left_waiting_for_a_result_cut_short_stops():
    assert _run("stop_workers(pool)", result_wait=20, timeout=60) == (
        0,
        ["stuck", "broken", "shut down"],
    )


def test_without_stopping_its_workers_the_pool_would_wait_for_ever():
    """The same scenario without ``stop_workers``: the future never ends (so the test above
    tests the remedy, not a pool that recovers by itself)."""
    code, out = _run("pass", result_wait=1, timeout=7)
    assert code is None and out[0] == "stuck"


def test_the_watch_stops_a_pool_whose_worker_died():
    """No one calls ``stop_workers``: the watch sees the dead worker within 0.1 s and does
    (so the 1.5 s wait already ends with the future failed)."""
    code, out = _run("pass", result_wait=20, timeout=60, watch="workers_watched(pool)")
    assert (code, out) == (0, ["completed", "broken", "shut down"])


LATE_SIGNAL = textwrap.dedent(
    """
    import _thread, signal, time
    from bonken_sim import processes

    # Python's own SIGINT handler, even when the test runs in a process started in the
    # background, which inherits SIGINT ignored: interrupt_main then does nothing.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sleeps = []

    class Clock:  # the wait's clock, whose first sleep lets a stop signal in
        monotonic = staticmethod(time.monotonic)

        @staticmethod
        def sleep(seconds):
            sleeps.append(seconds)
            if len(sleeps) == 1:
                _thread.interrupt_main()  # a handler that ran once the wait had begun
            time.sleep(seconds)

    processes.time = Clock
    try:
        processes.let_a_stop_signal_land()
        print("not raised", len(sleeps))
    except KeyboardInterrupt:
        print("raised", len(sleeps), max(sleeps) <= 0.02)
    """
)


def test_a_stop_signal_a_moment_late_is_raised_while_waiting_for_it():
    """The signal comes during the wait, not before it: the wait raises it after its first
    short sleep. (Triggered from the wait's own sleep, not a timer thread, so that the test
    does not depend on the machine's load; the process installs Python's SIGINT handler,
    which a process started in the background inherits ignored.)"""
    done = subprocess.run(
        [sys.executable, "-c", LATE_SIGNAL], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout.split()) == (0, ["raised", "1", "True"])


def test_a_pool_that_is_not_a_process_pool_is_left_alone():
    from concurrent.futures import ThreadPoolExecutor

    from bonken_sim.processes import stop_workers, workers_watched

    pool = ThreadPoolExecutor(1)
    assert pool.submit(pow, 2, 5).result() == 32
    stop_workers(pool)
    with workers_watched(pool):
        assert pool.submit(pow, 3, 2).result() == 9
    pool.shutdown()
