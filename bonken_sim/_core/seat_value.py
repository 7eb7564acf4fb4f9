"""A seat's fitted expected score, read from per-card tables instead of a feature vector.

The choice and doubling models are linear in the hand features of
``bonken_sim.model_features`` (``bonken_sim.games.FULL_FEATURES``, coefficient rows
``coef[variant, relation to the dealer]``). Almost every feature is a sum over the cards
held (aces, kings, low cards, hearts, the trump suit's length and honours, side aces...), so
its share of a score is a per-card weight; the rest depend on suit lengths only (voids,
singletons, the longest suit) or on a suit's cards below a K, Q or J (unguarded honours).
``value_tables`` folds the coefficients into those weights once per call, and a seat's value
is then thirteen table reads plus the suit-length terms: the doubling round evaluates every
seat on every deal of a game, where building the feature vectors cost more than a fifth of
a basic game.

The functions a seat's value is read with are inlined into the game loop (numba's
``inline="always"``): called, each pushed its tables onto the stack on every deal.

The sums run in another order than a dot product over features, so a value may differ from
``features @ coef`` in the last bits; the tests bound that, and check that games decide as
the numpy specification does.
"""

import numpy as np

from ._jit import jit, popcnt
from .cards import U0, U1, field, lowest, rank_of, suit_of
from .ruleset import N_VARIANTS, TROEVEN_C, TROEVEN_NT

_BIT63 = np.uint64(1 << 63)
N_SHAPE = 17

# Columns of a coefficient row (bonken_sim.games.FULL_FEATURES).
_CONST = 0
_ACES, _KINGS, _QUEENS, _JACKS, _TENS, _LOW, _TWOS, _EIGHTS = 1, 2, 3, 4, 5, 6, 7, 8
_VOIDS, _SINGLES, _LONGEST = 9, 10, 11
_HEARTS, _HEARTS_HIGH, _KH, _AH = 12, 13, 14, 15
_UNGUARDED = 16  # 16, 17, 18: K, Q, J
_TRUMP_LEN, _TRUMP_HON, _SIDE_ACES, _SIDE_KINGS, _SIDE_VOIDS, _SIDE_SINGLES = (
    19, 20, 21, 22, 23, 24,
)  # fmt: skip
_HEARTS_SUIT = 2


@jit
def value_tables(coef):
    """Fold ``coef`` (12, 4, 25) into the tables ``seat_value`` reads, as one tuple:

    - ``card[rel, c, v]``: the weight of holding card c (rows 52..63 weigh 0);
    - ``card_v[v, rel, c]``: the same, laid out so one variant's weights share a few cache
      lines (a doubler needs one variant; the chooser weighs all twelve);
    - ``shape[v, rel, k]``: k = 0 the constant, 1 per card of the longest suit, 2..4 per
      unguarded K, Q, J, then 5 + 3·s + j for suit s void (j = 0) or a singleton (j = 1;
      j = 2, longer, weighs 0).
    """
    card = np.zeros((4, 64, N_VARIANTS))
    card_v = np.zeros((N_VARIANTS, 4, 64))
    shape = np.zeros((N_VARIANTS, 4, N_SHAPE))
    for v in range(N_VARIANTS):
        t = v - TROEVEN_C if TROEVEN_C <= v < TROEVEN_NT else -1  # the trump suit; -1: none
        for rel in range(4):
            w = coef[v, rel]
            shape[v, rel, 0] = w[_CONST]
            shape[v, rel, 1] = w[_LONGEST]
            for j in range(3):
                shape[v, rel, 2 + j] = w[_UNGUARDED + j]
            for s in range(4):
                side = t >= 0 and s != t
                shape[v, rel, 5 + 3 * s] = w[_VOIDS] + (w[_SIDE_VOIDS] if side else 0.0)
                shape[v, rel, 6 + 3 * s] = w[_SINGLES] + (w[_SIDE_SINGLES] if side else 0.0)
            for c in range(52):
                s = suit_of(c)
                r = rank_of(c)
                x = 0.0
                x += w[_ACES] if r == 12 else 0.0
                x += w[_KINGS] if r == 11 else 0.0
                x += w[_QUEENS] if r == 10 else 0.0
                x += w[_JACKS] if r == 9 else 0.0
                x += w[_TENS] if r == 8 else 0.0
                x += w[_LOW] if r <= 3 else 0.0  # 2 to 5
                x += w[_TWOS] if r == 0 else 0.0
                x += w[_EIGHTS] if r == 6 else 0.0
                if s == _HEARTS_SUIT:
                    x += w[_HEARTS]
                    x += w[_HEARTS_HIGH] if r >= 8 else 0.0  # T and up
                    x += w[_KH] if r == 11 else 0.0
                    x += w[_AH] if r == 12 else 0.0
                if t >= 0 and s == t:
                    x += w[_TRUMP_LEN]
                    x += w[_TRUMP_HON] if r >= 9 else 0.0  # J, Q, K, A
                elif t >= 0:
                    x += w[_SIDE_ACES] if r == 12 else 0.0
                    x += w[_SIDE_KINGS] if r == 11 else 0.0
                card[rel, c, v] = x
                card_v[v, rel, c] = x
    return card, card_v, shape


