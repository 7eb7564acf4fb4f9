"""Partition search for the exact solver: table entries that stand for a set of positions.

A bound found by searching a position X at a trick's beginning holds for every position
that differs from X only in how the low cards of each suit are spread over the seats, when
no low card's rank decided anything in the search below X. The search collects the cards
whose rank mattered (``relevant`` cards, a card mask per stack frame):

- the winner of every trick that beat another card of its suit (a lower card of its suit
  could have lost that trick);
- the cards a bound compared, where a bound decided a position (the sure duck compares
  every card of every suit P holds; the other rank bounds are taken to depend on every
  card), and the relevant cards of a table entry that decided one;
- the equivalent cards searched once through the highest of them (a lower card of the run
  counts as relevant when the card searched for it is).

Per suit the cards from the highest down to the lowest relevant card are kept exactly (holder
and point class, as in the rank pattern); the cards below it only as a count per holder. The
point cards are always relevant (their points must stay where they are). A position Y with
the same exact part and the same counts is answered by the same proof: every play of Y maps
to a play of X with the same trick winners and points, a low card of Y to one of X of the
same hand and suit that the search tried (the holder's counts of low cards stay equal), so
the bound holds for Y. (Ginsberg's partition search; DDS keeps the "winning ranks" the same
way.)

Such an entry is stored under the key of that set (``general_keys``, per suit the exact part
and the counts), and the relevance vector (per suit how many top cards are exact) is listed
under the position's counts per seat and suit (``counts_keys``), so that a later position
with the same counts tries the keys of the vectors listed there. An entry whose every suit's
low cards are of one holder stands for its pattern alone and stays under the exact key;
a set entry is stored there too (a list keeps only the newest seven vectors).
"""

import numpy as np

from ._jit import jit
from .cards import SUIT13, SUIT_MASKS, U0, U1, below, highest, lowest, npop
from .solver_bounds import C_DUCKS, C_SEAT, points_bounds
from .solver_table import HASH_MUL, MUL2, compress13, mix

ALL_EXACT = 15  # a suit's nibble in a relevance vector: every card of the suit exact
NO_VECTOR = np.int64(0xFFFF)  # every suit exact: the plain rank pattern
_GEN_TAG = np.uint64(0x5851F42D4C957F2D)  # general keys never meet the exact ones
_COUNT_TAG = np.uint64(0x2545F4914F6CDD1D)


@jit
def suits_rel(hands, P):
    """The cards a sure duck of P (can_duck_all, ducks_trick_and_rest) compares: every card
    of every suit P holds (in a suit P is void in, the duck holds whatever the ranks)."""
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    r = U0
    for s in range(4):
        if hands[P] & SUIT_MASKS[s]:
            r |= rem & SUIT_MASKS[s]
    return r


@jit
def bounds_rel(hands, rem, lo, hi, ctx):
    """The cards the bounds (lo, hi) of position_bounds compared: none when they are the
    points still in play (point cards are always relevant); in a negative contract, the
    sure duck's cards when they are 0 exactly, else P's lowest card of each suit (whether
    P must win its own lead, or an opponent's lead forces P, depends on who holds a card
    below it, which the counts below a relevant card keep); else every card."""
    plo, phi = points_bounds(rem, ctx)
    if lo == plo and hi == phi:
        return U0
    P = ctx[C_SEAT]
    if not ctx[C_DUCKS]:
        return rem
    if lo == 0 and hi == 0:
        return suits_rel(hands, P)
    r = U0
    for s in range(4):
        pm = hands[P] & SUIT_MASKS[s]
        if pm != U0:
            r |= U1 << np.uint64(lowest(pm))
    return r


@jit
def last_trick_rel(hands, leader):
    """The last trick's winner when it beat another card of its suit."""
    w = lowest(hands[leader])
    beaten = False
    for k in range(1, 4):
        c = lowest(hands[(leader + k) & 3])
        if c // 13 == w // 13:
            beaten = True
            w = max(w, c)
    return (U1 << np.uint64(w)) if beaten else U0


@jit
def trick_rel(trick, led, wcard):
    """The winner of a completed trick when it beat another card of its suit."""
    if (trick & SUIT_MASKS[led] & ~(U1 << np.uint64(wcard))) != U0:
        return U1 << np.uint64(wcard)
    return U0


