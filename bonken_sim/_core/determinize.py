"""Determinization: deals of the unseen cards consistent with what one seat knows.

At a decision the seat knows its own hand, every card played (so the unseen cards, those the
other three hold), how many cards each of them holds, and, per seat, cards that seat cannot
hold: the suits it showed out of, and in Domino the cards that were playable when it passed.
A *sample* gives every other seat a hand of its size from the unseen cards, none of them a
card it cannot hold.

The draw: the two seats with the least slack (allowed unseen cards minus cards to hold) take
uniform random subsets of what they may hold, most constrained first; the third takes the
rest, and the attempt is kept if that rest breaks none of its constraints. After
``MAX_TRIES`` failed attempts the true hands (consistent by construction) are the sample,
which measured as never or almost never (tests/core/test_determinize.py). Draws come from a
splitmix64 stream the caller keys, so a sample is a pure function of the decision.
"""

import numpy as np

from ._jit import jit
from .cards import SUIT_MASKS, U0, U1, kth_lowest, npop
from .rng import GOLDEN, mix64, scale_draw

MAX_TRIES = 64
_S32 = np.uint64(32)


@jit
def suit_exclusions(voids, q):
    """The cards seat ``q`` cannot hold by its shown voids (bit ``4 * q + suit`` of ``voids``)."""
    ex = U0
    for s in range(4):
        if (voids >> (4 * q + s)) & 1:
            ex |= SUIT_MASKS[s]
    return ex


@jit
def _pick(allowed, k, s):
    """``k`` cards drawn uniformly from ``allowed`` (at least ``k`` of them) with the stream
    state ``s``; returns (the cards, the new state)."""
    got = U0
    for _ in range(k):
        s = s + GOLDEN
        c = kth_lowest(allowed, scale_draw(mix64(s) >> _S32, npop(allowed)))
        cb = U1 << np.uint64(c)
        got |= cb
        allowed &= ~cb
    return got, s


@jit
def sample_hands(true_hands, me, excl, s, out):
    """Deal the cards of the other seats anew into ``out`` (uint64[4]; ``out[me]`` is my
    hand), each seat ``q`` keeping its hand size and holding no card of ``excl[q]``
    (uint64[4]). ``true_hands`` are the hands as they are (only their sizes, the union of
    the others' and, after every try failed, the hands themselves are read). Returns the
    stream's new state."""
    unseen = U0
    for q in range(4):
        if q != me:
            unseen |= true_hands[q]
    # The others in order of slack (fewest spare cards first): three seats, a small sort.
    a = (me + 1) & 3
    b = (me + 2) & 3
    c = (me + 3) & 3
    sa = npop(unseen & ~excl[a]) - npop(true_hands[a])
    sb = npop(unseen & ~excl[b]) - npop(true_hands[b])
    sc = npop(unseen & ~excl[c]) - npop(true_hands[c])
    if sb < sa:
        a, b, sa, sb = b, a, sb, sa
    if sc < sb:
        b, c, sb, sc = c, b, sc, sb
    if sb < sa:
        a, b, sa, sb = b, a, sb, sa
    for _ in range(MAX_TRIES):
        rest = unseen
        allowed_a = rest & ~excl[a]
        if npop(allowed_a) < npop(true_hands[a]):
            break  # cannot happen for knowledge the true hands satisfy
        ha, s = _pick(allowed_a, npop(true_hands[a]), s)
        rest &= ~ha
        allowed_b = rest & ~excl[b]
        if npop(allowed_b) < npop(true_hands[b]):
            continue
        hb, s = _pick(allowed_b, npop(true_hands[b]), s)
        rest &= ~hb
        if rest & excl[c]:
            continue
        out[me] = true_hands[me]
        out[a] = ha
        out[b] = hb
        out[c] = rest
        return s
    for q in range(4):
        out[q] = true_hands[q]
    return s
