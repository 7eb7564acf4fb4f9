"""The exact solver's search context and its bounds: what a position is worth at least and
at most for the valued seat P without a search (the points still in play, sure tricks and
sure losses), so that whole subtrees are cut against the search window.

The context is one int64 array (``C_*`` fields) of the ruleset row's values and the search's
counters, filled by ``solver.solve_value``.
"""

import numpy as np

from ._jit import jit
from .cards import HEARTS, SUIT_MASKS, U0, U1, above, highest, lowest, npop
from .trick import lead_ban

# The search context: one int64 array of the rule values and counters.
C_SEAT, C_TRUMP, C_TMODE, C_HMODE, C_TRICK_PTS, C_LAST_PTS = range(6)
C_A_MASK, C_A_PTS, C_B_MASK, C_B_PTS, C_GEN, C_NODES = range(6, 12)
C_MAX_NODES, C_ABORTED = range(12, 14)  # the node budget; 1 when a search ran out of it
C_DUCKS = 14  # 1 in a contract without trumps where P can only lose points (can_duck_all)
C_PARTITION = 15  # 1: store and probe entries for sets of positions (solver_partition)
C_QUASI = 16  # 1: quasi-symmetry entries (solver_quasi) in a contract with point cards
N_CTX = 17


@jit
def card_pts(cards, ctx):
    """Points of the point cards among ``cards``."""
    return ctx[C_A_PTS] * npop(cards & np.uint64(ctx[C_A_MASK])) + ctx[C_B_PTS] * npop(
        cards & np.uint64(ctx[C_B_MASK])
    )


@jit
def points_bounds(rem, ctx):
    """(lowest, highest) score any seat can get from the tricks of the cards ``rem``."""
    n = npop(rem) >> 2
    tp = ctx[C_TRICK_PTS]
    last = ctx[C_LAST_PTS]
    a = ctx[C_A_PTS] * npop(rem & np.uint64(ctx[C_A_MASK]))
    b = ctx[C_B_PTS] * npop(rem & np.uint64(ctx[C_B_MASK]))
    lo = min(tp, 0) * n + min(last, 0) + min(a, 0) + min(b, 0)
    hi = max(tp, 0) * n + max(last, 0) + max(a, 0) + max(b, 0)
    return lo, hi


@jit
def position_bounds(hands, rem, leader, ctx):
    """(lowest, highest) score for P from the position: points_bounds, narrowed in a negative
    contract without trumps (negative_bounds) and in a contract that scores tricks only
    (trick_bounds). ``leader`` is the seat to lead, or -1 for bounds that hold whoever
    leads."""
    lo, hi = points_bounds(rem, ctx)
    if ctx[C_DUCKS] and leader >= 0:
        return negative_bounds(hands, rem, leader, lo, ctx)
    if ctx[C_TRICK_PTS] <= 0 or ctx[C_LAST_PTS] != 0 or ctx[C_A_PTS] != 0 or ctx[C_B_PTS] != 0:
        return lo, hi
    return trick_bounds(hands, rem, leader, lo, hi, ctx)


