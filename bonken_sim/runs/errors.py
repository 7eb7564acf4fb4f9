"""The errors of deal runs and game runs (one line each; the CLI prints them as they are)."""

from __future__ import annotations

from pathlib import Path

from bonken_sim.errors import UserFixableError


class RunError(UserFixableError, ValueError):
    """A run that cannot start or go on (bad options, unwritable directory, full disk)."""


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) during a run; the message says how to resume."""

    def __init__(self, message: str, out: Path, deals_done: int):
        super().__init__(message)
        self.message = message
        self.out = out
        self.deals_done = deals_done


class GameRunError(UserFixableError, ValueError):
    """A bad option or an unusable output directory (printed as one line)."""


class GameRunInterrupted(KeyboardInterrupt):
    """Ctrl-C (or SIGTERM) between parts: the run is incomplete and can be resumed."""
