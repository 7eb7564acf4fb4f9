"""Card and bitmask primitives. Card ``c = 13*suit + rank``; a hand is a uint64 mask."""

import numpy as np

from ._jit import clz, ctz, jit, popcnt

U0 = np.uint64(0)
U1 = np.uint64(1)
SUIT13 = np.uint64(0x1FFF)
ALL52 = np.uint64((1 << 52) - 1)
SUIT_MASKS = np.array([0x1FFF << (13 * s) for s in range(4)], dtype=np.uint64)
HEARTS = np.uint64(0x1FFF << 26)
RANK_8 = 6


@jit
def bit(c):
    return U1 << np.uint64(c)


@jit
def npop(m):
    return np.int64(popcnt(m))


@jit
def lowest(m):
    """Card index of the lowest set bit (``m`` must be non-zero)."""
    return np.int64(ctz(m))


@jit
def highest(m):
    """Card index of the highest set bit (``m`` must be non-zero)."""
    return np.int64(63) - np.int64(clz(m))


@jit
def field(m, s):
    """The 13-bit rank field of suit ``s``."""
    return (m >> np.uint64(13 * s)) & SUIT13


@jit
def suits_held(m):
    """Bit per suit: the suits ``m`` has a card in."""
    return (
        np.int64(field(m, 0) != U0)
        | (np.int64(field(m, 1) != U0) << 1)
        | (np.int64(field(m, 2) != U0) << 2)
        | (np.int64(field(m, 3) != U0) << 3)
    )


@jit
def suit_of(c):
    """``c // 13`` for a card index or -1: a multiply and a shift, where a signed division
    costs a multiply-high and three sign fix-ups on the play loop's critical path. Exact for
    -1 <= c <= 63 (c*5/64 overshoots c/13 by c/832, never enough to reach the next suit)."""
    return (c * 5) >> 6


@jit
def rank_of(c):
    """``c % 13`` for a card index (0 <= c <= 63)."""
    return c - 13 * suit_of(c)


@jit
def kth_lowest(m, k):
    """Card index of the k-th (0-based) lowest set bit."""
    for _ in range(k):
        m &= m - U1
    return np.int64(ctz(m))


# One bit per suit at rank 0; shifted left by r it selects rank r in every suit.
_RANK0 = np.uint64(sum(1 << (13 * s) for s in range(4)))
_R15 = np.uint64(15)


@jit
def lo_card(m):
    """Lowest rank over all suits; ties go to the lowest suit (-1 for no card). Branch-free:
    the lowest rank found, the lowest card of that rank is the answer."""
    f = field(m, 0) | field(m, 1) | field(m, 2) | field(m, 3)
    at = m & (_RANK0 << (ctz(f) & _R15))
    return lowest(at) if m != U0 else -1


@jit
def hi_card(m):
    """Highest rank over all suits; ties go to the highest suit (-1 for no card)."""
    f = field(m, 0) | field(m, 1) | field(m, 2) | field(m, 3)
    at = m & (_RANK0 << ((np.uint64(63) - clz(f)) & _R15))
    return highest(at) if m != U0 else -1


@jit
def above(c):
    """Mask of the cards of ``c``'s suit ranked above ``c``."""
    return SUIT_MASKS[suit_of(c)] & ~((U1 << np.uint64(c + 1)) - U1)


@jit
def below(c):
    """Mask of the cards of ``c``'s suit ranked below ``c``."""
    return SUIT_MASKS[suit_of(c)] & ((U1 << np.uint64(c)) - U1)


def _ranks_upto(top_rank):
    """Mask of ranks 0..top_rank in every suit."""
    return np.uint64(sum(((1 << (top_rank + 1)) - 1) << (13 * s) for s in range(4)))


_UPTO11 = _ranks_upto(11)
_UPTO10 = _ranks_upto(10)
_UPTO8 = _ranks_upto(8)
_UPTO4 = _ranks_upto(4)


@jit
def smear_down(m):
    """Per suit: every rank at or below the suit's highest card in ``m``. So
    ``H & ~smear_down(out)`` are the masters of ``H`` in all four suits at once (the shifts
    stay inside a suit's 13 bits)."""
    m |= (m >> np.uint64(1)) & _UPTO11
    m |= (m >> np.uint64(2)) & _UPTO10
    m |= (m >> np.uint64(4)) & _UPTO8
    m |= (m >> np.uint64(8)) & _UPTO4
    return m
