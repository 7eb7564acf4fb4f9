"""One game of Bonken as one explicit state: whose turn it is and of what kind, the view of
the seat to act, its legal answers, ``act`` (an answer checked and applied), and what the
finished deals and the running totals are. Every table plays through it (``match``,
``bot --check``'s positions); it is plain data and turns into JSON and back
(``to_json``/``from_json``), so a game can be saved between any two answers.

The game is ``game``'s (``_core/game.py``, docs/ENGINE.md "Games"; RULES.md §5-§6):

- game ``g`` plays the cards of board ``b`` (``b = g`` unless a duplicate match says
  otherwise): deal ``k`` (0-10) holds deal ``11·b + k`` of the seed; its dealer is
  ``D = (g + k) mod 4``, its chooser ``D + 2``, its first leader ``D + 1``;
- ``rotation`` ``r`` deals seat ``p`` the board's hand of seat ``(p + r) mod 4``, every seat
  number turned alike (a duplicate match's copies, ``table/match_game.py``);
- each deal: the chooser's contract (``choose``), one doubling pass when the game doubles
  (``double``: D+3, D, D+1, then the chooser), the card play (``play``); the deal is then
  replayed and scored by the engine (``engine.play.replay``) and settled
  (``final_p = raw_p + Σ_q m_pq (raw_p − raw_q)``);
- with ``variant`` given (``match --contracts``) every deal is played in it: no choice and
  no doubling.

Whose turn it is in the card play, and the legal cards there, come from the replay kernel
run over the deal so far with every hand known (the state is the dealer); the legal
contracts and doubles from the seat's view (``engine.legal``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonken_sim._core import replay as K
from bonken_sim._core import verdicts as V
from bonken_sim._core.ids import N_NEGATIVE
from bonken_sim._core.ids import PASS as PASS_CODE
from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView
from bonken_sim.engine.decide_game import choice_mask, may_double, rules_table
from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.engine.legal import PASS, legal, refusal
from bonken_sim.engine.play import IllegalPlay, deal_hands, replay
from bonken_sim.engine.views import deal_stream
from bonken_sim.errors import BadValue
from bonken_sim.rules.doubling import multiplicity, pass_order, settle
from bonken_sim.rules.names import (
    N_VARIANTS,
    VARIANTS,
    Variant,
    card_str,
    contract_name,
    mask_cards,
    variant_names,
)
from bonken_sim.rules.rulesets import STANDARD, Ruleset

KINDS = ("choose", "double", "play", "over")
#: a play's card as the view writes it -> the replay kernel's code
_CODES = {**{card_str(c): c for c in range(52)}, PASS: PASS_CODE}
#: plays a deal can hold: 52 cards and Domino's passes (at most three between two cards laid)
_MAX_PLAYS = 52 * 4


class Refused(BadValue):
    """An answer the state does not take: not the seat's turn's kind, not legal, or the game
    over. ``reason`` says why in one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class EngineDisagrees(RuntimeError):
    """The engine's replay refuses a deal the state played: a bug, never a player's doing
    (every answer is checked before it is applied)."""


@dataclass(frozen=True)
class Turn:
    """Whose turn it is (``seat``; -1 once the game is over) and what kind (``KINDS``)."""

    kind: str
    seat: int


