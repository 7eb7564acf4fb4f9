"""``bonken-sim game``: many full games into a run directory, streamed and resumable.

A game run directory::

    RUN/
      _manifest.json            state, resolved config, seed, versions, parts with SHA-256
      deals/part-000000.parquet one row per deal of each game
      games/part-000000.parquet one row per game

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
import json
import os
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
    parse_profiles,
    play_games,
    ranks,
)
from bonken_sim.rules.names import TRUMPS, contract_names, variant_names
from bonken_sim.runs.deals import RunError, _now, default_out
from bonken_sim.runs.deals import _versions as _run_versions
from bonken_sim.runs.executors import (
    SHARED_HINT,
    Backend,
    ExecutorError,
    ExecutorSpec,
    PartWriteError,
    WorkerMismatch,
    make_spec,
    open_backend,
    run_tasks,
    task_failure,
    worker_name,
    wrap_executor,
)
from bonken_sim.runs.options import parse_count, parse_seed
from bonken_sim.runs.storage import (
    VARIANT_CONTRACT,
    VARIANT_TRUMP,
    NotARun,
    PartFile,
    read_manifest,
    sha256_file,
    tmp_name,
    write_bytes,
    write_manifest,
)

FORMAT = "bonken-sim-games"
SCHEMA_VERSION = 1
MANIFEST = "_manifest.json"
DEALS_DIR = "deals"
GAMES_DIR = "games"
DEFAULT_CHUNK = 20_000
MAX_GAMES = 10**10
RESULTS_DIR = Path("results")
ProgressFn = Callable[[int, int], None]


class GameRunError(ValueError):
    """A bad option or an unusable output directory (printed as one line)."""


class GameRunInterrupted(KeyboardInterrupt):
    """Ctrl-C between parts: the run is incomplete and can be resumed."""


@dataclass(frozen=True)
class GameConfig:
    games: int
    seed: int
    players: tuple[str, ...] = ("basic",) * 4
    order: str = "free"
    doubling: bool = True
    threads: int = 0
    chunk_size: int = DEFAULT_CHUNK
    out: Path | None = None
    seed_drawn: bool = False
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)
    rules: dict[str, Any] | None = None  # a house ruleset (Ruleset.to_dict); None: RULES.md

    def identity(self) -> dict[str, Any]:
        """What decides the bytes of the result (checked on --resume)."""
        return {
            "games": self.games,
            "seed": self.seed,
            "players": list(self.players),
            "order": self.order,
            "doubling": self.doubling,
            "chunk_size": self.chunk_size,
            # only a house ruleset is recorded, so runs made before rulesets still resume
            **({"ruleset": self.rules} if self.rules is not None else {}),
        }

    @property
    def n_parts(self) -> int:
        return -(-self.games // self.chunk_size)


def make_game_config(
    games: Any,
    seed: Any = None,
    players: Any = "basic",
    order: str | None = None,
    doubling: Any = None,
    threads: Any = None,
    chunk_size: Any = None,
    out: Any = None,
    executor: Any = None,
    workers: Any = None,
    scheduler: Any = None,
    write_parts: Any = None,
    ruleset: Any = None,
) -> GameConfig:
    """Validate every option; errors are GameRunError with a one-line message.

    With ``executor`` process or dask, ``threads`` is what each part task uses inside its
    worker (default 1)."""
    try:
        spec = make_spec(executor, workers, scheduler, write_parts)
    except ExecutorError as exc:
        raise GameRunError(str(exc)) from None
    try:
        n = parse_count(games, "--games", maximum=MAX_GAMES)
        drawn = seed is None
        s = int.from_bytes(os.urandom(8), "little") >> 1 if drawn else parse_seed(seed)
        names = tuple(parse_profiles(players))
        chunk = DEFAULT_CHUNK if chunk_size is None else parse_count(chunk_size, "--chunk-size")
    except ValueError as exc:
        raise GameRunError(str(exc)) from None
    rules = None
    if ruleset is not None:  # --order / --doubling given on the command line win over it
        from bonken_sim.rules.rulesets import as_ruleset

        r = as_ruleset(ruleset)
        rules = None if r.is_standard else r.to_dict()
        order = r.order if order is None else order
        doubling = r.doubling if doubling is None else doubling
    order = "free" if order is None else order
    doubling = True if doubling is None else doubling
    if order not in ("free", "fixed"):
        raise GameRunError(f"--order must be free or fixed, got {order!r}")
    if isinstance(doubling, str):
        if doubling not in ("on", "off"):
            raise GameRunError(f"--doubling must be on or off, got {doubling!r}")
        doubling = doubling == "on"
    if threads is None:
        t = (os.cpu_count() or 1) if spec.local else 1
    else:
        t = int(threads)
    if t < 1 or t > 256:
        raise GameRunError(f"--threads must be between 1 and 256, got {threads}")
    return GameConfig(
        n,
        s,
        names,
        order,
        bool(doubling),
        t,
        min(chunk, n),
        Path(out) if out else None,
        drawn,
        spec,
        rules,
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


# --- the run directory ----------------------------------------------------------------------


def _versions() -> dict[str, str]:
    """The versions a run records (the same as ``run``'s; a copy, as the manifest is edited)."""
    return dict(_run_versions())


def default_game_out(seed: int, base: Path = RESULTS_DIR) -> Path:
    """A new directory ``results/games-<UTC time>-seed<seed>[-k]``."""
    try:
        return default_out(seed, base, prefix="games")
    except RunError as exc:
        raise GameRunError(str(exc)) from None


def read_game_manifest(root: Path) -> dict:
    try:
        return read_manifest(root, FORMAT, SCHEMA_VERSION, kind="game run")
    except NotARun as exc:
        raise GameRunError(str(exc)) from None


def _our_files(root: Path) -> list[Path]:
    found = [root / MANIFEST, tmp_name(root / MANIFEST)]
    for sub in (DEALS_DIR, GAMES_DIR):
        d = root / sub
        if d.is_dir():
            found += list(d.glob("part-*.parquet")) + list(d.glob(".part-*.parquet.tmp"))
    return [p for p in found if p.exists()]


def _prepare(cfg: GameConfig, resume: bool, force: bool) -> tuple[Path, dict, set[int]]:
    """The output directory, its manifest and the parts already complete."""
    if resume and force:
        raise GameRunError("--resume and --force cannot be used together")
    root = cfg.out if cfg.out is not None else default_game_out(cfg.seed)
    done: set[int] = set()
    manifest: dict | None = None
    if root.exists() and not root.is_dir():
        raise GameRunError(f"--out {root} exists and is not a directory")
    if root.is_dir() and any(root.iterdir()) and cfg.out is not None:
        if resume:
            manifest = read_game_manifest(root)
            if manifest["config"] != cfg.identity():
                raise GameRunError(
                    f"{root} holds a different game run ({manifest['config']}); "
                    "use the same options to resume, or --force to replace it"
                )
            for part in manifest["parts"]:
                ok = all(
                    (root / part[f]).is_file() and sha256_file(root / part[f]) == part[s]
                    for f, s in (("deals_file", "deals_sha256"), ("games_file", "games_sha256"))
                )
                if ok:
                    done.add(part["index"])
            manifest["parts"] = [p for p in manifest["parts"] if p["index"] in done]
            for sub in (DEALS_DIR, GAMES_DIR):  # what killed writers left behind
                for tmp in (root / sub).glob(".part-*.parquet.tmp"):
                    tmp.unlink(missing_ok=True)
        elif force:
            if not (root / MANIFEST).is_file() and not (root / DEALS_DIR).is_dir():
                raise GameRunError(f"--force refuses to clear {root}: it is not a game run")
            for f in _our_files(root):
                f.unlink()
        else:
            raise GameRunError(
                f"{root} already exists; use --resume to complete it or --force to replace it"
            )
    elif resume:
        raise GameRunError(f"nothing to resume in {root}")
    try:
        root.mkdir(parents=True, exist_ok=True)
        for sub in (DEALS_DIR, GAMES_DIR):
            (root / sub).mkdir(exist_ok=True)
    except OSError as exc:
        raise GameRunError(f"cannot create {root}: {exc.strerror or exc}") from None
    if not os.access(root, os.W_OK):
        raise GameRunError(f"cannot write to {root}: permission denied")
    if manifest is None:
        manifest = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "state": "incomplete",
            "config": cfg.identity(),
            "seed_drawn": cfg.seed_drawn,
            "versions": _versions(),
            "parts": [],
            "sessions": [],
        }
    manifest["state"] = "incomplete"
    manifest["sessions"].append({"start": _now(), "threads": cfg.threads})
    write_manifest(root, manifest)
    return root, manifest, done


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


