"""The mechanics of a trick, written once: the legal cards, which card wins, what a trick
scores, and the step that lays one card. The play loops, the replay and the engine's Python
face (``engine.play``) all use these.

The steps are ``inline="always"``: numba puts their code straight into each loop, so
sharing them costs the hot loop nothing (the loops compile to what they were when each
wrote the step out itself).
"""

import numpy as np

from ._jit import jit
from .cards import HEARTS, SUIT13, SUIT_MASKS, U0, above, npop, suit_of
from .ruleset import HEART_LEAD_BANNED, HEART_LEAD_BROKEN


@jit
def trick_legal(H, pos, led, ledm, ban_hearts, trump, tmode, wcard):
    """The legal cards of hand ``H`` at place ``pos`` of a trick led in ``led`` (``ledm``: that
    suit's cards, kept per trick by the loops) whose current winner is ``wcard``.
    ``ban_hearts``: a heart may not be led now while holding another suit; ``tmode``: the
    trump-play mode (0 = ruffing optional, 1 = must trump, 2 = must over-trump; only on
    suit-trump rows, so ``tmode > 0`` implies ``trump >= 0``)."""
    if pos == 0:
        if ban_hearts and (H & ~HEARTS) != U0:
            return H & ~HEARTS
        return H
    ls = H & ledm
    if tmode == 0:
        return ls if ls != U0 else H
    return trump_legal(H, ls, led, trump, tmode, wcard)


@jit
def trump_legal(H, ls, led, trump, tmode, wcard):
    """trick_legal's follow and void cases under "must trump" (1) or "must over-trump" (2)."""
    if ls != U0:
        if tmode == 2 and led == trump:
            over = ls & above(wcard)  # a trump lead: the winner is the highest trump
            return over if over != U0 else ls
        return ls
    myt = H & SUIT_MASKS[trump]
    if myt == U0:
        return H
    if tmode == 2:
        over = myt & above(wcard) if suit_of(wcard) == trump else myt
        if over != U0:
            return over
    return myt


@jit
def lead_ban(hmode, broken):
    """Is a heart lead banned (while holding another suit) at this trick's lead?"""
    return hmode == HEART_LEAD_BANNED or (hmode == HEART_LEAD_BROKEN and not broken)


@jit
def seats_after(leader, pos):
    """Bit per seat: the seats that play to this trick after place ``pos`` (no loop: its
    trip count would be a mispredicted branch on every card)."""
    after = (15 << (pos + 1)) & 15  # places pos+1 .. 3
    return ((after << leader) | (after >> (4 - leader))) & 15


@jit
def card_points(cards, a_mask, a_pts, b_mask, b_pts):
    """Points of the penalty cards among ``cards``. The ruleset table has them as at most two
    classes of equal value, so two popcounts score a trick without a loop over its cards."""
    return a_pts * npop(cards & a_mask) + b_pts * npop(cards & b_mask)


@jit
def beats(c, wcard, trump):
    """Does card ``c`` beat the trick's current winner ``wcard``? (Branch-free: the outcome
    is unpredictable, and a mispredicted branch costs more than the whole expression.)"""
    cs = suit_of(c)
    same = cs == suit_of(wcard)
    return (same & (c > wcard)) | (~same & (cs == trump))


@jit(inline="always")
def lay_card(c, pos, p, led, ledm, wcard, wseat, trump):
    """Seat ``p`` lays card ``c`` at place ``pos`` of the trick: the lead sets the led suit
    (``led``, its cards ``ledm``) and the first winner; a later card takes the trick over
    if it beats the winner. Returns (led, ledm, wcard, wseat). Selects, not branches: who
    wins a trick is a coin toss for the branch predictor."""
    if pos == 0:
        return suit_of(c), SUIT13 << np.uint64(13 * suit_of(c)), c, p
    b = beats(c, wcard, trump)
    return led, ledm, c if b else wcard, p if b else wseat


@jit(inline="always")
def trick_points(trick, trick_pts, a_mask, a_pts, b_mask, b_pts):
    """What the winner of the trick ``trick`` (its four cards) scores: the per-trick points
    and its penalty cards (the last trick's points, the row's F_LAST_PTS, come on top)."""
    return trick_pts + card_points(trick, a_mask, a_pts, b_mask, b_pts)


@jit(inline="always")
def points_left(fixed_pts, pen, played, trick):
    """Can the rest of the deal still change a score? Not once the contract scores no trick
    as such (``fixed_pts``: its points per trick or for the last trick are nonzero) and
    every card carrying points (``pen``) lies in a finished trick (``played``, less the
    cards of the trick under way, ``trick``): then every card a seat may play leaves every
    score as it is."""
    return fixed_pts or (pen & ~(played & ~trick)) != U0


@jit(inline="always")
def hearts_broken(broken, trick):
    """Has a heart been played to a trick, this one or an earlier one?"""
    return broken | ((trick & HEARTS) != U0)
