"""The ``advanced`` strategy tier, exactly as docs/ENGINE.md ("The advanced tier") specifies.

Deterministic and bitmask-only. On top of ``basic`` it uses what a careful player remembers:
the cards played (``out``), every seat's known voids, which opponents have shown they hold no
penalty card, Domino passes, and the doubling stakes of the deal (``stake_w`` = the number of
directions doubled between the seat to act and the trick's current winner, RULES.md §5).
"""

import numpy as np

from ._jit import jit
from .cards import (
    ALL52,
    HEARTS,
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
    suit_of,
    suits_held,
)
from .domino import domino_after
from .ruleset import ACES_HIGH, BUKKEN, HARTENJAGEN, HERENBOEREN, VROUWEN
from .strategy_basic import (
    discard_suit_terms,
    domino_choice,
    keep_min,
    laatste_choice,
    masters,
    neg_follow,
    void_in,
)

# A suit is "fresh" for the safe-high lead while this many of its cards are outstanding.
FRESH = 6
# Discard bonus of a card that sits above an outstanding top penalty card of its suit (an A
# or K over an out Q in vrouwen, the A♥ over the K♥ in hartenheer): it could capture it.
TOP_CAPTURE = 60
# Discard malus of a heart in hartenjagen when all my hearts are below every outstanding one:
# such hearts can never win a heart trick, so they are kept as safe exits.
SAFE_HEART = 40
# laatste_slag: the keep-score endgame starts with this many cards in hand (basic: 4).
ENDGAME = 4
ACE_OF_HEARTS = np.int64(2 * 13 + 12)


# --- negative trick contracts ---------------------------------------------------------


@jit
def adv_neg_lead(H, L, out, pen, top, voids, risky, contract, holder):
    """Holder mode, then L1 force-feed, L3 drill (herenboeren, vrouwen), L2 safe-high, L4."""
    if holder:  # hartenheer with the K♥: winning tricks is free, race to a void
        side = L & ~HEARTS
        if side != U0:
            best = np.int64(-1)
            for s in range(4):
                ls = side & SUIT_MASKS[s]
                key = (((13 - npop(ls)) << 2 | (3 - s)) << 6) | highest(ls if ls != U0 else U1)
                best = max(best, key if ls != U0 else np.int64(-1))
            return best & 63
        nk = L & ~top
        return lowest(nk) if nk != U0 else lowest(L)
    pen_out = pen & out
    # L1: a penalty card below every outstanding card of its suit; the top ones first.
    feed = U0
    for s in range(4):
        o = out & SUIT_MASKS[s]
        lp = L & pen & SUIT_MASKS[s]
        feed |= lp & below(lowest(o)) if (lp != U0 and o != U0) else U0
    if feed != U0:
        ft = feed & top
        return hi_card(ft) if ft != U0 else hi_card(feed)
    if contract == HERENBOEREN or contract == VROUWEN:
        # L3: low in my longest suit whose outstanding penalty card is above all my cards.
        best = np.int64(-1)
        for s in range(4):
            hs = H & SUIT_MASKS[s]
            ls = L & SUIT_MASKS[s] & ~pen
            po = pen_out & SUIT_MASKS[s]
            ok = ls != U0 and po != U0 and highest(po) > highest(hs if hs != U0 else U1)
            key = ((npop(hs) << 2 | (3 - s)) << 6) | lowest(ls if ls != U0 else U1)
            best = max(best, key if ok else np.int64(-1))
        if best >= 0:
            return best & 63
    if contract != BUKKEN:
        # L2: the highest non-penalty card of my shortest fresh suit without penalty cards out.
        best = np.int64(-1)
        for s in range(4):
            ls = L & SUIT_MASKS[s] & ~pen
            o = out & SUIT_MASKS[s]
            ok = (
                ls != U0
                and npop(o) >= FRESH
                and (pen_out & SUIT_MASKS[s]) == U0
                and not void_in(voids, risky, s)
            )
            n = npop(H & SUIT_MASKS[s])
            key = (((13 - n) << 2 | (3 - s)) << 6) | highest(ls if ls != U0 else U1)
            best = max(best, key if ok else np.int64(-1))
        if best >= 0:
            return best & 63
    # L4: basic's exit, but never a low card that would capture an outstanding penalty card.
    best = np.int64(-1)
    for s in range(4):
        m = L & SUIT_MASKS[s] & ~pen
        low = lowest(m if m != U0 else U1)
        na = npop(out & above(low))
        nb = npop(out & below(low))
        safe = np.int64((pen_out & below(low)) == U0)
        key = (((safe << 1 | np.int64(na > 0)) << 8 | (na - nb + 64)) << 2 | (3 - s)) << 6 | low
        best = max(best, key if m != U0 else np.int64(-1))
    if best >= 0:
        return best & 63
    return lo_card(L)


