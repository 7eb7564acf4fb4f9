"""The ``basic`` strategy tier, exactly as docs/ENGINE.md specifies. Deterministic."""

import numpy as np

from ._jit import clz, ctz, jit
from .cards import (
    SUIT_MASKS,
    U0,
    U1,
    above,
    below,
    field,
    hi_card,
    highest,
    lo_card,
    lowest,
    npop,
    rank_of,
    smear_down,
    suit_of,
    suits_held,
)
from .ruleset import ACES_HIGH, ACES_LOW

# --- negative trick contracts ---------------------------------------------------------


@jit(inline="always")
def neg_lead(L, out, pen):
    """L4 exit: the low card with the most outstanding cards above it; never a penalty card.

    Each suit's key is packed into one integer (the suit index last, inverted, so ties go to
    the lowest suit) and the maximum taken without data-dependent branches.
    """
    best = np.int64(-1)
    for s in range(4):
        suit = SUIT_MASKS[s]
        m = L & suit & ~pen
        low_bit = m & (U0 - m)
        nb = npop(out & suit & (low_bit - U1))
        na = npop(out & suit) - nb  # my low card itself is not out
        key = ((np.int64(na > 0) << 12) | ((na - nb + 64) << 4) | (3 - s)) << 6 | lowest(m)
        best = max(best, key if m != U0 else np.int64(-1))
    return best & 63 if best >= 0 else lo_card(L)


@jit
def neg_follow(L, wcard, pen, pos):
    """Duck with the highest (penalty) card; if forced, high when last, low otherwise.

    Written as selects rather than branches: which case applies is unpredictable.
    """
    ducks = L & below(wcard)
    dp = ducks & pen
    duck = highest(dp if dp != U0 else ducks)
    nonpen = L & ~pen
    forced_set = nonpen if nonpen != U0 else L
    forced = highest(forced_set) if pos == 3 else lowest(forced_set)
    return duck if ducks != U0 else forced


def _pair_table(bits: int) -> np.ndarray:
    """PAIRS[a, b] = number of pairs (x in a, y in b) with y below x, for ``bits``-bit fields."""
    values = np.arange(1 << bits)
    has = (values[:, None] >> np.arange(bits)) & 1  # has[a, x]: bit x of a
    below = np.cumsum(has, axis=1) - has  # below[b, x]: bits of b under x
    return (has @ below.T).astype(np.int8)


def _lowest_k_table(bits: int) -> np.ndarray:
    """LOWK[a, k] = the lowest k set bits of the ``bits``-bit field a (all of them if a has
    fewer), for k = 0..7."""
    table = np.zeros((1 << bits, 8), np.uint8)
    for a in range(1 << bits):
        ones = [x for x in range(bits) if a >> x & 1]
        for k in range(8):
            table[a, k] = sum(1 << x for x in ones[:k])
    return table


_LO_BITS = np.uint64(7)
_LO7 = np.uint64(0x7F)
_PAIRS7 = _pair_table(7)  # ranks 2-8
_PAIRS6 = _pair_table(6)  # ranks 9-A
_LOWK7 = _lowest_k_table(7)
_LOWK6 = _lowest_k_table(6)
_BIT63 = np.uint64(1 << 63)


@jit(inline="always")
def danger(hs, outs):
    """turbo-hearts danger of one suit (13-bit fields of my cards and the outstanding ones).

    Sum over my kept cards of n_below - n_above = 2 * #(kept, out) pairs with the out card
    below - |kept| * |outs|; the pair count comes from two small tables (low and high ranks)
    plus |kept high| * |outs low|, and the kept cards (my lowest min(|mine|, |outs|)) from
    two more, so no loop over cards and no branch.
    """
    keep = min(npop(hs), npop(outs))  # the top max(0, n - n_out) cards are skipped
    h_lo = hs & _LO7
    k1 = min(keep, npop(h_lo))  # kept cards among the low ranks; the rest are high
    k2 = keep - k1
    k_lo = np.uint64(_LOWK7[h_lo, np.uint64(k1)])
    k_hi = np.uint64(_LOWK6[hs >> _LO_BITS, np.uint64(k2)])
    o_lo = outs & _LO7
    o_hi = outs >> _LO_BITS
    pairs = np.int64(_PAIRS7[k_lo, o_lo]) + np.int64(_PAIRS6[k_hi, o_hi]) + k2 * npop(o_lo)
    return 2 * pairs - keep * npop(outs)


