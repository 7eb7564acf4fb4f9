"""The player behind ``bonken-sim bot``: requests read from a stream, answered by ``decide``.

One process plays any number of games: it reads one message per line and writes one answer
per request, flushed at once. hello is answered with the protocol version (or an error when
its ruleset cannot be read); play, choose and double through ``decide`` with the profile
given; notices (and unknown messages without an id) are read and dropped; a line it cannot
read, a request it cannot answer (an unknown type, a view ``decide`` refuses) is answered
with an error and the loop goes on. ``quit`` or the end of the input ends it.
"""

from __future__ import annotations

import sys
from typing import IO, Any

import numpy as np

from bonken_sim.engine.decide import ChooseView, Decision, DoubleView, PlayView, decide
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.version import __version__

_CLUBS = ("2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC")


def request_seed(seed: int, request_id: int) -> int:
    """The seed ``decide`` gets for request ``request_id`` of a bot started with ``seed``:
    the same request of the same seed always gets the same answer, and two requests with
    the same view but different ids draw apart (a random profile)."""
    state = np.random.SeedSequence([int(seed), int(request_id)]).generate_state(1, np.uint32)
    return int(state[0])


def warm(strategy: str) -> None:
    """One decision of each kind, so that the kernels are loaded (and ``strategy`` checked,
    a ``BadValue`` if it is none) before the first request's time runs."""
    decide(PlayView("bukken", dealer=0, seat=1, hand=_CLUBS), strategy)
    decide(ChooseView(dealer=0, seat=2, hand=_CLUBS, deal=0, open=VARIANT_NAMES), strategy)
    decide(DoubleView(dealer=0, seat=3, hand=_CLUBS, contract="bukken"), strategy)


def _value(kind: str, decision: Decision) -> Any:
    if kind == "play":
        return decision.card
    if kind == "choose":
        return decision.contract
    return decision.doubles


class Bot:
    """One player's state between messages: the ruleset of the hello."""

    def __init__(self, strategy: str, seed: int = 0, explain: bool = False) -> None:
        self.strategy = strategy
        self.seed = seed
        self.explain = explain
        self.ruleset: Ruleset | None = None

    def answer(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to one message, or None for a message that gets none."""
        kind = msg["type"]
        if kind == "hello":
            try:
                self.ruleset = P.ruleset_from_hello(msg)
            except P.ProtocolError as exc:
                return P.error(f"cannot play: {exc}")
            return P.player_hello(f"bonken-sim {self.strategy}", __version__)
        if not P.needs_answer(msg):
            return None
        rid = msg["id"]
        if kind not in P.REQUESTS:
            return P.error(f"unknown request type {kind!r}", rid)
        if not isinstance(rid, int) or isinstance(rid, bool) or rid < 0:
            return P.error(f"a request id must be an integer 0 or more, got {rid!r}")
        if self.ruleset is None:
            return P.error("a request before hello (hello names the ruleset)", rid)
        try:
            view = P.view_from_json(kind, msg.get("view"), self.ruleset)
            decision = decide(view, self.strategy, request_seed(self.seed, rid), self.explain)
        except BadValue as exc:
            return P.error(str(exc), rid)
        return P.answer(kind, rid, _value(kind, decision), decision.weighed)


def _lines(inp: IO[bytes]):
    """The input's lines; a line longer than the protocol allows is given cut to its limit
    plus one byte (so that ``decode`` refuses it) and the rest of it is skipped."""
    while True:
        line = inp.readline(P.MAX_LINE + 2)
        if not line:
            return
        if len(line) > P.MAX_LINE + 1 or not line.endswith(b"\n"):
            rest = line
            while rest and not rest.endswith(b"\n"):
                rest = inp.readline(P.MAX_LINE)
        yield line


def serve(
    strategy: str,
    inp: IO[bytes],
    out: IO[bytes],
    seed: int = 0,
    explain: bool = False,
    log: IO[str] | None = None,
) -> int:
    """Answer the messages of ``inp`` on ``out`` until quit or the end of the input; 0."""
    bot = Bot(strategy, seed, explain)
    log = sys.stderr if log is None else log
    for line in _lines(inp):
        if not line.strip():
            continue
        try:
            msg = P.decode(line)
        except P.ProtocolError as exc:
            reply: dict[str, Any] | None = P.error(f"cannot read the line: {exc}")
        else:
            if msg["type"] == "quit":
                return 0
            reply = bot.answer(msg)
        if reply is None:
            continue
        if reply["type"] == "error":
            print(f"bonken-sim bot: {reply['message']}", file=log, flush=True)
        try:
            out.write(P.encode(reply).encode("ascii"))
            out.flush()
        except BrokenPipeError:  # the table manager is gone
            return 0
    return 0
