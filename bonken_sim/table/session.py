"""One outside player program spoken to in the player protocol (docs/PROTOCOL.md): started,
greeted, asked with request ids and a time limit, stopped and started again.

The table manager's outside seat (``players.External``) and the conformance checker
(``check.Checker``) both speak to their program through a ``PlayerSession``; what a failed
answer means (a fault and the fallback, or a finding) and how often a program is started
again is each one's own. Errors are the pipe's (``CannotStart``, ``PlayerGone``,
``PlayerSlow``) and the protocol's (``ProtocolError``, ``PlayerRefused``); a program that
crashed, hung or broke its hello is stopped before the error is raised.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from bonken_sim.engine.views import Weighed
from bonken_sim.rules.rulesets import STANDARD, Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.table.pipe import PlayerGone, PlayerPipe, PlayerSlow

#: seconds a program has to answer hello (starting an interpreter and loading a model may
#: take longer than one decision; the time limit applies when it is longer)
HELLO_SECONDS = 60.0


class PlayerSession:
    """A program (``argv``) and its state across starts: the running process (None before a
    start and once stopped), the ruleset of the last hello, the last request id, the last
    line read, and the starts: ``starts`` in all, ``failed_starts`` in a row that ended in a
    crash or a timeout before any answer (a hello refused or malformed is not one: another
    start would not help). ``stderr``: a file its standard error is appended to, each start
    headed by a line naming ``label``."""

    def __init__(
        self,
        argv: Sequence[str],
        time_limit: float,
        stderr: Path | None = None,
        label: str = "",
    ) -> None:
        self.argv = list(argv)
        self.time_limit = float(time_limit)
        self.stderr_path = stderr
        self.label = label
        self.pipe: PlayerPipe | None = None
        self.log: BinaryIO | None = None
        self.ruleset: Ruleset = STANDARD
        self.next_id = 0
        self.last_line = b""
        self.starts = 0
        self.failed_starts = 0
        self.answered = False  # this start has answered a request

    @property
    def running(self) -> bool:
        return self.pipe is not None

    def start(self, ruleset: Ruleset, notices: Iterable[Mapping[str, Any]] = ()) -> tuple[str, str]:
        """Start the program afresh, greet it under ``ruleset`` and send it ``notices``: the
        (name, version) of its hello. A refused hello (``PlayerRefused``) leaves it running,
        to be told to quit."""
        self.stop()
        self.ruleset = ruleset
        self.starts += 1
        self._log_start()
        self.pipe = PlayerPipe(self.argv, log=self.log)
        self.answered = False
        try:
            self.send(P.hello(ruleset))
            name, version = P.hello_from_json(self.receive(max(self.time_limit, HELLO_SECONDS)))
            for notice in notices:
                self.send(notice)
        except P.PlayerRefused:
            raise
        except (PlayerGone, PlayerSlow):
            self.lost()
            raise
        except P.ProtocolError:
            self.stop()
            raise
        return name, version

    def _log_start(self) -> None:
        if self.stderr_path is None:
            return
        if self.log is None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self.log = open(self.stderr_path, "ab")  # noqa: SIM115 (kept open across starts)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        self.log.write(f"--- bonken-sim: start {self.starts} of {self.label} at {stamp}\n".encode())
        self.log.flush()

    def _pipe(self) -> PlayerPipe:
        if self.pipe is None:
            raise PlayerGone("the player is not running")
        return self.pipe

    def send(self, msg: Mapping[str, Any]) -> None:
        self._pipe().send(P.encode(msg))

    def send_text(self, text: str) -> None:
        """A line as it is (``text`` ends with its newline), even one that is no message."""
        self._pipe().send(text)

    def receive(self, timeout: float) -> dict[str, Any]:
        """The program's next message, awaited at most ``timeout`` seconds."""
        self.last_line = b""
        self.last_line = self._pipe().receive(timeout)
        return P.decode(self.last_line)

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def ask(
        self, kind: str, rid: int, view: P.View, skip_stale: bool = False
    ) -> tuple[Any, tuple[Weighed, ...]]:
        """The ``kind`` request ``rid`` for ``view``, its answer awaited at most the time
        limit: the value and what the program weighed. With ``skip_stale``, answers to
        earlier requests read first are passed over (a second line written for one request).
        A crash or a timeout stops the program."""
        deadline = time.monotonic() + self.time_limit
        self.last_line = b""
        try:
            self.send(P.request(kind, rid, view))
            while True:
                msg = self.receive(max(0.0, deadline - time.monotonic()))
                if not (skip_stale and _stale(msg, rid)):
                    break
            answer = P.answer_from_json(kind, msg, rid, self.ruleset)
        except PlayerGone:
            self.lost()
            raise
        except PlayerSlow:
            self.lost()
            # the limit as given, not what was left of it at the last read
            raise PlayerSlow(f"no answer within {self.time_limit:g} s") from None
        except P.ProtocolError:
            self.answered, self.failed_starts = True, 0
            raise
        self.answered, self.failed_starts = True, 0
        return answer

    def lost(self) -> None:
        """A crash or a timeout: the program is stopped (a failed start if it had answered
        nothing since it started)."""
        if not self.answered:
            self.failed_starts += 1
        self.stop()

    def end_input(self) -> None:
        """End the program's input (it should exit; ``wait`` for it)."""
        if self.pipe is not None:
            self.pipe.close_input()

    def wait(self, timeout: float) -> int | None:
        """Its exit status within ``timeout`` seconds, None if it still runs."""
        return None if self.pipe is None else self.pipe.wait(timeout)

    def stop(self) -> None:
        """End the program (its process group killed unless it exits at once)."""
        pipe, self.pipe = self.pipe, None
        if pipe is not None:
            pipe.stop()

    def close(self, quit_seconds: float) -> None:
        """``quit``, then at most ``quit_seconds`` for it to exit; ended after that."""
        if self.pipe is not None:
            with contextlib.suppress(PlayerGone):
                self.send(P.QUIT)
            self.end_input()
            self.wait(quit_seconds)
        self.stop()
        if self.log is not None:
            self.log.close()
            self.log = None


def _stale(msg: Mapping[str, Any], rid: int) -> bool:
    """An answer (or an error) to a request before ``rid``: left over from an answer
    already settled, e.g. a second line written for one request."""
    mid = msg.get("id")
    return (
        msg.get("type") in (*P.REQUESTS, "error")
        and isinstance(mid, int)
        and not isinstance(mid, bool)
        and mid < rid
    )