@jit(_nrt=False, inline="always")
def _unguarded(f, r):
    """1 if suit field ``f`` holds rank ``r`` with at most one card below it."""
    under = f & ((U1 << np.uint64(r)) - U1)
    return np.int64((f >> np.uint64(r)) & U1) & np.int64(under & (under - U1) == U0)


@jit(_nrt=False, inline="always")
def hand_shape(h):
    """The four suit lengths, the longest, and the numbers of unguarded K, Q and J."""
    f0 = field(h, 0)
    f1 = field(h, 1)
    f2 = field(h, 2)
    f3 = field(h, 3)
    n0 = np.int64(popcnt(f0))
    n1 = np.int64(popcnt(f1))
    n2 = np.int64(popcnt(f2))
    n3 = np.int64(popcnt(f3))
    most = max(max(n0, n1), max(n2, n3))
    uk = _unguarded(f0, 11) + _unguarded(f1, 11) + _unguarded(f2, 11) + _unguarded(f3, 11)
    uq = _unguarded(f0, 10) + _unguarded(f1, 10) + _unguarded(f2, 10) + _unguarded(f3, 10)
    uj = _unguarded(f0, 9) + _unguarded(f1, 9) + _unguarded(f2, 9) + _unguarded(f3, 9)
    return n0, n1, n2, n3, most, uk, uq, uj


@jit(_nrt=False, inline="always")
def _shape_value(hs, v, rel, shape):
    """The constant and the terms of the suit lengths and unguarded honours."""
    n0, n1, n2, n3, most, uk, uq, uj = hs
    w = shape[v, rel]
    return (
        w[0]
        + w[1] * most
        + w[2] * uk
        + w[3] * uq
        + w[4] * uj
        + w[5 + min(n0, 2)]
        + w[8 + min(n1, 2)]
        + w[11 + min(n2, 2)]
        + w[14 + min(n3, 2)]
    )


@jit(_nrt=False, inline="always")
def seat_value(h, v, rel, vt):
    """The fitted expected score in variant ``v`` of hand ``h`` at relation ``rel`` to the
    dealer (0 dealer, 1 leader, 2 chooser, 3 first doubler); ``vt``: ``value_tables``."""
    _, card_v, shape = vt
    w = card_v[v, rel]
    # Two sums over the cards, a pair per step, so the additions do not wait on each other;
    # bit 63 stands in for the missing second card of the last pair (its weight is 0).
    a0 = 0.0
    a1 = 0.0
    m = h
    while m != U0:
        a0 += w[lowest(m)]
        m &= m - U1
        a1 += w[lowest(m | _BIT63)]
        m &= m - U1
    return _shape_value(hand_shape(h), v, rel, shape) + (a0 + a1)


@jit(_nrt=False, inline="always")
def seat_values(h, rel, vt, out):
    """``out[v] = seat_value(h, v, rel, ...)`` for all twelve variants at once (the chooser's
    choice weighs them all). Twelve running sums in registers, written once at the end: sums
    kept in ``out`` went through memory on every card (numba cannot rule out that ``out``
    and ``card`` overlap)."""
    card, _, shape = vt
    hs = hand_shape(h)
    a0 = _shape_value(hs, 0, rel, shape)
    a1 = _shape_value(hs, 1, rel, shape)
    a2 = _shape_value(hs, 2, rel, shape)
    a3 = _shape_value(hs, 3, rel, shape)
    a4 = _shape_value(hs, 4, rel, shape)
    a5 = _shape_value(hs, 5, rel, shape)
    a6 = _shape_value(hs, 6, rel, shape)
    a7 = _shape_value(hs, 7, rel, shape)
    a8 = _shape_value(hs, 8, rel, shape)
    a9 = _shape_value(hs, 9, rel, shape)
    a10 = _shape_value(hs, 10, rel, shape)
    a11 = _shape_value(hs, 11, rel, shape)
    m = h
    while m != U0:
        w = card[rel, lowest(m)]
        m &= m - U1
        a0 += w[0]
        a1 += w[1]
        a2 += w[2]
        a3 += w[3]
        a4 += w[4]
        a5 += w[5]
        a6 += w[6]
        a7 += w[7]
        a8 += w[8]
        a9 += w[9]
        a10 += w[10]
        a11 += w[11]
    out[0] = a0
    out[1] = a1
    out[2] = a2
    out[3] = a3
    out[4] = a4
    out[5] = a5
    out[6] = a6
    out[7] = a7
    out[8] = a8
    out[9] = a9
    out[10] = a10
    out[11] = a11