@jit(inline="always")
def _discard_key(cls, bonus, s, top_r, gap_ok, po_low, base):
    """Packed discard key of the best card of one class in one suit (-1 if the class is empty):
    within a class only the highest card can win, since every term grows with rank.
    Arithmetic, not selects: whether a class is empty, or its card the top one, changes from
    suit to suit, and LLVM turns such selects into branches."""
    r = highest(cls | U1)  # the class's highest card (any rank when empty: masked below)
    sc = bonus + r + base + 15 * np.int64(r > po_low) + 10 * (np.int64(r == top_r) & gap_ok)
    return ((sc << 6) | (13 * s + r)) | (np.int64(cls != U0) - 1)


@jit(inline="always")
def discard_suit_terms(hs, outs, po):
    """The discard score's terms that every card of one suit shares (13-bit fields of my
    cards, the outstanding ones and the outstanding penalty cards): the base (danger and
    singleton), the top rank, whether the top card stands isolated (gap > 5), and the rank
    of the lowest outstanding penalty card (99: none). Selects only: ``hs`` is not empty."""
    d = danger(hs, outs)
    n = npop(hs)
    base = 3 * max(d, 0) + 20 * (np.int64(n == 1) & np.int64(outs != U0))
    top_r = highest(hs | U1)
    second = highest((hs & ~(U1 << np.uint64(top_r))) | U1)
    gap_ok = (n >= 2) & (top_r - second > 5)
    po_low = lowest(po | _BIT63) + 36 * np.int64(po == U0)  # 63 + 36 when none
    return base, top_r, gap_ok, po_low


@jit(inline="always")
def neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts):
    """The card with the largest discard score (docs/ENGINE.md); ties: highest card index."""
    pen_out = pen & out
    best = np.int64(-1)
    # Over the suits held only: one loop exit to mispredict per call instead of a skip test
    # per suit (3-6% less CPU per negative playout, measured).
    held = suits_held(H)
    while held:
        s = lowest(np.uint64(held))
        held &= held - 1
        hs = field(H, s)
        base, top_r, gap_ok, po_low = discard_suit_terms(hs, field(out, s), field(pen_out, s))
        ts = field(top, s)
        fa = field(a_mask, s)
        fb = field(b_mask, s)
        a_bonus = -10 * a_pts
        b_bonus = -10 * b_pts
        # Classes the contract does not have are skipped (the tests are the same for every
        # card of a deal, so they cost no mispredictions).
        if top & a_mask:
            best = max(
                best, _discard_key(hs & ts & fa, 1000 + a_bonus, s, top_r, gap_ok, po_low, base)
            )
        if top & b_mask:
            best = max(
                best, _discard_key(hs & ts & fb, 1000 + b_bonus, s, top_r, gap_ok, po_low, base)
            )
        if a_mask & ~top:
            best = max(best, _discard_key(hs & ~ts & fa, a_bonus, s, top_r, gap_ok, po_low, base))
        if b_mask & ~top:
            best = max(best, _discard_key(hs & ~ts & fb, b_bonus, s, top_r, gap_ok, po_low, base))
        best = max(best, _discard_key(hs & ~fa & ~fb, 0, s, top_r, gap_ok, po_low, base))
    return best & 63


# --- laatste slag ---------------------------------------------------------------------


@jit
def keep_min(M, out):
    """The card of M with the smallest keep-score (n_above, |OUT of suit|, -rank); ties: the
    lowest suit. The score is packed into one integer per card and the minimum taken."""
    best = np.int64(1) << np.int64(62)
    m = M
    while m != U0:
        c = lowest(m)
        m &= m - U1
        r = rank_of(c)
        n_above = npop(out & above(c))
        n_suit = npop(out & SUIT_MASKS[suit_of(c)])
        best = min(best, (((n_above << 4 | n_suit) << 4 | (12 - r)) << 6) | c)
    return best & 63 if M != U0 else -1


@jit
def masters(M, out):
    """The cards of M with no outstanding card of their suit above them."""
    return M & ~smear_down(out)


@jit(inline="always")
def laatste_choice(H, L, out, pos, led, wcard):
    if npop(H) > 4:
        if pos == 0:
            ms = masters(L, out)
            return hi_card(ms) if ms != U0 else hi_card(L)
        if L & SUIT_MASKS[led]:
            return highest(L)
        return hi_card(H)
    if pos == 0:
        return keep_min(L, out)
    if L & SUIT_MASKS[led]:
        return neg_follow(L, wcard, U0, pos)
    return keep_min(H, out)


# Seat bit q of a 4-bit seat mask spread to bit 4*q, to test a suit's void bits at once.
_SPREAD = np.array(
    [sum(1 << (4 * q) for q in range(4) if m >> q & 1) for m in range(16)], dtype=np.int64
)

# --- troeven ---------------------------------------------------------------------------


