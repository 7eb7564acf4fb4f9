"""One lifecycle for run directories, deal runs (``bonken-sim run``) and game runs
(``bonken-sim game``) alike: create a new directory (or the default one under ``results/``),
clear a run of the same kind with ``--force``, reopen one with ``--resume`` (same versions,
only the parts whose size and SHA-256 still match are kept, temporaries of killed writers
removed), save the manifest atomically after every part, and turn Ctrl-C and SIGTERM alike
into an interrupt that leaves a resumable run and a hint saying how to resume it.

What differs between the two kinds (the manifest format, the part files, the wording of the
messages users already know) is data: a ``RunKind``.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
import signal
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bonken_sim.engine.provenance import versions
from bonken_sim.files import NotJson, json_document
from bonken_sim.runs.errors import RunError
from bonken_sim.runs.executors import WorkerMismatch, worker_name
from bonken_sim.runs.files import TMP_DIR, sha256_file
from bonken_sim.runs.lock import LOCK_FILE, DirLock, lock_or_refuse
from bonken_sim.runs.manifest import (
    MANIFEST,
    NotARun,
    manifest_tmp,
    read_manifest,
    write_manifest,
)

RESULTS_DIR = "results"
#: where ``bonken-sim report`` writes a run's report by default (report/page/build.py)
REPORT_DIR = "_report"
#: what a worker must share with the driver for byte-identical parts
CHECKED_VERSIONS = ("bonken_sim", "engine", "pyarrow")


def check_worker_versions(expected: dict) -> None:
    """Raise WorkerMismatch unless this (worker) process runs what the driver runs."""
    mine = versions()
    for key in CHECKED_VERSIONS:
        if mine.get(key) != expected.get(key):
            raise WorkerMismatch(
                f"worker {worker_name()} runs {key} {mine.get(key)} but the driver runs "
                f"{expected.get(key)}: install the same bonken-sim (and pyarrow) on every "
                f"worker"
            )


def now() -> str:
    """The UTC time to the second, as a manifest records it."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_out(
    seed: int,
    base: Path | str = RESULTS_DIR,
    prefix: str = "run",
    error: type[Exception] = RunError,
) -> Path:
    """A new directory ``results/<prefix>-<UTC time>-seed<seed>[-k]``; created here, so two
    runs started at the same second never share one."""
    base = Path(base)
    try:
        base.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise error(f"cannot create {base}/: {exc.strerror or exc}") from None
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    for k in range(1, 10_000):
        path = base / (f"{prefix}-{stamp}-seed{seed}" + (f"-{k}" if k > 1 else ""))
        try:
            path.mkdir()
            return path
        except FileExistsError:
            continue
        except OSError as exc:
            raise error(f"cannot create {path}: {exc.strerror or exc}") from None
    raise error(f"cannot find a free run directory name under {base}")  # pragma: no cover


