"""Where one in-process `bonken-sim run` spends its time besides playing.

Times the start-up (imports, the kernels' cache load), then every play task and every part
write of one run (on which thread, wall and CPU seconds), and prints one JSON document:
the seconds from the start of `run()` to its first task, the CPU seconds of playing and of
writing, the thread-seconds in the playing span when not every thread was busy, the end of
the run after the last task (the last writes), and Python's garbage collections.

`python benchmarks/profile_run.py [--deals 1e6] [--threads 2] [--seed 5]`
"""

from __future__ import annotations

import argparse
import gc
import json
import tempfile
import threading
import time


class GcTimer:
    """Python's garbage collections: count and CPU seconds per generation."""

    def __init__(self) -> None:
        self.per_gen: dict[int, list[float]] = {}
        self._t = 0.0

    def __call__(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t = time.thread_time()
        else:
            n, s = self.per_gen.setdefault(info["generation"], [0, 0.0])
            self.per_gen[info["generation"]] = [n + 1, s + time.thread_time() - self._t]

    def take(self) -> dict:
        out = {f"gen{g}": [n, round(s, 3)] for g, (n, s) in sorted(self.per_gen.items())}
        self.per_gen = {}
        return out


T0 = time.perf_counter()
C0 = time.process_time()
TIMER = GcTimer()  # from the first import of bonken_sim on
gc.callbacks.append(TIMER)


def main() -> None:
    from bonken_sim.runs.options import parse_count

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", default="1e6")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    try:
        deals = parse_count(args.deals, "--deals")
        if args.threads < 1:
            raise ValueError(f"--threads must be at least 1, got {args.threads}")
    except ValueError as exc:
        ap.error(str(exc))
    print(json.dumps(profile(deals, args.threads, args.seed), indent=2))


def profile(deals: int, threads: int, seed: int) -> dict:
    timer = TIMER
    import bonken_sim.runs.deal_session as session
    import bonken_sim.runs.deals as runs

    startup = {
        "import_wall": round(time.perf_counter() - T0, 3),
        "import_cpu": round(time.process_time() - C0, 3),
        "gc": timer.take(),
    }
    events: list[tuple[str, str, float, float, float]] = []
    play, write = runs.play_task, session.DealSession._write

    def timed_play(task):
        s, c = time.perf_counter(), time.thread_time()
        r = play(task)
        name = threading.current_thread().name
        events.append(("play", name, s, time.perf_counter(), time.thread_time() - c))
        return r

    def timed_write(self, index, chunk):
        s = time.perf_counter()
        entry, cpu = write(self, index, chunk)
        name = threading.current_thread().name
        events.append(("write", name, s, time.perf_counter(), cpu))
        return entry, cpu

    runs.play_task = timed_play  # run() looks its players up when it starts
    session.DealSession._write = timed_write  # type: ignore[method-assign]
    t_run, c_run = time.perf_counter(), time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        result = runs.run(deals=deals, seed=seed, out=f"{tmp}/run", threads=threads)
    t_end = time.perf_counter()
    plays = [e for e in events if e[0] == "play"]
    first, last_play = min(e[2] for e in plays), max(e[3] for e in plays)
    last = max(e[3] for e in events)
    play_busy = sum(e[3] - e[2] for e in plays)
    return {
        "deals": deals,
        "threads": threads,
        "startup": startup,
        "run_wall": round(t_end - t_run, 3),
        "run_cpu": round(time.process_time() - c_run, 3),
        "kernel_load": round(result.compile_seconds, 3),
        "run_to_first_task": round(first - t_run, 3),
        "tasks": len(plays),
        "play_cpu": round(sum(e[4] for e in plays), 3),
        "write_cpu": round(sum(e[4] for e in events if e[0] == "write"), 3),
        # thread-seconds the playing threads were not playing, between the first task's
        # start and the last one's end (writes on the playing threads count as not playing)
        "not_playing_in_span": round(threads * (last_play - first) - play_busy, 3),
        # the share of the playing tasks' wall time they got a CPU (below 1: other load)
        "cpu_share_of_tasks": round(sum(e[4] for e in plays) / play_busy, 3),
        "tail_after_last_task": round(last - last_play, 3),
        "after_last_write": round(t_end - last, 3),
        "gc_during_run": timer.take(),
    }


if __name__ == "__main__":
    main()
