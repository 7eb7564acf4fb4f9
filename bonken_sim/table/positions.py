"""The positions ``bot --check`` puts to a player, each with its legal answers (from
``decide``'s ``legal``) and the cases it exercises.

Card play comes from real deals: every turn of deals played by random seats (so that odd
leads and discards come up), the seat's view at that turn. Contract choice walks whole
games' choices (random legal ones), doubling whole passes (random legal doubles), with
random hands. Everything is a pure function of the seed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, decide
from bonken_sim.engine.play import play
from bonken_sim.rules.names import card_str, variant_names
from bonken_sim.rules.rulesets import Ruleset

_HEART_BAN = ("hartenjagen", "hartenheer")  # the contracts heart_lead speaks of
_TRUMPS = ("troeven_C", "troeven_D", "troeven_H", "troeven_S")


@dataclass(frozen=True)
class Position:
    """One request to put to a player: its view, what may be answered (cards, ``"pass"``
    alone when the seat must pass; variants; the seats it may double) and the cases (the
    check's findings) it counts in."""

    view: PlayView | ChooseView | DoubleView
    legal: tuple[str, ...]
    cases: tuple[str, ...]

    @property
    def kind(self) -> str:
        return self.view.kind

    def allows(self, value: object) -> bool:
        """Whether an answer's value (a card, a variant, the seats doubled) is legal here."""
        if self.kind == "double":
            return isinstance(value, tuple) and all(str(t) in self.legal for t in value)
        return value in self.legal


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


def _views_of_deal(seed: int, deal: int, variant: str, rules: Ruleset) -> Iterator[PlayView]:
    """Every turn of one deal as the seat to play sees it."""
    p = play(seed, deal, variant, "random", dealer=deal % 4, ruleset=rules)
    hands = list(p.hands)
    shown: list[tuple[int, str]] = []
    for seat, card in zip(p.seats, p.plays, strict=True):
        hand = tuple(card_str(c) for c in range(52) if hands[seat] >> c & 1)
        yield PlayView(p.name, p.dealer, seat, hand, tuple(shown), rules)
        if card is not None:
            hands[seat] &= ~(1 << card)
        shown.append((seat, "pass" if card is None else card_str(card)))


def play_positions(rules: Ruleset, variants: tuple[str, ...], deals: int, seed: int):
    """Every turn of ``deals`` deals of each variant."""
    out = []
    for variant in variants:
        for deal in range(deals):
            for view in _views_of_deal(seed, deal, variant, rules):
                legal = decide(view, "basic").legal or ("pass",)
                out.append(Position(view, legal, play_cases(view, legal, rules)))
    return out


def _hands(rng: np.random.Generator) -> list[tuple[str, ...]]:
    deck = rng.permutation(52)
    return [tuple(card_str(int(c)) for c in sorted(deck[13 * s : 13 * s + 13])) for s in range(4)]


def choose_positions(rules: Ruleset, games: int, seed: int) -> list[Position]:
    """Every choice of ``games`` games, each chooser choosing a random legal contract."""
    rng = np.random.default_rng([seed, 0xC405E])
    names = variant_names(rules)
    out = []
    for _ in range(games):
        first = int(rng.integers(4))
        open_ = list(names)
        had: set[int] = set()
        for k in range(11):
            dealer = (first + k) % 4
            seat = (dealer + 2) % 4
            hand = _hands(rng)[0]
            view = ChooseView(dealer, seat, hand, k, tuple(open_), seat in had, ruleset=rules)
            legal = decide(view, "random").legal
            if seat in had:
                case = "troeven had, a negative only"
            elif k + 4 > 10:
                case = "the last turn without troeven, troeven only"
            else:
                case = "any contract open to the chooser"
            out.append(Position(view, legal, (case,)))
            chosen = legal[int(rng.integers(len(legal)))]
            if chosen.startswith("troeven_"):
                had.add(seat)
            open_.remove(chosen)
    return out


def double_positions(rules: Ruleset, deals: int, seed: int) -> list[Position]:
    """Every turn of ``deals`` doubling passes, each seat doubling a random part of what it
    may (so that the chooser is often doubled, and may double back)."""
    rng = np.random.default_rng([seed, 0xD0B1E])
    names = variant_names(rules)
    out = []
    for _ in range(deals):
        dealer = int(rng.integers(4))
        contract = names[int(rng.integers(len(names)))]
        hands = _hands(rng)
        said: list[tuple[int, int]] = []
        for step in (3, 0, 1, 2):
            seat = (dealer + step) % 4
            view = DoubleView(dealer, seat, hands[seat], contract, tuple(said), rules)
            legal = decide(view, "random").legal
            if step != 2:
                case = "a seat before the chooser"
            elif legal:
                case = "the chooser may double back only who doubled him"
            else:
                case = "the chooser, doubled by nobody, doubles nobody"
            out.append(Position(view, legal, (case,)))
            said += [(seat, int(t)) for t in legal if rng.random() < 0.5]
    return out
