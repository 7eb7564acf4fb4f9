"""An outside player program on the other end of two pipes: started from its command line,
sent lines, its lines read with a time limit, stopped.

Its output is read by a thread into a queue, so a player that hangs costs a time limit, never
the reader; its stderr is read too (a player that logs much must not block on a full pipe)
and its last lines kept, to say why a player stopped, and appended to a log file when one is
given (a match keeps each seat's in its run directory).
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import BinaryIO, Literal

from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.table.protocol import MAX_LINE

#: how an outside program is named where a player is given: ``cmd:COMMAND`` (split as a shell
#: would split it, not run by one)
COMMAND_PREFIX = "cmd:"
#: seconds a player has to exit by itself once its input ends, before its group is killed
EXIT_SECONDS = 0.5
#: seconds the members of a killed player's group are awaited at most
GROUP_SECONDS = 2.0
#: how often an awaited player is looked at: has it exited?
POLL_SECONDS = 0.05
#: seconds the lines a player wrote before it exited are still awaited
LAST_LINES_SECONDS = 0.2


class CannotStart(UserFixableError):
    """The player's program cannot be started (not found, not executable)."""


class PlayerGone(Exception):
    """The player closed its output or exited; the message says how, with its last stderr
    line."""


class PlayerSlow(Exception):
    """The player did not answer within the time limit."""


def is_command(spec: str) -> bool:
    """Whether a player is given as an outside program, ``cmd:COMMAND``."""
    return str(spec).strip().startswith(COMMAND_PREFIX)


def command_argv(target: str) -> list[str]:
    """The program and arguments of a player given as ``cmd:COMMAND`` (split as a shell
    would split it, without running a shell); BadValue with a one-line message otherwise."""
    text = str(target).strip()
    if not is_command(text):
        raise BadValue(f'a player is given as "cmd:COMMAND", got {target!r}')
    try:
        argv = shlex.split(text[len(COMMAND_PREFIX) :])
    except ValueError as exc:
        raise BadValue(f"cannot split the command of {text!r}: {exc}") from None
    if not argv:
        raise BadValue(f"{text!r} names no command (cmd:COMMAND, e.g. cmd:./my_bot)")
    return argv


class PlayerPipe:
    """One running player program."""

    def __init__(self, argv: Sequence[str], log: BinaryIO | None = None) -> None:
        self.argv = list(argv)
        self.log = log  # where its stderr is appended too (None: kept in memory only)
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group: stop() ends its children too
            )
        except OSError as exc:
            why = exc.strerror or str(exc)
            raise CannotStart(f"cannot start the player {shlex.join(self.argv)!r}: {why}") from None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: collections.deque[str] = collections.deque(maxlen=5)
        self._readers = [
            threading.Thread(target=self._read_out, daemon=True),
            threading.Thread(target=self._read_err, daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read_out(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                line = out.readline(MAX_LINE + 2)
                if not line:
                    break
                rest = line
                while rest and not rest.endswith(b"\n"):  # an over-long line: its rest skipped
                    rest = out.readline(MAX_LINE)
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    def _read_err(self) -> None:
        err = self.proc.stderr
        assert err is not None
        try:
            for line in err:
                if self.log is not None:
                    self.log.write(line)
                    self.log.flush()
                text = line.decode("utf-8", "replace").strip()
                if text:
                    self._stderr.append(text[:200])
        except (OSError, ValueError):
            pass

    def send(self, text: str) -> None:
        """Write one line (``text`` ends with its newline)."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.write(text.encode("utf-8"))
            stdin.flush()
        except (OSError, ValueError):
            raise PlayerGone(self.gone("stopped reading its input")) from None

    def receive(self, timeout: float) -> bytes:
        """The player's next line, waiting at most ``timeout`` seconds."""
        line = self._next_line(time.monotonic() + timeout)
        if line is False:
            raise PlayerSlow(f"no answer within {timeout:g} s") from None
        if line is None:
            self._lines.put(None)  # every later read sees the end too
            raise PlayerGone(self.gone("closed its output"))
        return line

    def _next_line(self, deadline: float) -> bytes | None | Literal[False]:
        """The next line, None at the end of the output, False when none came by
        ``deadline``. A player that exited has ended even while a child it left holds its
        output open: what it wrote before is still read, then it is gone."""
        exited_at: float | None = None
        while True:
            now = time.monotonic()
            if exited_at is None and self.proc.poll() is not None:
                exited_at = now
            if exited_at is not None and now >= exited_at + LAST_LINES_SECONDS:
                return None
            wait = min(deadline, now + POLL_SECONDS) - now
            try:
                return self._lines.get(timeout=max(wait, 0.0))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    return False

    def gone(self, how: str) -> str:
        """How the player went: its exit status if it exited (waiting a moment for it), and
        its last line on stderr."""
        try:
            status = self.proc.wait(timeout=1.0)
            what = f"exited with status {status}"
        except subprocess.TimeoutExpired:
            what = how
        last = f" (its last stderr line: {self._stderr[-1]})" if self._stderr else ""
        return f"the player {what}{last}"

    def close_input(self) -> None:
        """End the player's input (it should exit)."""
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            stdin.close()
        except OSError:
            pass

    def wait(self, timeout: float) -> int | None:
        """The exit status within ``timeout`` seconds, None if it still runs."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self) -> None:
        """End the player whole: its input closed and a moment to exit, then its process
        group killed in any case (a child it started may hold the pipes, or outlive it
        without them) and waited for; its pipes closed once nothing reads them."""
        self.close_input()
        self.wait(EXIT_SECONDS)
        self._end_group()
        for reader in self._readers:
            reader.join(timeout=1.0)
        if not any(reader.is_alive() for reader in self._readers):
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()

    def _end_group(self) -> None:
        """SIGKILL to the player's process group (it leads its own session), the leader
        reaped, then a wait (bounded) until no member runs. The group id cannot be taken by
        another process while a member lives, so the signal never reaches a stranger."""
        group = self.proc.pid
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)
        self.proc.wait()
        deadline = time.monotonic() + GROUP_SECONDS
        while _group_lives(group) and time.monotonic() < deadline:
            time.sleep(0.01)


def _group_lives(group: int) -> bool:
    """Whether a process of ``group`` still runs: a member that is only waiting to be reaped
    (a zombie, whose parent may never reap it) does not count where /proc tells."""
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    if not os.path.isdir("/proc"):
        return True
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(os.path.join(entry.path, "stat"), encoding="ascii") as fh:
                stat = fh.read()
        except (OSError, UnicodeDecodeError):
            continue  # gone meanwhile
        state, _parent, member_group = stat[stat.rindex(")") + 2 :].split()[:3]
        if int(member_group) == group and state != "Z":
            return True
    return False
