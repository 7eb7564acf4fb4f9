"""Scores of deals in which one seat's 13 cards are known (``bonken-sim advise``).

The known hand stays at its seat and the other 39 cards go at random to the other three
(``_core/conditional.py``); deal ``i`` is a pure function of (seed, hand, seat, i), so any
chunking or thread count gives the same scores. The same function without a hand plays the
unconditional deals of the seed, exactly as ``bonken-sim run --seed S`` deals and plays them.
"""

from __future__ import annotations

import numpy as np

from bonken_sim._core.conditional import conditional_batch, conditional_hands
from bonken_sim._core.kernels import simulate_batch
from bonken_sim._core.rng import seed_key


def deal_scores(
    seed: int,
    start: int,
    n: int,
    dealer: int,
    variants: np.ndarray,
    strategies: np.ndarray,
    table: np.ndarray,
    hand: int | None = None,
    seat: int = 0,
) -> np.ndarray:
    """Raw scores (n, len(variants), 4) int16 of deals ``start … start+n−1`` of ``seed``,
    every deal played in each of ``variants`` (ids) under the kernel ``table``.

    With ``hand`` (a 52-bit mask of 13 cards) the deals are the conditional ones in which
    ``seat`` holds it; without, the unconditional deals of the seed."""
    scores = np.empty((n, len(variants), 4), np.int16)
    if hand is not None:
        conditional_batch(
            seed_key(seed),
            np.uint64(hand),
            seat,
            start,
            dealer,
            variants,
            strategies,
            table,
            scores,
        )
    else:
        simulate_batch(
            seed_key(seed),
            start,
            dealer,
            variants,
            strategies,
            table,
            np.empty((n, 4), np.uint64),  # the hands, tricks and orders are not kept
            scores,
            np.empty((n, len(variants), 4), np.int8),
            np.empty((n, len(variants), 4), np.int8),
        )
    return scores


def warm_conditional_dealer() -> None:
    """Compile (or load from the cache) the conditional dealer on its own (deals, no play)."""
    conditional_hands(np.uint64(0), np.uint64((1 << 13) - 1), 2, 0, np.empty((1, 4), np.uint64))