@jit
def adv_neg_follow(H, L, out, pen, top, tpen, pos, wcard, led, holder, contract):
    """Nothing to fear, holder mode, clean last seat, duck, doomed card, forced."""
    if contract != BUKKEN and (out & pen) == U0 and (H & pen) == U0 and not tpen:
        return highest(L)  # no card with points is left anywhere: nothing matters
    if holder:
        if led == 2:
            k = L & top
            if k != U0 and wcard == ACE_OF_HEARTS:
                return lowest(k)  # the K♥ under the A♥: it goes to the ace
            nk = L & ~top
            return lowest(nk) if nk != U0 else lowest(L)
        return highest(L)  # a side suit: nobody can give me the K♥, so win freely
    ducks = L & below(wcard)
    nonpen = L & ~pen
    if ducks != U0:
        dp = ducks & pen
        if dp != U0:
            return highest(dp)
        if pos == 3 and not tpen and contract != BUKKEN and nonpen != U0:
            return highest(nonpen)  # clean last seat: shed my highest card for free
        return highest(ducks)
    # Forced to beat the winner. If no outstanding card can beat even my lowest one, I take
    # the trick whatever I play: as if last (not in bukken, where it measured a loss).
    sure = pos == 3 or (contract != BUKKEN and (out & above(lowest(L))) == U0)
    if sure:
        doomed = L & pen & masters(SUIT_MASKS[led], out)
        if doomed != U0 and not tpen:
            return highest(doomed)  # a master penalty card I would win later anyway
        return highest(nonpen) if nonpen != U0 else highest(L)
    return lowest(nonpen) if nonpen != U0 else lowest(L)


@jit
def _discard_key(cls, bonus, s, top_r, gap_ok, po_low, to_low, base):
    """Packed discard key of the best card of one class in one suit (-1 if the class is
    empty): within a class only the highest card can win, since every term grows with rank."""
    r = highest(cls if cls != U0 else U1)
    sc = (
        bonus
        + r
        + base
        + (15 if r > po_low else 0)
        + (TOP_CAPTURE if r > to_low else 0)
        + (10 if (r == top_r and gap_ok) else 0)
    )
    return (sc << 6) | (13 * s + r) if cls != U0 else np.int64(-1)


@jit
def adv_neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts, contract, stake_w):
    """basic's discard score, plus: penalty points weighted by the stake on the current
    winner, a bonus for cards above an outstanding top penalty card, and low hearts kept."""
    pen_out = pen & out
    top_out = top & out
    mult = 1 + stake_w  # dumping P on a doubled opponent is worth (1 + m)·P to me
    a_bonus = -10 * a_pts * mult
    b_bonus = -10 * b_pts * mult
    if contract == HARTENJAGEN:
        mh = field(H, 2)
        oh = field(out, 2)
        if mh != U0 and oh != U0 and highest(mh) < lowest(oh):
            a_bonus -= SAFE_HEART  # the hearts are the only class of hartenjagen
    best = np.int64(-1)
    held = suits_held(H)  # as in basic: only the suits held
    while held:
        s = lowest(np.uint64(held))
        held &= held - 1
        hs = field(H, s)
        base, top_r, gap_ok, po_low = discard_suit_terms(hs, field(out, s), field(pen_out, s))
        tou = field(top_out, s)
        to_low = lowest(tou) if tou != U0 else 99
        ts = field(top, s)
        fa = field(a_mask, s)
        fb = field(b_mask, s)
        # Classes the contract does not have are skipped, as in basic (the tests are the
        # same for every card of a deal, so they cost no mispredictions).
        if top & a_mask:
            best = max(
                best,
                _discard_key(hs & ts & fa, 1000 + a_bonus, s, top_r, gap_ok, po_low, to_low, base),
            )
        if top & b_mask:
            best = max(
                best,
                _discard_key(hs & ts & fb, 1000 + b_bonus, s, top_r, gap_ok, po_low, to_low, base),
            )
        if a_mask & ~top:
            best = max(
                best, _discard_key(hs & ~ts & fa, a_bonus, s, top_r, gap_ok, po_low, to_low, base)
            )
        if b_mask & ~top:
            best = max(
                best, _discard_key(hs & ~ts & fb, b_bonus, s, top_r, gap_ok, po_low, to_low, base)
            )
        best = max(best, _discard_key(hs & ~fa & ~fb, 0, s, top_r, gap_ok, po_low, to_low, base))
    return best & 63


