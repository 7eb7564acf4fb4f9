"""Many deals: validation, chunking, the executor seam and progress. No numba decorators here.

``run(config, executor=None)`` plays ``config.deals`` deals in every chosen contract variant
and writes a run directory (see ``io.py``); ``simulate(...)`` does the same in memory and
returns a pandas DataFrame.

How a run flows: the deals are cut into chunks of ``chunk_size`` (one Parquet part each) and
every chunk into tasks of at most ``TASK_DEALS`` deals. Tasks go to the executor (by default
a thread pool; the kernels release the GIL) and return column-ready arrays; the main thread
assembles each chunk in order and queues its write on the same pool, behind the next chunk's
tasks, so the part is written while the next chunk plays and ``threads`` threads do all the
work: ``--threads 1`` keeps one core busy, not one core plus a writer. At most two chunks
are in play and one is being written, so memory is bounded by the chunk size, never by
``deals``. Every deal's cards and play come from (seed, deal index, variant) alone, so any
thread count, chunk size or executor gives the same results.

With another executor (``--executor process|dask``, or ``run(config, executor=...)``) the
unit of work is a whole chunk: ``play_chunk(ChunkTask)`` plays the chunk's deals (on
``threads`` threads of the worker, 1 by default), encodes its two Parquet parts and either
writes them into the run directory itself (``write_parts="workers"``: the directory must be
on a filesystem every worker sees at the same path) or returns their bytes for the driver
to write (``"driver"``). It returns the manifest entry (files, rows, bytes, SHA-256) and its
CPU seconds. The driver keeps twice as many chunks in flight as the executor has slots,
records each finished part in the manifest as it arrives (in any order) and never holds
more than those chunks' bytes.
"""

from __future__ import annotations

import contextlib
import functools
import os
import platform
import secrets
import signal
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.rules.names import VARIANT_NAMES, parse_variants, variant_names
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset, as_ruleset, resolve
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

DEFAULT_CHUNK = 100_000
MAX_CHUNK = 1_000_000
MAX_THREADS = 256
TASK_DEALS = 8192
RESULTS_DIR = "results"

ProgressFn = Callable[[int, int], None]


def default_threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class RunError(ValueError):
    """A run that cannot start or go on (bad options, unwritable directory, full disk)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run; the message says how to resume."""

    def __init__(self, message: str, out: Path, deals_done: int):
        super().__init__(message)
        self.message = message
        self.out = out
        self.deals_done = deals_done


# ---------------------------------------------------------------------------------------
# Configuration


