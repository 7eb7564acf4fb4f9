"""``bonken-sim game``: many full games into a run directory, streamed and resumable.

A game run directory::

    RUN/
      _manifest.json             state, resolved config, seed, versions, parts with SHA-256
      part-000000.parquet        one row per game: what ``pandas.read_parquet(RUN)`` reads
      _deals/part-000000.parquet one row per deal of each game

(runs written before this layout keep ``games/`` and ``deals/``, see ``game_format``).

Part ``k`` holds games ``[k * chunk_size, (k + 1) * chunk_size)``; each file is written under
a hidden temporary name and renamed when complete, and the manifest lists only complete
parts, so a killed run leaves nothing that looks finished and ``--resume`` completes it to
the same bytes.

In-process (``--executor local``) one pool of ``threads`` threads plays each part in slices
of rows and encodes and writes the finished part while the next part plays (the deal run's
``played_chunks`` and ``OrderedWrites``), so writing costs little beyond its CPU time. With
``--executor process|dask`` the unit of work is a whole part: ``play_game_part(GamePartTask)``
plays its games and encodes (and writes, or returns) its two Parquet files on a worker, twice
as many in flight as the executor has slots (see ``executors.py``), and the driver records
each in the manifest as it finishes. Either way a part's files are the same bytes.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Callable, Generator
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.engine.games import DEALS_PER_GAME, GameBatch, GamePlayer
from bonken_sim.runs.directory import (
    RunDir,
    check_worker_versions,
    no_interrupts,
    now,
    resumable_session,
    versions,
)
from bonken_sim.runs.errors import GameRunError, GameRunInterrupted
from bonken_sim.runs.executors import Backend, worker_name
from bonken_sim.runs.files import EncodedPart, PartFile, write_bytes
from bonken_sim.runs.game_config import GAME_CONFIG, GAME_RUN, GameConfig, make_game_config
from bonken_sim.runs.game_format import (
    DEALS_DIR,
    FORMAT,
    GAMES_DIR,
    PART_FILES,
    SCHEMA_VERSION,
    TABLES,
    game_dirs,
)
from bonken_sim.runs.game_tables import deals_table, encode_table, games_table
from bonken_sim.runs.manifest import MANIFEST, NotARun
from bonken_sim.runs.pipeline import (
    OrderedWrites,
    Progress,
    Stats,
    close_quietly,
    deliver,
    land,
    open_run,
    play_on_backend,
    played_chunks,
)
from bonken_sim.runs.run_config import RESUME_AND_FORCE

ProgressFn = Callable[[int, int], None]
#: every game run seats profile i at seat i (players are given per seat)
SEATING = np.arange(4)
# --- the kernels' inputs ------------------------------------------------------------------


def game_player(cfg: GameConfig) -> GamePlayer:
    """The prepared kernel inputs of the run's games (its seat i plays profile i)."""
    return GamePlayer(
        cfg.seed,
        list(cfg.players),
        fixed_order=cfg.order == "fixed",
        doubling=cfg.doubling,
        table=None if cfg.ruleset.is_standard else cfg.ruleset.table,
    )


def encode_part(
    b: GameBatch, cfg: GameConfig, index: int, dirs: tuple[str, str]
) -> tuple[EncodedPart, EncodedPart]:
    """Part ``index`` (the played batch ``b``) as its deals and games files, in memory."""
    meta = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "config": cfg.identity()}
    part_meta = {**meta, "part": index, "game_start": b.start, "games": b.n}
    name = f"part-{index:06d}.parquet"
    deals = encode_table(deals_table(b, part_meta, cfg.rules))
    games = encode_table(games_table(b, cfg.players, part_meta))
    return (
        EncodedPart(_in(dirs[0], name), b.n * DEALS_PER_GAME, deals),
        EncodedPart(_in(dirs[1], name), b.n, games),
    )


def part_entry(index: int, start: int, games: int, files: list[PartFile]) -> dict[str, Any]:
    """The manifest entry of a finished part (its deals and games files)."""
    entry: dict[str, Any] = {"index": index, "game_start": start, "games": games}
    for prefix, f in zip(("deals", "games"), files, strict=True):
        entry.update(
            {
                f"{prefix}_file": f.file,
                f"{prefix}_rows": f.rows,
                f"{prefix}_bytes": f.bytes,
                f"{prefix}_sha256": f.sha256,
            }
        )
    return entry


# --- part tasks -------------------------------------------------------------------------


@dataclass(frozen=True)
class GamePartTask:
    """One part of a game run, for any executor: games ``[index · chunk, …)`` of the seed.

    ``root`` is the run directory (absolute) when the worker writes the files itself, None
    to get their bytes back; ``versions`` are the driver's, checked by the worker; ``dirs``
    the run's (deals, games) directories."""

    config: GameConfig
    index: int
    root: str | None
    versions: dict
    dirs: tuple[str, str] = (DEALS_DIR, GAMES_DIR)


@dataclass
class GamePartResult:
    entry: dict
    parts: tuple[EncodedPart, ...] | None  # the deals and games files, or None
    play_seconds: float
    worker: str


