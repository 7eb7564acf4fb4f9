"""The --out file or folder of a command: its path type, refused before any work when it
cannot be written, written whole or not at all."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import click

from bonken_sim.cli.common import UserError, call_or_fail
from bonken_sim.files import CannotWrite, check_dir_writable, check_writable, write_atomic

# --- files --------------------------------------------------------------------------------


FORCE_HELP = "Replace the --out file if it exists."


class OutPath(click.Path):
    """The path type of an --out option: click.Path that refuses an empty path (``Path("")``
    is the current directory, and a deal run took it for no --out at all)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            name = param.opts[0] if param is not None and param.opts else "--out"
            raise UserError(f"{name} must not be empty")
        return super().convert(value, param, ctx)


def check_out_file(path: Path, force: bool) -> None:
    """Refuse an --out file before any work is done: a directory, an existing file (unless
    ``force``), a place that cannot be written."""
    target = path.expanduser()
    if target.is_dir():
        raise UserError(f"--out {target} is a directory")
    if target.exists() and not target.is_file():
        # a device or a FIFO: the finished file would be renamed over it (as root, over
        # /dev/null itself), so it is refused even with --force
        raise UserError(f"--out {target} is not a regular file (a device or a pipe)")
    if target.exists() and not force:
        raise UserError(f"--out {target} already exists; --force replaces it")
    try:
        check_writable(target)
    except CannotWrite as exc:
        raise UserError(f"cannot write --out {target}: {exc.reason}") from None


def check_out_dir(path: Path) -> None:
    """Refuse an --out folder before any work is done: a path that is not a directory (or
    lies below a file), a place where it cannot be made or written in."""
    target = path.expanduser()
    if target.exists() and not target.is_dir():
        raise UserError(f"--out {target} is not a directory")
    try:
        check_dir_writable(target)
    except CannotWrite as exc:
        raise UserError(f"cannot write --out {target}: {exc.reason}") from None


def write_out(path: Path, lines: Iterable[str]) -> None:
    """The --out file, written whole or not at all (``files.write_atomic``)."""
    if path.expanduser().is_dir():
        raise UserError(f"--out {path.expanduser()} is a directory")
    call_or_fail(write_atomic, path, lines)