@dataclass(frozen=True)
class GamePartTask:
    """One part of a game run, for any executor: games ``[index · chunk, …)`` of the seed.

    ``root`` is the run directory (absolute) when the worker writes the files itself, None
    to get their bytes back; ``versions`` are the driver's, checked by the worker."""

    config: GameConfig
    index: int
    root: str | None
    versions: dict


@dataclass
class GamePartResult:
    entry: dict
    parts: tuple | None  # ((name, rows, bytes) for deals, games) or None
    play_seconds: float
    worker: str


_CHECKED = ("bonken_sim", "engine", "pyarrow")


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


def play_game_part(task: GamePartTask) -> GamePartResult:
    """Play part ``task.index`` and encode (and, with ``root``, write) its two files."""
    import hashlib

    mine = _versions()
    for key in _CHECKED:
        if mine[key] != task.versions.get(key):
            raise WorkerMismatch(
                f"worker {worker_name()} runs {key} {mine[key]} but the driver runs "
                f"{task.versions.get(key)}: install the same bonken-sim (and pyarrow) on "
                f"every worker"
            )
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
    encoded = [
        (
            f"{DEALS_DIR}/{name}",
            n * DEALS_PER_GAME,
            encode_table(deals_table(b, part_meta, cfg.rules)),
        ),
        (f"{GAMES_DIR}/{name}", n, encode_table(games_table(b, cfg.players, part_meta))),
    ]
    del b
    if task.root is None:
        files = [PartFile(f, r, len(d), hashlib.sha256(d).hexdigest()) for f, r, d in encoded]
        parts: tuple | None = tuple(encoded)
    else:
        try:
            files = [write_bytes(Path(task.root), f, d, r) for f, r, d in encoded]
        except OSError as exc:
            raise PartWriteError(task.root, exc) from None
        parts = None
    entry = {
        "index": k,
        "game_start": start,
        "games": n,
        "deals_file": files[0].file,
        "deals_rows": files[0].rows,
        "deals_bytes": files[0].bytes,
        "deals_sha256": files[0].sha256,
        "games_file": files[1].file,
        "games_rows": files[1].rows,
        "games_bytes": files[1].bytes,
        "games_sha256": files[1].sha256,
    }
    return GamePartResult(entry, parts, play_s, worker_name())


