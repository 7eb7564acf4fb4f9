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

The unit of work is a part: ``play_game_part(GamePartTask)`` plays its games and encodes
(and writes, or returns) its two Parquet files. In-process (``--executor local``) the parts
are played one after another on ``threads`` threads; with ``--executor process|dask`` they
run on the workers, twice as many in flight as the executor has slots (see
``executors.py``), and the driver records each in the manifest as it finishes.
"""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.engine.games import (
    DEALS_PER_GAME,
    PAIRS,
    GameBatch,
    play_games,
    ranks,
)
from bonken_sim.rules.names import TRUMPS, contract_names, variant_names
from bonken_sim.runs.directory import (
    RESULTS_DIR,
    RunDir,
    RunKind,
    check_worker_versions,
    default_out,
    no_interrupts,
    now,
    open_run_dir,
    sigterm_as_interrupt,
    versions,
)
from bonken_sim.runs.errors import GameRunError, GameRunInterrupted
from bonken_sim.runs.executors import Backend, worker_name
from bonken_sim.runs.files import EncodedPart
from bonken_sim.runs.game_config import (
    RESUME_MISSING,
    GameConfig,
    make_game_config,
    same_run,
)
from bonken_sim.runs.game_format import (
    DEALS_DIR,
    FORMAT,
    GAMES_DIR,
    OLD_DEALS_DIR,
    OLD_GAMES_DIR,
    SCHEMA_VERSION,
    TABLES,
    game_dirs,
)
from bonken_sim.runs.manifest import MANIFEST, NotARun
from bonken_sim.runs.pipeline import (
    Progress,
    Stats,
    close_quietly,
    deliver,
    land,
    open_run,
    play_on_backend,
)
from bonken_sim.runs.schema import VARIANT_CONTRACT, VARIANT_TRUMP

ProgressFn = Callable[[int, int], None]
#: the files of a part, in the order a part task encodes them: (file, bytes, sha256) keys
PART_FILES = (
    ("deals_file", "deals_bytes", "deals_sha256"),
    ("games_file", "games_bytes", "games_sha256"),
)

GAME_RUN = RunKind(
    name="game run",
    format=FORMAT,
    schema_version=SCHEMA_VERSION,
    part_dirs=(DEALS_DIR, GAMES_DIR),
    old_part_dirs=(OLD_DEALS_DIR, OLD_GAMES_DIR),
    layout=game_dirs,
    part_files=PART_FILES,
    default_prefix="games",
    error=GameRunError,
    hint="{root} is incomplete; run the same command with --resume to finish it",
    taken="{root} already exists; use --resume to complete it or --force to replace it",
    foreign="{root} already exists; use --resume to complete it or --force to replace it",
    foreign_force="--force refuses to clear {root}: it is not a game run",
    cannot_create="cannot create {root}: {reason}",
    cannot_write="cannot create {root}: {reason}",
    not_writable="cannot write to {root}: permission denied",
    resume_missing=RESUME_MISSING,
)


# --- tables -------------------------------------------------------------------------------


def _dict(indices: np.ndarray, names, mask=None):
    import pyarrow as pa

    idx = pa.array(indices.astype(np.int8), mask=mask)
    return pa.DictionaryArray.from_arrays(idx, pa.array(list(names), pa.string()))


def deals_table(b: GameBatch, metadata: dict, rules: dict[str, Any] | None = None):
    """One row per deal of each game of the batch; ``rules``: the recorded house ruleset
    (None: RULES.md), which names the contracts (rules.variant_names)."""
    import pyarrow as pa

    ruleset = _ruleset(rules)

    n = b.n
    game = np.repeat(b.start + np.arange(n, dtype=np.int64), DEALS_PER_GAME)
    k = np.tile(np.arange(DEALS_PER_GAME, dtype=np.int8), n)
    dealer = ((game % 4) + k) % 4
    v = b.variant.reshape(-1)
    trump = VARIANT_TRUMP[v]
    cols: dict[str, Any] = {
        "game": pa.array(game),
        "deal": pa.array(k),
        "dealer": pa.array(dealer.astype(np.int8)),
        "chooser": pa.array(((dealer + 2) % 4).astype(np.int8)),
        "variant": _dict(v, variant_names(ruleset)),
        "contract": _dict(VARIANT_CONTRACT[v], contract_names(ruleset)),
        "trump": _dict(np.maximum(trump, 0), TRUMPS, mask=trump < 0),
        "doubles": pa.array(b.dbl.reshape(-1)),
    }
    m = b.multiplicity().reshape(-1, len(PAIRS))
    for j, (a, c) in enumerate(PAIRS):
        cols[f"m_{a}{c}"] = pa.array(m[:, j])
    raw = b.raw.reshape(-1, 4)
    final = b.final.reshape(-1, 4)
    for p in range(4):
        cols[f"raw_{p}"] = pa.array(raw[:, p])
    for p in range(4):
        cols[f"final_{p}"] = pa.array(final[:, p])
    table = pa.table(cols)
    return table.replace_schema_metadata({"bonken_sim": json.dumps(metadata)})


def games_table(b: GameBatch, players: tuple[str, ...], metadata: dict):
    """One row per game: first dealer, the profile per seat, settled totals and ranks."""
    import pyarrow as pa

    n = b.n
    game = b.start + np.arange(n, dtype=np.int64)
    rk = ranks(b.totals)
    cols: dict[str, Any] = {
        "game": pa.array(game),
        "first_dealer": pa.array((game % 4).astype(np.int8)),
    }
    names = sorted(set(players))
    for p in range(4):
        idx = np.array([names.index(players[j]) for j in b.profiles[:, p]], dtype=np.int8)
        cols[f"profile_{p}"] = _dict(idx, names)
    for p in range(4):
        cols[f"total_{p}"] = pa.array(b.totals[:, p])
    for p in range(4):
        cols[f"rank_{p}"] = pa.array(rk[:, p].astype(np.int8))
    table = pa.table(cols)
    return table.replace_schema_metadata({"bonken_sim": json.dumps(metadata)})


def encode_table(table) -> bytes:
    """A game part's Parquet bytes (zstd; strings dictionary-encoded; one row group)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd", row_group_size=max(1, table.num_rows))
    return sink.getvalue().to_pybytes()


