"""The expert tier's determinization: a sampled deal never contradicts what the seat knows
(its hand, the cards played, each seat's hand size, the cards a seat showed it lacks)."""

from __future__ import annotations

import numpy as np
import pytest

from bonken_sim._core.cards import SUIT_MASKS
from bonken_sim._core.determinize import sample_hands, suit_exclusions
from bonken_sim._core.rng import mix64

SUITS = [int(m) for m in SUIT_MASKS]


def _position(rng: np.random.Generator, played: int) -> np.ndarray:
    """Four hands of a deal after ``played`` cards left it (as evenly as a trick leaves)."""
    deck = rng.permutation(52)
    hands = [deck[13 * p : 13 * p + 13] for p in range(4)]
    out = np.zeros(4, np.uint64)
    for p in range(4):
        keep = 13 - (played + (3 - p)) // 4
        out[p] = sum(1 << int(c) for c in hands[p][:keep])
    return out


def _shown(rng: np.random.Generator, hands: np.ndarray, me: int) -> np.ndarray:
    """Exclusions each other seat could have shown: suits it lacks (voids) and, as Domino
    passes show, some random cards it does not hold."""
    held = int(hands[0] | hands[1] | hands[2] | hands[3])
    excl = np.zeros(4, np.uint64)
    for q in range(4):
        if q == me:
            continue
        h = int(hands[q])
        ex = 0
        for s in range(4):
            if h & SUITS[s] == 0:
                ex |= SUITS[s]
        lacks = held & ~h
        for c in range(52):
            if lacks >> c & 1 and rng.random() < 0.3:
                ex |= 1 << c
        excl[q] = ex
    return excl


@pytest.mark.parametrize("played", [0, 9, 22, 35, 46])
def test_samples_keep_every_fact_the_seat_knows(played: int) -> None:
    rng = np.random.default_rng(played)
    out = np.zeros(4, np.uint64)
    fallbacks = 0
    for trial in range(300):
        hands = _position(rng, played)
        me = trial % 4
        excl = _shown(rng, hands, me)
        unseen = int(hands[0] | hands[1] | hands[2] | hands[3]) & ~int(hands[me])
        s = np.uint64(mix64(np.uint64(trial + 1000 * played)))
        sample_hands(hands, me, excl, s, out)
        assert int(out[me]) == int(hands[me])
        union = 0
        for q in range(4):
            assert bin(int(out[q])).count("1") == bin(int(hands[q])).count("1")
            assert union & int(out[q]) == 0  # no card twice
            union |= int(out[q])
            if q != me:
                assert int(out[q]) & int(excl[q]) == 0  # never a card the seat showed it lacks
                assert int(out[q]) & ~unseen == 0  # never a played card or one of mine
        assert union & ~(unseen | int(hands[me])) == 0
        fallbacks += all(int(out[q]) == int(hands[q]) for q in range(4))
    # early in a deal many deals fit what the seat knows, so the true hands come back only
    # when every try failed: rare (near the end, often the true deal is the only one that fits)
    if played < 30:
        assert fallbacks < 30


def test_samples_vary_and_follow_the_stream() -> None:
    rng = np.random.default_rng(7)
    hands = _position(rng, 10)
    excl = np.zeros(4, np.uint64)
    a = np.zeros(4, np.uint64)
    b = np.zeros(4, np.uint64)
    seen = set()
    for k in range(20):
        s = np.uint64(mix64(np.uint64(k)))
        sample_hands(hands, 1, excl, s, a)
        sample_hands(hands, 1, excl, s, b)
        assert a.tolist() == b.tolist()  # a pure function of the stream
        seen.add(tuple(a.tolist()))
    assert len(seen) == 20


def test_suit_exclusions_read_the_void_bits() -> None:
    voids = (1 << (4 * 2 + 1)) | (1 << (4 * 2 + 3)) | (1 << (4 * 0 + 0))
    assert int(suit_exclusions(voids, 2)) == SUITS[1] | SUITS[3]
    assert int(suit_exclusions(voids, 0)) == SUITS[0]
    assert int(suit_exclusions(voids, 1)) == 0
