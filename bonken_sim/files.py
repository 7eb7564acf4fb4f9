"""Write a file under a temporary name and rename it when complete.

A reader (or a later ``replay``) then sees the old file or the whole new one, never half of
it, and a write that fails or is interrupted leaves the old file as it was.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


class CannotWrite(OSError):
    """A file that could not be written; the message is ``cannot write PATH: why``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.reason = reason


def write_atomic(path: Path, lines: Iterable[str]) -> None:
    """Write ``lines`` (each followed by a newline) to ``path``, UTF-8.

    They go to a hidden temporary file beside ``path`` (the same filesystem, so the rename
    is atomic), which replaces ``path`` once every line is written; on any failure the
    temporary file is removed. ``lines`` may be a generator: an exception it raises passes
    through unchanged, an OSError of the writing becomes CannotWrite.
    """
    path = path.expanduser()
    fd, tmp = _temp_beside(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                fh.write("\n")
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise CannotWrite(path, exc.strerror or str(exc)) from None
        raise


def check_writable(path: Path) -> None:
    """CannotWrite now, with the message ``write_atomic(path, ...)`` would give, when its
    directory is missing or cannot be written: a command checks its output before the work
    (a temporary file is made beside ``path`` and removed)."""
    fd, tmp = _temp_beside(path.expanduser())
    os.close(fd)
    Path(tmp).unlink(missing_ok=True)


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new hidden temporary file in ``path``'s directory: (open descriptor, name)."""
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CannotWrite(path, f"directory {parent} does not exist")
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise CannotWrite(path, exc.strerror or str(exc)) from None
