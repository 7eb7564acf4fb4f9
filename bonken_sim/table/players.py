"""A seat's player at a match table: a built-in profile (``Builtin``) or an outside program
spoken to in the player protocol (``External``, docs/PROTOCOL.md).

Both decide through the same path: a view (``PlayView``, ``ChooseView``, ``DoubleView``) in,
the value out (a card or ``"pass"``, a variant name, the seats doubled). A built-in profile
calls ``decide`` itself. An outside program gets the view as a request and its answer is
checked; an answer that cannot stand is a **fault**, handled the same way every time:

- kinds: ``crash`` (the program exited, or its pipe closed), ``timeout`` (no whole answer
  within the time limit), ``malformed`` (not an answer to this request: ``ProtocolError``),
  ``refused`` (it answered an error: it cannot answer the request), ``illegal`` (a card not
  among the legal cards, a contract the chooser may not choose, a double the rules forbid:
  ``engine.legal.check``);
- the answer is refused: the program gets the table manager's error notice when it is still
  running (after a malformed, refused or illegal answer);
- the table plays the **fallback**, the ``basic`` profile's decision there (``decide``), and
  the match goes on; the caller records the fault (``Decided.fault``);
- after a crash or a timeout the program is killed (its process group) and started again,
  with a fresh hello and the current game's ``game_start``, before its next decision. A
  program that cannot be started (the command does not run, its hello is missing, refused
  or malformed), or that crashes or times out before answering one request after each of
  ``MAX_FAILED_STARTS`` starts in a row, stops the match: ``PlayerFailed``, one line.

Reading never blocks for ever: the program's output is read by a thread
(``table.pipe.PlayerPipe``) and each answer awaited at most the time limit.
"""

from __future__ import annotations

import contextlib
import shlex
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from bonken_sim.engine.decide import ChooseView, Decision, DoubleView, PlayView, decide
from bonken_sim.engine.games import PROFILES
from bonken_sim.engine.legal import check
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.table.pipe import CannotStart, PlayerGone, PlayerPipe, PlayerSlow, command_argv

#: how a seat names an outside program: ``cmd:COMMAND`` (split as a shell would, not run by one)
COMMAND_PREFIX = "cmd:"
#: the profile whose decision the table plays when a program's answer is refused
FALLBACK = "basic"
#: default seconds a program has for each decision
DEFAULT_TIME_LIMIT = 10.0
#: seconds a program has to answer hello (starting an interpreter and loading a model may
#: take longer than one decision; the time limit applies when it is longer)
HELLO_SECONDS = 60.0
#: starts in a row that end in a crash or a timeout before any answer: the match stops
MAX_FAILED_STARTS = 3
#: seconds a program has to exit after ``quit`` before it is killed
QUIT_SECONDS = 2.0

FAULT_KINDS = ("crash", "timeout", "malformed", "refused", "illegal")

View = PlayView | ChooseView | DoubleView


class PlayerFailed(UserFixableError):
    """An outside program that cannot be played with (it does not start, or fails every
    start): the match stops; the message is one line."""


@dataclass(frozen=True)
class Fault:
    """An answer refused: its kind (``FAULT_KINDS``), why, and what the program answered
    (the line as read, or the value; None when nothing came)."""

    kind: str
    message: str
    answer: Any = None


@dataclass(frozen=True)
class Decided:
    """A seat's decision as the table plays it: the value, and the fault when the player's
    own answer was refused (the value is then the fallback's)."""

    value: Any
    fault: Fault | None = None


def is_command(spec: str) -> bool:
    return spec.startswith(COMMAND_PREFIX)


def parse_player(spec: Any) -> str:
    """One seat's player as given: a profile name (lower case) or ``cmd:COMMAND``; BadValue
    with a one-line message otherwise."""
    text = str(spec).strip()
    if is_command(text):
        command = text[len(COMMAND_PREFIX) :].strip()
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise BadValue(f"cannot split the command of {text!r}: {exc}") from None
        if not argv:
            raise BadValue(f"{text!r} names no command (cmd:COMMAND, e.g. cmd:./my_bot)")
        return COMMAND_PREFIX + command
    name = text.lower()
    if name not in PROFILES:
        raise BadValue(
            f"unknown player {text!r} (a profile: {', '.join(PROFILES)}; or cmd:COMMAND)"
        )
    return name


