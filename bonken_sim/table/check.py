"""``bonken-sim bot --check "cmd:COMMAND"``: a conformance run against an outside player.

The player is started and greeted (hello under the standard ruleset), then put through the
protocol's rules (notices get no answer, an unknown request and an unreadable line get an
error) and through many positions whose legal answers ``decide`` knows: every turn of real
deals of every contract, whole games' contract choices, whole doubling passes; then the same
under the ``strict`` ruleset (heart leads once broken, must over-trump, Domino from the 7s),
which a player may refuse at hello (a skip, not a failure). Every answer must come within
the time limit, be well formed and be legal. Each finding is one line (``ok``, ``FAIL`` or
``skip``), cases of positions one line each; the run fails if any finding failed.

A player that crashes, hangs or writes an unreadable line is started again (and greeted
again) for what follows, a few times at most; past that the rest is not checked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.rules.rulesets import STANDARD, Ruleset, preset
from bonken_sim.table import protocol as P
from bonken_sim.table.pipe import PlayerGone, PlayerSlow, command_argv
from bonken_sim.table.positions import (
    Position,
    choose_positions,
    double_positions,
    play_positions,
)
from bonken_sim.table.session import PlayerSession

MAX_RESTARTS = 3  # players started again after a crash, hang or unreadable answer
STRICT_VARIANTS = ("hartenjagen", "hartenheer", "troeven_C", "troeven_D", "troeven_H",
                   "troeven_S", "domino")  # fmt: skip
NOTICES = (
    P.game_start(0, 0, ["you", "basic", "basic", "basic"]),
    P.deal_end(0, 0, "bukken", [0, 0, 0, 0], [], [0, 0, 0, 0], [0, 0, 0, 0]),
    P.game_end(0, [0, 0, 0, 0]),
    P.error("a notice of a refused answer", 0),
    {"type": "table_talk", "text": "a notice of a later protocol"},
)


@dataclass(frozen=True)
class Finding:
    """One line of the check: ``status`` ok, FAIL or skip."""

    status: str
    name: str
    detail: str

    def line(self) -> str:
        return f"{self.status:<4} {self.name}: {self.detail}"


class Aborted(Exception):
    """The player cannot be started again: the rest is not checked."""


class _Case:
    """The answers given in one case of positions."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.asked = 0
        self.wrong: list[str] = []

    def finding(self) -> Finding:
        if not self.wrong:
            return Finding("ok", self.name, f"{self.asked} answers legal")
        return Finding(
            "FAIL",
            self.name,
            f"{len(self.wrong)} of {self.asked} answers wrong; first: {self.wrong[0]}",
        )


def describe(position: Position) -> str:
    """A position in a few words, for a failure's line."""
    v: Any = position.view
    hand = " ".join(v.hand)
    if position.kind == "play":
        cards = [c for _, c in v.plays]
        trick = " ".join(cards[len(cards) - len(cards) % 4 :]) if v.contract != "domino" else ""
        so_far = f", the trick so far {trick}" if trick else ""
        laid = f", {len(cards)} plays made" if v.contract == "domino" else ""
        return f"{v.contract}, seat {v.seat} holding {hand}{so_far}{laid}"
    if position.kind == "choose":
        return (f"deal {v.deal}, seat {v.seat} holding {hand}, open {' '.join(v.open)}, "
                f"had troeven {str(v.had_troeven).lower()}")  # fmt: skip
    said = " ".join(f"{a}>{b}" for a, b in v.doubles) or "none"
    return f"{v.contract}, seat {v.seat}, doubles said {said}"


def _shown(value: Any) -> str:
    return "[" + ", ".join(map(str, value)) + "]" if isinstance(value, tuple) else str(value)


