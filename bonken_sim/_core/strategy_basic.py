"""The ``basic`` strategy tier, exactly as docs/ENGINE.md specifies. Deterministic."""

import numpy as np

from ._jit import jit
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
)

# --- negative trick contracts ---------------------------------------------------------


@jit
def neg_lead(L, out, pen):
    """L4 exit: the low card with the most outstanding cards above it; never a penalty card."""
    best_k1 = -1
    best_k2 = -100
    best_c = -1
    for s in range(4):
        m = L & SUIT_MASKS[s] & ~pen
        if m == U0:
            continue
        low = lowest(m)
        na = npop(out & above(low))
        nb = npop(out & below(low))
        k1 = 1 if na > 0 else 0
        k2 = na - nb
        if k1 > best_k1 or (k1 == best_k1 and k2 > best_k2):
            best_k1 = k1
            best_k2 = k2
            best_c = low
    if best_c < 0:
        return lo_card(L)
    return best_c


@jit
def neg_follow(L, wcard, pen, pos):
    """Duck with the highest (penalty) card; if forced, high when last, low otherwise."""
    ducks = L & below(wcard)
    if ducks != U0:
        dp = ducks & pen
        if dp != U0:
            return highest(dp)
        return highest(ducks)
    nonpen = L & ~pen
    if pos == 3:
        return highest(nonpen) if nonpen != U0 else highest(L)
    return lowest(nonpen) if nonpen != U0 else lowest(L)


@jit
def danger(hs, outs):
    """turbo-hearts danger of one suit (13-bit fields of my cards and the outstanding ones)."""
    skip = npop(hs) - npop(outs)
    total = 0
    m = hs
    while m != U0:
        r = highest(m)
        m &= ~(U1 << np.uint64(r))
        if skip > 0:
            skip -= 1
            continue
        total += npop(outs & ((U1 << np.uint64(r)) - U1)) - npop(outs >> np.uint64(r + 1))
    return total


@jit
def neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts):
    pen_out = pen & out
    best = -(1 << 40)
    best_c = -1
    for s in range(4):
        hs = field(H, s)
        if hs == U0:
            continue
        outs = field(out, s)
        d = danger(hs, outs)
        d3 = 3 * d if d > 0 else 0
        n = npop(hs)
        single = 20 if (n == 1 and outs != U0) else 0
        top_r = highest(hs)
        gap_ok = False
        if n >= 2:
            second = highest(hs & ~(U1 << np.uint64(top_r)))
            gap_ok = top_r - second > 5
        m = hs
        while m != U0:
            r = lowest(m)
            m &= m - U1
            c = 13 * s + r
            cb = U1 << np.uint64(c)
            sc = r + d3 + single
            if top & cb:
                sc += 1000
            if a_mask & cb:
                sc -= 10 * a_pts
            elif b_mask & cb:
                sc -= 10 * b_pts
            if pen_out & below(c):
                sc += 15
            if r == top_r and gap_ok:
                sc += 10
            if sc >= best:
                best = sc
                best_c = c
    return best_c


# --- laatste slag ---------------------------------------------------------------------