def value_of(kind: str, d: Decision) -> Any:
    """The value of ``decide``'s decision for a ``kind`` request."""
    if kind == "play":
        return d.card
    if kind == "choose":
        return d.contract
    return tuple(sorted(int(q) for q in d.doubles))


class Player:
    """A seat's player. ``spec`` is how the match names it (a profile, ``cmd:...``)."""

    spec: str

    def open(self, ruleset: Ruleset) -> None:
        """Before the first game (an outside program is started on its first decision)."""

    def notice(self, msg: Mapping[str, Any]) -> Fault | None:
        """A notice without an answer (game_start, deal_end, game_end); a fault when the
        program is found dead on the way."""
        return None

    def decide(self, kind: str, view: View, seed: int) -> Decided:
        """The seat's answer to a ``kind`` request in ``view``; ``seed``: the game kernel's
        stream of the deal (``GameState.stream``), which a built-in profile draws from."""
        raise NotImplementedError

    def close(self) -> None:
        """After the last game, or when the match stops."""

    @property
    def starts(self) -> int:
        return 0


class Builtin(Player):
    """A profile of ``engine.games.PROFILES``, deciding through ``decide`` (its card tier,
    its choice and doubling policies). ``seed`` is the deal's stream: the random draws, the
    expert's samples and the searches' samples are those ``game`` draws there."""

    def __init__(self, profile: str):
        self.spec = profile

    def decide(self, kind: str, view: View, seed: int) -> Decided:
        return Decided(value_of(kind, decide(view, self.spec, stream=seed)))