def _ruleset(rules: dict[str, Any] | None):
    """A recorded house ruleset as a Ruleset (None: the standard rules, None)."""
    if rules is None:
        return None
    from bonken_sim.rules.rulesets import Ruleset

    return Ruleset.from_dict(rules)


def _table(rules: dict[str, Any] | None):
    """The kernels' table of a recorded house ruleset (None: the standard rules)."""
    ruleset = _ruleset(rules)
    return None if ruleset is None else ruleset.table


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
    b = play_games(
        n,
        cfg.seed,
        np.arange(4),
        list(cfg.players),
        start=start,
        fixed_order=cfg.order == "fixed",
        table=_table(cfg.rules),
        doubling=cfg.doubling,
        threads=cfg.threads,
    )
    play_s = time.perf_counter() - t0
    meta = {"format": FORMAT, "schema_version": SCHEMA_VERSION, "config": cfg.identity()}
    part_meta = {**meta, "part": k, "game_start": start, "games": n}
    name = f"part-{k:06d}.parquet"
    encoded = (
        EncodedPart(
            _in(task.dirs[0], name),
            n * DEALS_PER_GAME,
            encode_table(deals_table(b, part_meta, cfg.rules)),
        ),
        EncodedPart(
            _in(task.dirs[1], name), n, encode_table(games_table(b, cfg.players, part_meta))
        ),
    )
    del b
    files, parts = deliver(task.root, encoded)
    entry: dict[str, Any] = {"index": k, "game_start": start, "games": n}
    for prefix, f in zip(("deals", "games"), files, strict=True):
        entry.update(
            {
                f"{prefix}_file": f.file,
                f"{prefix}_rows": f.rows,
                f"{prefix}_bytes": f.bytes,
                f"{prefix}_sha256": f.sha256,
            }
        )
    return GamePartResult(entry, parts, play_s, worker_name())


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


def default_game_out(seed: int, base: Path | str = RESULTS_DIR) -> Path:
    """A new directory ``results/games-<UTC time>-seed<seed>[-k]``."""
    return default_out(seed, base, prefix="games", error=GameRunError)


def read_game_manifest(root: Path) -> dict:
    try:
        return GAME_RUN.read_manifest(root)
    except NotARun as exc:
        raise GameRunError(str(exc)) from None