@jit
def keep_min(M, out):
    """The card of M with the smallest keep-score (n_above, |OUT of suit|, -rank)."""
    best_c = -1
    b1 = 99
    b2 = 99
    b3 = 99
    m = M
    while m != U0:
        c = lowest(m)
        m &= m - U1
        k1 = npop(out & above(c))
        k2 = npop(out & SUIT_MASKS[c // 13])
        k3 = -(c % 13)
        if k1 < b1 or (k1 == b1 and (k2 < b2 or (k2 == b2 and k3 < b3))):
            b1 = k1
            b2 = k2
            b3 = k3
            best_c = c
    return best_c


@jit
def masters(M, out):
    """The cards of M with no outstanding card of their suit above them."""
    res = U0
    m = M
    while m != U0:
        c = lowest(m)
        m &= m - U1
        if out & above(c) == U0:
            res |= U1 << np.uint64(c)
    return res


@jit
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


# --- troeven ---------------------------------------------------------------------------


@jit
def void_in(voids, seat_mask, s):
    """True if any seat in ``seat_mask`` (bit per seat) is known void in suit ``s``.

    ``voids`` packs the known voids as bit ``4*seat + suit``.
    """
    for q in range(4):
        if (seat_mask >> q) & 1 and (voids >> (4 * q + s)) & 1:
            return True
    return False


@jit
def troeven_lead(H, out, trump, voids, me):
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    outt = out & tr
    myt = H & tr
    others = 15 & ~(1 << me)
    if myt != U0 and outt != U0:
        m = highest(myt)
        nm = npop(myt)
        if out & above(m) == U0 and (2 * nm >= npop(outt) or nm >= 4):
            return m
    best_c = -1
    best_n = -1
    for s in range(4):
        if s == trump:
            continue
        hs = H & SUIT_MASKS[s]
        if hs == U0:
            continue
        m = highest(hs)
        if out & above(m) != U0:
            continue
        outs = out & SUIT_MASKS[s]
        if outt == U0 or (outs != U0 and not void_in(voids, others, s)):
            n = npop(outs)
            if n > best_n:
                best_n = n
                best_c = m
    if best_c >= 0:
        return best_c
    for safe_only in (True, False):
        best_len = 0
        best_s = -1
        for s in range(4):
            if s == trump:
                continue
            hs = H & SUIT_MASKS[s]
            if hs == U0:
                continue
            if safe_only and outt != U0 and void_in(voids, others, s):
                continue
            n = npop(hs)
            if n > best_len:
                best_len = n
                best_s = s
        if best_s >= 0:
            return lowest(H & SUIT_MASKS[best_s])
    return lo_card(H)


@jit
def troeven_follow(L, out, trump, voids, pos, led, wcard, later):
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    if trump >= 0 and wcard // 13 == trump and led != trump:
        beat = U0
    else:
        beat = L & above(wcard)
    if pos == 3:
        return lowest(beat) if beat != U0 else lowest(L)
    safe = led == trump or (out & tr) == U0 or not void_in(voids, later, led)
    if safe:
        u = beat & masters(beat, out)
        if u != U0:
            return lowest(u)
    return lowest(L)


@jit
def troeven_void(H, out, trump, voids, pos, led, wcard, later):
    if trump >= 0:
        tr = SUIT_MASKS[trump]
        myt = H & tr
        if myt != U0:
            if wcard // 13 == trump:
                w = myt & above(wcard)
            else:
                w = myt
            if w != U0:
                if pos == 3 or not void_in(voids, later, led):
                    return lowest(w)
                wm = w & masters(w, out)
                if wm != U0:
                    return lowest(wm)
    else:
        tr = U0
    best_s = -1
    best_len = 99
    for pass_ in range(2):
        for s in range(4):
            if s == trump:
                continue
            hs = H & SUIT_MASKS[s]
            if hs == U0:
                continue
            if pass_ == 0 and out & above(highest(hs)) == U0:
                continue
            n = npop(hs)
            if n < best_len:
                best_len = n
                best_s = s
        if best_s >= 0:
            return lowest(H & SUIT_MASKS[best_s])
    return lo_card(H & tr) if H & tr else lo_card(H)


# --- domino ----------------------------------------------------------------------------


@jit
def domino_choice(H, L, open_rank):
    best_c = -1
    b1 = -1
    b2 = -1
    b3 = -1
    b4 = -1
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        s = c // 13
        r = c % 13
        mine = field(H, s) & ~(U1 << np.uint64(r))
        if r == open_rank:
            beyond = mine
            reach = 0
            if beyond != U0:
                reach = max(highest(beyond) - r, r - lowest(beyond))
            nogift = 1 if (r > 0 and (mine >> np.uint64(r - 1)) & U1) or (
                r < 12 and (mine >> np.uint64(r + 1)) & U1
            ) else 0
        elif r > open_rank:
            beyond = mine & ~((U1 << np.uint64(r + 1)) - U1)
            reach = highest(beyond) - r if beyond != U0 else 0
            nogift = 1 if r == 12 or (mine >> np.uint64(r + 1)) & U1 else 0
        else:
            beyond = mine & ((U1 << np.uint64(r)) - U1)
            reach = r - lowest(beyond) if beyond != U0 else 0
            nogift = 1 if r == 0 or (mine >> np.uint64(r - 1)) & U1 else 0
        unlock = 1 if beyond != U0 else 0
        count = npop(beyond)
        if unlock > b1 or (
            unlock == b1
            and (reach > b2 or (reach == b2 and (count > b3 or (count == b3 and nogift > b4))))
        ):
            b1 = unlock
            b2 = reach
            b3 = count
            b4 = nogift
            best_c = c
    return best_c
