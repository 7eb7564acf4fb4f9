"""One game at a match table: the game state (``engine.game_state``) asks each seat's player
(``players.py``) in turn, with its view, and applies the answer; the table sends the notices
and records the faults, the traces and the game's row of the batch.

The state plays the game as ``game``'s kernel does, and every decision of a built-in seat
draws from the game kernel's stream of its deal (``GameState.stream``), so built-in seats of
every profile play exactly the games ``game`` plays; every copy of a board draws from the
board's streams.

**Seats are the table's.** Table seat ``p`` is always the match's player ``p``. A duplicate
copy of a board (rotation ``r``) deals table seat ``p`` the board's hand of seat
``(p + r) mod 4`` with every seat number turned the same way, dealer included: player ``p``
holds the board's seat ``p + r`` as ``game``'s rotation would seat it, and every table of a
match says "seat p" of the same player. A copy's game number fixes its dealer: rotation
``r`` of board ``u`` is game ``4u + ((u − r) mod 4)``, whose first dealer ``(u − r) mod 4``
is the board's first dealer ``u mod 4`` turned by ``r``.

With ``contract`` given (``match --contracts``) every deal of the game is played in that
variant: no choice and no doubling.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bonken_sim.engine.game_state import GameState, bits_of
from bonken_sim.engine.games import GameBatch
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.table.players import Builtin, Decided, Player


@dataclass(frozen=True)
class Copy:
    """One table game: its number ``game``, the ``board`` whose cards it plays (deals
    ``11·board + k`` of the seed), the ``rotation`` of the seats, and the variant every deal
    is played in (None: a whole game with choice and doubling)."""

    game: int
    board: int
    rotation: int
    variant: int | None = None


def copies(unit: int, board: int, duplicate: bool, variant: int | None = None) -> list[Copy]:
    """The table games of ``unit`` (a board, or a board in one contract), in game order:
    game ``unit`` alone, or its four rotations as games ``4·unit … 4·unit + 3`` (see the
    module's doc: game ``4u + j`` is rotation ``(u − j) mod 4``)."""
    if not duplicate:
        return [Copy(unit, board, 0, variant)]
    return [Copy(4 * unit + j, board, (unit - j) % 4, variant) for j in range(4)]


@dataclass
class Record:
    """What a played game leaves besides its row of the batch: the trace record of each
    deal and the faults, in order."""

    traces: list[dict] = field(default_factory=list)
    faults: list[dict] = field(default_factory=list)


class Table:
    """Four players (table seat p is ``players[p]``), the seed and the ruleset: plays table
    games into rows of a ``GameBatch``."""

    def __init__(self, players: Sequence[Player], seed: int, ruleset: Ruleset, doubling: bool):
        self.players = list(players)
        self.specs = [p.spec for p in players]
        self.seed = seed
        self.ruleset = ruleset
        self.doubling = doubling
        # decide notes a seat shown clean only for seats that do not play random (as the
        # play loops do): the random built-in seats, as the views tell it
        self.random_seats = tuple(
            p for p, pl in enumerate(players) if isinstance(pl, Builtin) and pl.spec == "random"
        )

    def play(self, copy: Copy, batch: GameBatch, row: int, record: Record) -> None:
        """Play table game ``copy`` into row ``row`` of ``batch``."""
        state = GameState.start(self.seed, copy.game, self.ruleset, board=copy.board,
                                rotation=copy.rotation, variant=copy.variant,
                                doubling=self.doubling, random_seats=self.random_seats)  # fmt: skip
        for p, pl in enumerate(self.players):
            self._notice(pl, P.game_start(copy.game, p, self.specs), copy, None, p, record)
        while (turn := state.turn()).kind != "over":
            view = state.view()
            got: Decided = self.players[turn.seat].decide(turn.kind, view, state.stream())
            if got.fault is not None:
                fallback = list(got.value) if turn.kind == "double" else got.value
                fault = self._fault(copy, state.deal, turn.seat, turn.kind, got.fault, fallback,
                                    P.view_to_json(view))  # fmt: skip
                record.faults.append(fault)
            done = state.act(got.value)
            if done is None:
                continue
            trace = done["trace"]
            k = trace["game_deal"]
            record.traces.append(trace)
            batch.variant[row, k] = done["variant"]
            batch.dbl[row, k] = bits_of(trace["doubles"])
            batch.raw[row, k] = trace["scores"]
            batch.final[row, k] = trace["final"]
            end = P.deal_end(copy.game, k, state.names[done["variant"]], trace["hands"],
                             [tuple(x) for x in done["plays"]], trace["scores"],
                             trace["final"], [tuple(x) for x in trace["doubles"]])  # fmt: skip
            self._notices(end, copy, k, record)
        batch.totals[row] = state.totals
        batch.profiles[row] = range(4)
        self._notices(P.game_end(copy.game, state.totals), copy, None, record)

    # -- notices and faults ------------------------------------------------------------------
    def _notices(self, msg: dict[str, Any], copy: Copy, k: int | None, record: Record) -> None:
        for p, pl in enumerate(self.players):
            self._notice(pl, msg, copy, k, p, record)

    def _notice(self, pl: Player, msg, copy: Copy, k: int | None, p: int, record: Record) -> None:
        fault = pl.notice(msg)
        if fault is not None:
            record.faults.append(self._fault(copy, k, p, msg["type"], fault, None, None))

    def _fault(self, copy: Copy, k: int | None, p: int, request: str, fault, fallback,
               view) -> dict[str, Any]:  # fmt: skip
        """A fault's row of the faults file: where, whose, what was asked and answered, and
        what was played instead (a notice has no fallback and no view)."""
        return {
            "game": copy.game,
            "deal": k,
            "board": copy.board,
            "rotation": copy.rotation,
            "seat": p,
            "player": self.specs[p],
            "kind": fault.kind,
            "request": request,
            "message": fault.message,
            "answer": fault.answer,
            "fallback": fallback,
            "view": view,
        }
