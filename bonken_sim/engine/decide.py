"""One card-play decision from one seat's view: ``decide(view)`` gives the card the engine's
own play loops would play there (``_core/decide.py`` replays the view's public plays into
the loops' state and calls their legal-card and strategy functions).

A view holds only what the seat may know: the contract variant, the ruleset, the dealer,
the seat, its current hand and every play so far as (seat, card or ``"pass"``), and the
doubles in force (``stake``, read by the advanced tier). The loops note a seat shown to
hold no penalty card only for seats that are not random, so a view names the random seats
(``random_seats``) where there are any; without it every other seat counts as not random.

The ``expert`` tier is not offered: its search draws its samples from the deal's play
stream and, when drawing fails, falls back on the other seats' real hands, neither of
which a view holds.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonken_sim._core import decide as D
from bonken_sim._core.ids import PASS, STRAT_ADVANCED, STRAT_BASIC, STRAT_RANDOM
from bonken_sim._core.playout import kernel_table
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import (
    UnknownContract,
    card_str,
    mask_cards,
    parse_card,
    parse_hand,
    parse_variant,
)
from bonken_sim.rules.rulesets import RulesError, Ruleset, as_ruleset

#: the tiers ``decide`` plays, by name
DECIDE_STRATEGIES = {"random": STRAT_RANDOM, "basic": STRAT_BASIC, "advanced": STRAT_ADVANCED}


class BadView(BadValue):
    """A view that cannot arise in a deal played by the rules; the message says why."""


@dataclass(frozen=True)
class View:
    """What one seat knows at its turn to play a card.

    ``contract``: a variant as ``--contracts`` names it (``hartenjagen``, ``troeven_S``,
    ``domino``); ``hand``: the seat's cards now (a list of cards or one string, ``"QS TH
    2C"``); ``plays``: every play since the deal's start, in order, as (seat, card or
    ``"pass"``); ``ruleset``: a name or a ``Ruleset`` (None: standard); ``stake``: the 4 x 4
    doubles in force (``stake[p][q]`` directions doubled between p and q, 0 to 2; None: no
    doubles); ``random_seats``: the seats that play random, if any.
    """

    contract: str
    dealer: int
    seat: int
    hand: str | Sequence[str]
    plays: Sequence[tuple[int, str]] = ()
    ruleset: Ruleset | str | None = None
    stake: Sequence[Sequence[int]] | None = None
    random_seats: Iterable[int] = field(default_factory=tuple)


@dataclass(frozen=True)
class Decision:
    """``card``: the card to play (``"QS"``), or ``"pass"`` where Domino forces a pass;
    ``legal``: the seat's legal cards there."""

    card: str
    legal: tuple[str, ...]


_MESSAGES = {
    D.NOT_A_CARD: "play {i} ({card}) is not a card of a trick contract",
    D.SEEN: "play {i} ({card}) is a card already played or in the hand",
    D.WRONG_SEAT: "play {i} ({card}) is not seat {seat}'s turn",
    D.NOT_LEGAL: "play {i}: seat {seat} may not play {card} there",
    D.BAD_PASS: "play {i}: seat {seat} passes but plays a card it could have played",
    D.DEAL_OVER: "the plays end the deal at play {i}: nothing is left to decide",
    D.NOT_TO_ACT: "after the plays it is not seat {me}'s turn",
    D.HAND_SIZE: "seat {me} holds {size} cards, but 13 less the {n_own} it played is {want}",
}


