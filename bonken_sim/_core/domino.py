"""The mechanics of Domino, written once: the opening cards, the cards a laid card opens, the
aces' direction, and the step that lays one card. The play loops and the replay use these.
"""

import numpy as np

from ._jit import jit
from .cards import ALL52, U0, U1, rank_of
from .ruleset import ACES_EITHER, ACES_HIGH, ACES_LOW


@jit
def domino_opening(open_rank):
    """The cards that open the four rows (one per suit, of rank ``open_rank``)."""
    m = U0
    for s in range(4):
        m |= U1 << np.uint64(13 * s + open_rank)
    return m


@jit
def domino_after(playable, c, open_rank, aces):
    """The playable set after laying card ``c`` (rows grow from the opening rank outwards).

    ``aces`` is the running ace state (ACES_HIGH, _EITHER or _LOW): a K opens its ace unless
    aces go low, a 2 opens its ace unless aces go high. A laid ace opens nothing. Written
    with selects: whether a card extends its row up or down is a coin toss for the branch
    predictor.
    """
    r = rank_of(c)
    up = (r >= open_rank) & ((r < 11) | ((r == 11) & (aces != ACES_LOW)))
    nxt = U1 << np.uint64((c + 1) & 63)
    prv = U1 << np.uint64((c - 1) & 63)
    ace = U1 << np.uint64((c + 12) & 63)
    low_ace = ace if aces != ACES_HIGH else U0
    down = prv if r > 0 else low_ace
    opened = (nxt if up else U0) | (down if r <= open_rank else U0)
    return (playable & ~(U1 << np.uint64(c))) | opened


@jit
def domino_fix_aces(playable, c, hands):
    """The first ace ``c`` is laid (already out of its hand) while aces may go either way:
    it goes above the K if the K of its suit is on the table (also when its 2 is), else below
    the 2, and that fixes every suit. Returns (playable, the fixed ace state)."""
    held = hands[0] | hands[1] | hands[2] | hands[3]
    table = ALL52 & ~held
    aces = ACES_HIGH if (table >> np.uint64(c - 1)) & U1 else ACES_LOW
    for s in range(4):
        a = 13 * s + 12
        ab = U1 << np.uint64(a)
        playable &= ~ab
        end = a - 1 if aces == ACES_HIGH else 13 * s
        if (table & ab) == U0 and (table >> np.uint64(end)) & U1:
            playable |= ab
    return playable, aces


@jit(inline="always")
def domino_lay(playable, c, open_rank, aces, hands):
    """Card ``c`` is laid (already out of its hand; ``hands`` are the four hands after it):
    returns the new (playable set, ace state). The first ace laid while aces may go either
    way fixes their direction."""
    playable = domino_after(playable, c, open_rank, aces)
    if aces == ACES_EITHER and rank_of(c) == 12:
        playable, aces = domino_fix_aces(playable, c, hands)
    return playable, aces