@jit
def trick_bounds(hands, rem, leader, lo, hi, ctx):
    """Sure tricks and sure losses for P in a contract scoring tricks only (troeven).

    Top trumps (whoever leads): a trump of P above every other trump wins the trick it is
    played to, and every card is played, so P wins at least one trick per such trump. A
    trump of opponent j above all of P's trumps wins or loses its trick to another
    opponent, never to P, and j's cards go to different tricks: P loses at least as many
    tricks as any one opponent holds such trumps.

    Cashing (the seat on lead): P on lead cashes, suit by suit outside trumps, its cards
    above every other card of the suit; each wins as long as every opponent holding a trump
    still follows suit (at most as many rounds as the shortest such opponent holds of the
    suit). An opponent j on lead cashes its cards above every other card of a suit the same
    way, as long as P cannot ruff (P holds no trump, or follows that many rounds) and, under
    a must-trump rule, no other opponent is made to ruff. These tricks are won by other
    cards than the top trumps, so they add to them. Hearts count only when they may be led
    now."""
    P = ctx[C_SEAT]
    trump = ctx[C_TRUMP]
    tp = ctx[C_TRICK_PTS]
    sure = np.int64(0)
    over = U0  # the trumps above all of P's (none in a contract without trumps)
    if trump >= 0:
        T = SUIT_MASKS[trump]
        mine = hands[P] & T
        others = rem & T & ~mine
        sure = npop(mine & above(highest(others))) if others != U0 else npop(mine)
        over = above(highest(mine)) if mine != U0 else T
    cash = np.int64(0)
    if leader >= 0:
        ban = lead_ban(ctx[C_HMODE], (rem & HEARTS) != HEARTS)
        cash = _cashed(hands, rem, leader, P, trump, ctx[C_TMODE], ban)
        if leader == P:
            sure += cash
    lost = np.int64(0)
    for j in range(4):
        if j != P:
            lost = max(lost, npop(hands[j] & over) + (cash if j == leader else 0))
    return max(lo, tp * sure), min(hi, tp * ((npop(rem) >> 2) - lost))


@jit
def _cashed(hands, rem, leader, P, trump, tmode, ban):
    """The tricks ``leader`` wins in a row by leading, suit by suit outside trumps, its cards
    above every other card of the suit, when no seat of the other side can ruff them (see
    trick_bounds)."""
    H = hands[leader]
    total = np.int64(0)
    for s in range(4):
        sm = SUIT_MASKS[s]
        mine = H & sm
        if s == trump or mine == U0 or (ban and s == 2 and H != mine):
            continue
        rest = rem & sm & ~mine
        r = npop(mine & above(highest(rest))) if rest != U0 else npop(mine)
        if trump >= 0:
            T = SUIT_MASKS[trump]
            for j in range(4):
                if j == leader or (hands[j] & T) == U0:
                    continue
                # P (when an opponent leads) or an opponent made to ruff (must-trump rules)
                # may ruff once void; an opponent of P's side always may.
                other_side = (leader == P) or (j == P) or tmode > 0
                if other_side:
                    r = min(r, npop(hands[j] & sm))
        total += r
    return total


@jit
def ducks_suit(pm, om):
    """Can P play every card of ``pm`` (one suit) under the others' cards ``om`` when every
    round of the suit is led by the others? Yes when P's i-th lowest card is below their
    i-th lowest (for i up to the shorter side): in a round they play a set S of the suit;
    P plays its highest card below the trick's winner w = max(S) (one of its lowest is below
    their lowest), and afterwards fewer of their cards than before lie below each of P's
    cards above w, since w is gone, so the condition holds again. Discarding the highest card
    of a suit, or the others' cards leaving, keeps it too."""
    while pm != U0 and om != U0:
        if lowest(pm) > lowest(om):
            return False
        pm &= pm - U1
        om &= om - U1
    return True


@jit
def can_duck_all(hands, P, leads, ban_hearts):
    """Can P lose every remaining trick of a contract without trumps? When the others lead
    every trick: ducks_suit in every suit, P never wins a trick, so never leads. When P leads
    (``leads``): also a legal suit the others hold where P leads its lowest card, which
    they must beat (all their cards of the suit are higher), and ducks_suit still holds after
    it whichever of their cards they play (the worst case is their highest)."""
    opp = U0
    for j in range(4):
        if j != P:
            opp |= hands[j]
    H = hands[P]
    lead_ok = not leads
    for s in range(4):
        pm = H & SUIT_MASKS[s]
        om = opp & SUIT_MASKS[s]
        if not ducks_suit(pm, om):
            return False
        if not lead_ok and pm != U0 and om != U0 and not (ban_hearts and s == 2 and H != pm):
            lead_ok = ducks_suit(pm & (pm - U1), om & ~(U1 << np.uint64(highest(om))))
    return lead_ok