@dataclass
class GameState:
    """A game in progress. Set at the start: ``seed``, ``game``, ``board``, ``rotation``,
    ``variant`` (a variant id for ``--contracts`` play, else None), ``ruleset``, ``doubling``
    (is there a doubling pass) and ``random_seats`` (the seats a random player holds, which
    card play views name). Then, as it goes: ``deal`` (0-10; 11 once over), ``open`` (the
    variant ids not played or named yet), ``had_troeven`` and ``totals`` by seat; this deal's
    ``contract`` (None before the choice), ``spoken`` (seats through the doubling pass),
    ``doubles`` said ((doubler, target)) and ``plays`` ((seat, card or "pass")); and
    ``deals``, each finished deal as {"variant", "plays", "trace"} (``trace``: the deal's
    trace record with its doubles and settled scores)."""

    seed: int
    game: int
    board: int
    rotation: int = 0
    variant: int | None = None
    ruleset: Ruleset = STANDARD
    doubling: bool = True
    random_seats: tuple[int, ...] = ()
    deal: int = 0
    open: list[int] = field(default_factory=lambda: list(range(N_VARIANTS)))
    had_troeven: list[bool] = field(default_factory=lambda: [False] * 4)
    totals: list[int] = field(default_factory=lambda: [0] * 4)
    contract: int | None = None
    spoken: int = 0
    doubles: list[tuple[int, int]] = field(default_factory=list)
    plays: list[tuple[int, str]] = field(default_factory=list)
    deals: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.names = variant_names(self.ruleset)
        self._table = rules_table(self.ruleset)
        self._rules_record = self.ruleset.to_dict()  # every trace's "ruleset"
        self._dealt_for = -1
        self._row_for = -1
        self._walked: tuple[int, int] | None = None
        self._held: list[tuple[str, ...]] = []  # the hands after ``_held_n`` plays of the deal
        self._held_n = -1
        self._held_deal = -1
        self._stake: list[list[int]] | None = None
        self._turn = (-1, 0)
        # the replay kernel's arrays, allocated once a game
        self._codes = np.zeros(_MAX_PLAYS, np.int64)
        self._scratch = (np.zeros(4, np.int64), np.zeros(4, np.int64),
                         np.full(_MAX_PLAYS, -1, np.int64),
                         np.zeros((0, K.N_RESULT_FIELDS), np.int64))  # fmt: skip

    @classmethod
    def start(cls, seed: int, game: int, ruleset: Ruleset = STANDARD, *, board: int | None = None,
              rotation: int = 0, variant: int | None = None, doubling: bool | None = None,
              random_seats: tuple[int, ...] = ()) -> GameState:  # fmt: skip
        """A new game: game ``game`` of ``seed`` on board ``board`` (default ``game``);
        ``doubling`` defaults to the ruleset's (never with a fixed ``variant``)."""
        if doubling is None:
            doubling = ruleset.doubling and variant is None
        state = cls(seed, game, game if board is None else board, rotation, variant, ruleset,
                    doubling and variant is None, tuple(random_seats))  # fmt: skip
        state.contract = variant
        return state

    # -- where the game is -------------------------------------------------------------------
    @property
    def dealer(self) -> int:
        return (self.game + self.deal) & 3

    @property
    def chooser(self) -> int:
        return (self.dealer + 2) & 3

    def turn(self) -> Turn:
        """Whose turn it is and what kind."""
        if self.deal >= DEALS_PER_GAME:
            return Turn("over", -1)
        if self.contract is None:
            return Turn("choose", self.chooser)
        if self.doubling and self.spoken < 4:
            return Turn("double", pass_order(self.dealer)[self.spoken])
        return Turn("play", self._walk()[0])

    def dealt(self) -> list[int]:
        """This deal's hands as dealt (card masks), by seat."""
        if self._dealt_for != self.deal:
            board = deal_hands(self.seed, DEALS_PER_GAME * self.board + self.deal)
            self._dealt = [int(board[(p + self.rotation) & 3]) for p in range(4)]
            self._dealt_array = np.array(self._dealt, np.uint64)
            self._dealt_for = self.deal
        return self._dealt

    def stream(self) -> int:
        """The game kernel's stream of this deal (deal ``11·board + k`` of the seed): with it
        ``decide(..., stream=)`` draws what ``game`` draws at each decision of the deal."""
        return int(deal_stream(self.seed, DEALS_PER_GAME * self.board + self.deal))

    def hand(self, seat: int) -> tuple[str, ...]:
        """The cards ``seat`` holds now."""
        return self._held_now()[seat]

    def _held_now(self) -> list[tuple[str, ...]]:
        """The four hands now, the plays since the last call taken out (asked at every
        turn: kept as the views write them)."""
        n = len(self.plays)
        if self._held_deal != self.deal or self._held_n > n:
            self._held = [tuple(card_str(c) for c in mask_cards(h)) for h in self.dealt()]
            self._held_n, self._held_deal = 0, self.deal
        for p, card in self.plays[self._held_n :]:
            if card != PASS:
                self._held[p] = tuple(c for c in self._held[p] if c != card)
        self._held_n = n
        return self._held

    def stake(self) -> list[list[int]]:
        """The directions doubled between each two seats in this deal (4 x 4)."""
        if self._stake is None:
            doubled = np.zeros((1, 4, 4), np.int64)
            for d, t in self.doubles:
                doubled[0, d, t] = 1
            self._stake = multiplicity(doubled)[0].tolist()
        return self._stake

    # -- the seat to act -----------------------------------------------------------------------
    def view(self) -> ChooseView | DoubleView | PlayView:
        """What the seat to act knows (never another seat's cards)."""
        turn = self.turn()
        names, dealer, seat = self.names, self.dealer, turn.seat
        if turn.kind == "choose":
            return ChooseView(dealer, seat, self.hand(seat), self.deal,
                              tuple(names[v] for v in self.open), self.had_troeven[seat],
                              tuple(self.totals), self.ruleset)  # fmt: skip
        assert self.contract is not None, "no view once the game is over"
        if turn.kind == "double":
            # what the chooser could choose from: the open variants before his choice
            before = sorted((*self.open, self.contract))
            had = self.had_troeven[self.chooser] and self.contract < N_NEGATIVE
            return DoubleView(dealer, seat, self.hand(seat), names[self.contract],
                              tuple(self.doubles), self.ruleset, self.deal,
                              tuple(names[v] for v in before), had)  # fmt: skip
        return PlayView(names[self.contract], dealer, seat, self.hand(seat),
                        tuple(self.plays), self.ruleset,
                        self.stake() if self.doubles else None,
                        self.random_seats)  # fmt: skip

    def legal(self) -> tuple[str, ...]:
        """The legal answers of the seat to act (``engine.legal.legal``'s form), from the
        rules functions ``legal`` calls, on what the state holds."""
        kind = self.turn().kind
        if kind == "over":
            return ()
        seat = self.turn().seat
        hand = self.dealt()[seat]
        if kind == "choose":
            neg = sum(1 << v for v in self.open if v < N_NEGATIVE)
            trump = sum(1 << (v - N_NEGATIVE) for v in self.open if v >= N_NEGATIVE)
            free = (neg, trump, not self.had_troeven[seat])
            mask = choice_mask(self.ruleset, self._table, self.deal, hand, free)
            return tuple(self.names[v] for v in range(N_VARIANTS) if mask >> v & 1)
        if kind == "double":
            assert self.contract is not None
            bits = bits_of(self.doubles)
            may = may_double(self._table, self.contract, hand, bits, seat, self.dealer)
            return tuple(str(t) for t in may)
        seat, mask = self._walk()
        if mask < 0:  # Domino with one seat left: the view's position knows the rows
            return legal(self.view())
        return tuple(card_str(c) for c in mask_cards(mask)) if mask else (PASS,)

    # -- answers -------------------------------------------------------------------------------
    def act(self, answer: Any) -> dict[str, Any] | None:
        """Apply the answer of the seat to act: a variant name (choose), the seats it doubles
        (double), a card or ``"pass"`` (play). ``Refused`` says why an answer is not taken.
        Returns the deal just finished ({"variant", "plays", "trace"}), else None."""
        turn = self.turn()
        if turn.kind == "over":
            raise Refused("the game is over: nothing more is asked")
        if not (turn.kind == "play" and self._plainly_legal(answer)):
            why = refusal(turn.kind, answer, self.legal())
            if why is not None:
                raise Refused(f"seat {turn.seat}: {why}")
        if turn.kind == "choose":
            v = self.names.index(answer)
            self.open.remove(v)
            if v >= N_NEGATIVE:
                self.had_troeven[turn.seat] = True
            self.contract = v
            return None
        if turn.kind == "double":
            self.doubles.extend((turn.seat, int(t)) for t in answer)
            self._stake = None
            self.spoken += 1
            return None
        self.plays.append((turn.seat, answer))
        if self._walk()[0] >= 0:
            return None
        return self._finish()

    def _plainly_legal(self, answer: Any) -> bool:
        """Is ``answer`` a legal card or pass here, read off the walk's legal cards (the
        refusal's reason, when not, comes from ``legal`` as for any answer)."""
        mask = self._walk()[1]
        if mask < 0 or not isinstance(answer, str) or answer not in _CODES:
            return False
        if answer == PASS:
            return mask == 0
        return bool(mask >> _CODES[answer] & 1)

    # -- card play through the replay kernel ---------------------------------------------------
    def _walk(self) -> tuple[int, int]:
        """(the seat to play, its legal cards as a mask; -1: only its view can say), the seat
        -1 once every card is laid: the replay kernel over this deal's plays so far."""
        key = (self.deal, len(self.plays))
        if self._walked == key:
            return self._turn
        assert self.contract is not None
        if self._row_for != self.contract:
            # the read-only row, as ``replay`` passes it: numba compiles the replay kernel
            # apart for a writable array, and the warm-up compiles this one
            self._row = self.ruleset.table[self.contract]
            self._row_for = self.contract
        self.dealt()
        n = len(self.plays)
        # the codes of earlier plays of this deal are in place from the last walk
        start = self._walked[1] if self._walked and self._walked[0] == self.deal else 0
        for i in range(start, n):
            self._codes[i] = _CODES[self.plays[i][1]]
        scores, tricks, seats, results = self._scratch
        verdict, _, seat, mask = K.replay(self._row, self._dealt_array.copy(), self.dealer,
                                          self._codes[:n], scores, tricks, seats[:n],
                                          results)  # fmt: skip
        if verdict not in (V.OK, V.TOO_FEW):
            raise EngineDisagrees(f"game {self.game} deal {self.deal}: replay verdict {verdict}")
        if seat < 0 and any(self._held_now()):
            # Domino once three seats are out: the replay may stop there, the table plays on
            self._turn = (next(p for p, h in enumerate(self._held_now()) if h), -1)
        else:
            self._turn = (int(seat), int(mask) if seat >= 0 else 0)
        self._walked = key
        return self._turn

    def _finish(self) -> dict[str, Any]:
        """The deal over: replayed and scored by the engine, settled, added to the totals."""
        v = self.contract
        assert v is not None
        variant = Variant(VARIANTS[v].contract, VARIANTS[v].trump)
        trace = {
            "deal": DEALS_PER_GAME * self.board + self.deal,
            "dealer": self.dealer,
            "contract": contract_name(variant, self.ruleset),
            "trump": variant.trump,
            "hands": [[card_str(c) for c in mask_cards(h)] for h in self.dealt()],
            "plays": [c for _, c in self.plays],
            "scores": None,
            "ruleset": self._rules_record,
            "game": self.game,
            "game_deal": self.deal,
            "board": self.board,
            "rotation": self.rotation,
        }
        try:
            raw = replay(trace)
        except IllegalPlay as exc:
            raise EngineDisagrees(f"game {self.game} deal {self.deal}: {exc}") from None
        trace["scores"] = raw
        final = [int(x) for x in settle(np.array([raw]), np.array([self.stake()]))[0]]
        trace.update(doubles=[list(x) for x in self.doubles], final=final)
        done = {"variant": v, "plays": [list(x) for x in self.plays], "trace": trace}
        self.deals.append(done)
        self.totals = [t + f for t, f in zip(self.totals, final, strict=True)]
        self.deal += 1
        self.contract = self.variant
        self.spoken = 0
        self.doubles = []
        self._stake = None
        self.plays = []
        return done

    # -- what the game leaves --------------------------------------------------------------------
    def traces(self) -> list[dict[str, Any]]:
        """The trace record of every finished deal, in order."""
        return [d["trace"] for d in self.deals]

    def to_json(self) -> dict[str, Any]:
        """The state as JSON-ready data (``from_json`` reads it back)."""
        return {
            "seed": self.seed,
            "game": self.game,
            "board": self.board,
            "rotation": self.rotation,
            "variant": self.variant,
            "ruleset": self.ruleset.to_dict(),
            "doubling": self.doubling,
            "random_seats": list(self.random_seats),
            "deal": self.deal,
            "open": list(self.open),
            "had_troeven": list(self.had_troeven),
            "totals": list(self.totals),
            "contract": self.contract,
            "spoken": self.spoken,
            "doubles": [list(x) for x in self.doubles],
            "plays": [list(x) for x in self.plays],
            "deals": self.deals,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameState:
        """A state from ``to_json``'s data."""
        fields = dict(data)
        fields["ruleset"] = Ruleset.from_dict(fields["ruleset"])
        fields["random_seats"] = tuple(fields["random_seats"])
        fields["doubles"] = [(int(d), int(t)) for d, t in fields["doubles"]]
        fields["plays"] = [(int(q), str(c)) for q, c in fields["plays"]]
        return cls(**fields)


def bits_of(doubles: Iterable[Sequence[int]]) -> int:
    """Doubles as the game tables' ``dbl`` column writes them: bit ``4·doubler + target``."""
    bits = 0
    for d, t in doubles:
        bits |= 1 << (4 * d + t)
    return bits
