"""Dealing: deal ``i`` of a seed is a pure function of (seed, i) (docs/ENGINE.md)."""

import numpy as np

from ._jit import jit
from .cards import U0, U1
from .rng import GOLDEN, mix64, scale_draw

_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit
def deal_into(s, deck, hands):
    """Fisher-Yates shuffle driven by the stream with state ``s``; writes four 13-card masks.

    ``deck`` is a caller-owned int64 scratch array of 52 entries.
    """
    for c in range(52):
        deck[c] = c
    x = np.uint64(0)
    for j in range(51, 0, -1):
        if j & 1:  # j = 51, 49, ...: a fresh output; its high half first, then its low half
            s = s + GOLDEN
            x = mix64(s)
            k = scale_draw(x >> _S32, j + 1)
        else:
            k = scale_draw(x & _LOW32, j + 1)
        tmp = deck[j]
        deck[j] = deck[k]
        deck[k] = tmp
    for p in range(4):
        m = U0
        for i in range(13 * p, 13 * p + 13):
            m |= U1 << np.uint64(deck[i])
        hands[p] = m