@jit
def void_in(voids, seat_mask, s):
    """True if any seat in ``seat_mask`` (bit per seat) is known void in suit ``s``.

    ``voids`` packs the known voids as bit ``4*seat + suit``.
    """
    return (voids >> s) & _SPREAD[seat_mask] != 0


@jit
def others_void(voids, me):
    """4-bit mask of the suits that some seat other than ``me`` is known void in."""
    v = voids & ~(15 << (4 * me))
    return (v | (v >> 4) | (v >> 8) | (v >> 12)) & 15


_CLASS = np.int64(1) << np.int64(14)  # above every packed suit key below


@jit
def troeven_lead(H, out, trump, voids, me):
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    outt = out & tr
    myt = H & tr
    mine_master = masters(H, out)
    if myt != U0 and outt != U0 and (mine_master & tr) != U0:
        nm = npop(myt)
        if 2 * nm >= npop(outt) or nm >= 4:
            return highest(myt)
    unsafe4 = others_void(voids, me) if outt != U0 else 0
    # One maximum over packed keys, the rule's class in front: 2 cash the master of the side
    # suit with the most OUT cards; 1 the longest suit no opponent is void in (with trumps
    # out); 0 the longest suit. Ties go to the lowest suit. Over the side suits held only:
    # one loop exit to mispredict per call instead of a validity select per suit.
    best = np.int64(-1)
    side = suits_held(H & ~tr)
    while side:
        s = lowest(np.uint64(side))
        side &= side - 1
        suit = SUIT_MASKS[s]
        hs = H & suit
        safe = (unsafe4 >> s) & 1 == 0
        outs = out & suit
        cash = (mine_master & suit) != U0 and (outt == U0 or (outs != U0 and safe))
        cash_key = 2 * _CLASS | ((npop(outs) << 2 | (3 - s)) << 6) | highest(hs)
        long_key = (_CLASS if safe else 0) | ((npop(hs) << 2 | (3 - s)) << 6) | lowest(hs)
        best = max(best, cash_key if cash else long_key)
    return best & 63 if best >= 0 else lo_card(H)


@jit
def troeven_follow(L, out, trump, voids, pos, led, wcard, later):
    """Cheapest winner (last seat), a master winner when no later seat may ruff, else low.
    Written with selects: which case applies is unpredictable."""
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    ruffed = (trump >= 0) & (suit_of(wcard) == trump) & (led != trump)
    beat = L & above(wcard) if not ruffed else U0
    safe = (led == trump) | ((out & tr) == U0) | (not void_in(voids, later, led))
    u = masters(beat, out) if safe else U0  # my winners above every outstanding card
    u = beat if pos == 3 else u
    return lowest(u if u != U0 else L)


@jit
def troeven_void(H, out, trump, voids, pos, led, wcard, later):
    mine_master = masters(H, out)
    if trump >= 0:
        tr = SUIT_MASKS[trump]
        myt = H & tr
        if myt != U0:
            w = myt & above(wcard) if suit_of(wcard) == trump else myt
            if w != U0:
                if pos == 3 or not void_in(voids, later, led):
                    return lowest(w)
                wm = w & mine_master
                if wm != U0:
                    return lowest(wm)
    else:
        tr = U0
    # Discard low from the shortest side suit without a master (ties: lowest suit), else
    # from the shortest side suit: one maximum over keys with "no master" in front.
    best = np.int64(-1)
    for s in range(4):
        hs = H & SUIT_MASKS[s]
        valid = s != trump and hs != U0
        key = (((13 - npop(hs)) << 2 | (3 - s)) << 6) | lowest(hs if valid else U1)
        key |= _CLASS if (mine_master & SUIT_MASKS[s]) == U0 else 0
        best = max(best, key if valid else np.int64(-1))
    if best >= 0:
        return best & 63
    return lo_card(H & tr) if H & tr else lo_card(H)


# --- domino ----------------------------------------------------------------------------


# Inlined into Domino's loop at numba's level (LLVM declines, the function being large):
# 11% less CPU per basic Domino playout, measured.
@jit(inline="always")
def domino_choice(H, L, open_rank, aces):
    """Largest (unlock, reach, count, nogift) over the legal cards; ties: lowest card index.
    Aces high (the standard rule, and the state of the other rule once an ace is laid
    above its K) reads ranks as places, the rest reads the line of places."""
    if aces == ACES_HIGH:
        return domino_choice_high(H, L, open_rank)
    return domino_choice_places(H, L, open_rank, aces)


