"""The game the research adapters share (OpenSpiel's ``python_bonken`` and the PettingZoo
environment): a compact position that one action id at a time moves through the deal, the
choice, the doubling pass and the card play, built to be copied often (plain ints and
lists) and stepped fast.

It holds the game's bookkeeping only (whose turn, what is open, the totals); every rule
comes from the engine: the legal contracts (``engine.decide_game.choice_mask``, the game
kernel's option functions), the seats a seat may double (``may_double``), the legal cards,
the end of a deal and its raw scores (the replay kernel through ``engine.deal_play``), the
settlement (``rules.doubling.settle``). The game is ``engine.game_state.GameState``'s
(docs/ENGINE.md "Games"): deal ``k`` has dealer ``(first_dealer + k) mod 4``, the chooser
across from him, the doubling pass D+3, D, D+1, the chooser; two differences in form:

- the cards are dealt by the caller (a chance node per card in OpenSpiel, the seed's deal
  in PettingZoo): card ``n`` of a deal goes to seat ``(D + 1 + n) mod 4``;
- the doubling pass is asked as twelve yes/no questions: each seat in pass order about the
  three others in the order seat+1, +2, +3 (``question``), forced "no" where the seat may
  not double (the chooser where he may only double back); and a Domino deal ends once three
  seats are out (RULES.md §4.5: nothing can change the scores after that).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonken_sim.engine.deal_play import PASS, is_domino, resample_deal, score_bound, walk
from bonken_sim.engine.decide_game import choice_mask, may_double, rules_table
from bonken_sim.errors import BadValue
from bonken_sim.rules.doubling import multiplicity, pass_order, settle
from bonken_sim.rules.names import N_VARIANTS, NEGATIVE_CONTRACTS, variant_names
from bonken_sim.rules.rulesets import PRESETS, Ruleset, as_ruleset

N_NEGATIVE = len(NEGATIVE_CONTRACTS)  # variant ids below it are the negatives
#: action ids: 0-51 a card (13·suit + rank), 52 a Domino pass, 53 + v variant v, then the
#: two answers to a doubling question
CHOOSE = 53
NO_DOUBLE = CHOOSE + N_VARIANTS
DOUBLE = NO_DOUBLE + 1
N_ACTIONS = DOUBLE + 1
QUESTIONS = 12
DEALS_PER_GAME = 11
#: the most passes Domino can hold: at most three between two cards laid
DOMINO_PASSES = 3 * 52
KINDS = ("deal", "choose", "double", "play", "over")


@dataclass(frozen=True)
class Setup:
    """A game's settings: the ruleset (a preset or a ``Ruleset``), ``contract`` (a variant
    name: every deal is that contract, no choice and no doubling pass; None: the whole
    game), ``deals`` (1-11; 0: 11 for a whole game, 1 for one contract), ``first_dealer``
    and, for one contract, ``doubles`` in force in every deal (bit 4·doubler + target, as
    the game tables write them; settled as any doubles)."""

    ruleset: Ruleset
    variant: int | None = None
    deals: int = 11
    first_dealer: int = 0
    doubles: int = 0
    names: tuple[str, ...] = field(init=False)
    table: np.ndarray = field(init=False, repr=False, compare=False)
    rows: tuple[np.ndarray, ...] = field(init=False, repr=False, compare=False)
    dominoes: tuple[bool, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", variant_names(self.ruleset))
        object.__setattr__(self, "table", rules_table(self.ruleset))
        # the read-only rows, as ``replay`` passes them (the warm-up compiles that build)
        object.__setattr__(self, "rows", tuple(self.ruleset.table[v] for v in range(N_VARIANTS)))
        object.__setattr__(self, "dominoes", tuple(is_domino(row) for row in self.rows))

    @property
    def doubling(self) -> bool:
        return self.variant is None and self.ruleset.doubling

    def deal_bound(self) -> int:
        """The largest settled score of one seat in one deal, in absolute value: a raw score
        within B, against each of three others a gap within B doubled at most twice."""
        b = score_bound(self.ruleset.table)
        return 7 * b if self.doubling or self.doubles else b

    def max_decisions(self) -> int:
        """The most decisions a game can ask: per deal the choice, twelve questions and 52
        cards, plus Domino's passes (once a whole game, every deal of a Domino game)."""
        per_deal = (self.variant is None) + QUESTIONS * self.doubling + 52
        variants = range(N_VARIANTS) if self.variant is None else [self.variant]
        dominoes = any(self.dominoes[v] for v in variants)
        if not dominoes:
            return self.deals * per_deal
        return self.deals * per_deal + DOMINO_PASSES * (
            self.deals if self.variant is not None else 1
        )