def _land(root: Path, res: GamePartResult) -> dict:
    """Write the files a worker sent, or check that the files a worker wrote are here."""
    e = res.entry
    if res.parts is not None:
        for (f, rows, data), sha in zip(
            res.parts, (e["deals_sha256"], e["games_sha256"]), strict=True
        ):
            write_bytes(root, f, data, rows, sha)
        return e
    for f, b in (("deals_file", "deals_bytes"), ("games_file", "games_bytes")):
        path = root / e[f]
        size = path.stat().st_size if path.is_file() else -1
        if size != e[b]:
            raise GameRunError(
                f"worker {res.worker} wrote {e[f]} but {path} is "
                + ("missing" if size < 0 else f"{size:,} bytes, not {e[b]:,}")
                + f" here: {SHARED_HINT}"
            )
    return e


def run_games(
    cfg: GameConfig,
    resume: bool = False,
    force: bool = False,
    progress=None,
    executor: Executor | None = None,
):
    """Play the configured games into a run directory; returns a GameRunResult.

    ``executor`` (any ``concurrent.futures.Executor``, not shut down here) runs the part
    tasks instead of the config's executor (``cfg.executor_spec``; in-process by default)."""
    t0 = time.perf_counter()
    spec = cfg.executor_spec
    backend: Backend | None = None
    if executor is not None:
        backend = wrap_executor(executor)
    elif not spec.local:
        try:
            backend = open_backend(spec)
        except ExecutorError as exc:
            raise GameRunError(str(exc)) from None
    try:
        root, manifest, done = _prepare(cfg, resume, force)
    except BaseException:
        if backend is not None:
            backend.close(cancel=True)
        raise
    session = manifest["sessions"][-1]
    session["executor"] = spec.kind if executor is None else "executor"
    if backend is not None:
        session.update(workers=backend.slots(), write_parts=spec.write_parts)
    played = 0
    t_play = 0.0
    already = sum(min(cfg.chunk_size, cfg.games - k * cfg.chunk_size) for k in done)
    versions = _versions()
    todo = [k for k in range(cfg.n_parts) if k not in done]
    where = None if backend is not None and spec.write_parts == "driver" else str(root.resolve())
    task_cfg = replace(cfg, out=None)
    tasks = (GamePartTask(task_cfg, k, where, versions) for k in todo)

    def record(res: GamePartResult) -> None:
        nonlocal played, t_play
        entry = _land(root, res) if backend is not None else res.entry
        manifest["parts"] = [p for p in manifest["parts"] if p["index"] != entry["index"]]
        manifest["parts"].append(entry)
        manifest["parts"].sort(key=lambda p: p["index"])
        write_manifest(root, manifest)
        played += entry["games"]
        t_play += res.play_seconds
        if progress is not None:
            progress(already + played, cfg.games)

    def stop(cancel: bool) -> None:
        if backend is not None:
            with contextlib.suppress(BaseException):
                backend.close(cancel=cancel)

    def resume_hint() -> str:
        return f"{root} is incomplete; run the same command with --resume to finish it"

    try:
        if backend is None:
            for task in tasks:
                try:
                    res = play_game_part(task)
                except PartWriteError as exc:
                    raise GameRunError(f"cannot write {root}: {exc.reason}") from None
                record(res)
        else:
            try:
                for _, res in run_tasks(backend, play_game_part, tasks):
                    record(res)
            except (KeyboardInterrupt, OSError):
                raise
            except Exception as exc:  # a part failed on its worker, or the executor gave up
                stop(cancel=True)
                raise GameRunError(f"{task_failure(exc, backend.kind)}; {resume_hint()}") from None
            finally:
                session["restarts"] = backend.restarts
    except KeyboardInterrupt:
        stop(cancel=True)
        with contextlib.suppress(OSError):
            write_manifest(root, manifest)
        raise GameRunInterrupted(f"interrupted: {resume_hint()}") from None
    except OSError as exc:
        stop(cancel=True)
        raise GameRunError(f"cannot write {root}: {exc.strerror or exc}") from None
    stop(cancel=False)
    manifest["state"] = "complete"
    session.update(games_played=played, play_seconds=round(t_play, 3))
    write_manifest(root, manifest)
    files = [p[f] for p in manifest["parts"] for f in ("deals_file", "games_file")]
    return GameRunResult(
        root,
        cfg.seed,
        cfg.seed_drawn,
        cfg.games,
        played,
        len(manifest["parts"]),
        time.perf_counter() - t0,
        t_play,
        files,
        {f"seat_{p}": name for p, name in enumerate(cfg.players)},
    )