def _seat(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value <= 3:
        raise BadView(f"{what} must be a seat 0-3, got {value!r}")
    return int(value)


def _hand(hand: str | Sequence[str]) -> int:
    if isinstance(hand, str):
        return parse_hand(hand)
    mask = 0
    for text in hand:
        c = parse_card(str(text))
        if mask >> c & 1:
            raise BadView(f"card {card_str(c)} is in the hand twice")
        mask |= 1 << c
    return mask


def _plays(plays: Sequence[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    seats, codes = [], []
    for i, item in enumerate(plays):
        if isinstance(item, str) or not isinstance(item, Sequence) or len(item) != 2:
            raise BadView(f"play {i} must be (seat, card), got {item!r}")
        who, card = item
        seats.append(_seat(who, f"the seat of play {i}"))
        codes.append(PASS if str(card).strip().lower() == "pass" else parse_card(str(card)))
    return np.array(seats, np.int64), np.array(codes, np.int64)


def _stake(stake: Sequence[Sequence[int]] | None) -> np.ndarray:
    if stake is None:
        return np.zeros((4, 4), np.int64)
    try:
        arr = np.array(stake, dtype=np.int64)
    except (TypeError, ValueError):
        raise BadView(f"stake must be 4 x 4 integers, got {stake!r}") from None
    if arr.shape != (4, 4) or arr.min() < 0 or arr.max() > 2 or np.any(arr != arr.T):
        raise BadView("stake must be 4 x 4, symmetric, each entry 0, 1 or 2")
    if np.any(np.diag(arr) != 0):
        raise BadView("stake must be 0 between a seat and itself")
    return arr


def _strategy(strategy: str) -> int:
    name = str(strategy).strip().lower()
    if name.startswith("expert"):
        raise BadValue(
            "decide does not play expert: its search reads more than a seat's view "
            "(choose random, basic or advanced)"
        )
    if name not in DECIDE_STRATEGIES:
        raise BadValue(f"unknown strategy {strategy!r} (expected one of: random, basic, advanced)")
    return DECIDE_STRATEGIES[name]


def decide(view: View | Mapping[str, Any], strategy: str = "basic", seed: int = 0) -> Decision:
    """The card ``strategy`` (random, basic or advanced) plays in ``view``: for basic and
    advanced exactly the engine's card in that position; for random a uniform legal card,
    the same for the same ``seed`` and view. Raises ``BadView`` (a ``BadValue``) for a
    view that cannot arise under the rules.

    >>> clubs = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    >>> decide(View("hartenjagen", dealer=3, seat=0, hand=clubs)).card
    '2C'
    """
    if not isinstance(view, View):
        try:
            view = View(**view)
        except TypeError as exc:
            raise BadView(f"not a view: {exc}") from None
    strat = _strategy(strategy)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise BadValue(f"seed must be an integer 0 or more, got {seed!r}")
    try:
        rules = as_ruleset(view.ruleset)
    except RulesError as exc:
        raise BadView(str(exc)) from None
    try:
        variant = parse_variant(str(view.contract), ruleset=rules)
    except (UnknownContract, ValueError) as exc:
        raise BadView(str(exc)) from None
    dealer, me = _seat(view.dealer, "dealer"), _seat(view.seat, "seat")
    hand = _hand(view.hand)
    seats, codes = _plays(view.plays)
    random_bits = 0
    for q in view.random_seats:
        random_bits |= 1 << _seat(q, "a random seat")
    stake = _stake(view.stake)
    verdict, index, legal, card = D.decide_card(
        kernel_table(rules.table[variant.id]), np.uint64(hand), dealer, me, codes, seats,
        strat, random_bits, stake, np.zeros(len(codes), np.uint64), np.zeros(4, np.uint64),
    )  # fmt: skip
    if verdict != D.OK:
        n_own = int(np.count_nonzero((seats == me) & (codes != PASS)))
        i = int(index)
        raise BadView(
            _MESSAGES[int(verdict)].format(
                i=i,
                card=_code_str(int(codes[i])) if i < len(codes) else "",
                seat=int(seats[i]) if i < len(seats) else -1,
                me=me,
                size=bin(hand).count("1"),
                n_own=n_own,
                want=13 - n_own,
            )
        )
    legal_cards = mask_cards(int(legal))
    if card == PASS:
        return Decision("pass", ())
    if strat == STRAT_RANDOM:
        entropy = [int(seed), variant.id, dealer, me, hand, *map(int, codes), *map(int, seats)]
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        card = legal_cards[int(rng.integers(len(legal_cards)))]
    return Decision(card_str(int(card)), tuple(card_str(c) for c in legal_cards))


def _code_str(code: int) -> str:
    return "pass" if code == PASS else card_str(code)
