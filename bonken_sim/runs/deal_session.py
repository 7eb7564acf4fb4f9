"""One session of a deal run: the chunks still to play, played into an open run directory
on in-process threads or on another executor, recorded in its manifest, stopped cleanly by
Ctrl-C, SIGTERM or a failure (the run stays resumable), and what it did (``RunResult``)."""

from __future__ import annotations

import contextlib
import functools
import os
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from bonken_sim.engine.provenance import versions
from bonken_sim.runs import storage
from bonken_sim.runs.deal_config import DEAL_RUN, RunConfig
from bonken_sim.runs.deal_tasks import ChunkResult, ChunkTask, assemble, chunk_tasks
from bonken_sim.runs.directory import RunDir, no_interrupts, now, sigterm_as_interrupt
from bonken_sim.runs.errors import RunError, RunInterrupted
from bonken_sim.runs.executors import Backend
from bonken_sim.runs.pipeline import (
    OrderedWrites,
    Progress,
    ProgressFn,
    Stats,
    close_quietly,
    land,
    play_on_backend,
    played_chunks,
)
from bonken_sim.runs.schema import DEALS_DIR, FORMAT, SCHEMA_VERSION


def new_manifest(cfg: RunConfig) -> dict:
    """The manifest of a new deal run (no parts yet)."""
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "state": "incomplete",
        "config": {**cfg.identity(), "seed_drawn": cfg.seed_drawn, "threads": cfg.threads},
        "versions": versions(),
        "tables": {
            "results": "part-*.parquet: one row per (deal, contract variant)",
            "deals": f"{DEALS_DIR}/part-*.parquet: one row per deal (hands, hand features)",
        },
        "created": now(),
        "updated": None,
        "completed": None,
        "deals_done": 0,
        "rows": 0,
        "parts": [],
        "sessions": [],
    }


@dataclass
class RunResult:
    """What a finished (or resumed-and-finished) run did; ``to_dict()`` is the --json doc."""

    out: Path
    seed: int
    seed_drawn: bool
    deals: int
    contracts: list[str]
    strategies: list[str]
    rows: int
    parts: int
    files: list[str]
    bytes: int
    deals_this_session: int
    resumed: bool
    threads: int
    wall_seconds: float
    compile_seconds: float
    simulate_cpu_seconds: float
    write_cpu_seconds: float
    write_tail_seconds: float
    state: str = "complete"
    executor: str = "local"  # local, process, dask, or "executor" (one passed to run())
    workers: int | None = None  # task slots of the executor (None: local threads)
    restarts: int = 0  # process pools recreated after losing a worker process

    @property
    def deals_per_second(self) -> float:
        busy = self.wall_seconds - self.compile_seconds
        return self.deals_this_session / busy if busy > 0 else 0.0

    def to_dict(self) -> dict:
        d = asdict(self)
        d["out"] = str(self.out)
        d["manifest"] = str(self.out / "_manifest.json")
        d["deals_per_second"] = self.deals_per_second
        return d


@dataclass(frozen=True)
class Players:
    """The functions a session plays with, looked up by ``run`` when it starts (so a test
    may replace them): a task on the driver's threads, a chunk on another executor, and
    loading the kernels."""

    task: Callable[[Any], Any]
    chunk: Callable[[ChunkTask], ChunkResult]
    warm: Callable[[tuple[int, ...]], float]  # the run's seats (kernel codes)


