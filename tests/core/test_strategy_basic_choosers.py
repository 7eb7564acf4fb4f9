"""The basic tier's troeven and Domino choosers, called directly, against the pure-Python
reference (tests/reference/strategies.py) on many positions. The play tests reach only the
positions basic seats make of each other; here random play and random hands reach the
rest (odd voids, every trump-play rule, every ace state), so a rewrite of a chooser for
speed must keep every choice."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bonken_sim._core import strategy_basic as B
from bonken_sim._core.ruleset import ACES_EITHER, ACES_HIGH, ACES_LOW
from tests.reference.rules import Rules, TrickDeal
from tests.reference.strategies import TrickView, basic_domino_choice, basic_troeven

ACES = {"high": ACES_HIGH, "either": ACES_EITHER, "low": ACES_LOW}


def _mask(cards) -> np.uint64:
    return np.uint64(sum(1 << c for c in cards))


def _engine_troeven(view: TrickView, trump: int) -> int:
    """The engine's basic troeven card for ``view``, by the loop's dispatch (play_tricks)."""
    seat, pos = view.seat, view.pos
    H, L, out = _mask(view.hand), _mask(view.legal), _mask(view.out)
    voids = sum(1 << (4 * p + s) for p in range(4) for s in view.known_void[p])
    if pos == 0:
        return B.troeven_lead(H, out, trump, voids, seat)
    led, wcard = view.led_suit, view.winner_card()
    later = sum(1 << p for p in view.later_seats())
    if L & _mask(c for c in range(13 * led, 13 * led + 13)):
        return B.troeven_follow(L, out, trump, voids, pos, led, wcard, later)
    return B.troeven_void(L, out, trump, voids, pos, led, wcard, later)


@pytest.mark.parametrize("trump_play", ["optional", "must-trump", "must-overtrump"])
@pytest.mark.parametrize("trump", [0, 1, 2, 3, None])
def test_troeven_choosers_match_the_reference(trump, trump_play):
    rng = random.Random(1000 * (trump or 4) + len(trump_play))
    rules = Rules(trump_play=trump_play)
    checked = 0
    for _ in range(60):
        cards = list(range(52))
        rng.shuffle(cards)
        hands = [set(cards[13 * p : 13 * p + 13]) for p in range(4)]
        deal = TrickDeal(
            contract="troeven", trump_suit=trump, hands=hands, dealer=rng.randrange(4), rules=rules
        )
        while not deal.finished:
            legal = deal.legal()
            if len(legal) > 1:
                view = TrickView.from_deal(deal)
                want = basic_troeven(view)
                got = _engine_troeven(view, -1 if trump is None else trump)
                assert got == want, (deal.hands, deal.trick, deal.known_void)
                checked += 1
            # random play reaches voids and leads basic seats never make
            deal.play(rng.choice(sorted(legal)))
    assert checked > 1500


@pytest.mark.parametrize("aces", ["high", "either", "low"])
@pytest.mark.parametrize("open_rank", [5, 6])
def test_domino_choice_matches_the_reference(aces, open_rank):
    rng = random.Random(open_rank * 10 + len(aces))
    for _ in range(3000):
        hand = set(rng.sample(range(52), rng.randint(1, 13)))
        legal = set(rng.sample(sorted(hand), rng.randint(1, min(8, len(hand)))))
        want = basic_domino_choice(hand, legal, open_rank, aces)
        got = B.domino_choice(_mask(hand), _mask(legal), open_rank, ACES[aces])
        assert got == want, (sorted(hand), sorted(legal))