@dataclass(frozen=True)
class RunKind:
    """One kind of run directory: its manifest format, where its parts live and the wording
    of its messages (``{root}`` and ``{reason}`` are filled in)."""

    name: str  # "run", "game run": what NotARun calls it
    format: str
    schema_version: int
    part_dirs: tuple[str, ...]  # where the parts are ("" = the run directory itself)
    part_files: tuple[tuple[str, str, str], ...]  # (file, bytes, sha256) keys of a part entry
    default_prefix: str  # results/<prefix>-<time>-seed<seed>
    error: type[Exception]
    hint: str  # how to resume the run in {root}
    taken: str  # --out holds a run, no --force
    foreign: str  # --out is not empty and is no run, no --force
    foreign_force: str  # the same with --force
    cannot_create: str
    cannot_write: str
    not_writable: str
    resume_missing: str | None = None  # --resume in an empty or missing directory
    resume_prefix: str = ""  # before a NotARun message on --resume
    totals: Callable[[dict], None] | None = None  # fills derived fields before each save
    #: where runs of an older layout keep their parts: resumed in place, swept of temporaries
    #: and cleared by --force, never made for a new run
    old_part_dirs: tuple[str, ...] = ()
    #: the part directories of the run a manifest describes (None: ``part_dirs``)
    layout: Callable[[dict], tuple[str, ...]] | None = None
    #: the files of a run in its part directories, as globs: what ``--force`` removes
    part_globs: tuple[str, ...] = ("part-*.parquet",)

    @property
    def subdirs(self) -> tuple[str, ...]:
        return tuple(d for d in self.part_dirs if d)

    @property
    def any_part_dirs(self) -> tuple[str, ...]:
        """The part directories of any layout this kind ever wrote."""
        return (*self.part_dirs, *self.old_part_dirs)

    def dirs_of(self, manifest: dict) -> tuple[str, ...]:
        """The part directories of the run ``manifest`` describes."""
        return self.part_dirs if self.layout is None else self.layout(manifest)

    def read_manifest(self, root: Path) -> dict:
        return read_manifest(root, self.format, self.schema_version, kind=self.name)

    def run_to_resume(self, out: Path | None) -> tuple[Path, dict]:
        """The directory and manifest of the run ``--resume --out out`` completes; the
        kind's error otherwise (no ``--out``, nothing there, not a run of this kind)."""
        if out is None:
            raise self.error("--resume needs --out DIR: the run directory to complete")
        if self.resume_missing is not None and not _holds_anything(out):
            raise self.fail(self.resume_missing, out)
        try:
            return out, self.read_manifest(out)
        except NotARun as exc:
            raise self.error(f"{self.resume_prefix}{exc}") from None

    def resume_hint(self, root: Path) -> str:
        """How to resume the run in ``root``; the path quoted for a shell where needed."""
        return self.hint.format(root=shlex.quote(str(root)))

    def fail(self, template: str, root: Path, exc: OSError | None = None) -> Exception:
        reason = "" if exc is None else (exc.strerror or str(exc))
        return self.error(template.format(root=root, reason=reason))


@dataclass
class RunDir:
    """An open run directory and its manifest (saved after every change that matters),
    locked against every other writer until ``release()``."""

    kind: RunKind
    root: Path
    manifest: dict
    lock: DirLock | None = None

    def release(self) -> None:
        """Let other writers in (at the end of the session, however it ends)."""
        if self.lock is not None:
            self.lock.release()

    @property
    def parts(self) -> list[dict]:
        return self.manifest["parts"]

    def todo(self, n_parts: int) -> list[int]:
        """The parts still to play, in order; a run with some to play is incomplete."""
        done = {p["index"] for p in self.parts}
        todo = [k for k in range(n_parts) if k not in done]
        if todo:
            self.manifest["state"] = "incomplete"
        return todo

    def record(self, entry: dict) -> None:
        """Add a finished part (exactly once, whatever ran it how often) and save."""
        self.keep(entry)
        self.save()

    def keep(self, entry: dict) -> None:
        """Add a finished part to the manifest without saving it yet."""
        self.manifest["parts"] = [p for p in self.parts if p["index"] != entry["index"]]
        self.parts.append(entry)

    def tidy(self) -> None:
        """At the end of a session: remove the (empty) directories of temporary files."""
        _remove_tmp_dirs(self.kind, self.root)

    def save(self) -> None:
        self.parts.sort(key=lambda p: p["index"])
        if self.kind.totals is not None:
            self.kind.totals(self.manifest)
        try:
            write_manifest(self.root, self.manifest)
        except OSError as exc:
            raise self.kind.error(
                f"cannot write {self.root / MANIFEST}: {exc.strerror or exc}"
            ) from None


def open_run_dir(
    kind: RunKind,
    out: Path | None,
    seed: int,
    *,
    resume: bool,
    force: bool,
    new_manifest: Callable[[], dict],
    check: Callable[[Path, dict], None] | None = None,
) -> RunDir:
    """Create, clear (``force``) or reopen (``resume``) the run directory ``out`` (None: a new
    one under ``results/``). ``new_manifest()`` is the manifest of a new run; ``check(root,
    manifest)`` may refuse to resume a run made with other options.

    The directory is locked first (``runs.lock``): while another process writes it, this
    raises the kind's error naming that process, and nothing is touched, ``force`` or not.
    The caller releases the lock (``RunDir.release``) when the session ends."""
    if resume:
        return _reopen(kind, out, check)
    root, lock = _claim(kind, out, seed, force)
    return RunDir(kind, root, new_manifest(), lock)