@jit
def ducks_trick_and_rest(hands, P, led, wcard):
    """Mid-trick, P still to play to a trick led in ``led`` whose winner so far is an
    opponent's ``wcard`` (no trumps): can P lose this trick and every later one? P follows
    with its highest card below ``wcard`` (or, void, discards the highest card of a suit),
    which loses the trick whatever comes after it (the winner only rises), and then
    can_duck_all must hold without P leading. It is checked on the hands as they are: the
    others' cards still to come to this trick only leave the condition true (ducks_suit
    holds with fewer cards of theirs)."""
    H = hands[P]
    follow = H & SUIT_MASKS[led]
    ok = False
    if follow != U0:
        low = follow & ~above(wcard) & ~(U1 << np.uint64(wcard))
        if low != U0:
            hands[P] = H & ~(U1 << np.uint64(highest(low)))
            ok = can_duck_all(hands, P, False, False)
    else:
        for s in range(4):
            sm = H & SUIT_MASKS[s]
            if sm != U0 and not ok:
                hands[P] = H & ~(U1 << np.uint64(highest(sm)))
                ok = can_duck_all(hands, P, False, False)
    hands[P] = H
    return ok


@jit
def wins_own_lead(hands, P, ban_hearts):
    """Does P win the trick P leads whatever P leads, the others ducking what they can?
    Yes unless in some suit P may lead an opponent holds only cards above P's lowest card
    of it (he must follow above)."""
    H = hands[P]
    for s in range(4):
        lm = H & SUIT_MASKS[s]
        if lm == U0 or (ban_hearts and s == 2 and H != lm):
            continue
        low = lowest(lm)
        for j in range(4):
            om = hands[j] & SUIT_MASKS[s]
            if j != P and om != U0 and lowest(om) > low:
                return False
    return True


@jit
def forced_by_lead(hands, leader, P, ban_hearts, ctx):
    """The most P can score from the trick an opponent leads when the others can make P win
    it: the leader leads a suit P holds, below all of P's cards of it, and every other
    opponent holding the suit has a card below them too (the others play low or discard).
    P then wins with the card of the suit worth the most to P. 0 when no suit forces P."""
    H = hands[P]
    Ld = hands[leader]
    best = np.int64(0)
    for s in range(4):
        pm = H & SUIT_MASKS[s]
        lm = Ld & SUIT_MASKS[s]
        if pm == U0 or lm == U0 or lowest(lm) > lowest(pm) or (ban_hearts and s == 2 and Ld != lm):
            continue
        forced = True
        for j in range(4):
            om = hands[j] & SUIT_MASKS[s]
            if j != P and j != leader and om != U0 and lowest(om) > lowest(pm):
                forced = False
        if forced:
            # P's least costly card of the suit: a card outside both point classes costs 0.
            gain = ctx[C_TRICK_PTS] + least_pts(pm, ctx)
            best = min(best, gain)
    return best


@jit
def least_pts(pm, ctx):
    """The points of the card of ``pm`` worth the most to P (points are 0 or less)."""
    best = -(np.int64(1) << 40)
    m = pm
    while m != U0:
        c = lowest(m)
        m &= m - U1
        best = max(best, card_pts(U1 << np.uint64(c), ctx))
    return best


@jit
def negative_bounds(hands, rem, leader, lo, ctx):
    """(lowest, highest) score for P at a trick's beginning in a contract without trumps
    where P can only lose points (the highest is 0): 0 exactly when P can lose every
    remaining trick (can_duck_all); at most the trick points when P leads and wins the
    trick whatever P leads (wins_own_lead); at most what P's cheapest card of a suit costs
    when an opponent's lead forces P to win (forced_by_lead)."""
    P = ctx[C_SEAT]
    ban = lead_ban(ctx[C_HMODE], (rem & HEARTS) != HEARTS)
    if can_duck_all(hands, P, leader == P, ban):
        return np.int64(0), np.int64(0)
    if leader == P:
        if wins_own_lead(hands, P, ban):
            return lo, min(np.int64(0), ctx[C_TRICK_PTS])
        return lo, np.int64(0)
    return lo, forced_by_lead(hands, leader, P, ban, ctx)
