"""Quasi-symmetry for the exact solver (Kupferschmid & Helmert's reduction for Skat): a
table entry found for a position X also bounds a position Y that differs from X only in the
point classes of its cards (the same holders, suits and rank order: the same pattern
with every point class dropped).

Every play of Y is a play of X with the same trick winners, so P's score differs only by
the points of the cards P takes: by ``p_Y(c) - p_X(c)`` for each such card. Hence

    V(X) + sum of min(0, p_Y(c) - p_X(c))  <=  V(Y)  <=  V(X) + sum of max(0, p_Y(c) - p_X(c))

over the cards still in play, and the same for any bound of X. In the negative contracts
(every point is 0 or less) a position with a penalty card where X had a plain one is worth
at most X's upper bound, and one with a plain card where X had a penalty card at least X's
lower bound: the search meets these when a trick took a point card in one line and the
card beside it in another.

An entry keeps the point classes of X's cards (per suit, compressed to the cards in play as
in the rank pattern) so that the difference is counted card by card, and the relevance
vector of X's bounds (solver_partition): Y's bounds rest on the same top cards of each
suit, since a position Y' that differs from Y in the holders of the cards below them is
bounded through the X' that differs from X in the same way (the classes card by card are
Y's, so the difference is the same). Layout, four words as in the table: the key (the
pattern without point classes, tagged apart from the exact keys); class plane A and three
nibbles of the vector; the data word as ``tt_store`` writes it (bounds, work, generation),
6 more key bits where an exact entry keeps its best card; class plane B, the fourth
nibble and 8 more key bits.
"""

import numpy as np

from ._jit import jit
from .cards import U1, npop
from .solver_bounds import C_A_PTS, C_B_PTS
from .solver_table import (
    ENTRY,
    HASH_MUL,
    MUL2,
    bucket,
    data_word,
    entry_bounds,
    merged_bounds,
    merged_vectors,
    mix,
    new_slot,
    suit_pattern,
    work_log,
)

_QUASI_TAG = np.uint64(0x3C6EF372FE94F82B)  # quasi keys never meet the exact ones
_PLANE = np.uint64((1 << 52) - 1)
# The key bits beside the 64 of the first word: 6 in the data word (where an exact entry
# keeps its best card), 8 above class plane B.
CHECK_BITS = 14


@jit
def keys_and_planes(hands, rem, leader, gen, am, bm):
    """The exact keys of ``position_keys`` and, from the same per-suit words, the quasi
    key (the words without their point-class bits), its CHECK_BITS check bits and the
    class planes (per suit the classes compressed to the cards in play, 13 bits a suit)."""
    h1 = np.uint64(gen * 4 + leader + 1)
    h2 = h1
    q1 = h1 ^ _QUASI_TAG
    q2 = h1
    pa = np.uint64(0)
    pb = np.uint64(0)
    for s in range(4):
        holders, a, b = suit_pattern(hands, rem, am, bm, s)
        pa |= np.uint64(a) << np.uint64(13 * s)
        pb |= np.uint64(b) << np.uint64(13 * s)
        w = np.uint64(holders | (a << 30) | (b << 43))
        h1 = mix(h1, w, HASH_MUL)
        h2 = mix(h2, w + np.uint64(s + 1), MUL2)
        q1 = mix(q1, np.uint64(holders), HASH_MUL)
        q2 = mix(q2, np.uint64(holders) + np.uint64(s + 1), MUL2)
    return h1 | U1, h2, q1 | U1, np.int64(q2 >> np.uint64(64 - CHECK_BITS)), pa, pb


@jit
def _check_of(tt, i):
    return ((np.int64(tt[i + 2]) >> 42) & 63) | (np.int64(tt[i + 3] >> np.uint64(56)) << 6)


@jit
def quasi_find(tt, key, check):
    """The quasi entry holding ``key`` (``check``: its CHECK_BITS more bits), or -1."""
    i = bucket(tt, key)
    for j in (i, i + ENTRY):
        if tt[j] == key and _check_of(tt, j) == check:
            return j
    return np.int64(-1)


@jit
def quasi_vector(tt, i):
    """The relevance vector of X's bounds in the quasi entry at ``i``."""
    return np.int64(tt[i + 1] >> np.uint64(52)) | (
        np.int64((tt[i + 3] >> np.uint64(52)) & np.uint64(15)) << 12
    )


@jit
def quasi_bounds(tt, i, pa, pb, ctx):
    """The bounds (lo, hi) the quasi entry at ``i`` gives a position with class planes
    ``pa``, ``pb`` (as far out as "no bound" when the entry has none)."""
    pa = np.uint64(pa)
    pb = np.uint64(pb)
    lo, hi = entry_bounds(tt, i)
    xa = tt[i + 1] & _PLANE
    xb = tt[i + 3] & _PLANE
    # Each card's points there (p_X) and here (p_Y), per pair of point classes.
    a = ctx[C_A_PTS]
    b = ctx[C_B_PTS]
    xn = ~(xa | xb)
    yn = ~(pa | pb)
    neg = np.int64(0)
    pos = np.int64(0)
    for dx, mx in ((np.int64(0), xn), (a, xa), (b, xb)):
        for dy, my in ((np.int64(0), yn), (a, pa), (b, pb)):
            if dx != dy:
                k = npop(mx & my & _PLANE)
                if dy > dx:
                    pos += k * (dy - dx)
                else:
                    neg += k * (dy - dx)
    return lo + neg, hi + pos


@jit
def quasi_store(tt, key, check, lo, hi, work, gen, pa, pb, vec):
    """Store the bounds [lo, hi] (relevance vector ``vec``) of the position with class
    planes ``pa``, ``pb``: merged with the entry's when it is of the same position, in the
    place of another position's entry under the key when this cost at least as much, else
    in the bucket's slot as ``tt_store`` picks it."""
    check = np.int64(check)
    pa = np.uint64(pa)
    pb = np.uint64(pb)
    w = work_log(work)
    i = quasi_find(tt, key, check)
    if i >= 0:
        if (tt[i + 1] & _PLANE) == pa and (tt[i + 3] & _PLANE) == pb:
            lo, hi, w = merged_bounds(tt, i, lo, hi, w)
            vec = merged_vectors(quasi_vector(tt, i), vec)
        elif w < ((np.int64(tt[i + 2]) >> 48) & 63):
            return
    else:
        i = new_slot(tt, key, w, gen)
    tt[i] = key
    tt[i + 1] = pa | (np.uint64(vec & 0xFFF) << np.uint64(52))
    tt[i + 3] = pb | np.uint64((((vec >> 12) & 15) << 52) | ((check >> 6) << 56))
    tt[i + 2] = data_word(lo, hi, check & 63, w, gen)