def _reopen(kind: RunKind, out: Path | None, check) -> RunDir:
    lock = lock_or_refuse(out, kind.error) if out is not None and out.is_dir() else None
    try:
        root, manifest = kind.run_to_resume(out)
        if check is not None:
            check(root, manifest)
        _check_versions(kind, root, manifest)
        _remove_temporaries(kind, root)
        manifest["parts"] = [p for p in manifest.get("parts", []) if _intact(kind, root, p)]
        _make_subdirs(kind, root, kind.dirs_of(manifest))
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return RunDir(kind, root, manifest, lock)


def _check_versions(kind: RunKind, root: Path, manifest: dict) -> None:
    """A run is completed only by the bonken-sim and engine that started it (same bytes)."""
    have = manifest.get("versions", {})
    mine = versions()
    if have.get("bonken_sim") != mine["bonken_sim"] or have.get("engine") != mine["engine"]:
        raise kind.error(
            f"--resume: {root} was written by another version of bonken-sim or its engine "
            f"({have.get('bonken_sim')}, engine {have.get('engine')}; this is "
            f"{mine['bonken_sim']}, engine {mine['engine']}); start a new run or use --force"
        )


def _intact(kind: RunKind, root: Path, part: dict) -> bool:
    """Every file of the part is there with its recorded size and SHA-256."""
    for file, size, sha in kind.part_files:
        path = root / part[file]
        if not (path.is_file() and path.stat().st_size == part[size]):
            return False
        if sha256_file(path) != part[sha]:
            return False
    return True


def _temporaries(kind: RunKind, root: Path) -> Iterator[Path]:
    """What killed writers leave behind: files in the hidden ``.tmp/`` beside the parts (and
    ``.part-*.parquet.tmp`` beside them, where runs of older versions wrote)."""
    for d in kind.any_part_dirs:
        yield from (root / d / TMP_DIR).glob("*.tmp")
        yield from (root / d).glob(".part-*.parquet.tmp")


def _remove_temporaries(kind: RunKind, root: Path) -> None:
    for path in _temporaries(kind, root):
        path.unlink(missing_ok=True)
    _remove_tmp_dirs(kind, root)


def _remove_tmp_dirs(kind: RunKind, root: Path) -> None:
    """Remove the empty ``.tmp/`` directories (one still in use is not empty: kept)."""
    for d in kind.any_part_dirs:
        with contextlib.suppress(OSError):
            (root / d / TMP_DIR).rmdir()


def _claim(kind: RunKind, out: Path | None, seed: int, force: bool) -> tuple[Path, DirLock | None]:
    """A directory for a new run, locked: a new one under ``results/``, an empty or new
    ``out``, or ``out`` cleared of the run of this kind it held (``force``)."""
    if out is None:
        root = default_out(seed, prefix=kind.default_prefix, error=kind.error)
        return root, _claimed(kind, root, force)
    root = out
    if root.exists() and not root.is_dir():
        raise kind.error(f"--out {root} exists and is not a directory")
    if not root.is_dir():
        try:
            root.mkdir(parents=True, exist_ok=True)  # exist_ok: another writer's race
        except OSError as exc:
            raise kind.fail(kind.cannot_create, root, exc) from None
    return root, _claimed(kind, root, force)


def _claimed(kind: RunKind, root: Path, force: bool) -> DirLock | None:
    """Lock the existing ``root``, then make it ready for a new run (or refuse)."""
    lock = lock_or_refuse(root, kind.error)
    try:
        if (root / MANIFEST).exists():
            _check_own_kind(kind, root, force)
            if not force:
                raise kind.fail(kind.taken, root)
            _clear(kind, root)
        elif not _empty(kind, root):
            raise kind.fail(kind.foreign_force if force else kind.foreign, root)
        _make_subdirs(kind, root, kind.part_dirs)
    except BaseException:
        if lock is not None:
            lock.release()
        raise
    return lock


def _make_subdirs(kind: RunKind, root: Path, dirs: tuple[str, ...]) -> None:
    try:
        for sub in dirs:
            if sub:
                (root / sub).mkdir(exist_ok=True)
    except OSError as exc:
        raise kind.fail(kind.cannot_write, root, exc) from None
    if not os.access(root, os.W_OK):
        raise kind.fail(kind.not_writable, root)