def make_setup(ruleset: str | Ruleset = "standard", contract: str | None = None,
               deals: int = 0, first_dealer: int = 0, doubles: int = 0) -> Setup:  # fmt: skip
    """A ``Setup`` from user values, each checked with a one-line error (``BadValue``)."""
    if isinstance(ruleset, str) and ruleset not in PRESETS:
        raise BadValue(f"unknown ruleset {ruleset!r} (expected one of: {', '.join(PRESETS)})")
    rules = as_ruleset(ruleset)
    names = variant_names(rules)
    variant = None
    if contract:
        if contract not in names:
            raise BadValue(f"unknown contract {contract!r} (expected one of: {', '.join(names)})")
        variant = names.index(contract)
    if not 0 <= deals <= DEALS_PER_GAME:
        raise BadValue(
            f"deals must be 1-11 (0: 11 for a whole game, 1 for one contract), got {deals}"
        )
    if first_dealer not in (0, 1, 2, 3):
        raise BadValue(f"first_dealer must be a seat 0-3, got {first_dealer}")
    if doubles and variant is None:
        raise BadValue("doubles are given only with one contract (a whole game doubles itself)")
    if not 0 <= doubles < 1 << 16 or doubles & _SELF:
        raise BadValue(f"doubles: bits 4·doubler + target of two different seats, got {doubles}")
    deals = deals or (DEALS_PER_GAME if variant is None else 1)
    return Setup(rules, variant, deals, first_dealer, doubles)


_SELF = sum(1 << (5 * q) for q in range(4))  # a seat doubling itself


