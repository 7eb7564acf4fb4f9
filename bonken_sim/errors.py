"""The one base of every error a user can fix, and the ending of any other.

An error the user can fix (a bad value or option, a file that is missing, truncated or not
what it should be, a place that cannot be written or a disk that fills, a Dask scheduler
that cannot be reached, worker processes that died) is a ``UserFixableError``: the command
line prints its message as one line and exits with status 2. Anything else that escapes a
command is a bug in bonken-sim: the command line prints a short line naming it, writes the
whole traceback to a log file (``internal_error_log``) and exits with status 1.

The package's own error classes keep their other base (``ValueError``, ``OSError``,
``RuntimeError``) where callers catch them by it.
"""

from __future__ import annotations

import os
import tempfile
import time
import traceback
from pathlib import Path


class UserFixableError(Exception):
    """What the user can fix: printed as one line ``bonken-sim: error: ...``, exit status 2."""


class BadValue(UserFixableError, ValueError):
    """A value the user gave (an option, an argument of the API) that is not allowed."""


def log_dir() -> Path:
    """Where the tracebacks of internal errors go: ``$XDG_CACHE_HOME/bonken-sim/logs``
    (``~/.cache`` without it), beside the kernel cache."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "bonken-sim" / "logs"


def internal_error_log(exc: BaseException, argv: list[str]) -> Path | None:
    """Write the traceback of ``exc`` and the command's arguments to a new log file and
    return its path: under ``log_dir()``, or the temporary directory when that cannot be
    written; None when neither can."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    text = (
        f"bonken-sim {' '.join(argv)}\n"
        f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, pid {os.getpid()}\n\n"
        + "".join(traceback.format_exception(exc))
    )
    for folder in (log_dir(), Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(
                prefix=f"bonken-sim-error-{stamp}-", suffix=".log", dir=folder
            )
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
            return Path(name)
        except OSError:
            continue
    return None