def _holds_anything(root: Path) -> bool:
    """``root`` is a directory with something in it besides a lock."""
    return root.is_dir() and any(entry.name != LOCK_FILE for entry in root.iterdir())


def _empty(kind: RunKind, root: Path) -> bool:
    """Nothing in ``root`` but (empty) part directories of this kind (and the lock)."""
    for entry in root.iterdir():
        if entry.name == LOCK_FILE:
            continue
        if entry.name not in kind.any_part_dirs or not entry.is_dir() or any(entry.iterdir()):
            return False
    return True


#: what ``--force`` calls the run directories it refuses to clear, by manifest format
KIND_NAMES = {
    "bonken-sim-run": "deal run",
    "bonken-sim-games": "game run",
    "bonken-sim-match": "match",
}


def _check_own_kind(kind: RunKind, root: Path, force: bool) -> None:
    """``--force`` clears only a run of its own kind: a deal run is never cleared by
    ``game --force`` nor a game run by ``run --force`` (nothing is touched). Without
    ``force`` the message says so too, rather than offer a --force or --resume that would
    refuse."""
    try:
        doc = json_document((root / MANIFEST).read_bytes())
        fmt = doc.get("format") if isinstance(doc, dict) else None
    except (OSError, NotJson):
        fmt = None
    if not isinstance(fmt, str):  # a list or an object would not even hash
        fmt = None
    if fmt != kind.format:
        held = f"a {KIND_NAMES[fmt]}" if fmt in KIND_NAMES else f"a {MANIFEST} of no bonken-sim run"
        lead = f"--force refuses to clear {root}: it holds" if force else f"--out {root} holds"
        raise kind.error(
            f"{lead} {held}, not a {KIND_NAMES[kind.format]}; choose another directory "
            "(nothing there is touched)"
        )


def _clear(kind: RunKind, root: Path) -> None:
    """Remove the files a run of this kind writes: parts, temporaries, the manifest and the
    report written into it (``_report/``: it describes the run being replaced)."""
    report = root / REPORT_DIR
    if report.is_dir() and not report.is_symlink():
        shutil.rmtree(report)
    for d in kind.any_part_dirs:
        for pattern in kind.part_globs:
            for path in (root / d).glob(pattern):
                path.unlink(missing_ok=True)
    _remove_temporaries(kind, root)
    for d in kind.old_part_dirs:  # the new run is written in the current layout
        with contextlib.suppress(OSError):
            (root / d).rmdir()
    manifest_tmp(root).unlink(missing_ok=True)
    (root / MANIFEST).unlink(missing_ok=True)


# ---------------------------------------------------------------------------------------
# Interrupts


def _in_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """In the main thread, SIGTERM stops a run like Ctrl-C does (manifest saved). Where a
    handler that raises is in place already (the command line's, which also makes the exit
    status 143) it is kept."""
    if not _in_main_thread() or callable(signal.getsignal(signal.SIGTERM)):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def resumable_session(
    kind: RunKind, root: Path, stop: Callable[[], None], interrupted: type[BaseException]
) -> Iterator[None]:
    """A session of the run in ``root``, played inside: SIGTERM stops it as Ctrl-C does, and
    whatever ends it early calls ``stop()`` first, which leaves the run resumable. Ctrl-C
    becomes ``interrupted`` with the resume hint (with Ctrl-C ignored while ``stop`` saves),
    an OSError the kind's error naming the directory; anything else passes on as it is."""
    try:
        with sigterm_as_interrupt():
            yield
    except KeyboardInterrupt:
        with no_interrupts():
            stop()
        raise interrupted(f"interrupted: {kind.resume_hint(root)}") from None
    except OSError as exc:
        stop()
        raise kind.error(f"cannot write {root}: {exc.strerror or exc}") from None
    except BaseException:
        stop()
        raise


@contextlib.contextmanager
def no_interrupts() -> Iterator[None]:
    """Ignore Ctrl-C while saving the manifest after an interrupt (main thread only)."""
    if not _in_main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
