"""What a seat knows at a decision (the views ``decide`` answers) and what it answers (a
``Decision``), with the checks every view shares: seats, hands, the ruleset, the contract.

A view never holds another seat's cards: a card play sees the seat's own hand and the plays
made so far; a choice, the chooser's hand and the game's state; a double, the doubler's hand,
the contract and the doubles said before it.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bonken_sim._core import rng
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import UnknownContract, Variant, card_str, parse_card, parse_hand
from bonken_sim.rules.names import parse_variant as _parse_variant
from bonken_sim.rules.rulesets import RulesError, Ruleset, as_ruleset


class BadView(BadValue):
    """A view that cannot arise in a game played by the rules; the message says why."""


@dataclass(frozen=True)
class PlayView:
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

    kind = "play"


#: the name the first card-play views had
View = PlayView


@dataclass(frozen=True)
class ChooseView:
    """What the chooser knows at his turn to choose a contract.

    ``seat`` must be the chooser, across from the dealer; ``hand`` his 13 cards; ``deal``
    the deal of the game, 0 to 10 (it sets his turns left: the last one without troeven
    must call it); ``open``: the variants still open in the game (the negatives not played
    yet, the troeven options not chosen yet; under a fixed order the ruleset's order
    decides); ``had_troeven``: whether he has chosen troeven already; ``scores``: the game's
    totals so far (the fitted choice does not read them)."""

    dealer: int
    seat: int
    hand: str | Sequence[str]
    deal: int
    open: Sequence[str]
    had_troeven: bool = False
    scores: Sequence[int] = (0, 0, 0, 0)
    ruleset: Ruleset | str | None = None

    kind = "choose"


@dataclass(frozen=True)
class DoubleView:
    """What a seat knows at its turn in the doubling pass (D+3, D, D+1, then the chooser):
    its 13 cards, the contract chosen and the doubles said before it, as (doubler,
    target). Optional, for a doubling by search (``expert``): ``deal`` (0 to 10) and
    ``open``, the variants open to the chooser before he chose (the chosen one included),
    and ``chooser_had_troeven``; with them a non-chooser's samples give the chooser only
    hands the fitted choice fits to the contract, as in a game."""

    dealer: int
    seat: int
    hand: str | Sequence[str]
    contract: str
    doubles: Sequence[tuple[int, int]] = ()
    ruleset: Ruleset | str | None = None
    deal: int | None = None
    open: Sequence[str] | None = None
    chooser_had_troeven: bool = False

    kind = "double"


VIEW_KINDS: dict[str, type] = {"play": PlayView, "choose": ChooseView, "double": DoubleView}


@dataclass(frozen=True)
class Weighed:
    """One option as the tier weighed it: ``option`` a card, a variant or a seat (``"2"``);
    ``value`` the expert's mean score of a card over its samples, a contract's expected
    score relative to its mean, or a double's estimated own score minus that seat's; ``se``
    its standard error where the tier has one (an expert card other than the tier's own
    reference card: of its difference from that card, paired on the same samples; a
    searched contract: of its mean score; a searched double: of the mean edge)."""

    option: str
    value: float
    se: float | None = None


@dataclass(frozen=True)
class Decision:
    """``card``: the card to play (``"QS"``), or ``"pass"`` where Domino forces a pass;
    ``legal``: the options the seat had (cards, variants, or the seats it may double, as
    ``"0"``-``"3"``); ``contract``: the variant chosen; ``doubles``: the seats doubled;
    ``weighed`` (with ``explain``): what the tier weighed, best first."""

    card: str | None = None
    legal: tuple[str, ...] = ()
    contract: str | None = None
    doubles: tuple[int, ...] = ()
    kind: str = "play"
    weighed: tuple[Weighed, ...] = ()


def as_view(view: Any) -> PlayView | ChooseView | DoubleView:
    """A view object, or a mapping of its fields with an optional ``"kind"`` (play, choose or
    double; play when absent) made into one."""
    if isinstance(view, PlayView | ChooseView | DoubleView):
        return view
    if not isinstance(view, Mapping):
        raise BadView(f"a view is a PlayView, ChooseView, DoubleView or a mapping, got {view!r}")
    fields = dict(view)
    kind = fields.pop("kind", "play")
    if kind not in VIEW_KINDS:
        raise BadView(f"unknown view kind {kind!r} (expected play, choose or double)")
    try:
        return VIEW_KINDS[kind](**fields)
    except TypeError as exc:
        raise BadView(f"not a {kind} view: {exc}") from None


def seat_of(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not 0 <= value <= 3:
        raise BadView(f"{what} must be a seat 0-3, got {value!r}")
    return int(value)


#: a card as ``card_str`` writes it -> its bit: a hand of such texts (every view a table
#: makes) is read in one look-up a card, before the general parsing
_BITS = {card_str(c): 1 << c for c in range(52)}


def hand_mask(hand: str | Sequence[str]) -> int:
    """A hand (one string or a list of cards) as a card mask; a card twice is an error."""
    if isinstance(hand, str):
        return parse_hand(hand)
    if not isinstance(hand, Sequence):
        raise BadView(f"a hand is a string or a list of cards, got {hand!r}")
    mask = 0
    for text in hand:
        bit = _BITS.get(text) if type(text) is str else None
        if bit is None or mask & bit:
            break  # not written as card_str writes it, or twice: the general reading says
        mask |= bit
    else:
        return mask
    mask = 0
    for text in hand:
        c = parse_card(str(text))
        if mask >> c & 1:
            raise BadView(f"card {card_str(c)} is in the hand twice")
        mask |= 1 << c
    return mask


def full_hand(hand: str | Sequence[str]) -> int:
    """A dealt hand: 13 cards."""
    mask = hand_mask(hand)
    if bin(mask).count("1") != 13:
        raise BadView(f"a dealt hand holds 13 cards, got {bin(mask).count('1')}")
    return mask


def ruleset_of(value: Ruleset | str | None) -> Ruleset:
    try:
        return as_ruleset(value)
    except RulesError as exc:
        raise BadView(str(exc)) from None


def variant_of(name: Any, rules: Ruleset) -> Variant:
    try:
        return _variant(str(name), rules)
    except (UnknownContract, ValueError) as exc:
        raise BadView(str(exc)) from None


@functools.lru_cache(maxsize=256)
def _variant(name: str, rules: Ruleset) -> Variant:
    """A contract name under a ruleset (read at every decision: kept once read)."""
    return _parse_variant(name, ruleset=rules)


def check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise BadValue(f"seed must be an integer 0 or more, got {seed!r}")
    return int(seed)


def view_stream(seed: int, *parts: int) -> np.uint64:
    """A 64-bit stream state that is a pure function of ``seed`` and the view's ``parts``
    (for the draws of random choices and an expert's samples)."""
    entropy = [int(seed) & (2**64 - 1), *(int(x) & (2**64 - 1) for x in parts)]
    return np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0]


