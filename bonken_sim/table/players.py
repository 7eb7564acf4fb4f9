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
(``table.pipe.PlayerPipe``, spoken to through ``table.session.PlayerSession``) and each
answer awaited at most the time limit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonken_sim.engine.decide import ChooseView, Decision, DoubleView, PlayView, decide
from bonken_sim.engine.games import PROFILES, canonical_name
from bonken_sim.engine.legal import check
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.table.pipe import (
    COMMAND_PREFIX,
    CannotStart,
    PlayerGone,
    PlayerSlow,
    command_argv,
    is_command,
)
from bonken_sim.table.session import PlayerSession

#: the profile whose decision the table plays when a program's answer is refused
FALLBACK = "basic"
#: default seconds a program has for each decision
DEFAULT_TIME_LIMIT = 10.0
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


def parse_player(spec: Any) -> str:
    """One seat's player as given: a profile name (lower case) or ``cmd:COMMAND``; BadValue
    with a one-line message otherwise."""
    text = str(spec).strip()
    if is_command(text):
        command_argv(text)  # the command must split into a program and its arguments
        return COMMAND_PREFIX + text[len(COMMAND_PREFIX) :].strip()
    name = canonical_name(text)
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
    spoken to in the player protocol (``table.session.PlayerSession``: its output read by a
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
        self.session = PlayerSession(command_argv(spec), time_limit, stderr, label=spec)
        self.ruleset: Ruleset | None = None
        self.name = ""  # what the program calls itself in its hello
        self.game_notice: Mapping[str, Any] | None = None  # the current game's game_start

    @property
    def starts(self) -> int:
        return self.session.starts

    def open(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset

    # -- the process -----------------------------------------------------------------------
    def _start(self) -> None:
        """Start the program and shake hands; PlayerFailed when it cannot be played with."""
        session = self.session
        assert self.ruleset is not None
        while True:
            if session.failed_starts >= MAX_FAILED_STARTS:
                raise PlayerFailed(
                    f"{self.spec!r} crashed or timed out before answering after each of "
                    f"{MAX_FAILED_STARTS} starts in a row{self._see_log()}"
                )
            notices = [self.game_notice] if self.game_notice is not None else []
            try:
                self.name, _ = session.start(self.ruleset, notices)
                return
            except CannotStart as exc:
                raise PlayerFailed(str(exc)) from None
            except (PlayerGone, PlayerSlow) as exc:
                if session.failed_starts >= MAX_FAILED_STARTS:
                    raise PlayerFailed(
                        f"{self.spec!r} gave no hello ({exc}) after {MAX_FAILED_STARTS} starts "
                        f"in a row{self._see_log()}"
                    ) from None
            except P.ProtocolError as exc:
                session.stop()  # a refused hello leaves it running
                raise PlayerFailed(f"{self.spec!r} cannot play this match: {exc}") from None

    def _see_log(self) -> str:
        path = self.session.stderr_path
        return "" if path is None else f"; its stderr is in {path}"

    def close(self) -> None:
        """``quit``, then a short wait for it to exit; ended after that."""
        self.session.close(QUIT_SECONDS)

    # -- messages --------------------------------------------------------------------------
    def notice(self, msg: Mapping[str, Any]) -> Fault | None:
        if msg.get("type") == "game_start":
            self.game_notice = msg
        elif msg.get("type") == "game_end":
            self.game_notice = None
        if not self.session.running:
            return None  # not started yet, or lost: its next decision starts it
        try:
            self.session.send(msg)
        except PlayerGone as exc:
            self.session.lost()
            return Fault("crash", f"{exc} (at the {msg.get('type')} notice)")
        return None

    def decide(self, kind: str, view: View, seed: int) -> Decided:
        value, fault = self._ask(kind, view)
        if fault is None:
            return Decided(value)
        return Decided(value_of(kind, decide(view, FALLBACK, seed)), fault)

    def _ask(self, kind: str, view: View) -> tuple[Any, Fault | None]:
        """Send the request and read the answer: (its value, None), or (None, the fault)."""
        session = self.session
        if not session.running:
            self._start()
        rid = session.new_id()
        try:
            value, _ = session.ask(kind, rid, view, skip_stale=True)
        except PlayerGone as exc:
            return None, Fault("crash", str(exc))
        except PlayerSlow:
            return None, Fault("timeout", f"no answer within {session.time_limit:g} s")
        except P.ProtocolError as exc:
            kind_of = "refused" if isinstance(exc, P.PlayerRefused) else "malformed"
            fault = Fault(kind_of, str(exc), _text(session.last_line))
            return None, fault if kind_of == "refused" else self._refuse(rid, fault)
        why = check(view, value)
        if why is not None:
            shown = list(value) if kind == "double" else value
            return None, self._refuse(rid, Fault("illegal", why, shown))
        return value, None

    def _refuse(self, rid: int, fault: Fault) -> Fault:
        """Tell a running program its answer was refused (the TM's error notice)."""
        if self.session.running:
            with contextlib.suppress(PlayerGone):
                self.session.send(P.error(f"answer refused ({fault.kind}): {fault.message}", rid))
        return fault


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