# --- laatste slag ---------------------------------------------------------------------


@jit
def adv_laatste(H, L, out, pos, led, wcard):
    """basic's laatste_slag, except: a discard while shedding weighs the suit's outstanding
    cards beside the rank, and in the endgame a seat that must take the trick whatever it
    plays (nothing outstanding beats even its lowest card) sheds its highest card."""
    if npop(H) > ENDGAME:
        if pos > 0 and (L & SUIT_MASKS[led]) == U0:
            # Shed from the suit where a high card is worst to keep: its rank counts twice,
            # and so does every outstanding card of the suit (others may lead it later).
            best = np.int64(-1)
            for s in range(4):
                hs = H & SUIT_MASKS[s]
                c = highest(hs if hs != U0 else U1)
                key = ((2 * (rank_of(c)) + npop(out & SUIT_MASKS[s])) << 6) | c
                best = max(best, key if hs != U0 else np.int64(-1))
            return best & 63
        return laatste_choice(H, L, out, pos, led, wcard)
    if pos == 0:
        return keep_min(L, out)
    if L & SUIT_MASKS[led]:
        if (L & below(wcard)) == U0 and (out & above(lowest(L))) == U0:
            return highest(L)
        return neg_follow(L, wcard, U0, pos)
    return keep_min(H, out)


# --- troeven ---------------------------------------------------------------------------


@jit
def ruffers(voids, seats, s, trump):
    """Seats of ``seats`` (bit per seat) known void in ``s`` and not known void in trumps."""
    r = 0
    for q in range(4):
        vs = (voids >> (4 * q + s)) & 1
        vt = (voids >> (4 * q + trump)) & 1 if trump >= 0 else 1
        r |= ((seats >> q) & 1 & vs & (1 - vt)) << q
    return r


@jit
def adv_troeven_lead(H, out, trump, voids, me):
    """basic's troeven lead, except: draw trumps with the master trump whatever my length,
    lead low from the shortest side suit while I hold trumps, and a void opponent only
    threatens a suit if it may still ruff."""
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    outt = out & tr
    myt = H & tr
    others = 15 & ~(1 << me)
    if myt != U0 and outt != U0:
        m = highest(myt)
        if out & above(m) == U0:
            return m  # draw trumps whenever I hold the master trump (basic: only when long)
    cash = np.int64(-1)
    long_safe = np.int64(-1)
    long_any = np.int64(-1)
    for s in range(4):
        hs = H & SUIT_MASKS[s]
        valid = s != trump and hs != U0
        m = highest(hs if valid else U1)
        outs = out & SUIT_MASKS[s]
        unsafe = ruffers(voids, others, s, trump) != 0
        cash_ok = out & above(m) == U0 and (outt == U0 or (outs != U0 and not unsafe))
        cash_key = ((npop(outs) << 2 | (3 - s)) << 6) | m
        cash = max(cash, cash_key if valid and cash_ok else np.int64(-1))
        # Holding trumps in a suit contract, lead from the shortest side suit (to ruff it
        # later); else from the longest (to establish it), as basic.
        ln = 13 - npop(hs) if myt != U0 else npop(hs)
        long_key = ((ln << 2 | (3 - s)) << 6) | lowest(hs if valid else U1)
        long_any = max(long_any, long_key if valid else np.int64(-1))
        safe = outt == U0 or not unsafe
        long_safe = max(long_safe, long_key if valid and safe else np.int64(-1))
    if cash >= 0:
        return cash & 63
    if long_safe >= 0:
        return long_safe & 63
    if long_any >= 0:
        return long_any & 63
    return lo_card(H)


@jit
def adv_troeven_follow(L, out, trump, voids, pos, led, wcard, later):
    """basic's troeven follow; a later seat threatens to ruff only if not void in trumps."""
    tr = SUIT_MASKS[trump] if trump >= 0 else U0
    ruffed = trump >= 0 and suit_of(wcard) == trump and led != trump
    beat = U0 if ruffed else L & above(wcard)
    if pos == 3:
        return lowest(beat) if beat != U0 else lowest(L)
    safe = led == trump or (out & tr) == U0 or ruffers(voids, later, led, trump) == 0
    u = masters(beat, out) if safe else U0
    return lowest(u) if u != U0 else lowest(L)


