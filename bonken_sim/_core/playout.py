"""Play loops: one deal of one contract variant, for trick contracts and for Domino.

One loop serves every variant: the contract is a run-time row of the ruleset table, which
measured as fast as a compiled copy per contract and compiles far quicker.
"""

import numpy as np

from ._jit import jit
from .cards import (
    ALL52,
    HEARTS,
    SUIT13,
    SUIT_MASKS,
    U0,
    U1,
    above,
    kth_lowest,
    lowest,
    npop,
    rank_of,
    suit_of,
)
from .rng import fill_draws, scale_draw
from .ruleset import (
    ACES_EITHER,
    ACES_HIGH,
    ACES_LOW,
    F_BAN_HEART_LEAD,
    F_CONTRACT,
    F_DOMINO_ACES,
    F_DOMINO_LAST_PTS,
    F_DOMINO_OPEN,
    F_KIND,
    F_LAST_PTS,
    F_PEN_MASK,
    F_PTS_A,
    F_PTS_A_MASK,
    F_PTS_B,
    F_PTS_B_MASK,
    F_TOP_MASK,
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
    HEART_LEAD_BANNED,
    HEART_LEAD_BROKEN,
    HEART_LEAD_FREE,
    KIND_DOMINO,
    KIND_TROEVEN,
    LAATSTE_SLAG,
    TRUMP_OPTIONAL,
)
from .strategy_basic import (
    domino_choice,
    laatste_choice,
    neg_discard,
    neg_follow,
    neg_lead,
    troeven_follow,
    troeven_lead,
    troeven_void,
)

STRAT_RANDOM = 0
STRAT_BASIC = 1
PASS = 52  # the trace code of a Domino pass


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


# Trick-loop builds: the strategy family is a compile-time constant of each build, so its
# decision code sits directly in the loop where LLVM can inline it (a generic dispatch call
# per card cost about half the basic tier's time, measured).
FAMILY_RANDOM = 0  # every seat random: no strategy code at all
FAMILY_NEGATIVE = 1  # bukken, hartenjagen, herenboeren, vrouwen, hartenheer
FAMILY_LAATSTE = 2
FAMILY_TROEVEN = 3


def _make_trick_loop(family):
    """The trick-play loop, built once per strategy family from this one source."""

    @jit(_nrt=False)
    def play_tricks(row, hands, dealer, strat, rnd, scores, tricks, trace):
        """Play 13 tricks; ``hands`` is consumed. Returns the number of trace entries written.

        ``rnd`` holds the play stream's draws; random seats consume them in order. Only
        scalars cross into the strategy helpers (array arguments would cost atomic reference
        counting on every card).
        """
        # Only troeven rows have a trump or a trump-play mode, and only negative rows ban heart
        # leads (ruleset.build_table); as constants the other builds drop that code.
        any_row = family == FAMILY_RANDOM
        trump = row[F_TRUMP] if family == FAMILY_TROEVEN or any_row else -1
        tmode = row[F_TRUMP_PLAY] if family == FAMILY_TROEVEN or any_row else TRUMP_OPTIONAL
        hmode = row[F_BAN_HEART_LEAD] if family == FAMILY_NEGATIVE or any_row else HEART_LEAD_FREE
        broken = False  # a heart has been played to an earlier trick
        pen = np.uint64(row[F_PEN_MASK])
        top = np.uint64(row[F_TOP_MASK])
        a_mask = np.uint64(row[F_PTS_A_MASK])
        a_pts = row[F_PTS_A]
        b_mask = np.uint64(row[F_PTS_B_MASK])
        b_pts = row[F_PTS_B]
        record = trace.shape[0] > 0
        for p in range(4):
            scores[p] = 0
            tricks[p] = 0
        voids = 0  # bit 4*seat + suit: the seat showed out of the suit
        leader = (dealer + 1) & 3
        played = U0
        n = 0
        nr = 0
        for _ in range(13):
            led = -1
            ledm = U0  # the led suit's cards: shifted once per trick, not loaded per card
            wcard = -1
            wseat = leader
            trick = U0
            ban = lead_ban(hmode, broken)
            for pos in range(4):
                p = (leader + pos) & 3
                H = hands[p]
                L = trick_legal(H, pos, led, ledm, ban, trump, tmode, wcard)
                if family == FAMILY_RANDOM or strat[p] == STRAT_RANDOM:
                    c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                    nr += 1
                elif L & (L - U1) == U0:  # a forced card: no strategy needed
                    c = lowest(L)
                elif family == FAMILY_NEGATIVE:
                    out = ALL52 & ~H & ~played
                    if pos == 0:
                        c = neg_lead(L, out, pen)
                    elif L & ledm:
                        c = neg_follow(L, wcard, pen, pos)
                    else:
                        c = neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts)
                elif family == FAMILY_LAATSTE:
                    c = laatste_choice(H, L, ALL52 & ~H & ~played, pos, led, wcard)
                else:
                    out = ALL52 & ~H & ~played
                    if pos == 0:
                        c = troeven_lead(H, out, trump, voids, p)
                    else:
                        later = seats_after(leader, pos)
                        if L & ledm:
                            c = troeven_follow(L, out, trump, voids, pos, led, wcard, later)
                        else:
                            # L is H unless a trump-play rule restricts it.
                            c = troeven_void(L, out, trump, voids, pos, led, wcard, later)
                cb = U1 << np.uint64(c)
                hands[p] = H & ~cb
                trick |= cb
                if family != FAMILY_RANDOM:
                    played |= cb
                if record:
                    trace[n] = c
                n += 1
                if pos == 0:
                    led = suit_of(c)
                    ledm = SUIT13 << np.uint64(13 * led)
                    wcard = c
                else:
                    if family == FAMILY_TROEVEN and suit_of(c) != led:
                        voids |= 1 << (4 * p + led)
                    b = beats(c, wcard, trump)
                    wcard = c if b else wcard
                    wseat = p if b else wseat
            tricks[wseat] += 1
            scores[wseat] += row[F_TRICK_PTS]
            broken |= (trick & HEARTS) != U0
            scores[wseat] += card_points(trick, a_mask, a_pts, b_mask, b_pts)
            leader = wseat
        scores[leader] += row[F_LAST_PTS]
        return n

    return play_tricks