class DealSession:
    """Plays the chunks of ``rundir`` still to do; ``play()`` then ``finish()``."""

    def __init__(
        self,
        cfg: RunConfig,
        rundir: RunDir,
        backend: Backend | None,
        executor_kind: str,
        players: Players,
        progress: ProgressFn | None,
    ):
        self.cfg = cfg = replace(cfg, out=rundir.root)
        self.rundir = rundir
        self.backend = backend
        self.players = players
        self.todo = rundir.todo(cfg.n_chunks)
        self.session: dict[str, Any] = {
            "started": now(),
            "threads": cfg.threads,
            "executor": executor_kind,
            "deals": 0,
            "finished": None,
        }
        if backend is not None:
            self.session["workers"] = backend.slots()
            self.session["write_parts"] = cfg.executor_spec.write_parts
            self.session["restarts"] = 0
        rundir.manifest["sessions"].append(self.session)
        rundir.manifest["config"]["threads"] = cfg.threads
        rundir.save()
        v = versions()
        self.meta = {
            "config": cfg.identity(),
            "versions": {k: v[k] for k in ("bonken_sim", "engine", "numba", "numpy")},
        }
        self.stats = Stats()
        self.already = sum(p["deals"] for p in rundir.parts)
        self.prog = Progress(cfg.deals, self.already, progress)
        self.compile_s = 0.0
        self.pool = (
            ThreadPoolExecutor(cfg.threads, thread_name_prefix="bonken-sim")
            if backend is None
            else None
        )
        # One local thread plays and writes on the same thread (--threads 1 keeps one core
        # busy). With more, a writer thread of its own starts each chunk's write as soon as
        # the chunk is played: on the playing pool the write would queue behind the next
        # chunk's tasks, and the last-but-one chunk's write would add to the run's end.
        self.write_pool = (
            ThreadPoolExecutor(1, thread_name_prefix="bonken-sim-write")
            if self.pool is not None and cfg.threads > 1
            else self.pool
        )
        self.chunks: Generator | None = None
        self.writes: OrderedWrites | None = None

    @property
    def root(self) -> Path:
        return self.rundir.root

    def play(self, arrow: threading.Thread) -> None:
        """Play every chunk to do; RunInterrupted after Ctrl-C or SIGTERM, RunError after a
        failure (both with the resume hint), the run directory left resumable."""
        interrupted = False
        failure: str | None = None
        try:
            with sigterm_as_interrupt():
                try:
                    # on the driver: a cold cache is compiled once here, not by every worker
                    self.compile_s = self.players.warm(self.cfg.strategy_ids)
                    arrow.join()
                    self.prog(force=True)
                    if self.backend is not None:
                        failure = self._on_backend()
                    else:
                        self._in_process()
                except KeyboardInterrupt:
                    interrupted = True
        except OSError as exc:
            self.abandon()
            name = getattr(exc, "filename", None)
            where = f" ({name})" if name else ""
            reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
            raise RunError(f"cannot write the run in {self.root}{where}: {reason}") from None
        except BaseException:
            self.abandon()
            raise
        if interrupted or failure is not None:
            with no_interrupts():
                self.abandon()
            done = sum(p["deals"] for p in self.rundir.parts)
            saved = f"{done:,} of {self.cfg.deals:,} deals are saved in {self.root}; "
            saved += "resume with: " + DEAL_RUN.resume_hint(self.root)
            if failure is not None:
                raise RunError(f"{failure}; {saved}")
            raise RunInterrupted(f"interrupted: {saved}", self.root, done)

    def _in_process(self) -> None:
        cfg = self.cfg
        assert self.pool is not None
        assert self.write_pool is not None
        self.writes = OrderedWrites(
            self.write_pool, self._write, self._written, self.stats, self.prog
        )
        self.chunks = played_chunks(
            self.todo,
            functools.partial(chunk_tasks, cfg, threads=cfg.threads),
            self.players.task,
            functools.partial(assemble, cfg),
            self.pool,
            self.stats,
            self.prog,
        )
        for index, chunk in self.chunks:
            self.stats.played += chunk.n
            self.writes.put(index, chunk)
        self.writes.finish()

    def _write(self, index: int, chunk: storage.Chunk) -> tuple[dict, float]:
        c0 = time.thread_time()
        side: list[float] = []
        entry = storage.write_chunk(
            self.root, index, chunk, self.meta, side, side_by_side=self.cfg.threads > 1
        )
        return entry, time.thread_time() - c0 + sum(side)

    def _written(self, entry: dict) -> None:
        self.session["deals"] += entry["deals"]
        self.rundir.record(entry)

    def _on_backend(self) -> str | None:
        backend = self.backend
        assert backend is not None
        cfg = self.cfg
        where = str(self.root.resolve()) if cfg.executor_spec.write_parts == "workers" else None
        task_cfg = replace(cfg, out=None, resume=False, force=False)
        tasks = (ChunkTask(task_cfg, k, where, self.meta, versions()) for k in self.todo)
        try:
            return play_on_backend(
                backend, self.players.chunk, tasks, self._landed, RunError, tick=self.prog
            )
        finally:
            self.session["restarts"] = backend.restarts

    def _landed(self, res: ChunkResult) -> None:
        self.stats.task_cpu += res.play_cpu
        self.stats.write_cpu += res.write_cpu
        entry = land(self.root, res.entry, res.parts, DEAL_RUN.part_files, res.worker, RunError)
        self.session["deals"] += entry["deals"]
        self.stats.played += entry["deals"]
        self.prog.add(entry["deals"])
        self.rundir.record(entry)

    def abandon(self) -> None:
        """Stop everything after an interrupt or error: cancel queued tasks, let running ones
        and the current write finish (a finished part is kept), save the manifest as
        incomplete. Worker processes of an executor opened here are stopped at once (a task
        cut short leaves only a hidden temporary file)."""
        if self.chunks is not None:
            with contextlib.suppress(BaseException):
                self.chunks.close()  # cancels the queued play tasks, waits for running ones
        close_quietly(self.backend, cancel=True)
        entry = self.writes.abandon() if self.writes is not None else None
        if entry is not None and entry["index"] not in {p["index"] for p in self.rundir.parts}:
            self.rundir.parts.append(entry)
        self._shutdown_pools(cancel=True)
        self.rundir.manifest["state"] = "incomplete"
        with contextlib.suppress(RunError):
            self.rundir.save()
        self.rundir.tidy()  # the empty temporary folders; a worker's leftover stays for resume

    def _shutdown_pools(self, cancel: bool) -> None:
        writer = self.write_pool if self.write_pool is not self.pool else None
        for pool in (self.pool, writer):
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=cancel)

    def finish(self, t_start: float) -> RunResult:
        """Close the executor, mark the run complete, and what the session did."""
        self._shutdown_pools(cancel=False)
        if self.backend is not None:
            self.backend.close()
        self.rundir.tidy()
        manifest, stats, cfg = self.rundir.manifest, self.stats, self.cfg
        manifest["state"] = "complete"
        manifest["completed"] = manifest["completed"] or now()
        wall = time.perf_counter() - t_start
        self.session["finished"] = now()
        self.session["wall_seconds"] = round(wall, 3)
        self.session["compile_seconds"] = round(self.compile_s, 3)
        self.session["simulate_cpu_seconds"] = round(stats.task_cpu, 3)
        self.session["write_cpu_seconds"] = round(stats.write_cpu, 3)
        self.session["write_tail_seconds"] = round(stats.write_tail, 3)
        self.rundir.save()
        self.prog(force=True)
        parts = self.rundir.parts
        return RunResult(
            out=self.root,
            seed=cfg.seed,
            seed_drawn=cfg.seed_drawn,
            deals=cfg.deals,
            contracts=list(cfg.contracts),
            strategies=list(cfg.strategies),
            rows=manifest["rows"],
            parts=len(parts),
            files=[p["file"] for p in parts] + [p["deals_file"] for p in parts],
            bytes=sum(p["bytes"] + p["deals_bytes"] for p in parts),
            deals_this_session=stats.played,
            resumed=cfg.resume,
            threads=cfg.threads,
            wall_seconds=wall,
            compile_seconds=self.compile_s,
            simulate_cpu_seconds=stats.task_cpu,
            write_cpu_seconds=stats.write_cpu,
            write_tail_seconds=stats.write_tail,
            executor=self.session["executor"],
            workers=self.session.get("workers"),
            restarts=self.session.get("restarts", 0),
        )