class Position:
    """A game in progress (see the module doc). Public fields: ``k`` the deal (``deals``
    once over), ``cards`` this deal's cards dealt so far in order, ``dealt`` the hands dealt
    (masks by seat), ``open`` the variants still open (bits), ``had`` the seats that had
    troeven (bits), ``totals``, ``contract`` (-1 before the choice), ``q`` the doubling
    question next (``QUESTIONS`` once through), ``doubled`` (bit 4·doubler + target),
    ``plays`` (codes: a card or ``PASS``) with ``seats``, ``played`` (the cards each seat laid
    this deal), ``past`` (each finished deal: dealer, contract, doubled, plays, seats, dealt
    hands, settled scores) and ``turn`` (the seat to play and its legal cards)."""

    __slots__ = ("setup", "k", "cards", "dealt", "open", "had", "totals", "contract", "q",
                 "doubled", "plays", "seats", "played", "past", "turn", "options",
                 "now")  # fmt: skip

    def __init__(self, setup: Setup):
        self.setup = setup
        self.k = 0
        self.open = (1 << N_VARIANTS) - 1
        self.had = 0
        self.totals = [0, 0, 0, 0]
        self.past: list[tuple[Any, ...]] = []
        self.options: list[int] | None = None  # ``legal()``, kept until the next action
        self._new_deal()
        self.now = self._now()  # (``kind()``, ``seat()``), set after every action

    def _new_deal(self) -> None:
        self.cards: list[int] = []
        self.dealt = [0, 0, 0, 0]
        self.contract = -1 if self.setup.variant is None else self.setup.variant
        self.q = 0 if self.setup.doubling else QUESTIONS
        self.doubled = self.setup.doubles
        self.plays: list[int] = []
        self.seats: list[int] = []
        self.played = [0, 0, 0, 0]
        self.turn = (-1, 0)

    def copy(self) -> Position:
        """An independent copy (the setup shared: it never changes)."""
        new = Position.__new__(Position)
        new.setup, new.k, new.open, new.had = self.setup, self.k, self.open, self.had
        new.contract, new.q, new.doubled, new.turn = self.contract, self.q, self.doubled, self.turn
        new.cards, new.dealt, new.totals = self.cards[:], self.dealt[:], self.totals[:]
        new.plays, new.seats, new.played = self.plays[:], self.seats[:], self.played[:]
        new.past = self.past[:]  # its entries are tuples
        new.options = self.options  # never changed in place, only replaced
        new.now = self.now
        return new

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self.copy()

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    # -- where the game is -------------------------------------------------------------------
    @property
    def dealer(self) -> int:
        return (self.setup.first_dealer + self.k) & 3

    @property
    def chooser(self) -> int:
        return (self.dealer + 2) & 3

    def kind(self) -> str:
        """What is asked now: ``KINDS`` (a deal's card, a choice, a doubling question, a
        card play, or nothing once over)."""
        return self.now[0]

    def seat(self) -> int:
        """The seat to act (-1 at a deal's card or once over)."""
        return self.now[1]

    def _now(self) -> tuple[str, int]:
        kind = self._kind()
        if kind == "choose":
            return kind, self.chooser
        if kind == "double":
            return kind, self.question()[0]
        if kind == "play":
            return kind, self.turn[0]
        return kind, -1

    def _kind(self) -> str:
        if self.k >= self.setup.deals:
            return "over"
        if len(self.cards) < 52:
            return "deal"
        if self.contract < 0:
            return "choose"
        if self.q < QUESTIONS:
            return "double"
        return "play"

    def question(self) -> tuple[int, int]:
        """(the seat asked, the seat it may double) of the pending doubling question."""
        seat = _PASS_ORDER[self.dealer][self.q // 3]
        return seat, (seat + 1 + self.q % 3) & 3

    def hand(self, seat: int) -> int:
        """The cards ``seat`` holds now (a mask)."""
        return self.dealt[seat] & ~self.played[seat]

    # -- legal actions -----------------------------------------------------------------------
    def legal(self) -> list[int]:
        """The legal action ids of the seat to act, ascending (the cards still to deal at a
        deal's card; none once over). The list is kept until the next action: not to be
        changed by the caller."""
        if self.options is None:
            self.options = self._legal()
        return self.options

    def _legal(self) -> list[int]:
        kind = self.kind()
        if kind == "play":
            mask = self.turn[1]
            return bits(mask) if mask else [PASS]
        if kind == "deal":
            d = self.dealt
            return bits(((1 << 52) - 1) & ~(d[0] | d[1] | d[2] | d[3]))
        if kind == "choose":
            return [CHOOSE + v for v in bits(self.choices(self.dealt[self.chooser]))]
        if kind == "double":
            return [NO_DOUBLE, DOUBLE] if self.may_double_now() else [NO_DOUBLE]
        return []

    def choices(self, hand: int) -> int:
        """The variants (bits) the chooser holding ``hand`` may choose now."""
        neg = self.open & ((1 << N_NEGATIVE) - 1)
        trump = self.open >> N_NEGATIVE
        free = (neg, trump, not (self.had >> self.chooser) & 1)
        return choice_mask(self.setup.ruleset, self.setup.table, self.k, hand, free)

    def may_double_now(self, hand: int | None = None) -> bool:
        seat, target = self.question()
        hand = self.dealt[seat] if hand is None else hand
        may = may_double(self.setup.table, self.contract, hand, self.doubled, seat, self.dealer)
        return target in may

    # -- applying an action ------------------------------------------------------------------
    def apply(self, action: int) -> list[int] | None:
        """Apply ``action`` (legal: the caller checks); the settled scores of the deal it
        ends, else None."""
        final = self._apply(action, self.now[0])
        self.options = None
        self.now = self._now()
        return final

    def _apply(self, action: int, kind: str) -> list[int] | None:
        if kind == "deal":
            n = len(self.cards)
            self.cards.append(action)
            self.dealt[(self.dealer + 1 + n) & 3] |= 1 << action
            if n == 51 and self.contract >= 0 and self.q == QUESTIONS:
                self._step()
        elif kind == "choose":
            v = action - CHOOSE
            self.contract = v
            self.open &= ~(1 << v)
            if v >= N_NEGATIVE:
                self.had |= 1 << self.chooser
            if self.q == QUESTIONS:
                self._step()
        elif kind == "double":
            if action == DOUBLE:
                seat, target = self.question()
                self.doubled |= 1 << (4 * seat + target)
            self.q += 1
            if self.q == QUESTIONS:
                self._step()
        elif kind == "play":
            self.plays.append(action)
            self.seats.append(self.turn[0])
            if action != PASS:
                self.played[self.turn[0]] |= 1 << action
            return self._step()
        else:
            raise BadValue("the game is over: no action applies")
        return None

    def _step(self) -> list[int] | None:
        """The card play's next turn from the replay kernel; the deal settled if over."""
        seat, mask, raw = walk(self.setup.rows[self.contract], self.dealt, self.dealer,
                               self.plays)  # fmt: skip
        self.turn = (seat, mask)
        if raw is None:
            return None
        return self._settle(raw)

    def stake(self) -> np.ndarray:
        """The directions doubled between each two seats this deal (4 x 4)."""
        doubled = np.array([(self.doubled >> b) & 1 for b in range(16)], np.int64)
        return multiplicity(doubled.reshape(1, 4, 4))[0]

    def _settle(self, raw: tuple[int, ...]) -> list[int]:
        final = [int(x) for x in settle(np.array([raw]), self.stake()[None])[0]] if self.doubled \
            else list(raw)  # fmt: skip
        self.totals = [t + f for t, f in zip(self.totals, final, strict=True)]
        self.past.append((self.dealer, self.contract, self.doubled, tuple(self.plays),
                          tuple(self.seats), tuple(self.dealt), tuple(final)))  # fmt: skip
        self.k += 1
        self._new_deal()
        return final

    # -- resampling --------------------------------------------------------------------------
    def resample(self, me: int, stream: int) -> list[int]:
        """This deal's hands as seat ``me`` may believe them dealt (``engine.deal_play``'s
        sampler, kept only where the choice and every doubling answer are legal again)."""
        row = self.setup.rows[self.contract] if self.contract >= 0 else self.setup.rows[0]
        return resample_deal(row, self.dealt, self.dealer, self.plays, me, stream, self._fits)

    def _fits(self, deal: list[int]) -> bool:
        """Could the choice and the doubling answers so far be given with hands ``deal``?"""
        if self.setup.variant is not None or self.contract < 0:
            return True
        trial = self.copy()
        trial.dealt = deal
        trial.open |= 1 << self.contract
        if self.contract >= N_NEGATIVE:  # his troeven is this one
            trial.had &= ~(1 << self.chooser)
        if not (trial.choices(deal[self.chooser]) >> self.contract) & 1:
            return False
        for q in range(self.q):
            trial.q = q
            seat, target = trial.question()
            if (self.doubled >> (4 * seat + target)) & 1 and not trial.may_double_now(deal[seat]):
                return False
        return True


_PASS_ORDER = [pass_order(d) for d in range(4)]
#: the set bits of each 13-bit value, one table per suit (``_bits`` reads four, no loop)
_SUIT_BITS = [[[13 * s + r for r in range(13) if m >> r & 1] for m in range(1 << 13)]
              for s in range(4)]  # fmt: skip


def bits(mask: int) -> list[int]:
    """The set bits of a card mask (or any mask below 2**52), ascending."""
    c, d, h, s = _SUIT_BITS
    return c[mask & 8191] + d[mask >> 13 & 8191] + h[mask >> 26 & 8191] + s[mask >> 39 & 8191]


def slots_of(dealer: int, hands: list[int]) -> list[int]:
    """A deal's cards in the order ``Position`` deals them: card ``n`` to seat
    ``(dealer + 1 + n) mod 4``, each seat's cards ascending."""
    by_seat = [bits(h) for h in hands]
    return [by_seat[(dealer + 1 + n) & 3][n // 4] for n in range(52)]