play_tricks_random = _make_trick_loop(FAMILY_RANDOM)
play_tricks_negative = _make_trick_loop(FAMILY_NEGATIVE)
play_tricks_laatste = _make_trick_loop(FAMILY_LAATSTE)
play_tricks_troeven = _make_trick_loop(FAMILY_TROEVEN)


@jit
def domino_opening(open_rank):
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


@jit(_nrt=False)
def play_domino(row, hands, dealer, strat, rnd, scores, out_order, trace):
    """Play Domino to the last card. ``out_order[p]`` = 0..3, the order seat p went out."""
    open_rank = row[F_DOMINO_OPEN]
    aces = row[F_DOMINO_ACES]
    record = trace.shape[0] > 0
    for p in range(4):
        scores[p] = 0
        out_order[p] = -1
    playable = domino_opening(open_rank)
    turn = (dealer + 1) & 3
    laid = 0
    n_out = 0
    n = 0
    nr = 0
    while True:
        H = hands[turn]
        if H != U0:
            L = H & playable
            if L == U0:
                if record:
                    trace[n] = PASS
                n += 1
            else:
                if strat[turn] == STRAT_RANDOM:
                    c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                    nr += 1
                elif L & (L - U1) == U0:  # a forced card: no strategy needed
                    c = lowest(L)
                else:
                    c = domino_choice(H, L, open_rank, aces)
                cb = U1 << np.uint64(c)
                hands[turn] = H & ~cb
                playable = domino_after(playable, c, open_rank, aces)
                if aces == ACES_EITHER and rank_of(c) == 12:
                    playable, aces = domino_fix_aces(playable, c, hands)
                if record:
                    trace[n] = c
                n += 1
                laid += 1
                if hands[turn] == U0:
                    out_order[turn] = n_out
                    n_out += 1
                if laid == 52:
                    scores[turn] += row[F_DOMINO_LAST_PTS]
                    return n
        turn = (turn + 1) & 3


@jit(_nrt=False)
def play_variant(row, hands, dealer, strat, s, rnd, scores, tricks, out_order, trace):
    """Play one deal of one variant (``hands`` is consumed); returns the trace length.

    ``s`` is the play stream's state; ``rnd`` is scratch for its draws (52 entries: at most
    one draw per card laid).
    """
    n_random = 0
    for p in range(4):
        if strat[p] == STRAT_RANDOM:
            n_random += 1
    if n_random > 0:
        fill_draws(s, rnd)
    if row[F_KIND] == KIND_DOMINO:
        for p in range(4):
            tricks[p] = 0
        return play_domino(row, hands, dealer, strat, rnd, scores, out_order, trace)
    for p in range(4):
        out_order[p] = -1
    if n_random == 4:
        return play_tricks_random(row, hands, dealer, strat, rnd, scores, tricks, trace)
    if row[F_KIND] == KIND_TROEVEN:
        return play_tricks_troeven(row, hands, dealer, strat, rnd, scores, tricks, trace)
    if row[F_CONTRACT] == LAATSTE_SLAG:
        return play_tricks_laatste(row, hands, dealer, strat, rnd, scores, tricks, trace)
    return play_tricks_negative(row, hands, dealer, strat, rnd, scores, tricks, trace)