def _in(directory: str, name: str) -> str:
    """A part's name inside the run directory ("" = the run directory itself)."""
    return f"{directory}/{name}" if directory else name


def play_game_part(task: GamePartTask) -> GamePartResult:
    """Play part ``task.index`` and encode (and, with ``root``, write) its two files."""
    check_worker_versions(task.versions)
    cfg = task.config
    k = task.index
    start = k * cfg.chunk_size
    n = min(cfg.chunk_size, cfg.games - start)
    t0 = time.perf_counter()
    player = game_player(cfg)
    b = player.batch(start, n, SEATING)
    player.play_all(b, cfg.threads)
    play_s = time.perf_counter() - t0
    encoded = encode_part(b, cfg, k, task.dirs)
    del b
    files, parts = deliver(task.root, encoded)
    return GamePartResult(part_entry(k, start, n, files), parts, play_s, worker_name())


# --- the run ------------------------------------------------------------------------------


@dataclass
class GameRunResult:
    out: Path
    seed: int
    seed_drawn: bool
    games: int
    played: int
    parts: int
    wall_seconds: float
    play_seconds: float
    files: list[str] = field(default_factory=list)
    profiles: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["out"] = str(self.out)
        d["games_per_second"] = self.played / self.play_seconds if self.play_seconds else None
        return d


def read_game_manifest(root: Path) -> dict:
    try:
        return GAME_RUN.read_manifest(root)
    except NotARun as exc:
        raise GameRunError(str(exc)) from None


def _new_manifest(cfg: GameConfig) -> dict:
    return GAME_CONFIG.games_manifest(cfg, TABLES)


def run_games(
    cfg: GameConfig,
    resume: bool = False,
    force: bool = False,
    progress: ProgressFn | None = None,
    executor: Executor | None = None,
) -> GameRunResult:
    """Play the configured games into a run directory; returns a GameRunResult.

    ``resume`` and ``force`` add to the config's own (``make_game_config(resume=True, ...)``).
    ``executor`` (any ``concurrent.futures.Executor``, not shut down here) runs the part
    tasks instead of the config's executor (``cfg.executor_spec``; in-process by default)."""
    t0 = time.perf_counter()
    resume, force = resume or cfg.resume, force or cfg.force
    if resume and force:
        raise GameRunError(RESUME_AND_FORCE)
    open_dir = functools.partial(
        GAME_CONFIG.open_dir, cfg, _new_manifest, resume=resume, force=force
    )
    backend, rundir = open_run(cfg.executor_spec, executor, GameRunError, open_dir)
    try:
        try:
            session = _GameSession(cfg, rundir, backend, executor is not None, progress)
        except BaseException:
            close_quietly(backend, cancel=True)
            raise
        session.play()
        return session.finish(time.perf_counter() - t0)
    finally:
        rundir.release()


@dataclass(frozen=True)
class _Rows:
    """Rows ``lo … hi − 1`` of a part's batch: one play task on the driver's threads."""

    batch: GameBatch
    lo: int
    hi: int

    @property
    def n(self) -> int:
        return self.hi - self.lo


@dataclass(frozen=True)
class _Played:
    batch: GameBatch
    cpu_seconds: float


