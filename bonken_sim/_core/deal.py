"""Dealing: deal ``i`` of a seed is a pure function of (seed, i) (docs/ENGINE.md)."""

import numpy as np

from ._jit import jit
from .cards import U0, U1
from .rng import draw_below


@jit
def deal_into(s, deck, hands):
    """Fisher-Yates shuffle driven by the stream with state ``s``; writes four 13-card masks.

    ``deck`` is a caller-owned int64 scratch array of 52 entries.
    """
    for c in range(52):
        deck[c] = c
    for j in range(51, 0, -1):
        s, k = draw_below(s, j + 1)
        tmp = deck[j]
        deck[j] = deck[k]
        deck[k] = tmp
    for p in range(4):
        m = U0
        for i in range(13 * p, 13 * p + 13):
            m |= U1 << np.uint64(deck[i])
        hands[p] = m