class Checker:
    """One conformance run: the player's session (started again when it must be), the
    findings so far."""

    def __init__(self, argv: list[str], time_limit: float, emit: Callable[[str], None]) -> None:
        self.session = PlayerSession(argv, time_limit)
        self.time_limit = time_limit
        self.emit = emit
        self.restarts = 0
        self.passed = 0
        self.failed = 0

    @property
    def rules(self) -> Ruleset:
        return self.session.ruleset

    # -- the player's process ------------------------------------------------------------
    def report(self, finding: Finding) -> None:
        self.emit(finding.line())
        if finding.status == "ok":
            self.passed += 1
        elif finding.status == "FAIL":
            self.failed += 1

    def greet(self, rules: Ruleset) -> tuple[str, str]:
        """Start the player and greet it under ``rules``: (``ok``, its name and version),
        (``refused``, its message) or (``FAIL``, what went wrong)."""
        try:
            name, version = self.session.start(rules)
        except P.PlayerRefused as exc:
            return "refused", str(exc)
        except (P.ProtocolError, PlayerGone, PlayerSlow) as exc:
            return "FAIL", str(exc)
        return "ok", f"{name!r} version {version!r}, protocol {P.PROTOCOL_VERSION}"

    def live(self) -> PlayerSession:
        """The player's session, started again (and greeted) if the player went."""
        if not self.session.running:
            if self.restarts >= MAX_RESTARTS:
                raise Aborted(
                    f"the player was started {MAX_RESTARTS + 1} times; not checked further"
                )
            self.restarts += 1
            status, detail = self.greet(self.rules)
            if status != "ok" or not self.session.running:
                raise Aborted(f"the player could not be started again: {detail}")
        return self.session

    def drop(self) -> None:
        """Stop the player (after a crash, a hang or an answer out of step)."""
        self.session.stop()

    def ask(self, msg: dict[str, Any]) -> dict[str, Any]:
        """Send a message that is not a request of this protocol, read its answer; a player
        that fails to answer is dropped."""
        session = self.live()
        try:
            session.send(msg)
            return session.receive(self.time_limit)
        except (P.ProtocolError, PlayerGone, PlayerSlow):
            self.drop()
            raise

    def put(self, position: Position) -> str | None:
        """Ask ``position``; what was wrong with the answer, None if nothing."""
        session = self.live()
        rid = session.new_id()
        where = f"request {rid} ({describe(position)})"
        try:
            value, _ = session.ask(position.kind, rid, position.view)
        except P.PlayerRefused as exc:
            return f"{where}: {exc}"
        except (P.ProtocolError, PlayerGone, PlayerSlow) as exc:
            self.drop()  # out of step: what it writes next may answer this request
            return f"{where}: {exc}"
        if not position.allows(value):
            legal = " ".join(position.legal) or "none"
            return f"{where}: answered {_shown(value)}, legal: {legal}"
        return None

    # -- what is checked -----------------------------------------------------------------
    def positions(self, prefix: str, positions: list[Position]) -> None:
        """Ask every position; one finding per case."""
        cases: dict[str, _Case] = {}
        try:
            for position in positions:
                wrong = self.put(position)
                for name in position.cases:
                    case = cases.setdefault(name, _Case(f"{prefix} {position.kind}: {name}"))
                    case.asked += 1
                    if wrong is not None:
                        case.wrong.append(wrong)
        finally:  # the cases asked so far, also when the player cannot be started again
            for case in cases.values():
                self.report(case.finding())

    def notices(self, position: Position) -> None:
        """Notices of every kind (one of a later protocol too) get no answer: the next line
        the player writes answers the request sent after them."""
        name = "notices get no answer"
        try:
            for msg in NOTICES:
                self.live().send(msg)
        except PlayerGone as exc:
            self.drop()
            self.report(Finding("FAIL", name, str(exc)))
            return
        wrong = self.put(position)
        kinds = ", ".join(str(m["type"]) for m in NOTICES)
        if wrong is None:
            self.report(Finding("ok", name, f"{kinds}; then a request answered"))
        else:
            self.report(Finding("FAIL", name, f"after {kinds}: {wrong}"))

    def unknown_request(self) -> None:
        """A request of a type this protocol does not have is answered with an error."""
        name = "an unknown request is answered with an error"
        rid = self.live().new_id()
        try:
            reply = self.ask({"type": "bid", "id": rid, "view": {}})
        except (P.ProtocolError, PlayerGone, PlayerSlow) as exc:
            self.report(Finding("FAIL", name, f"request {rid} (type 'bid'): {exc}"))
            return
        if reply.get("type") == "error" and reply.get("id") == rid:
            self.report(Finding("ok", name, f"request {rid} (type 'bid')"))
            return
        self.report(Finding("FAIL", name, f"request {rid} (type 'bid') answered {reply}"))
        self.drop()

    def unreadable(self, position: Position) -> None:
        """A line that is not JSON is answered with an error, and the player goes on."""
        name = "an unreadable line is answered with an error"
        try:
            session = self.live()
            session.send_text("this line is not JSON\n")
            reply = session.receive(self.time_limit)
        except (P.ProtocolError, PlayerGone, PlayerSlow) as exc:
            self.drop()
            self.report(Finding("FAIL", name, str(exc)))
            return
        if reply.get("type") != "error":
            self.drop()
            self.report(Finding("FAIL", name, f"answered {reply}"))
            return
        wrong = self.put(position)
        if wrong is None:
            self.report(Finding("ok", name, "then the next request answered"))
        else:
            self.report(Finding("FAIL", name, f"the next request: {wrong}"))

    def ending(self, by_quit: bool) -> None:
        """quit, or the end of its input, ends the player with exit status 0."""
        name = "quit ends the player" if by_quit else "the end of its input ends the player"
        session = self.live()
        try:
            if by_quit:
                session.send(P.QUIT)
            else:
                session.end_input()
        except PlayerGone:
            pass
        status = session.wait(self.time_limit)
        self.drop()
        if status == 0:
            self.report(Finding("ok", name, "exit status 0"))
        elif status is None:
            self.report(Finding("FAIL", name, f"still running after {self.time_limit:g} s"))
        else:
            self.report(Finding("FAIL", name, f"exit status {status}"))

    def run(self, deals: int, seed: int) -> None:
        status, detail = self.greet(STANDARD)
        if status != "ok":
            self.report(Finding("FAIL", "hello (standard ruleset)", detail))
            return
        self.report(Finding("ok", "hello (standard ruleset)", detail))
        plays = play_positions(STANDARD, VARIANT_NAMES, deals, seed)
        self.notices(plays[0])
        self.unknown_request()
        self.unreadable(plays[1])
        self.positions("standard", plays)
        self.positions("standard", choose_positions(STANDARD, 2 * deals, seed))
        self.positions("standard", double_positions(STANDARD, 8 * deals, seed))
        self.ending(by_quit=False)
        strict = preset("strict")
        status, detail = self.greet(strict)
        if status == "FAIL":
            self.report(Finding("FAIL", "hello (strict ruleset)", detail))
            return
        if status == "refused":
            self.report(Finding("skip", "strict ruleset", detail))
        else:
            self.report(Finding("ok", "hello (strict ruleset)", detail))
            self.positions("strict", play_positions(strict, STRICT_VARIANTS, deals, seed))
        self.ending(by_quit=True)


def run_check(
    target: str,
    time_limit: float = 10.0,
    deals: int = 2,
    seed: int = 0,
    emit: Callable[[str], None] = print,
) -> int:
    """Check the player ``target`` (``cmd:COMMAND``): one line per finding through
    ``emit``, then a summary line; 0 if every finding passed, else 1. ``deals``: deals per
    contract variant whose every turn is asked (choices and doubling passes scale with it).
    A player that cannot be started at all is a ``CannotStart`` error."""
    argv = command_argv(target)
    checker = Checker(argv, time_limit, emit)
    try:
        checker.run(deals, seed)
    except Aborted as exc:
        checker.report(Finding("FAIL", "not checked", str(exc)))
    finally:
        checker.drop()
    emit(f"{checker.passed} passed, {checker.failed} failed")
    return 1 if checker.failed else 0