@jit
def adv_troeven_void(H, out, trump, voids, pos, led, wcard, later, stake_w):
    """basic's troeven void play; against a doubled winner, ruff even when a later seat may
    over-ruff, and a later seat threatens to over-ruff only if it may hold trumps."""
    if trump >= 0:
        tr = SUIT_MASKS[trump]
        myt = H & tr
        if myt != U0:
            w = myt & above(wcard) if suit_of(wcard) == trump else myt
            if w != U0:
                if pos == 3 or ruffers(voids, later, led, trump) == 0:
                    return lowest(w)
                wm = masters(w, out)
                if wm != U0:
                    return lowest(wm)
                if stake_w > 0:
                    return lowest(w)
    else:
        tr = U0
    no_master = np.int64(-1)
    any_suit = np.int64(-1)
    for s in range(4):
        hs = H & SUIT_MASKS[s]
        valid = s != trump and hs != U0
        probe = hs if valid else U1
        key = (((13 - npop(hs)) << 2 | (3 - s)) << 6) | lowest(probe)
        any_suit = max(any_suit, key if valid else np.int64(-1))
        has_master = out & above(highest(probe)) == U0
        no_master = max(no_master, key if valid and not has_master else np.int64(-1))
    if no_master >= 0:
        return no_master & 63
    if any_suit >= 0:
        return any_suit & 63
    return lo_card(H & tr) if H & tr else lo_card(H)


# --- domino ----------------------------------------------------------------------------


@jit
def _domino_key(H, c, open_rank):
    """basic's (unlock, reach, count, nogift) of card ``c``, packed, for rows with aces high."""
    s = suit_of(c)
    r = rank_of(c)
    mine = field(H, s) & ~(U1 << np.uint64(r))
    up = mine >> np.uint64(r + 1)
    down = mine & ((U1 << np.uint64(r)) - U1)
    reach_up = highest(up) + 1 if up != U0 else 0
    reach_down = r - lowest(down) if down != U0 else 0
    if r == open_rank:
        beyond_n = npop(mine)
        reach = max(reach_up, reach_down)
        nogift = np.int64(up & U1) | (np.int64(down >> np.uint64(r - 1)) & 1 if r > 0 else 0)
    elif r > open_rank:
        beyond_n = npop(up)
        reach = reach_up
        nogift = np.int64(r == 12) | np.int64(up & U1)
    else:
        beyond_n = npop(down)
        reach = reach_down
        nogift = np.int64(r == 0) | (np.int64(down >> np.uint64(r - 1)) & 1 if r > 0 else 1)
    unlock = 1 if beyond_n > 0 else 0
    return ((unlock << 4 | reach) << 4 | beyond_n) << 1 | nogift


@jit(inline="always")
def stuck_cards(H, turn, hands, laid_mask, playable, nh0, nh1, nh2, nh3):
    """The cards a stuck opponent (one who provably cannot play now) may hold: those out of
    the seat's view that he has not shown he lacks (``nh*``: the cards each seat showed it
    does not hold, by passing)."""
    out = ALL52 & ~H & ~laid_mask
    stuck = U0
    for q in range(4):
        nh = nh0 if q == 0 else nh1 if q == 1 else nh2 if q == 2 else nh3
        may = out & ~nh
        live = q != turn and hands[q] != U0 and (may & playable) == U0
        stuck |= may if live else U0
    return stuck


@jit
def adv_domino_choice(H, L, open_rank, aces, playable, stuck):
    """basic's choice; among the cards basic ranks equal to it, one that opens no card a
    stuck opponent may hold (``stuck``: the cards some opponent who provably cannot play now
    may hold). The tie-break is applied with aces high only (the standard rows)."""
    c0 = domino_choice(H, L, open_rank, aces)
    if stuck == U0 or aces != ACES_HIGH:
        return c0
    if (domino_after(playable, c0, open_rank, aces) & ~playable & stuck) == U0:
        return c0
    k0 = _domino_key(H, c0, open_rank)
    m = L & ~(U1 << np.uint64(c0))
    while m != U0:
        c = lowest(m)
        m &= m - U1
        opened = domino_after(playable, c, open_rank, aces) & ~playable
        if (opened & stuck) == U0 and _domino_key(H, c, open_rank) == k0:
            return c
    return c0
