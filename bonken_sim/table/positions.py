"""The positions ``bot --check`` puts to a player, each with its legal answers
(``engine.legal``) and the cases it exercises.

Every position is a turn of a game played through the game state (``engine.game_state``)
with random legal answers, so that odd leads, discards, choices and doubles come up: card
play, every turn of a deal of each contract; contract choice, every choice of whole games;
doubling, every turn of their doubling passes. Everything is a pure function of the seed.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView
from bonken_sim.engine.game_state import GameState
from bonken_sim.engine.legal import refusal
from bonken_sim.rules.names import parse_variant
from bonken_sim.rules.rulesets import Ruleset

View = PlayView | ChooseView | DoubleView
_HEART_BAN = ("hartenjagen", "hartenheer")  # the contracts heart_lead speaks of
_TRUMPS = ("troeven_C", "troeven_D", "troeven_H", "troeven_S")


@dataclass(frozen=True)
class Position:
    """One request to put to a player: its view, what may be answered (cards, ``"pass"``
    alone when the seat must pass; variants; the seats it may double) and the cases (the
    check's findings) it counts in."""

    view: View
    legal: tuple[str, ...]
    cases: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.view.kind

    def allows(self, value: object) -> bool:
        """Whether an answer's value (a card, a variant, the seats doubled) is legal here."""
        return refusal(self.kind, value, self.legal) is None


def _suit(card: str) -> str:
    return card[1]


def play_cases(view: PlayView, legal: tuple[str, ...], rules: Ruleset) -> tuple[str, ...]:
    """The cases of one card-play position, as the check names them."""
    contract, hand = view.contract, list(view.hand)
    cards = [c for _, c in view.plays]
    if contract == "domino":
        opening = f", rows open with the {rules.domino_open}"
        return ("Domino: a seat that cannot lay a card passes" if legal == ("pass",) else
                f"Domino: a seat that can lay a card lays one{opening}",)  # fmt: skip
    trick = cards[len(cards) - len(cards) % 4 :]
    suits = {_suit(c) for c in hand}
    if not trick:
        if contract in _HEART_BAN and "H" in suits and len(suits) > 1:
            broken = any(_suit(c) == "H" for c in cards)
            barred = rules.heart_lead == "banned" or (rules.heart_lead == "broken" and not broken)
            if barred:
                return (f"a heart lead barred in {'/'.join(_HEART_BAN)} ({rules.heart_lead})",)
            why = "hearts broken" if rules.heart_lead == "broken" else "no ban"
            return (f"a heart lead allowed in {'/'.join(_HEART_BAN)} ({why})",)
        return ("leads",)
    led = _suit(trick[0])
    trump = contract[-1] if contract in _TRUMPS else None
    if led in suits:
        if trump == led and rules.trump_play == "must-overtrump":
            return ("troeven: following a trump lead, must beat the highest trump if it can",)
        return ("follows suit",)
    if trump is not None and trump in suits:
        return (f"troeven: void in the led suit, holding trumps ({rules.trump_play})",)
    return ("void in the led suit",)


def _answer(kind: str, options: tuple[str, ...], rng: np.random.Generator) -> Any:
    """A random legal answer: each seat it may double with odds of one in three (the chooser
    of a pass is doubled in seven passes of ten, and left alone in three), else one option."""
    if kind == "double":
        return tuple(int(t) for t in options if rng.random() < 1 / 3)
    return options[int(rng.integers(len(options)))]


def _turns(
    state: GameState, kind: str, rng: np.random.Generator, one_deal: bool = False
) -> Iterator[tuple[View, tuple[str, ...]]]:
    """The seat's view and legal answers at every ``kind`` turn of ``state``'s game (of its
    first deal alone with ``one_deal``), each turn answered at random."""
    while (turn := state.turn()).kind != "over":
        options = state.legal()
        if turn.kind == kind:
            yield state.view(), options
        if state.act(_answer(turn.kind, options, rng)) is not None and one_deal:
            return


def _games(
    rules: Ruleset, seed: int, salt: int, kind: str
) -> Iterator[tuple[View, tuple[str, ...]]]:
    """The ``kind`` turns of games 0, 1, … of ``seed``."""
    rng = np.random.default_rng([seed, salt])
    for game in itertools.count():
        yield from _turns(GameState.start(seed, game, rules), kind, rng)


def play_positions(rules: Ruleset, variants: tuple[str, ...], deals: int, seed: int):
    """Every turn of ``deals`` deals of each variant."""
    rng = np.random.default_rng([seed, 0xCA4D])
    out = []
    for variant in variants:
        for deal in range(deals):
            state = GameState.start(
                seed, deal, rules, variant=parse_variant(variant, ruleset=rules).id
            )
            for view, legal in _turns(state, "play", rng, one_deal=True):
                assert isinstance(view, PlayView)
                out.append(Position(view, legal, play_cases(view, legal, rules)))
    return out


def choose_positions(rules: Ruleset, games: int, seed: int) -> list[Position]:
    """Every choice of ``games`` games, each chooser choosing a random legal contract."""
    out = []
    for view, legal in itertools.islice(_games(rules, seed, 0xC405E, "choose"), 11 * games):
        assert isinstance(view, ChooseView)
        if view.had_troeven:
            case = "troeven had, a negative only"
        elif view.deal + 4 > 10:
            case = "the last turn without troeven, troeven only"
        else:
            case = "any contract open to the chooser"
        out.append(Position(view, legal, (case,)))
    return out


def double_positions(rules: Ruleset, deals: int, seed: int) -> list[Position]:
    """Every turn of ``deals`` doubling passes, each seat doubling a random part of what it
    may (so that the chooser is often doubled, and may double back)."""
    if not rules.doubling:
        return []
    out = []
    for view, legal in itertools.islice(_games(rules, seed, 0xD0B1E, "double"), 4 * deals):
        if view.seat != (view.dealer + 2) % 4:
            case = "a seat before the chooser"
        elif legal:
            case = "the chooser may double back only who doubled him"
        else:
            case = "the chooser, doubled by nobody, doubles nobody"
        out.append(Position(view, legal, (case,)))
    return out
