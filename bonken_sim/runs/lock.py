"""One writer per directory: the lock a run, a game run or a report holds on the directory it
writes, and what readers learn from it.

The lock is the file ``.bonken-sim.lock`` inside the directory, held with ``flock`` for as
long as the writer works there. The kernel drops the lock when the holder's process ends,
however it ends, so a killed run never blocks the next one; the file also holds a record of
the holder (pid, host, command, since when) that a refused writer and a reader print. A
writer that ends normally removes the file.

Where the file system has no ``flock`` (some network file systems), the record alone is the
lock: a record of a process on this host that no longer runs is taken over; one from another
host cannot be checked from here and blocks until its holder removes it, or a user who knows
it has stopped deletes the file (the refusal says which file).

Readers never take the lock (a reader holding it, even for a moment, could make a writer
fail): ``writer_of`` asks whether someone holds it, with a shared lock that is let go at once;
a writer that finds the lock busy tries again for a moment before it refuses.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import shlex
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeGuard

from bonken_sim.errors import UserFixableError
from bonken_sim.files import json_document

LOCK_FILE = ".bonken-sim.lock"
#: how long a writer keeps trying a busy lock before it refuses (a reader's shared lock
#: lasts microseconds; another writer's lasts as long as its run)
RETRY_SECONDS = 0.5
_RETRY_STEP = 0.02
#: flock errors that mean "this file system has no flock", not "busy"
_NO_FLOCK = {errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EINVAL}


class DirectoryBusy(UserFixableError, ValueError):
    """Another process writes the directory; the message names it and the holder."""

    def __init__(self, root: Path, holder: Holder | None) -> None:
        who = (holder or UNKNOWN).describe()
        super().__init__(
            f"{root} is being written by {who}; wait until it has finished, or stop it "
            f"(nothing in {root} was touched)"
        )
        self.root = root
        self.holder = holder


@dataclass(frozen=True)
class Holder:
    """Who holds a directory's lock, as its record says."""

    pid: int
    host: str
    command: str
    since: str

    @classmethod
    def me(cls) -> Holder:
        return cls(os.getpid(), socket.gethostname(), _command(), _now())

    @classmethod
    def from_dict(cls, doc: dict) -> Holder:
        """The holder of a record (``to_dict``); KeyError, TypeError or ValueError when
        ``doc`` is not one."""
        return cls(int(doc["pid"]), str(doc["host"]), str(doc["command"]), str(doc["since"]))

    @classmethod
    def parse(cls, text: str) -> Holder | None:
        """The record in a lock file (None for an empty or unreadable one)."""
        try:
            return cls.from_dict(json_document(text))
        except (ValueError, KeyError, TypeError):  # NotJson is a ValueError
            return None

    def to_json(self) -> str:
        return json.dumps(self.to_dict()) + "\n"

    @property
    def here(self) -> bool:
        return self.host == socket.gethostname()

    def alive(self) -> bool | None:
        """Whether the holder still runs: None when it is on another host (not knowable)."""
        if not self.here:
            return None
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:  # runs, as another user
            return True
        return True

    def to_dict(self) -> dict[str, object]:
        return {"pid": self.pid, "host": self.host, "command": self.command, "since": self.since}

    def describe(self) -> str:
        if self is UNKNOWN:
            return "another process (its record is not written yet)"
        where = "this host" if self.here else f"host {self.host}"
        return f"pid {self.pid} on {where} (`{self.command}`, since {self.since})"


#: a holder whose record could not be read (written a moment after the lock is taken)
UNKNOWN = Holder(0, "", "", "")


def _command() -> str:
    """This process's command line, as a user would type it again."""
    argv = list(sys.argv) or ["python"]
    # the command line's entry point may be run as a script, ``-m`` or ``-c``: it is bonken-sim
    prog = "bonken-sim" if "bonken_sim.cli" in sys.modules else os.path.basename(argv[0])
    return " ".join(shlex.quote(a) for a in [prog or "python", *argv[1:]])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def lock_path(root: Path) -> Path:
    return Path(root) / LOCK_FILE


class DirLock:
    """A held lock on one directory; ``release()`` (or leaving a ``with`` block, or the end of
    the process) lets it go."""

    def __init__(self, root: Path, fd: int | None, took_over: Holder | None) -> None:
        self.root = root
        self._fd = fd
        #: the record of a holder that ended without letting go (killed), if there was one
        self.took_over = took_over

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self) -> None:
        """Remove the lock file, then let the lock go (in this order, so that no writer
        can hold a lock on a file that is no longer the directory's)."""
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        with contextlib.suppress(OSError):
            if _same_file(fd, lock_path(self.root)):
                os.unlink(lock_path(self.root))
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> DirLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def acquire(root: Path, retry_seconds: float = RETRY_SECONDS) -> DirLock:
    """Lock the existing directory ``root`` for this process, or raise DirectoryBusy naming
    the holder. OSError when the lock file cannot be made (a read-only directory, ...)."""
    path = lock_path(root)
    deadline = time.monotonic() + retry_seconds
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = Holder.parse(_read(fd))
            os.close(fd)
            if time.monotonic() < deadline:
                time.sleep(_RETRY_STEP)
                continue
            raise DirectoryBusy(root, holder) from None
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                os.close(fd)
                raise
            return _acquire_by_record(root, fd)
        if not _same_file(fd, path):  # released and removed between our open and flock
            os.close(fd)
            continue
        try:
            previous = Holder.parse(_read(fd))
            _write_record(fd)
        except BaseException:
            os.close(fd)
            raise
        return DirLock(root, fd, previous)


def _acquire_by_record(root: Path, fd: int) -> DirLock:
    """The lock on a file system without flock: the record is the lock."""
    try:
        holder = Holder.parse(_read(fd))
        if _may_run(holder) and holder.pid != os.getpid():
            raise DirectoryBusy(root, holder)
        _write_record(fd)
    except BaseException:
        os.close(fd)
        raise
    return DirLock(root, fd, holder)


def _may_run(holder: Holder | None) -> TypeGuard[Holder]:
    """Whether a record's holder may still run (it does, or it is on another host)."""
    return holder is not None and holder.alive() is not False


def lock_or_refuse(root: Path, error: Callable[[str], Exception]) -> DirLock | None:
    """A writer's lock on ``root``: ``error(message)`` is raised while another process
    holds it, and None is the answer where no lock file can be made (a directory this
    process cannot write, which it therefore cannot damage: the writer's own checks say
    why it cannot be used)."""
    try:
        return acquire(root)
    except DirectoryBusy as exc:
        raise error(str(exc)) from None
    except OSError:
        return None


def writer_of(root: Path) -> Holder | None:
    """The process writing ``root`` now, or None when nobody is (never waits, never
    blocks a writer for longer than a system call)."""
    path = lock_path(root)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return Holder.parse(_read(fd)) or UNKNOWN
        except OSError as exc:
            if exc.errno not in _NO_FLOCK:
                return None
            holder = Holder.parse(_read(fd))
            return holder if _may_run(holder) else None
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def writer_record(root: Path) -> dict[str, object] | None:
    """``writer_of`` as a summary records it: the holder's record, or None."""
    holder = writer_of(root)
    return None if holder is None else holder.to_dict()


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        return ""


def _write_record(fd: int) -> None:
    data = Holder.me().to_json().encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    with contextlib.suppress(OSError):
        os.fsync(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        st = os.stat(path)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (mine.st_dev, mine.st_ino) == (st.st_dev, st.st_ino)