@jit
def run_below(c, H, live, am, bm):
    """The cards of hand ``H`` equivalent to ``c`` and below it (solver.representatives
    searched them as ``c``): going down from ``c``, the next card in play (``live``) of the
    suit while it is in ``H`` with ``c``'s points."""
    out = U0
    cb = U1 << np.uint64(c)
    pa = (am & cb) != U0
    pb = (bm & cb) != U0
    while True:
        down = below(c) & live
        if down == U0:
            return out
        n = highest(down)
        nb = U1 << np.uint64(n)
        if (H & nb) == U0 or ((am & nb) != U0) != pa or ((bm & nb) != U0) != pb:
            return out
        out |= nb
        c = n


@jit
def _top(m, k):
    """The ``k`` highest cards of ``m`` (one suit): its lowest cards cleared one by one,
    the fewer steps since the low cards are few."""
    for _ in range(npop(m) - k):
        m &= m - U1
    return m


@jit
def expand_rel(rem, vec):
    """The cards of ``rem`` a relevance vector keeps exact: per suit its top ``k`` cards."""
    r = U0
    for s in range(4):
        r |= _top(rem & SUIT_MASKS[s], (vec >> (4 * s)) & 15)
    return r


@jit
def relevance_vector(rel, hands, pts):
    """(vector, general): per suit (a nibble) how many of its top cards are exact, down to
    the lowest relevant card (``rel``, the point cards ``pts`` always); ``general`` when in
    some suit the cards below are of two or more holders (else the vector stands for the
    position's pattern alone)."""
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    rel = (rel | pts) & rem
    vec = np.int64(0)
    general = False
    for s in range(4):
        m = rem & SUIT_MASKS[s]
        r = rel & m
        big = (m & ~((U1 << np.uint64(lowest(r))) - U1)) if r != U0 else U0
        vec |= npop(big) << (4 * s)
        small = m & ~big
        holders = 0
        for j in range(4):
            if hands[j] & small:
                holders += 1
        general = general or holders >= 2
    return vec, general


@jit
def counts_keys(hands, leader, gen):
    """Two hashes of the leader and each seat's count of cards per suit: the positions a
    general entry may stand for share them."""
    w = np.uint64(0)
    for j in range(4):
        for s in range(4):
            w |= np.uint64(npop(hands[j] & SUIT_MASKS[s])) << np.uint64(16 * j + 4 * s)
    h1 = mix(np.uint64(gen * 4 + leader + 1) ^ _COUNT_TAG, w, HASH_MUL)
    h2 = mix(np.uint64(gen * 4 + leader + 1) ^ _COUNT_TAG, w + _COUNT_TAG, MUL2)
    return h1 | U1, h2


@jit
def general_keys(hands, leader, gen, am, bm, vec):
    """Two hashes of the set of positions a relevance vector ``vec`` makes of this one: per
    suit the top ``k`` cards exactly (holder and point class, as position_keys) and each
    seat's count of the cards below them. (0, 0) when no general entry can hold the
    position under ``vec``: the cards below the exact part are of one holder in every suit
    (such an entry is stored under its pattern's key), or one of them scores."""
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    small = U0
    general = False
    for s in range(4):
        m = rem & SUIT_MASKS[s]
        low = m & ~_top(m, (vec >> (4 * s)) & 15)
        small |= low
        holders = 0
        for j in range(4):
            if hands[j] & low:
                holders += 1
        general = general or holders >= 2
    if not general or (small & (am | bm)) != U0:
        return U0, U0
    o1 = hands[1] | hands[3]
    o2 = hands[2] | hands[3]
    h1 = np.uint64(gen * 4 + leader + 1) ^ _GEN_TAG
    h2 = h1
    for s in range(4):
        sh = np.uint64(13 * s)
        m = (rem >> sh) & SUIT13
        t = np.int64(m & ~(small >> sh))
        w = (
            np.uint64(npop(m) | (npop(np.uint64(t)) << 4))
            | (np.uint64(compress13(np.int64((o1 >> sh) & SUIT13), t)) << np.uint64(8))
            | (np.uint64(compress13(np.int64((o2 >> sh) & SUIT13), t)) << np.uint64(21))
            | (np.uint64(compress13(np.int64((am >> sh) & SUIT13), t)) << np.uint64(34))
            | (np.uint64(compress13(np.int64((bm >> sh) & SUIT13), t)) << np.uint64(47))
        )
        c = np.uint64(0)
        for j in range(4):
            c |= np.uint64(npop(hands[j] & small & SUIT_MASKS[s])) << np.uint64(4 * j)
        h1 = mix(mix(h1, w, HASH_MUL), c, HASH_MUL)
        h2 = mix(mix(h2, w + np.uint64(s + 1), MUL2), c, MUL2)
    return h1 | U1, h2