def _new_manifest(cfg: GameConfig) -> dict:
    return {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "state": "incomplete",
        "config": cfg.identity(),
        "seed_drawn": cfg.seed_drawn,
        "versions": dict(versions()),
        "tables": dict(TABLES),
        "parts": [],
        "sessions": [],
    }


def run_games(
    cfg: GameConfig,
    resume: bool = False,
    force: bool = False,
    progress: ProgressFn | None = None,
    executor: Executor | None = None,
) -> GameRunResult:
    """Play the configured games into a run directory; returns a GameRunResult.

    ``executor`` (any ``concurrent.futures.Executor``, not shut down here) runs the part
    tasks instead of the config's executor (``cfg.executor_spec``; in-process by default)."""
    t0 = time.perf_counter()
    if resume and force:
        raise GameRunError("--resume and --force cannot be used together")
    open_dir = functools.partial(
        open_run_dir,
        GAME_RUN,
        cfg.out,
        cfg.seed,
        resume=resume,
        force=force,
        new_manifest=functools.partial(_new_manifest, cfg),
        check=functools.partial(same_run, cfg),
    )
    backend, rundir = open_run(cfg.executor_spec, executor, GameRunError, open_dir)
    try:
        session = _GameSession(cfg, rundir, backend, executor is not None, progress)
    except BaseException:
        close_quietly(backend, cancel=True)
        raise
    session.play()
    return session.finish(time.perf_counter() - t0)


class _GameSession:
    """One session of a game run: the parts still to do, played and recorded in order."""

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
        already = sum(p["games"] for p in rundir.parts)
        self.prog = Progress(cfg.games, already, progress)

    def play(self) -> None:
        """Play every part to do; GameRunInterrupted after Ctrl-C or SIGTERM, GameRunError
        after a failure (both say how to resume), the run directory left resumable."""
        root, backend = self.rundir.root, self.backend
        to_driver = backend is not None and self.cfg.executor_spec.write_parts == "driver"
        where = None if to_driver else str(root.resolve())
        task_cfg = replace(self.cfg, out=None)
        dirs = game_dirs(self.rundir.manifest)
        tasks = (GamePartTask(task_cfg, k, where, versions(), dirs) for k in self.todo)
        failure = None
        try:
            with sigterm_as_interrupt():
                if backend is None:
                    for task in tasks:
                        self._record(play_game_part(task))
                else:
                    try:
                        failure = play_on_backend(
                            backend, play_game_part, tasks, self._record, GameRunError
                        )
                    finally:
                        self.session["restarts"] = backend.restarts
        except KeyboardInterrupt:
            close_quietly(backend, cancel=True)
            with no_interrupts(), contextlib.suppress(GameRunError):
                self.rundir.save()
            raise GameRunInterrupted(f"interrupted: {GAME_RUN.resume_hint(root)}") from None
        except OSError as exc:
            close_quietly(backend, cancel=True)
            raise GameRunError(f"cannot write {root}: {exc.strerror or exc}") from None
        if failure is not None:
            close_quietly(backend, cancel=True)
            raise GameRunError(f"{failure}; {GAME_RUN.resume_hint(root)}")

    def _record(self, res: GamePartResult) -> None:
        entry = res.entry
        if self.backend is not None:
            entry = land(self.rundir.root, entry, res.parts, PART_FILES, res.worker, GameRunError)
        self.rundir.record(entry)
        self.stats.played += entry["games"]
        self.stats.task_cpu += res.play_seconds
        self.prog.add(entry["games"])
        self.prog(force=True)

    def finish(self, wall: float) -> GameRunResult:
        close_quietly(self.backend, cancel=False)
        self.rundir.tidy()
        manifest, cfg, played = self.rundir.manifest, self.cfg, self.stats.played
        manifest["state"] = "complete"
        self.session.update(games_played=played, play_seconds=round(self.stats.task_cpu, 3))
        self.rundir.save()
        files = [p[f] for p in manifest["parts"] for f in ("deals_file", "games_file")]
        return GameRunResult(
            self.rundir.root,
            cfg.seed,
            cfg.seed_drawn,
            cfg.games,
            played,
            len(manifest["parts"]),
            wall,
            self.stats.task_cpu,
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