@jit(inline="always")
def domino_choice_high(H, L, open_rank):
    """``domino_choice`` while aces go high: place = rank + 1, so a suit's rank field is its
    line of places shifted by one and the ace needs no care. 15-20% less CPU per choice than
    the general line (measured on 50,000 choices of basic play): no line to build, and the
    reaches without selects (``64 - clz`` is 0 for no card above, the card's own bit stops
    ``ctz`` below)."""
    best = np.int64(-1)
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        s = suit_of(c)
        r = c - 13 * s
        f = field(H, s)  # c itself at bit r: every mask below leaves it out
        up = f >> np.uint64(r + 1)  # my cards above c, shifted so bit 0 is rank r + 1
        down = f & ((U1 << np.uint64(r)) - U1)
        reach_up = np.int64(64) - np.int64(clz(up))  # highest(up) + 1; 0 for none
        reach_down = r - np.int64(ctz(down | (U1 << np.uint64(r))))  # 0 for none
        # The cases as selects, both sides computed side by side (selecting the side first
        # and counting once measured slower: a longer chain of dependent operations).
        is_open = r == open_rank
        is_up = r > open_rank
        below_bit = np.int64((f >> np.uint64((r - 1) & 63)) & U1)  # r = 0: bit 63, empty
        up_bit = np.int64(up & U1)
        n_up = npop(up)
        n_down = npop(down)
        beyond_n = (n_up + n_down) if is_open else (n_up if is_up else n_down)
        reach_side = reach_up if is_up else reach_down
        reach = max(reach_up, reach_down) if is_open else reach_side
        gift_up = np.int64(r == 12) | up_bit  # the ace ends the high side
        gift_down = np.int64(r == 0) | below_bit  # the 2 ends the low side
        nogift = (up_bit | below_bit) if is_open else (gift_up if is_up else gift_down)
        unlock = 1 if beyond_n > 0 else 0
        key = (((unlock << 4 | reach) << 4 | beyond_n) << 1 | nogift) << 6 | (63 - c)
        best = max(best, key)
    return 63 - (best & 63)


@jit(inline="always")
def domino_choice_places(H, L, open_rank, aces):
    """``domino_choice`` under any ace state.

    The four criteria are packed into one integer per card, compared once. A suit is read
    as a line of 14 places: bit 0 an ace below the 2, bits 1..12 the 2..K, bit 13 an ace
    above the K. ``aces`` (the running ace state, ACES_HIGH/_EITHER/_LOW) decides which ace
    places my ace fills; while aces may go either way it counts beyond both ends, which is
    the STRATEGIES.md §3.7 variant hook: the ends of a row are where an ace may still go.
    """
    lo_end = np.int64(1) if aces == ACES_HIGH else np.int64(0)  # the low side's last place
    hi_end = np.int64(12) if aces == ACES_LOW else np.int64(13)
    o = open_rank + 1
    best = np.int64(-1)
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        s = suit_of(c)
        r = rank_of(c)
        f = field(H, s) & ~(U1 << np.uint64(r))
        ace = f >> np.uint64(12)
        mine = (f & np.uint64(0xFFF)) << U1
        if aces != ACES_LOW:
            mine |= ace << np.uint64(13)
        if aces != ACES_HIGH:
            mine |= ace
        if r < 12:
            p = np.int64(r + 1)
        else:  # an ace ends a side, whichever place it takes
            p = np.int64(0) if aces == ACES_LOW else np.int64(13)
        up = mine >> np.uint64(p + 1)  # my places above p, shifted so bit 0 is place p+1
        down = mine & ((U1 << np.uint64(p)) - U1)
        reach_up = highest(up) + 1 if up != U0 else 0
        reach_down = p - lowest(down) if down != U0 else 0
        # The four cases (the opening card, up its row, at the low end, down its row) as
        # selects: the legal cards mix both directions, so a branch per card mispredicts.
        is_open = p == o
        is_up = p > o
        below_bit = np.int64((down >> np.uint64((p - 1) & 63)) & U1)
        up_bit = np.int64(up & U1)
        n_up = npop(up)
        n_down = npop(down)
        beyond_n = npop(f) if is_open else (n_up if is_up else n_down)
        reach_side = reach_up if is_up else reach_down
        reach = max(reach_up, reach_down) if is_open else reach_side
        gift_up = np.int64(p == hi_end) | up_bit
        gift_down = np.int64(p == lo_end) | below_bit
        nogift = (up_bit | below_bit) if is_open else (gift_up if is_up else gift_down)
        unlock = 1 if beyond_n > 0 else 0
        key = (((unlock << 4 | reach) << 4 | beyond_n) << 1 | nogift) << 6 | (63 - c)
        best = max(best, key)
    return 63 - (best & 63)