def check_stream(stream: Any) -> np.uint64:
    """A game kernel's stream state as given to ``decide``: an integer 0 to 2**64 - 1."""
    if (
        isinstance(stream, bool)
        or not isinstance(stream, int | np.integer)
        or not 0 <= int(stream) < 2**64
    ):
        raise BadValue(f"stream must be an integer 0 to 2**64 - 1, got {stream!r}")
    return np.uint64(int(stream))


def deal_stream(seed: int, deal: int) -> np.uint64:
    """The game kernel's stream of deal ``deal`` of ``seed`` (``rng.deal_state``): the state
    its choice, its doubles and its card play draw from (docs/ENGINE.md)."""
    return np.uint64(rng.deal_state(rng.seed_key(seed), np.int64(deal)))


def play_stream(stream: np.uint64, variant: int) -> np.uint64:
    """The play stream of variant ``variant`` in the deal of stream ``stream``
    (``rng.play_state``, as ``playout.play_dealt`` derives it)."""
    return np.uint64(rng.play_state(np.uint64(stream), np.int64(variant)))


def random_draw(s_play: np.uint64, k: int, n: int) -> int:
    """Draw ``k`` of a deal's play stream scaled to [0, n): the index among its legal cards
    of the card the ``k``-th random play of the deal takes (the play loops' ``rnd``)."""
    draws = np.empty(k + 1, np.uint64)
    rng.fill_draws(np.uint64(s_play), draws)
    return int(rng.scale_draw(draws[k], np.int64(n)))