class _GameSession:
    """One session of a game run: the parts still to do, played and recorded in order.

    In-process, one pool of ``threads`` threads plays a part's rows in slices and writes the
    finished part behind the next part's slices (``played_chunks`` and ``OrderedWrites``, as
    the deal run does), so no thread waits while a part is encoded; another executor runs
    whole parts (``play_game_part``)."""

    def __init__(
        self,
        cfg: GameConfig,
        rundir: RunDir,
        backend: Backend | None,
        callers: bool,
        progress: ProgressFn | None,
    ):
        self.cfg, self.rundir, self.backend = cfg, rundir, backend
        self.todo = rundir.todo(cfg.n_parts)
        rundir.manifest["state"] = "incomplete"
        spec = cfg.executor_spec
        self.session: dict[str, Any] = {"start": now(), "threads": cfg.threads}
        self.session["executor"] = "executor" if callers else spec.kind
        if backend is not None:
            self.session.update(workers=backend.slots(), write_parts=spec.write_parts)
        rundir.manifest["sessions"].append(self.session)
        rundir.save()
        self.stats = Stats()
        self.play_wall = 0.0
        already = sum(p["games"] for p in rundir.parts)
        self.prog = Progress(cfg.games, already, progress)
        self.dirs = game_dirs(rundir.manifest)
        self.pool: ThreadPoolExecutor | None = None
        self.chunks: Generator | None = None
        self.writes: OrderedWrites | None = None

    def play(self) -> None:
        """Play every part to do; GameRunInterrupted after Ctrl-C or SIGTERM, GameRunError
        after a failure (both say how to resume), the run directory left resumable."""
        root = self.rundir.root
        failure = None
        with resumable_session(GAME_RUN, root, self.abandon, GameRunInterrupted):
            if self.backend is None:
                self._in_process()
            else:
                failure = self._on_backend()
        if failure is not None:
            self.abandon()
            raise GameRunError(f"{failure}; {GAME_RUN.resume_hint(root)}")

    def _in_process(self) -> None:
        cfg = self.cfg
        t0 = time.perf_counter()
        player = game_player(cfg)
        self.pool = ThreadPoolExecutor(cfg.threads, thread_name_prefix="bonken-sim")
        self.writes = OrderedWrites(self.pool, self._write, self._written, self.stats, self.prog)

        def rows(k: int) -> list[_Rows]:
            start = k * cfg.chunk_size
            b = player.batch(start, min(cfg.chunk_size, cfg.games - start), SEATING)
            return [_Rows(b, lo, hi) for lo, hi in player.slices(b.n, cfg.threads)]

        def play(task: _Rows) -> _Played:
            c0 = time.thread_time()
            player.play(task.batch, task.lo, task.hi)
            return _Played(task.batch, time.thread_time() - c0)

        def batch(k: int, played: list[_Played]) -> GameBatch:
            return played[0].batch

        self.chunks = played_chunks(self.todo, rows, play, batch, self.pool, self.stats, self.prog)
        for index, b in self.chunks:
            self.stats.played += b.n
            self.writes.put(index, b)
        self.writes.finish()
        self.play_wall = time.perf_counter() - t0

    def _write(self, index: int, batch: GameBatch) -> tuple[dict, float]:
        """On the pool: encode and write part ``index``; its entry and CPU seconds."""
        c0 = time.thread_time()
        root = self.rundir.root
        files = [
            write_bytes(root, p.file, p.data, p.rows)
            for p in encode_part(batch, self.cfg, index, self.dirs)
        ]
        return part_entry(index, batch.start, batch.n, files), time.thread_time() - c0

    def _written(self, entry: dict) -> None:
        self.rundir.record(entry)
        self.prog(force=True)

    def _on_backend(self) -> str | None:
        backend = self.backend
        assert backend is not None
        to_driver = self.cfg.executor_spec.write_parts == "driver"
        where = None if to_driver else str(self.rundir.root.resolve())
        task_cfg = replace(self.cfg, out=None)
        tasks = (GamePartTask(task_cfg, k, where, versions(), self.dirs) for k in self.todo)
        try:
            return play_on_backend(backend, play_game_part, tasks, self._landed, GameRunError)
        finally:
            self.session["restarts"] = backend.restarts

    def _landed(self, res: GamePartResult) -> None:
        entry = land(self.rundir.root, res.entry, res.parts, PART_FILES, res.worker, GameRunError)
        self.rundir.record(entry)
        self.stats.played += entry["games"]
        self.stats.task_cpu += res.play_seconds
        self.prog.add(entry["games"])
        self.prog(force=True)

    def abandon(self) -> None:
        """Stop after an interrupt or error: cancel the queued play tasks, let the running
        ones and the current write finish (a written part is kept), stop an executor opened
        here, and save the manifest as incomplete."""
        if self.chunks is not None:
            with contextlib.suppress(BaseException):
                self.chunks.close()
        close_quietly(self.backend, cancel=True)
        entry = self.writes.abandon() if self.writes is not None else None
        if entry is not None:
            self.rundir.keep(entry)
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.rundir.manifest["state"] = "incomplete"
        with no_interrupts(), contextlib.suppress(GameRunError):
            self.rundir.save()
        self.rundir.tidy()  # the empty temporary folders; a worker's leftover stays for resume

    def finish(self, wall: float) -> GameRunResult:
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        close_quietly(self.backend, cancel=False)
        self.rundir.tidy()
        manifest, cfg, stats = self.rundir.manifest, self.cfg, self.stats
        manifest["state"] = "complete"
        # in-process: the wall time of playing and writing (they overlap) and the CPU time
        # of each; on another executor: the parts' play times, summed
        play_s = self.play_wall if self.backend is None else stats.task_cpu
        self.session.update(games_played=stats.played, play_seconds=round(play_s, 3))
        if self.backend is None:
            self.session.update(
                play_cpu_seconds=round(stats.task_cpu, 3),
                write_cpu_seconds=round(stats.write_cpu, 3),
                write_tail_seconds=round(stats.write_tail, 3),
            )
        self.rundir.save()
        files = [p[f] for p in manifest["parts"] for f in ("deals_file", "games_file")]
        return GameRunResult(
            self.rundir.root,
            cfg.seed,
            cfg.seed_drawn,
            cfg.games,
            stats.played,
            len(manifest["parts"]),
            wall,
            play_s,
            files,
            {f"seat_{p}": name for p, name in enumerate(cfg.players)},
        )


__all__ = [
    "DEALS_DIR",
    "FORMAT",
    "GAMES_DIR",
    "MANIFEST",
    "SCHEMA_VERSION",
    "GameConfig",
    "GameRunError",
    "GameRunInterrupted",
    "GameRunResult",
    "make_game_config",
    "play_game_part",
    "read_game_manifest",
    "run_games",
]
