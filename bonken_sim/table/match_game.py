"""One game at a match table, in Python: every contract choice, double and card asked of the
seats' players (``players.py``), each deal scored by the engine's replay of its record.

The game follows ``game``'s kernel (``_core/game.py``, docs/ENGINE.md "Games") step by step,
so that built-in ``basic`` and ``advanced`` seats play exactly the games ``game`` plays:

- game ``g`` of a board: deal ``k`` (0-10) holds the cards of deal ``11·b + k`` of the seed
  (``b`` the board; ``b = g`` without duplicates); the first dealer is ``g mod 4``, deal
  ``k``'s dealer ``D = (g + k) mod 4``, its chooser ``D + 2``, its first leader ``D + 1``;
- the chooser's options: the negatives not yet played, the trump options not yet named,
  troeven once per seat (``ChooseView``: ``open``, ``had_troeven``; ``decide`` applies the
  order, the last-turn call and the Domino restriction of the ruleset);
- one doubling pass, D+3, D, D+1, then the chooser, each seat seeing the doubles said before
  it (``DoubleView``), when the ruleset doubles;
- the card play with the stakes in force (``PlayView.stake``, read by advanced play);
- settlement ``final_p = raw_p + Σ_q m_pq (raw_p − raw_q)``, ``m_pq`` the directions doubled
  between p and q.

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

import numpy as np

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView
from bonken_sim.engine.games import DEALS_PER_GAME, GameBatch
from bonken_sim.engine.play import IllegalPlay, deal_hands, is_domino, replay, trick_winner
from bonken_sim.models.doubling import pass_order, settle
from bonken_sim.rules.names import (
    N_VARIANTS,
    VARIANTS,
    Variant,
    card_str,
    contract_name,
    mask_cards,
    variant_names,
)
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.table import protocol as P
from bonken_sim.table.players import Builtin, Decided, Player

N_NEGATIVE = sum(1 for v in VARIANTS if v.trump is None)
#: card text -> card index, and back (the views hold texts, the trick winner takes indices)
CARD_INDEX = {card_str(c): c for c in range(52)}
_PASS = P.PASS


class MatchBug(RuntimeError):
    """The table produced a deal the engine's replay refuses: a bug, never a player's doing
    (every answer is checked against ``decide``'s legal options first)."""


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
        self.names = variant_names(ruleset)
        self.variants = [Variant(v.contract, v.trump) for v in VARIANTS]
        self.domino = [is_domino(v, ruleset) for v in self.variants]
        self.contracts = [contract_name(v, ruleset) for v in self.variants]
        self.rules_record = ruleset.to_dict()
        # decide notes a seat shown clean only for seats that do not play random (as the
        # play loops do): the random built-in seats, as the views tell it
        self.random_seats = tuple(
            p for p, pl in enumerate(players) if isinstance(pl, Builtin) and pl.spec == "random"
        )

    # -- a game ------------------------------------------------------------------------------
    def play(self, copy: Copy, batch: GameBatch, row: int, record: Record) -> None:
        """Play table game ``copy`` into row ``row`` of ``batch``."""
        g, r = copy.game, copy.rotation
        for p, pl in enumerate(self.players):
            self._notice(pl, P.game_start(g, p, self.specs), copy, None, p, record)
        open_neg = list(range(N_NEGATIVE))
        open_trump = list(range(N_NEGATIVE, N_VARIANTS))
        had_troeven = [False] * 4
        totals = [0, 0, 0, 0]
        seed = self._seed(copy)
        for k in range(DEALS_PER_GAME):
            dealer = (g + k) & 3
            dealt = deal_hands(self.seed, DEALS_PER_GAME * copy.board + k)
            hands = [[card_str(c) for c in mask_cards(dealt[(p + r) & 3])] for p in range(4)]
            ctx = (copy, k)
            doubles: list[tuple[int, int]] = []
            if copy.variant is None:
                chooser = (dealer + 2) & 3
                view = ChooseView(
                    dealer=dealer,
                    seat=chooser,
                    hand=tuple(hands[chooser]),
                    deal=k,
                    open=tuple(self.names[v] for v in (*open_neg, *open_trump)),
                    had_troeven=had_troeven[chooser],
                    scores=tuple(totals),
                    ruleset=self.ruleset,
                )
                v = self.names.index(self._ask("choose", view, seed, ctx, record))
                if v < N_NEGATIVE:
                    open_neg.remove(v)
                else:
                    open_trump.remove(v)
                    had_troeven[chooser] = True
                if self.doubling:
                    doubles = self._doubling(v, dealer, hands, seed, ctx, record)
            else:
                v = copy.variant
            bits = 0
            for d, t in doubles:
                bits |= 1 << (4 * d + t)
            stake = _stake(bits)
            plays = self._cards(v, dealer, [list(h) for h in hands], stake, seed, ctx, record)
            trace = self._trace(copy, k, v, dealer, hands, plays)
            raw = self._score(trace)
            final = [int(x) for x in settle(np.array([raw]), np.array([stake]))[0]]
            trace.update(doubles=[list(x) for x in doubles], final=final)
            record.traces.append(trace)
            batch.variant[row, k] = v
            batch.dbl[row, k] = bits
            batch.raw[row, k] = raw
            batch.final[row, k] = final
            for p in range(4):
                totals[p] += final[p]
            end = P.deal_end(g, k, self.names[v], hands, plays, raw, final, doubles)
            for p, pl in enumerate(self.players):
                self._notice(pl, end, copy, k, p, record)
        batch.totals[row] = totals
        batch.profiles[row] = range(4)
        for p, pl in enumerate(self.players):
            self._notice(pl, P.game_end(g, totals), copy, None, p, record)

    def _seed(self, copy: Copy) -> int:
        """The seed of random decisions in a game: the board's (every copy of a board draws
        alike where it sees alike)."""
        return (self.seed * 1_000_003 + copy.board * 131 + (copy.variant or 0)) % (1 << 63)

    def _doubling(self, v, dealer, hands, seed, ctx, record) -> list[tuple[int, int]]:
        """One pass: D+3, D, D+1, then the chooser, each seeing the doubles said so far."""
        doubles: list[tuple[int, int]] = []
        for d in pass_order(dealer):
            view = DoubleView(
                dealer=dealer,
                seat=d,
                hand=tuple(hands[d]),
                contract=self.names[v],
                doubles=tuple(doubles),
                ruleset=self.ruleset,
            )
            for t in self._ask("double", view, seed, ctx, record):
                doubles.append((d, int(t)))
        return doubles

    def _cards(self, v, dealer, hands, stake, seed, ctx, record) -> list[tuple[int, str]]:
        """The deal's card play: every card (and Domino pass) asked of its seat."""
        name = self.names[v]
        plays: list[tuple[int, str]] = []
        stake_view = None if not any(any(row) for row in stake) else stake

        def ask(p: int) -> str:
            view = PlayView(
                contract=name,
                dealer=dealer,
                seat=p,
                hand=tuple(hands[p]),
                plays=tuple(plays),
                ruleset=self.ruleset,
                stake=stake_view,
                random_seats=self.random_seats,
            )
            card = self._ask("play", view, seed, ctx, record)
            plays.append((p, card))
            if card != _PASS:
                hands[p].remove(card)
            return card

        if self.domino[v]:
            # Domino: from the dealer's left, every seat holding cards in turn lays one or
            # passes, until the last card is laid (the play loop's and the replay's order)
            turn = (dealer + 1) & 3
            left = 52
            while left:
                if hands[turn]:
                    left -= ask(turn) != _PASS
                turn = (turn + 1) & 3
            return plays
        trump = self.variants[v].trump
        leader = (dealer + 1) & 3
        for _ in range(13):
            trick = [CARD_INDEX[ask((leader + i) & 3)] for i in range(4)]
            leader = (leader + trick_winner(trick, trump)) & 3
        return plays

    def _trace(self, copy, k, v, dealer, hands, plays) -> dict:
        """The deal's trace record (``bonken-sim trace``'s form) and where it was played."""
        return {
            "deal": DEALS_PER_GAME * copy.board + k,
            "dealer": dealer,
            "contract": self.contracts[v],
            "trump": self.variants[v].trump,
            "hands": hands,
            "plays": [c for _, c in plays],
            "scores": None,
            "ruleset": self.rules_record,
            "game": copy.game,
            "game_deal": k,
            "board": copy.board,
            "rotation": copy.rotation,
        }

    def _score(self, trace: dict) -> list[int]:
        try:
            raw = replay(trace)
        except IllegalPlay as exc:
            raise MatchBug(f"game {trace['game']} deal {trace['game_deal']}: {exc}") from None
        trace["scores"] = raw
        return raw

    # -- asking ------------------------------------------------------------------------------
    def _ask(self, kind: str, view: Any, seed: int, ctx, record: Record) -> Any:
        p = view.seat
        got: Decided = self.players[p].decide(kind, view, seed)
        if got.fault is not None:
            copy, k = ctx
            fallback = list(got.value) if kind == "double" else got.value
            record.faults.append(
                self._fault(copy, k, p, kind, got.fault, fallback, P.view_to_json(view))
            )
        return got.value

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


def _stake(bits: int) -> list[list[int]]:
    """The 4 x 4 directions doubled between seats, from the doubles' bits (4·d + t)."""
    return [
        [((bits >> (4 * p + q)) & 1) + ((bits >> (4 * q + p)) & 1) for q in range(4)]
        for p in range(4)
    ]