class External(Player):
    """An outside program (``cmd:COMMAND``) at one seat: started on its first decision,
    spoken to in the player protocol (``table.pipe.PlayerPipe``: its output read by a
    thread, each answer awaited at most the time limit), restarted after a crash or a
    timeout.

    Writing to it never waits long: between two of its requests the table sends it at most a
    few notices (a deal's end, a game's end and start: a few kB), and a program that stops
    reading stops answering, so it is killed at its next request's time limit long before a
    pipe (64 kB) fills. ``stderr``: a file its standard error is appended to."""

    def __init__(
        self, spec: str, time_limit: float = DEFAULT_TIME_LIMIT, stderr: Path | None = None
    ):
        self.spec = spec
        self.argv = command_argv(spec)
        self.time_limit = float(time_limit)
        self.stderr_path = stderr
        self.ruleset: Ruleset | None = None
        self.pipe: PlayerPipe | None = None
        self.log: BinaryIO | None = None
        self.name = ""  # what the program calls itself in its hello
        self.next_id = 0
        self.game_notice: Mapping[str, Any] | None = None  # the current game's game_start
        self.failed_starts = 0  # starts in a row ended by a crash or timeout, no answer given
        self.answered = False  # this start has answered a request
        self._starts = 0

    @property
    def starts(self) -> int:
        return self._starts

    def open(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    # -- the process -----------------------------------------------------------------------
    def _start(self) -> None:
        """Start the program and shake hands; PlayerFailed when it cannot be played with."""
        while True:
            if self.failed_starts >= MAX_FAILED_STARTS:
                raise PlayerFailed(
                    f"{self.spec!r} crashed or timed out before answering after each of "
                    f"{MAX_FAILED_STARTS} starts in a row{self._see_log()}"
                )
            why = self._start_once()
            if why is None:
                return
            self.failed_starts += 1
            if self.failed_starts >= MAX_FAILED_STARTS:
                raise PlayerFailed(
                    f"{self.spec!r} gave no hello ({why}) after {MAX_FAILED_STARTS} starts in a "
                    f"row{self._see_log()}"
                )

    def _start_once(self) -> str | None:
        """One start and its hello: None when it answered, else why not (a crash or a
        timeout: worth another start); PlayerFailed when another start cannot help."""
        self._starts += 1
        if self.stderr_path is not None and self.log is None:
            self.stderr_path.parent.mkdir(parents=True, exist_ok=True)
            self.log = open(self.stderr_path, "ab")  # noqa: SIM115 (kept open across starts)
        if self.log is not None:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
            self.log.write(
                f"--- bonken-sim: start {self._starts} of {self.spec} at {stamp}\n".encode()
            )
            self.log.flush()
        try:
            self.pipe = PlayerPipe(self.argv, log=self.log)
        except CannotStart as exc:
            raise PlayerFailed(str(exc)) from None
        self.answered = False
        assert self.ruleset is not None
        try:
            self.pipe.send(P.encode(P.hello(self.ruleset)))
            line = self.pipe.receive(max(self.time_limit, HELLO_SECONDS))
            self.name, _ = P.hello_from_json(P.decode(line))
            if self.game_notice is not None:
                self.pipe.send(P.encode(self.game_notice))
        except (PlayerGone, PlayerSlow) as exc:
            self._stop()
            return str(exc)
        except P.ProtocolError as exc:
            self._stop()
            raise PlayerFailed(f"{self.spec!r} cannot play this match: {exc}") from None
        return None

    def _see_log(self) -> str:
        return "" if self.stderr_path is None else f"; its stderr is in {self.stderr_path}"

    def _stop(self) -> None:
        """End the program (its process group killed unless it exits at once)."""
        pipe, self.pipe = self.pipe, None
        if pipe is not None:
            pipe.stop()

    def _lost(self, kind: str, why: str) -> Fault:
        """A crash or a timeout: the program goes (started again before its next decision)."""
        if not self.answered:
            self.failed_starts += 1
        self._stop()
        return Fault(kind, why)

    def close(self) -> None:
        """``quit``, then a short wait for it to exit; ended after that."""
        if self.pipe is not None:
            with contextlib.suppress(PlayerGone):
                self.pipe.send(P.encode(P.QUIT))
            self.pipe.close_input()
            self.pipe.wait(QUIT_SECONDS)
        self._stop()
        if self.log is not None:
            self.log.close()
            self.log = None

    # -- messages --------------------------------------------------------------------------
    def notice(self, msg: Mapping[str, Any]) -> Fault | None:
        if msg.get("type") == "game_start":
            self.game_notice = msg
        elif msg.get("type") == "game_end":
            self.game_notice = None
        if self.pipe is None:
            return None  # not started yet, or lost: its next decision starts it
        try:
            self.pipe.send(P.encode(msg))
        except PlayerGone as exc:
            return self._lost("crash", f"{exc} (at the {msg.get('type')} notice)")
        return None

    def decide(self, kind: str, view: View, seed: int) -> Decided:
        value, fault = self._ask(kind, view)
        if fault is None:
            return Decided(value)
        return Decided(value_of(kind, decide(view, FALLBACK, seed)), fault)

    def _ask(self, kind: str, view: View) -> tuple[Any, Fault | None]:
        """Send the request and read the answer: (its value, None), or (None, the fault)."""
        if self.pipe is None:
            self._start()
        assert self.pipe is not None
        self.next_id += 1
        rid = self.next_id
        deadline = time.monotonic() + self.time_limit
        line = b""
        try:
            self.pipe.send(P.encode(P.request(kind, rid, view)))
            while True:
                line = self.pipe.receive(max(0.0, deadline - time.monotonic()))
                msg = P.decode(line)
                if not _stale(msg, rid):
                    break  # else an answer to an earlier request, already settled
            value, _ = P.answer_from_json(kind, msg, rid, self.ruleset)
        except PlayerGone as exc:
            return None, self._lost("crash", str(exc))
        except PlayerSlow:
            return None, self._lost("timeout", f"no answer within {self.time_limit:g} s")
        except P.ProtocolError as exc:
            self.answered, self.failed_starts = True, 0
            kind_of = "refused" if isinstance(exc, P.PlayerRefused) else "malformed"
            fault = Fault(kind_of, str(exc), _text(line))
            return None, fault if kind_of == "refused" else self._refuse(rid, fault)
        self.answered, self.failed_starts = True, 0
        why = check(view, value)
        if why is not None:
            shown = list(value) if kind == "double" else value
            return None, self._refuse(rid, Fault("illegal", why, shown))
        return value, None

    def _refuse(self, rid: int, fault: Fault) -> Fault:
        """Tell a running program its answer was refused (the TM's error notice)."""
        if self.pipe is not None:
            with contextlib.suppress(PlayerGone):
                notice = P.error(f"answer refused ({fault.kind}): {fault.message}", rid)
                self.pipe.send(P.encode(notice))
        return fault


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


def _text(line: bytes) -> str | None:
    """A line as the faults file shows it (None: nothing was read); a long one cut."""
    line = line.rstrip(b"\r\n")
    if not line:
        return None
    text = line.decode("utf-8", "replace")
    return text if len(text) <= 500 else text[:500] + "…"


def make_player(spec: str, time_limit: float, stderr: Path | None = None) -> Player:
    """The player of a seat named ``spec`` (``parse_player``'s form)."""
    if is_command(spec):
        return External(spec, time_limit, stderr)
    return Builtin(spec)
