"""Write a file under a temporary name and rename it when complete; read a small input file
and its TOML; read JSON text from anywhere outside (a file, a player, a request).

A reader (or a later ``replay``) then sees the old file or the whole new one, never half of
it, and a write that fails or is interrupted leaves the old file as it was. An input file a
user names (a rules or config file) is read only if it is a regular file of sane size, so
that ``/dev/zero`` or a FIFO is refused instead of read until memory runs out. JSON from
outside is read by ``json_document`` alone, so that any bytes give one error class with a
one-line reason, never an error of the parser or of a reader that walks the value.
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
import tomllib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from bonken_sim.errors import UserFixableError
from bonken_sim.processes import held_interrupts


class CannotWrite(UserFixableError, OSError):
    """A file that could not be written; the message is ``cannot write PATH: why``."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"cannot write {path}: {reason}")
        self.reason = reason


class CannotRead(UserFixableError, OSError):
    """An input file that is refused before it is read (not a regular file, too large); the
    message is ``cannot read PATH: why``, ``strerror`` and ``reason`` the why alone."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"cannot read {path}: {reason}")
        self.reason = reason
        self.strerror = reason


#: The largest rules or config file read (a real one is a few hundred bytes).
MAX_INPUT_BYTES = 1 << 20


def read_small_file(path: str | Path, limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes; else CannotRead,
    decided before the file is read (and before it is opened: opening a FIFO would wait for a
    writer). A file that cannot be opened raises its OSError (FileNotFoundError, ...)."""
    st = os.stat(path)
    _check_input(path, st, limit)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        _check_input(path, os.fstat(fd), limit)  # the file opened is the one checked
        data = fh.read(limit + 1)
    if len(data) > limit:  # it grew since
        raise CannotRead(path, f"more than the {_size(limit)} allowed")
    return data


class NotToml(UserFixableError, ValueError):
    """Bytes that are not a TOML document; the message is ``not valid TOML: why``."""


def toml_document(raw: bytes) -> dict[str, Any]:
    """The TOML document ``raw`` (a rules or config file's bytes); NotToml when they are not
    UTF-8 text, not TOML, or nested too deeply for the parser (``[[[[…``)."""
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except tomllib.TOMLDecodeError as exc:
        why = str(exc)
    except RecursionError:  # the parser ran out of stack
        why = "lists or tables nested too deeply"
    raise NotToml(f"not valid TOML: {why}")


class NotJson(UserFixableError, ValueError):
    """Bytes that are not a JSON document; the message is ``not JSON: why``, ``why`` alone
    the reason."""

    def __init__(self, why: str) -> None:
        super().__init__(f"not JSON: {why}")
        self.why = why


#: The deepest nesting of lists and objects a JSON document from outside may have. Every
#: document bonken-sim writes nests a few levels; a deeper one is refused whole, because
#: Python's parser, ``repr`` and ``==`` recurse once per level and would run out of stack
#: somewhere (a line of 50,000 ``[`` is 50 kB).
MAX_JSON_DEPTH = 64


def json_document(raw: bytes | str, allow_nan: bool = True) -> Any:
    """The JSON value ``raw`` holds (bytes must be UTF-8); NotJson when they are not UTF-8
    text, not JSON, or nest lists and objects deeper than ``MAX_JSON_DEPTH``.
    ``allow_nan=False`` refuses ``NaN`` and ``Infinity``, which are not JSON but which
    Python's parser takes."""
    why = ""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        value = json.loads(text) if allow_nan else json.loads(text, parse_constant=_no_constant)
    except UnicodeDecodeError as exc:
        why = f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})"
    except json.JSONDecodeError as exc:
        at = f"line {exc.lineno} column {exc.colno}" if exc.lineno > 1 else f"column {exc.colno}"
        why = f"{exc.msg} at {at}"
    except ValueError as exc:  # a constant refused, an integer of too many digits
        why = str(exc).split(";")[0]  # what follows is advice to Python programmers
    except RecursionError:  # the parser ran out of stack
        why = f"lists or objects nested deeper than {MAX_JSON_DEPTH} levels"
    else:
        if not _nests_deeper(value, MAX_JSON_DEPTH):
            return value
        why = f"lists or objects nested deeper than {MAX_JSON_DEPTH} levels"
    raise NotJson(why)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and dicts more than ``limit`` levels (no recursion)."""
    todo = [(value, 1)] if isinstance(value, dict | list) else []
    while todo:
        item, depth = todo.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        todo.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return False


def _check_input(path: str | Path, st: os.stat_result, limit: int) -> None:
    if stat.S_ISDIR(st.st_mode):
        raise CannotRead(path, "is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise CannotRead(path, "not a regular file")
    if st.st_size > limit:
        raise CannotRead(path, f"{st.st_size:,} bytes, more than the {_size(limit)} allowed")


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else f"{n:,} bytes"


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
        with held_interrupts():  # an interrupt delivered again waits for the removal
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


def check_dir_writable(path: Path) -> None:
    """CannotWrite now, before the work, when the directory ``path`` could not be made
    (``mkdir(parents=True)``) or written in: it or the nearest of its ancestors that exists is
    not a directory, or that one cannot be written (a temporary file is made and removed)."""
    path = path.expanduser()
    nearest = nearest_existing(path) or Path(".")
    if not nearest.is_dir():
        raise CannotWrite(path, f"{nearest} is not a directory")
    try:
        check_writable(nearest / ".bonken-sim-check")
    except CannotWrite as exc:
        raise CannotWrite(path, exc.reason) from None


def _temp_beside(path: Path) -> tuple[int, str]:
    """A new hidden temporary file in ``path``'s directory: (open descriptor, name)."""
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise CannotWrite(path, _no_directory(parent))
    try:
        return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise CannotWrite(path, exc.strerror or str(exc)) from None


def _no_directory(parent: Path) -> str:
    """Why ``parent``, not a directory, cannot hold a file: the first of it and its ancestors
    that exists is not a directory, or it does not exist."""
    above = nearest_existing(parent)
    if above is not None and not above.is_dir():
        return f"{above} is not a directory"
    return f"directory {parent} does not exist"


def nearest_existing(path: Path) -> Path | None:
    """``path`` or the nearest of its ancestors that exists (as a link, too); None if none."""
    return next((p for p in (path, *path.parents) if os.path.lexists(p)), None)
