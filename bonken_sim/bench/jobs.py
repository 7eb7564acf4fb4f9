"""The jobs benchmark: whole commands timed against the toy-heuristic playout kernel.

``bonken-sim run --deals N`` plays 12 playouts a deal (every contract variant) and
``bonken-sim game --games N`` 11 a game (one contract per deal). Each command is run end to
end in a fresh process (start, imports, kernel cache load, play, Parquet, manifest), in turns
with the toy kernel (``toy_playouts`` of ``_core/yardstick.py``: the engine's dealing, a
lowest-legal-card policy, ``prange`` on the same threads) on the same number of playouts, so
that load on a shared machine hits both alike. The result is each job's wall time as a
multiple of the kernel's: what the whole command costs beyond the plainest parallel playout loop.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import N_VARIANTS


@dataclass(frozen=True)
class Job:
    """One command of the benchmark: its sub-command, its size option, its playouts per
    unit of size, the wall ratio to the toy kernel it aims at (None: no aim, a reference
    point), and any further options."""

    name: str
    command: str
    size_option: str
    unit: str
    playouts_per_unit: int
    aim: float | None
    options: tuple[str, ...] = ()

    def argv(self, size: int, seed: int, threads: int, out: Path) -> list[str]:
        return [
            sys.executable,
            "-P",  # not the working folder first on the path (see this_package_first)
            "-m",
            "bonken_sim.cli",
            self.command,
            *self.options,
            self.size_option,
            str(size),
            "--seed",
            str(seed),
            "--threads",
            str(threads),
            "--out",
            str(out),
            "--force",
            "--quiet",
        ]


# ``run-random`` is ``run`` with every seat random: no strategy at all, so the floor a deal
# run with the engine's rules, scores and Parquet stands on above the toy kernel.
JOBS = {
    "run": Job("run", "run", "--deals", "deals", N_VARIANTS, 2.5),
    "game": Job("game", "game", "--games", "games", DEALS_PER_GAME, 3.5),
    "run-random": Job(
        "run-random", "run", "--deals", "deals", N_VARIANTS, None, ("--strategies", "random")
    ),
}
DEFAULT_SIZES = {"run": 100_000, "game": 20_000}
FULL_SIZES = {"run": 1_000_000, "game": 1_000_000}
# sizes of the untimed first run of each command (page cache, kernel cache, Python files)
_WARM_SIZE = 1000


def parse_jobs(text: str) -> dict[str, int]:
    """``run=1e6,game=1e6`` (either or both, any size ``parse_count`` reads) as a dict;
    ``none`` for no jobs. ValueError with a one-line message otherwise."""
    from bonken_sim.runs.options import parse_count

    text = text.strip()
    if text.lower() == "none":
        return {}
    sizes: dict[str, int] = {}
    for item in text.split(","):
        name, eq, size = item.strip().partition("=")
        name = name.strip().lower()
        if name not in JOBS or not eq or name in sizes:
            raise BadValue(
                f"--jobs must be distinct NAME=SIZE items with NAME one of "
                f"{', '.join(JOBS)} (or 'none'), got {text!r}"
            )
        sizes[name] = parse_count(size.strip(), what=f"--jobs {name}")
    return sizes


def check_jobs(sizes: dict[str, int], repeats: int) -> None:
    """ValueError unless every job is known with a positive size and ``repeats`` >= 1."""
    for name, size in sizes.items():
        if name not in JOBS:
            raise BadValue(f"unknown job {name!r} (expected some of: {', '.join(JOBS)})")
        if size < 1:
            raise BadValue(f"the size of job {name} must be at least 1, got {size}")
    if repeats < 1:
        raise BadValue(f"repeats must be at least 1, got {repeats}")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def this_package_first() -> dict[str, str]:
    """The environment for a command that must import this very bonken_sim: its folder first
    on PYTHONPATH. (``python -m`` would put the working folder first, so a command started
    in another checkout would time that checkout's code: the jobs run ``python -P``.)"""
    home = str(Path(__file__).resolve().parents[2])  # the folder holding bonken_sim/
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": home + (os.pathsep + path if path else "")}


def time_command(argv: list[str], what: str = "the command") -> tuple[float, float]:
    """Wall and CPU seconds (all threads) of one command run to its end, with this
    bonken_sim first on its path; RuntimeError with its last line of stderr if it fails."""
    c0 = _children_cpu()
    t0 = time.perf_counter()
    done = subprocess.run(
        argv, capture_output=True, text=True, check=False, env=this_package_first()
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines() or ["(no output)"]
        raise RuntimeError(f"{what} failed ({done.returncode}): {lines[-1]}")
    return wall, _children_cpu() - c0


def time_toy(key, start: int, playouts: int) -> tuple[float, float]:
    """Wall and CPU seconds (all threads of this process) of the toy kernel on ``playouts``
    fresh deals."""
    from bonken_sim.engine.yardstick import toy_playouts

    c0 = time.process_time()
    t0 = time.perf_counter()
    toy_playouts(key, start, playouts)
    return time.perf_counter() - t0, time.process_time() - c0


@dataclass
class Samples:
    """One job's timings, repeat by repeat, the command's and the kernel's in turns."""

    wall: list[float]
    cpu: list[float]
    toy_wall: list[float]
    toy_cpu: list[float]

    def summary(self, job: Job, size: int) -> dict:
        med = {k: statistics.median(v) for k, v in vars(self).items()}
        playouts = size * job.playouts_per_unit
        return {
            "size": size,
            "unit": job.unit,
            "playouts": playouts,
            "wall_seconds": med["wall"],
            "cpu_seconds": med["cpu"],
            "toy_wall_seconds": med["toy_wall"],
            "toy_cpu_seconds": med["toy_cpu"],
            "toy_playouts_per_s": playouts / med["toy_wall"],
            "ratio": med["wall"] / med["toy_wall"],
            "cpu_ratio": med["cpu"] / med["toy_cpu"],
            "paired_ratios": [w / t for w, t in zip(self.wall, self.toy_wall, strict=True)],
            "aim": job.aim,
            "samples": vars(self),
        }


def run_jobs(
    sizes: dict[str, int],
    repeats: int = 3,
    threads: int | None = None,
    seed: int = 12345,
    echo: Callable[[str], None] = print,
) -> dict:
    """Time each job of ``sizes`` (name → deals or games) ``repeats`` times against the toy
    kernel on the same playouts and threads; the result document (medians, ratios)."""
    import numba

    from bonken_sim.engine.yardstick import seed_key
    from bonken_sim.runs.options import default_threads

    check_jobs(sizes, repeats)
    threads = threads or default_threads()
    doc: dict = {"threads": threads, "repeats": repeats, "jobs": {}}
    if not sizes:
        return doc
    key = seed_key(seed)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    doc["toy_threads"] = numba.get_num_threads()  # fewer than threads beyond numba's limit
    echo("")
    echo(f"jobs: {', '.join(f'{k} {v:,}' for k, v in sizes.items())}, {repeats} repeats")
    with tempfile.TemporaryDirectory(prefix="bonken-bench-jobs-") as tmp:
        out = Path(tmp)
        time_toy(key, 0, 10)  # the kernel compiled or loaded before any timing
        for name in sizes:  # each command once, untimed: kernel cache, page cache
            time_command(JOBS[name].argv(_WARM_SIZE, seed, threads, out / name), name)
        samples = {name: Samples([], [], [], []) for name in sizes}
        for r in range(repeats):
            for name, size in sizes.items():
                job, s = JOBS[name], samples[name]
                wall, cpu = time_command(job.argv(size, seed + r, threads, out / name), name)
                s.wall.append(wall)
                s.cpu.append(cpu)
                playouts = size * job.playouts_per_unit
                toy_wall, toy_cpu = time_toy(key, 10**10 + r * playouts, playouts)
                s.toy_wall.append(toy_wall)
                s.toy_cpu.append(toy_cpu)
                echo(
                    f"  {name} {r + 1}/{repeats}: {wall:.2f} s ({cpu:.2f} CPU-s), "
                    f"toy kernel {toy_wall:.2f} s: {wall / toy_wall:.2f}x"
                )
    for name, size in sizes.items():
        doc["jobs"][name] = samples[name].summary(JOBS[name], size)
    doc["load_average"] = os.getloadavg()[0]
    echo_jobs(doc, echo)
    return doc


def echo_jobs(doc: dict, echo: Callable[[str], None]) -> None:
    """The jobs' table: per job its size, wall and CPU medians, the toy kernel's, and the
    ratios."""
    echo("")
    echo(
        f"jobs: each command end to end (a fresh process, warm kernel cache) in turns with the "
        f"toy kernel (lowest legal card, prange) on the same playouts, {doc['threads']} threads "
        f"({doc['toy_threads']} for the kernel), "
        f"median of {doc['repeats']}"
    )
    echo(
        f"{'job':11s}{'size':>12s}{'playouts':>13s}{'wall s':>9s}{'CPU s':>9s}"
        f"{'toy wall':>10s}{'toy CPU':>9s}{'ratio':>8s}{'CPU ratio':>11s}{'aim':>8s}"
    )
    for name, j in doc["jobs"].items():
        aim = "-" if j["aim"] is None else f"<= {j['aim']:.1f}x"
        echo(
            f"{name:11s}{j['size']:>12,}{j['playouts']:>13,}{j['wall_seconds']:9.2f}"
            f"{j['cpu_seconds']:9.2f}{j['toy_wall_seconds']:10.2f}{j['toy_cpu_seconds']:9.2f}"
            f"{j['ratio']:7.2f}x{j['cpu_ratio']:10.2f}x{aim:>8s}"
        )
    if doc["jobs"]:
        echo(f"(load average at the end: {doc['load_average']:.1f} on {os.cpu_count()} CPUs)")