@dataclass(frozen=True)
class RunConfig:
    """A resolved, validated run configuration."""

    deals: int
    seed: int
    strategies: tuple[str, ...] = ("basic",) * 4
    contracts: tuple[str, ...] = VARIANT_NAMES
    chunk_size: int = DEFAULT_CHUNK
    threads: int = field(default_factory=default_threads)
    out: Path | None = None
    resume: bool = False
    force: bool = False
    dealer: int = 0
    seed_drawn: bool = False
    executor_spec: ExecutorSpec = field(default_factory=ExecutorSpec)
    ruleset: Ruleset = STANDARD

    def identity(self) -> dict[str, Any]:
        """What determines the stored bytes; must match on --resume."""
        return {
            "deals": self.deals,
            "seed": self.seed,
            "strategies": list(self.strategies),
            "contracts": list(self.contracts),
            "dealer": self.dealer,
            "chunk_size": self.chunk_size,
            "ruleset": self.ruleset.to_dict(),
        }

    @property
    def variant_ids(self) -> np.ndarray:
        names = variant_names(self.ruleset)
        return np.array(
            [names.index(c) if c in names else VARIANT_NAMES.index(c) for c in self.contracts],
            np.int64,
        )

    @property
    def strategy_ids(self) -> np.ndarray:
        from bonken_sim.engine.play import parse_strategies, strategy_array

        return strategy_array(parse_strategies(list(self.strategies)))

    @property
    def n_chunks(self) -> int:
        return -(-self.deals // self.chunk_size)


IDENTITY_OPTIONS = ("deals", "seed", "strategies", "contracts", "chunk_size", "dealer")
# Runs written before house rules have no "ruleset" in their manifest: they are RULES.md.
_LEGACY_RULESET = STANDARD.to_dict()


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _parse_threads(value: Any) -> int:
    try:
        n = int(str(value).strip()) if not isinstance(value, int) else value
    except ValueError:
        n = -1
    if isinstance(value, bool) or not 1 <= n <= MAX_THREADS:
        raise RunError(f"--threads must be a whole number from 1 to {MAX_THREADS}, got {value!r}")
    return n


def _parse_strategies(value: Any) -> tuple[str, ...]:
    from bonken_sim.engine.play import parse_strategies, strategy_names

    try:
        return tuple(strategy_names(parse_strategies(value)).split(","))
    except ValueError as exc:
        raise RunError(f"--strategies: {exc}") from None


def _parse_contracts(value: Any, ruleset: Ruleset = STANDARD) -> tuple[str, ...]:
    """Variant names under ``ruleset`` (rules.variant_names: bierkaart in Domino's slot)."""
    text = value if isinstance(value, str) else ",".join(str(v) for v in value)
    names = variant_names(ruleset)
    try:
        return tuple(names[v.id] for v in parse_variants(text, ruleset))
    except ValueError as exc:
        raise RunError(f"--contracts: {exc}") from None


def _parse_count(value: Any, name: str, maximum: int | None = None) -> int:
    try:
        if maximum is None:
            return parse_count(value, what=_flag(name))
        return parse_count(value, what=_flag(name), maximum=maximum)
    except ValueError as exc:
        raise RunError(str(exc)) from None


def _parse_seed(value: Any) -> int:
    try:
        return parse_seed(value)
    except ValueError as exc:
        raise RunError(f"--{exc}") from None


def _parse_dealer(value: Any) -> int:
    if str(value).strip() not in ("0", "1", "2", "3"):
        raise RunError(f"--dealer must be a seat 0-3, got {value!r}")
    return int(str(value).strip())


def make_config(
    deals: Any = None,
    seed: Any = None,
    strategies: Any = None,
    contracts: Any = None,
    threads: Any = None,
    chunk_size: Any = None,
    out: Any = None,
    resume: bool = False,
    force: bool = False,
    dealer: Any = None,
    executor: Any = None,
    workers: Any = None,
    scheduler: Any = None,
    write_parts: Any = None,
    ruleset: Any = None,
    rules_file: Any = None,
) -> RunConfig:
    """Validate user values (strings like ``"1e6"`` or Python values) into a RunConfig.

    ``ruleset`` is a Ruleset, a preset name or a ruleset record, ``rules_file`` a TOML rules
    file (at most one of them; default RULES.md).

    ``None`` means "not given". With ``resume`` the options not given come from the run's
    manifest, and the ones given must equal the manifest's (RunError otherwise). The
    executor options (``executor`` = local, process or dask; ``workers``; ``scheduler``;
    ``write_parts``) never change the results, so a run may be resumed with any of them.
    """
    try:
        spec = make_spec(executor, workers, scheduler, write_parts)
    except ExecutorError as exc:
        raise RunError(str(exc)) from None
    given: dict[str, Any] = {}
    if deals is not None:
        given["deals"] = _parse_count(deals, "deals")
    if seed is not None:
        given["seed"] = _parse_seed(seed)
    if strategies is not None:
        given["strategies"] = _parse_strategies(strategies)
    if chunk_size is not None:
        given["chunk_size"] = _parse_count(chunk_size, "chunk_size", MAX_CHUNK)
    if dealer is not None:
        given["dealer"] = _parse_dealer(dealer)
    if ruleset is not None or rules_file is not None:
        try:
            if rules_file is not None or isinstance(ruleset, str | type(None)):
                rules = resolve(ruleset, rules_file)
            else:
                rules = as_ruleset(ruleset)
        except RulesError as exc:
            raise RunError(str(exc)) from None
        given["ruleset"] = rules
    if contracts is not None:
        names_rules = given.get("ruleset", STANDARD)
        if resume and "ruleset" not in given and out is not None:
            names_rules = _stored_ruleset(Path(os.path.expanduser(str(out))))
        given["contracts"] = _parse_contracts(contracts, names_rules)
    # with worker processes, --threads is what each task uses inside its worker (default 1)
    n_threads = (
        _parse_threads(threads) if threads is not None else (default_threads() if spec.local else 1)
    )
    out_path = Path(os.path.expanduser(str(out))) if out is not None and str(out) != "" else None
    if resume and force:
        raise RunError("--resume and --force exclude each other: resume a run or overwrite it")
    if resume:
        from bonken_sim.runs.storage import NotARun, read_manifest

        if out_path is None:
            raise RunError("--resume needs --out DIR: the run directory to complete")
        try:
            manifest = read_manifest(out_path)
        except NotARun as exc:
            raise RunError(f"--resume: {exc}") from None
        stored = manifest["config"]
        for name, value in given.items():
            have = stored.get(name)
            if isinstance(value, tuple):
                value = list(value)
            if name == "ruleset":
                have = stored.get(name, _LEGACY_RULESET)
                # as rulesets, not records: a record from before an option existed lacks
                # its key and reads as its default
                if Ruleset.from_dict(have, "run ruleset") != value:
                    raise RunError(
                        f"--resume: the ruleset {value.name!r} differs from the run's "
                        f"ruleset {have.get('name')!r}; resume with the run's ruleset (or "
                        f"leave it out), or start a new run"
                    )
                continue
            if have != value:
                raise RunError(
                    f"--resume: {_flag(name)} {_show(value)} differs from the run's "
                    f"{_show(have)}; resume with the run's options (or leave them out), "
                    f"or start a new run"
                )
        values = {k: stored[k] for k in IDENTITY_OPTIONS}
        return RunConfig(
            deals=int(values["deals"]),
            seed=int(values["seed"]),
            strategies=tuple(values["strategies"]),
            contracts=tuple(values["contracts"]),
            chunk_size=int(values["chunk_size"]),
            dealer=int(values["dealer"]),
            threads=n_threads,
            out=out_path,
            resume=True,
            seed_drawn=bool(stored.get("seed_drawn", False)),
            executor_spec=spec,
            ruleset=Ruleset.from_dict(stored.get("ruleset", _LEGACY_RULESET), "run ruleset"),
        )
    if "deals" not in given:
        raise RunError("--deals is required (a count such as 1e6, 2.5M, 10k or 1_000_000)")
    drawn = "seed" not in given
    return RunConfig(
        deals=given["deals"],
        seed=given["seed"] if not drawn else secrets.randbits(63),
        strategies=given.get("strategies", ("basic",) * 4),
        contracts=given.get("contracts", variant_names(given.get("ruleset", STANDARD))),
        chunk_size=given.get("chunk_size", DEFAULT_CHUNK),
        dealer=given.get("dealer", 0),
        threads=n_threads,
        out=out_path,
        force=bool(force),
        seed_drawn=drawn,
        executor_spec=spec,
        ruleset=given.get("ruleset", STANDARD),
    )


def _stored_ruleset(out: Path) -> Ruleset:
    """The ruleset of the run at ``out`` (RULES.md if it cannot be read: resume says why)."""
    from bonken_sim.runs.storage import NotARun, read_manifest

    try:
        stored = read_manifest(out)["config"].get("ruleset", _LEGACY_RULESET)
        return Ruleset.from_dict(stored, "run ruleset")
    except (NotARun, RulesError, KeyError, TypeError):
        return STANDARD


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    if isinstance(value, int):
        return f"{value:,}" if value >= 10_000 else str(value)
    return repr(value)


# ---------------------------------------------------------------------------------------
# Tasks: what runs on the executor (module-level and picklable, so any executor works)


@dataclass(frozen=True)
class Task:
    seed: int
    start: int
    n: int
    dealer: int
    variants: tuple[int, ...]
    strategies: tuple[int, ...]
    ruleset: Ruleset = STANDARD


@dataclass
class TaskResult:
    start: int
    hands: np.ndarray  # (n, 4) uint64
    features: np.ndarray  # (N_FEATURES, n) int8
    scores: np.ndarray  # (4, nv, n) int16
    tricks: np.ndarray  # (4, nv, n) int8
    order: np.ndarray  # (4, nv, n) int8
    cpu_seconds: float


def play_task(task: Task) -> TaskResult:
    """Play deals ``[task.start, task.start + task.n)`` in every variant; column layout out."""
    from bonken_sim._core import kernels as K
    from bonken_sim._core.features import N_FEATURES, hand_features, result_columns
    from bonken_sim._core.rng import seed_key

    c0 = time.thread_time()
    n, nv = task.n, len(task.variants)
    variants = np.array(task.variants, np.int64)
    strat = np.array(task.strategies, np.int64)
    hands = np.empty((n, 4), np.uint64)
    scores = np.empty((n, nv, 4), np.int16)
    tricks = np.empty((n, nv, 4), np.int8)
    order = np.empty((n, nv, 4), np.int8)
    K.simulate_batch(
        seed_key(task.seed),
        task.start,
        task.dealer,
        variants,
        strat,
        task.ruleset.table,
        hands,
        scores,
        tricks,
        order,
    )
    feats = np.empty((N_FEATURES, n), np.int8)
    hand_features(hands, feats)
    s_cols = np.empty((4, nv, n), np.int16)
    t_cols = np.empty((4, nv, n), np.int8)
    o_cols = np.empty((4, nv, n), np.int8)
    result_columns(scores, tricks, order, s_cols, t_cols, o_cols)
    return TaskResult(task.start, hands, feats, s_cols, t_cols, o_cols, time.thread_time() - c0)


def warm_kernels() -> float:
    """Compile or load every kernel a run uses; the seconds it took."""
    t0 = time.perf_counter()
    play_task(Task(0, 0, 2, 0, tuple(range(12)), (1, 0, 1, 0)))
    return time.perf_counter() - t0


@dataclass(frozen=True)
class ChunkTask:
    """One chunk of a run, for any executor: (run key and options, chunk index) → parts.

    ``config`` carries the seed (the run key), the options that decide the bytes and the
    threads the task may use; ``root`` is the run directory as an absolute path when the
    worker writes the parts itself, or None to get their bytes back; ``meta`` is the schema
    metadata of the parts; ``versions`` the driver's, checked by the worker."""

    config: RunConfig
    index: int
    root: str | None
    meta: dict
    versions: dict


@dataclass
class ChunkResult:
    """What a chunk task returns: the manifest entry and, with ``root=None``, the parts."""

    entry: dict
    parts: tuple | None  # (EncodedPart results, EncodedPart deals) or None
    play_cpu: float
    write_cpu: float
    worker: str


#: what a worker must share with the driver for byte-identical parts
CHECKED_VERSIONS = ("bonken_sim", "engine", "pyarrow")


def check_versions(expected: dict) -> None:
    """Raise WorkerMismatch unless this process runs what the driver runs."""
    mine = _versions()
    for key in CHECKED_VERSIONS:
        if mine.get(key) != expected.get(key):
            raise WorkerMismatch(
                f"worker {worker_name()} runs {key} {mine.get(key)} but the driver runs "
                f"{expected.get(key)}: install the same bonken-sim (and pyarrow) on every "
                f"worker"
            )


def play_chunk(task: ChunkTask) -> ChunkResult:
    """Play chunk ``task.index`` of a run and encode (and, with ``root``, write) its parts.

    A pure function of the task: run twice, it writes the same bytes (each writer through a
    temporary file of its own, renamed into place)."""
    from bonken_sim.runs.storage import encode_chunk, part_entry, write_bytes

    check_versions(task.versions)
    cfg = task.config
    threads = max(1, cfg.threads)
    tasks = _chunk_tasks(cfg, task.index, threads)
    if threads == 1:
        results = [play_task(t) for t in tasks]
    else:
        with ThreadPoolExecutor(threads, thread_name_prefix="bonken-sim") as pool:
            results = list(pool.map(play_task, tasks))
    chunk = _assemble(cfg, task.index, results)
    play_cpu = sum(r.cpu_seconds for r in results)
    del results
    c0 = time.thread_time()
    res, dl = encode_chunk(task.index, chunk, task.meta)
    if task.root is None:
        from bonken_sim.runs.storage import PartFile

        files = [PartFile(p.file, p.rows, len(p.data), p.sha256) for p in (res, dl)]
        parts: tuple | None = (res, dl)
    else:
        root = Path(task.root)
        try:
            files = [write_bytes(root, p.file, p.data, p.rows) for p in (res, dl)]
        except OSError as exc:
            raise PartWriteError(task.root, exc) from None
        parts = None
    entry = part_entry(task.index, chunk.start, chunk.n, files[0], files[1])
    return ChunkResult(
        entry,
        parts,
        play_cpu,
        time.thread_time() - c0,
        worker_name(),
    )


# ---------------------------------------------------------------------------------------
# The chunk pipeline


@dataclass
class _Stats:
    task_cpu: float = 0.0
    write_cpu: float = 0.0
    write_wait: float = 0.0
    write_tail: float = 0.0
    deals_played: int = 0


def _chunk_tasks(cfg: RunConfig, index: int, threads: int) -> list[Task]:
    start = index * cfg.chunk_size
    n = min(cfg.chunk_size, cfg.deals - start)
    pieces = max(threads, -(-n // TASK_DEALS))
    pieces = min(pieces, n)
    size = -(-n // pieces)
    variants = tuple(int(v) for v in cfg.variant_ids)
    strategies = tuple(int(s) for s in cfg.strategy_ids)
    return [
        Task(cfg.seed, start + a, min(size, n - a), cfg.dealer, variants, strategies, cfg.ruleset)
        for a in range(0, n, size)
    ]


def _assemble(cfg: RunConfig, index: int, results: list[TaskResult]):
    from bonken_sim.runs.storage import Chunk

    results = sorted(results, key=lambda r: r.start)
    start = index * cfg.chunk_size

    def cat(name: str, axis: int) -> np.ndarray:
        arrays = [getattr(r, name) for r in results]
        return arrays[0] if len(arrays) == 1 else np.concatenate(arrays, axis=axis)

    return Chunk(
        start=start,
        variants=cfg.variant_ids,
        hands=cat("hands", 0),
        features=cat("features", 1),
        scores=cat("scores", 2),
        tricks=cat("tricks", 2),
        order=cat("order", 2),
        beer_card=cfg.ruleset.beer_card,
    )


class _Progress:
    """Counts finished deals (from task futures) and reports them at most ~10 times a second."""

    def __init__(self, total: int, already: int, fn: ProgressFn | None):
        self.total = total
        self.done = already
        self.fn = fn
        self._last = 0.0
        self._lock = threading.Lock()

    def add(self, n: int) -> None:
        with self._lock:
            self.done += n

    def __call__(self, force: bool = False) -> None:
        if self.fn is None:
            return
        now = time.monotonic()
        if force or now - self._last >= 0.1:
            self._last = now
            self.fn(self.done, self.total)


def _count_done(prog: _Progress, fut: Future, *, n: int) -> None:
    if not fut.cancelled() and fut.exception() is None:
        prog.add(n)


def _played_chunks(cfg, indices, executor, threads, stats, prog: _Progress | None = None):
    """Yield (index, Chunk) in order, keeping the executor busy with the next chunk."""
    todo = deque(indices)
    inflight: deque[tuple[int, list[Future]]] = deque()

    def tick() -> None:
        if prog is not None:
            prog()

    def submit(task: Task) -> Future:
        fut = executor.submit(play_task, task)
        if prog is not None:
            fut.add_done_callback(functools.partial(_count_done, prog, n=task.n))
        return fut

    try:
        while todo or inflight:
            while todo and len(inflight) < 2:
                k = todo.popleft()
                inflight.append((k, [submit(t) for t in _chunk_tasks(cfg, k, threads)]))
            k, futures = inflight[0]
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.1, return_when=FIRST_COMPLETED)
                tick()
            inflight.popleft()
            results = [f.result() for f in futures]
            for r in results:
                stats.task_cpu += r.cpu_seconds
            yield k, _assemble(cfg, k, results)
    finally:
        for _, futures in inflight:
            for f in futures:
                f.cancel()
        # tasks already running cannot be stopped; they finish within a task's time
        wait([f for _, fs in inflight for f in fs])


# ---------------------------------------------------------------------------------------
# Run directories


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


@functools.cache
def _versions() -> dict[str, str]:
    """Versions recorded with a run; computed once, so the engine hash is that of the code
    this process loaded even if the sources are edited while it runs."""
    from importlib.metadata import version

    import numba

    from bonken_sim import __version__
    from bonken_sim._core._jit import _source_hash

    return {
        "bonken_sim": __version__,
        "engine": _source_hash(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": version("pyarrow"),  # without importing it (see run)
        "python": platform.python_version(),
    }


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_out(seed: int, base: Path | str = RESULTS_DIR, prefix: str = "run") -> Path:
    """A new directory ``results/<prefix>-<UTC time>-seed<seed>[-k]``; created here, so two
    runs started at the same second never share one."""
    base = Path(base)
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot create {base}/: {exc.strerror or exc}") from None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        path = base / (f"{prefix}-{stamp}-seed{seed}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
        except OSError as exc:
            raise RunError(f"cannot create {path}: {exc.strerror or exc}") from None
    raise RunError(f"cannot find a free run directory name under {base}")  # pragma: no cover


def _our_files(root: Path) -> list[Path]:
    """Files a run writes (parts, deals parts, manifest, temporaries), for --force/--resume."""
    from bonken_sim.runs.storage import DEALS_DIR, MANIFEST

    found = [p for p in root.glob("part-*.parquet")]
    found += [p for p in root.glob(".part-*.parquet.tmp")]
    found += [p for p in root.glob(f".{MANIFEST}.tmp")]
    deals = root / DEALS_DIR
    if deals.is_dir():
        found += list(deals.glob("part-*.parquet")) + list(deals.glob(".part-*.parquet.tmp"))
    return found


_PART_FILES = (("file", "bytes", "sha256"), ("deals_file", "deals_bytes", "deals_sha256"))


def _prepare(cfg: RunConfig, versions: dict) -> tuple[Path, dict, list[int]]:
    """Create, clean or reopen the run directory; returns (root, manifest, chunks to play)."""
    from bonken_sim.runs.storage import (
        DEALS_DIR,
        FORMAT,
        MANIFEST,
        SCHEMA_VERSION,
        read_manifest,
        sha256_file,
    )

    if cfg.resume:
        assert cfg.out is not None
        root = cfg.out
        manifest = read_manifest(root)
        if (
            manifest.get("versions", {}).get("bonken_sim") != versions["bonken_sim"]
            or manifest.get("versions", {}).get("engine") != versions["engine"]
        ):
            raise RunError(
                f"--resume: {root} was written by another version of bonken-sim or its engine "
                f"({manifest.get('versions', {}).get('bonken_sim')}, engine "
                f"{manifest.get('versions', {}).get('engine')}; this is {versions['bonken_sim']}, "
                f"engine {versions['engine']}); start a new run or use --force"
            )
        for p in root.glob(".part-*.parquet.tmp"):
            p.unlink(missing_ok=True)
        for p in (root / DEALS_DIR).glob(".part-*.parquet.tmp"):
            p.unlink(missing_ok=True)
        good = []
        for part in manifest.get("parts", []):
            ok = all(
                (root / part[f]).is_file()
                and (root / part[f]).stat().st_size == part[b]
                and sha256_file(root / part[f]) == part[s]
                for f, b, s in (
                    ("file", "bytes", "sha256"),
                    ("deals_file", "deals_bytes", "deals_sha256"),
                )
            )
            if ok:
                good.append(part)
        manifest["parts"] = good
        done = {p["index"] for p in good}
        todo = [k for k in range(cfg.n_chunks) if k not in done]
        if todo:
            manifest["state"] = "incomplete"
        (root / DEALS_DIR).mkdir(exist_ok=True)
        return root, manifest, todo

    if cfg.out is None:
        root = default_out(cfg.seed)
    else:
        root = cfg.out
        if root.exists() and not root.is_dir():
            raise RunError(f"--out {root} exists and is not a directory")
        if root.is_dir():
            if (root / MANIFEST).exists():
                if not cfg.force:
                    raise RunError(
                        f"--out {root} already holds a run; use --force to overwrite it or "
                        f"--resume to complete it"
                    )
                for p in _our_files(root):
                    p.unlink(missing_ok=True)
                (root / MANIFEST).unlink(missing_ok=True)
            elif any(p.name != DEALS_DIR for p in root.iterdir()) or any(
                (root / DEALS_DIR).glob("*")
            ):
                raise RunError(
                    f"--out {root} exists and is not empty, and it is not a bonken-sim run "
                    f"directory; choose a new directory (nothing there is touched)"
                )
        else:
            try:
                root.mkdir(parents=True)
            except OSError as exc:
                raise RunError(f"cannot create --out {root}: {exc.strerror or exc}") from None
    try:
        (root / DEALS_DIR).mkdir(exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot write in --out {root}: {exc.strerror or exc}") from None
    manifest = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "state": "incomplete",
        "config": {**cfg.identity(), "seed_drawn": cfg.seed_drawn, "threads": cfg.threads},
        "versions": versions,
        "tables": {
            "results": "part-*.parquet: one row per (deal, contract variant)",
            "deals": f"{DEALS_DIR}/part-*.parquet: one row per deal (hands, hand features)",
        },
        "created": _now(),
        "updated": None,
        "completed": None,
        "deals_done": 0,
        "rows": 0,
        "parts": [],
        "sessions": [],
    }
    return root, manifest, list(range(cfg.n_chunks))


def _save(root: Path, manifest: dict) -> None:
    from bonken_sim.runs.storage import write_manifest

    manifest["parts"].sort(key=lambda p: p["index"])
    manifest["deals_done"] = sum(p["deals"] for p in manifest["parts"])
    manifest["rows"] = sum(p["rows"] for p in manifest["parts"])
    manifest["updated"] = _now()
    try:
        write_manifest(root, manifest)
    except OSError as exc:
        raise RunError(f"cannot write {root / '_manifest.json'}: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """In the main thread, SIGTERM stops a run like Ctrl-C does (manifest saved)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def _no_interrupts():
    """Ignore Ctrl-C while saving the manifest after an interrupt (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _resume_hint(root: Path) -> str:
    return f"bonken-sim run --resume --out {root}"


def run(
    config: RunConfig | None = None,
    executor: Executor | str | None = None,
    *,
    progress: ProgressFn | None = None,
    on_start: Callable[[RunConfig, int], None] | None = None,
    **options: Any,
) -> RunResult:
    """Play a run and write its directory, exactly as ``bonken-sim run`` does.

    Pass a RunConfig or the options as keywords (``deals``, ``seed``, ``strategies``,
    ``contracts``, ``threads``, ``chunk_size``, ``out``, ``resume``, ``force``, ``executor``,
    ``workers``, ``scheduler``, ``write_parts``). ``executor`` (the argument) is any
    ``concurrent.futures.Executor`` (a process pool, a Dask client's ``get_executor()``):
    chunk tasks (``play_chunk``) run on it and write their parts into the run directory
    (``write_parts="workers"``, the default: the directory must be visible to every worker)
    or send them back (``"driver"``); it is not shut down here. Without it the config's
    executor (``local`` by default: a thread pool of ``threads`` threads) is used. The bytes
    never depend on the executor. ``progress(done, total)`` is called about ten times a
    second with the number of deals finished; ``on_start(config, deals_done)`` once the run
    directory is ready.

    >>> import bonken_sim, tempfile
    >>> r = bonken_sim.run(deals=2000, seed=7, out=tempfile.mkdtemp() + "/run")
    >>> r.rows, r.parts
    (24000, 1)
    """
    if isinstance(executor, str):  # run(deals=..., executor="process", workers=2)
        options["executor"], executor = executor, None
    if config is None:
        config = make_config(**options)
    elif options:
        raise TypeError("give either a RunConfig or options, not both")
    cfg = config
    spec = cfg.executor_spec
    t_start = time.perf_counter()
    # importing pyarrow (~0.3 s) overlaps loading the kernels (LLVM work without the GIL)
    arrow = threading.Thread(target=_import_arrow, name="bonken-sim-import", daemon=True)
    arrow.start()
    versions = dict(_versions())
    backend: Backend | None = None
    if executor is not None:
        backend = wrap_executor(executor)
    elif not spec.local:
        try:
            backend = open_backend(spec)
        except ExecutorError as exc:
            raise RunError(str(exc)) from None
    try:
        root, manifest, todo = _prepare(cfg, versions)
    except BaseException:
        if backend is not None:
            backend.close(cancel=True)
        raise
    cfg = replace(cfg, out=root)
    kind = spec.kind if executor is None else "executor"
    session: dict[str, Any] = {
        "started": _now(),
        "threads": cfg.threads,
        "executor": kind,
        "deals": 0,
        "finished": None,
    }
    if backend is not None:
        session["workers"] = backend.slots()
        session["write_parts"] = spec.write_parts
        session["restarts"] = 0
    manifest["sessions"].append(session)
    manifest["config"]["threads"] = cfg.threads
    _save(root, manifest)

    meta = {
        "config": cfg.identity(),
        "versions": {k: versions[k] for k in ("bonken_sim", "engine", "numba", "numpy")},
    }
    stats = _Stats()
    already = sum(p["deals"] for p in manifest["parts"])
    if on_start is not None:
        on_start(cfg, already)
    prog = _Progress(cfg.deals, already, progress)
    own_pool = executor is None and backend is None
    pool: Executor | None = (
        ThreadPoolExecutor(cfg.threads, thread_name_prefix="bonken-sim") if own_pool else None
    )
    # local threads write on the pool that plays (--threads counts every busy thread); the
    # other executors land their parts in this process
    writer = (
        pool if pool is not None else ThreadPoolExecutor(1, thread_name_prefix="bonken-sim-writer")
    )
    state: dict[str, Any] = {"chunks": None, "write": None}
    compile_s = 0.0

    def write(index: int, chunk) -> tuple[dict, float]:
        from bonken_sim.runs.storage import write_chunk

        c0 = time.thread_time()
        side: list[float] = []
        entry = write_chunk(root, index, chunk, meta, side, side_by_side=cfg.threads > 1)
        return entry, time.thread_time() - c0 + sum(side)

    def collect() -> None:
        fut = state["write"]
        t0 = time.perf_counter()
        while True:
            try:
                entry, cpu = fut.result(timeout=0.1)
                break
            except TimeoutError:
                prog()
        stats.write_wait += time.perf_counter() - t0
        stats.write_cpu += cpu
        manifest["parts"].append(entry)
        state["write"] = None
        session["deals"] += entry["deals"]
        _save(root, manifest)

    def record(entry: dict) -> None:
        # a chunk is in the manifest exactly once, whatever ran it how often
        manifest["parts"] = [p for p in manifest["parts"] if p["index"] != entry["index"]]
        manifest["parts"].append(entry)
        session["deals"] += entry["deals"]
        stats.deals_played += entry["deals"]
        prog.add(entry["deals"])
        _save(root, manifest)

    interrupted = False
    failure: str | None = None
    try:
        with _sigterm_as_interrupt():
            try:
                # on the driver: a cold cache is compiled once here, not by every worker
                compile_s = warm_kernels()
                arrow.join()
                prog(force=True)
                if backend is not None:
                    try:
                        for res in _chunk_results(cfg, root, todo, backend, meta, versions, prog):
                            stats.task_cpu += res.play_cpu
                            stats.write_cpu += res.write_cpu
                            record(_land(root, res))
                    except OSError:
                        raise
                    except Exception as exc:  # a task failed on its worker, or the executor
                        failure = (
                            str(exc)
                            if isinstance(exc, RunError)
                            else task_failure(exc, backend.kind)
                        )
                    finally:
                        session["restarts"] = backend.restarts
                else:
                    assert pool is not None
                    threads = cfg.threads
                    state["chunks"] = _played_chunks(cfg, todo, pool, threads, stats, prog)
                    for index, chunk in state["chunks"]:
                        stats.deals_played += chunk.n
                        if state["write"] is not None:
                            collect()
                        state["write"] = writer.submit(write, index, chunk)
                    if state["write"] is not None:
                        t0 = time.perf_counter()
                        collect()
                        stats.write_tail = time.perf_counter() - t0
            except KeyboardInterrupt:
                interrupted = True
    except OSError as exc:
        _abandon(state, pool, own_pool, writer, root, manifest, backend)
        name = getattr(exc, "filename", None)
        where = f" ({name})" if name else ""
        reason = os.strerror(exc.errno) if exc.errno else (exc.strerror or str(exc))
        raise RunError(f"cannot write the run in {root}{where}: {reason}") from None
    except BaseException:
        _abandon(state, pool, own_pool, writer, root, manifest, backend)
        raise
    if interrupted or failure is not None:
        with _no_interrupts():
            _abandon(state, pool, own_pool, writer, root, manifest, backend)
        done = sum(p["deals"] for p in manifest["parts"])
        saved = f"{done:,} of {cfg.deals:,} deals are saved in {root}; resume with: " + (
            _resume_hint(root)
        )
        if failure is not None:
            raise RunError(f"{failure}; {saved}")
        raise RunInterrupted(f"interrupted: {saved}", root, done)
    writer.shutdown(wait=True)
    if pool is not None:
        pool.shutdown(wait=True)
    if backend is not None:
        backend.close()
    manifest["state"] = "complete"
    manifest["completed"] = manifest["completed"] or _now()
    wall = time.perf_counter() - t_start
    session["finished"] = _now()
    session["wall_seconds"] = round(wall, 3)
    session["compile_seconds"] = round(compile_s, 3)
    session["simulate_cpu_seconds"] = round(stats.task_cpu, 3)
    session["write_cpu_seconds"] = round(stats.write_cpu, 3)
    session["write_tail_seconds"] = round(stats.write_tail, 3)
    _save(root, manifest)
    prog(force=True)
    parts = manifest["parts"]
    return RunResult(
        out=root,
        seed=cfg.seed,
        seed_drawn=cfg.seed_drawn,
        deals=cfg.deals,
        contracts=list(cfg.contracts),
        strategies=list(cfg.strategies),
        rows=manifest["rows"],
        parts=len(parts),
        files=[p["file"] for p in parts] + [p["deals_file"] for p in parts],
        bytes=sum(p["bytes"] + p["deals_bytes"] for p in parts),
        deals_this_session=stats.deals_played,
        resumed=cfg.resume,
        threads=cfg.threads,
        wall_seconds=wall,
        compile_seconds=compile_s,
        simulate_cpu_seconds=stats.task_cpu,
        write_cpu_seconds=stats.write_cpu,
        write_tail_seconds=stats.write_tail,
        executor=kind,
        workers=session.get("workers"),
        restarts=session.get("restarts", 0),
    )


def _chunk_results(cfg, root, todo, backend, meta, versions, prog):
    """Chunk tasks of the chunks ``todo`` on the backend; their results as they finish."""
    spec = cfg.executor_spec
    where = str(root.resolve()) if spec.write_parts == "workers" else None
    task_cfg = replace(cfg, out=None, resume=False, force=False)
    tasks = (ChunkTask(task_cfg, k, where, meta, versions) for k in todo)
    for _, res in run_tasks(backend, play_chunk, tasks, tick=prog):
        yield res


def _land(root: Path, res: ChunkResult) -> dict:
    """Put a finished chunk's parts in place: write the bytes a worker sent, or check that
    the files a worker wrote are here (the run directory must be shared)."""
    from bonken_sim.runs.storage import write_bytes

    entry = res.entry
    if res.parts is not None:
        for part, sha in zip(res.parts, (entry["sha256"], entry["deals_sha256"]), strict=True):
            write_bytes(root, part.file, part.data, part.rows, sha)
        return entry
    for f, b in (("file", "bytes"), ("deals_file", "deals_bytes")):
        path = root / entry[f]
        try:
            size = path.stat().st_size
        except OSError:
            size = -1
        if size != entry[b]:
            raise RunError(
                f"worker {res.worker} wrote {entry[f]} but {path} is "
                + ("missing" if size < 0 else f"{size:,} bytes, not {entry[b]:,}")
                + f" here: {SHARED_HINT}"
            )
    return entry


def _import_arrow() -> None:
    import pyarrow.parquet  # noqa: F401


def _abandon(state, pool, own_pool, writer, root, manifest, backend=None) -> None:
    """Stop everything after an interrupt or error: cancel queued tasks, let running ones and
    the current write finish (a finished part is kept), save the manifest as incomplete.
    Worker processes of an executor opened here are stopped at once (a task cut short
    leaves only a hidden temporary file)."""
    if state["chunks"] is not None:
        with contextlib.suppress(BaseException):
            state["chunks"].close()  # cancels the queued play tasks, waits for running ones
    if backend is not None:
        with contextlib.suppress(BaseException):
            backend.close(cancel=True)
    # the pending write runs to its end (on the pool, where it may still be queued): a chunk
    # that was played is kept
    if state["write"] is not None:
        try:
            entry, _ = state["write"].result()
            if entry["index"] not in {p["index"] for p in manifest["parts"]}:
                manifest["parts"].append(entry)
        except BaseException:  # the part was not renamed; its temporary file is gone
            pass
    if own_pool and pool is not None:
        pool.shutdown(wait=True, cancel_futures=True)
    writer.shutdown(wait=True, cancel_futures=True)
    manifest["state"] = "incomplete"
    with contextlib.suppress(RunError):
        _save(root, manifest)


# ---------------------------------------------------------------------------------------
# In memory


def simulate(
    deals: Any,
    seed: Any = None,
    strategies: Any = "basic",
    contracts: Any = "all",
    *,
    threads: Any = None,
    features: bool = True,
    executor: Executor | None = None,
    ruleset: Any = None,
):
    """Play ``deals`` deals in every chosen contract variant and return a pandas DataFrame.

    One row per (deal, variant), ordered by deal then variant, with the columns of a run's
    results (see the README) and, with ``features=True``, the deal's hands and hand features
    on every row. ``ruleset``: a Ruleset, preset name or ruleset record (default RULES.md).
    The seed (drawn when not given) is in ``df.attrs["seed"]``. Memory grows
    with ``deals``; for large runs use ``run`` and read the Parquet directory.

    >>> import bonken_sim
    >>> df = bonken_sim.simulate(deals=100, seed=1, contracts="bukken,troeven_H")
    >>> len(df), df.groupby("variant", observed=True)["score_0"].sum().to_dict()["bukken"] <= 0
    (200, True)
    """
    import pyarrow as pa

    from bonken_sim.runs.storage import (
        DEAL_COLUMNS,
        deals_schema,
        deals_table,
        results_schema,
        results_table,
    )

    cfg = make_config(
        deals=deals,
        seed=seed,
        strategies=strategies,
        contracts=contracts,
        threads=threads,
        ruleset=ruleset,
    )
    cfg = replace(cfg, chunk_size=min(cfg.deals, MAX_CHUNK))
    own_pool = executor is None
    pool = executor if executor is not None else ThreadPoolExecutor(cfg.threads)
    stats = _Stats()
    tables = []
    rs, ds_ = results_schema(), deals_schema()
    try:
        threads = getattr(pool, "_max_workers", cfg.threads)
        gen = _played_chunks(cfg, range(cfg.n_chunks), pool, threads, stats)
        with contextlib.closing(gen):
            for _, chunk in gen:
                res = results_table(chunk, rs)
                nv = len(chunk.variants)
                perm = np.arange(nv * chunk.n).reshape(nv, chunk.n).T.reshape(-1)
                res = res.take(pa.array(perm))
                if features:
                    dl = deals_table(chunk, ds_)
                    rep = pa.array(np.repeat(np.arange(chunk.n), nv))
                    dl = dl.select(list(DEAL_COLUMNS[1:])).take(rep)
                    for name in dl.column_names:
                        res = res.append_column(dl.schema.field(name), dl.column(name))
                tables.append(res)
    finally:
        if own_pool:
            pool.shutdown(wait=True, cancel_futures=True)
    table = pa.concat_tables(tables).replace_schema_metadata(None)
    frame = table.to_pandas()
    frame.attrs["seed"] = cfg.seed
    frame.attrs["config"] = cfg.identity()
    return frame


__all__ = [
    "DEFAULT_CHUNK",
    "RunConfig",
    "RunError",
    "RunInterrupted",
    "RunResult",
    "make_config",
    "run",
    "simulate",
]
