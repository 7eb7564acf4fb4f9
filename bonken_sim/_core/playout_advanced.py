"""Play loops for deals with at least one ``advanced`` seat, and the stake-aware entry point.

``play_staked`` is what the batch, trace, conditional and game kernels call. A deal without
an advanced seat goes straight to ``playout.play_variant`` (so the random and basic builds
carry none of the advanced tier's code or state); otherwise one of the loops here plays it.
They keep what the advanced tier remembers (every seat's voids, opponents shown to hold no
penalty card, Domino passes) and play random and basic seats exactly as ``playout`` does.

``stake[p, q]`` is the number of directions doubled between seats p and q (0, 1 or 2;
RULES.md §5): all zero outside full games.
"""

import numpy as np

from ._jit import jit
from .cards import (
    ALL52,
    HEARTS,
    SUIT13,
    U0,
    U1,
    kth_lowest,
    lowest,
    npop,
    rank_of,
    suit_of,
)
from .playout import (
    PASS,
    STRAT_RANDOM,
    beats,
    card_points,
    domino_after,
    domino_fix_aces,
    domino_opening,
    lead_ban,
    play_variant,
    seats_after,
    trick_legal,
)
from .rng import fill_draws, scale_draw
from .ruleset import (
    ACES_EITHER,
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
    HARTENHEER,
    KIND_DOMINO,
    KIND_TROEVEN,
    LAATSTE_SLAG,
)
from .strategy_advanced import (
    adv_domino_choice,
    adv_laatste,
    adv_neg_discard,
    adv_neg_follow,
    adv_neg_lead,
    adv_troeven_follow,
    adv_troeven_lead,
    adv_troeven_void,
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

STRAT_ADVANCED = 2

FAMILY_NEGATIVE = 1
FAMILY_LAATSTE = 2
FAMILY_TROEVEN = 3


def _make_adv_loop(family):
    """The trick loop with advanced seats, built once per strategy family."""

    @jit(_nrt=False)  # allocates nothing: no reference counting on the array arguments
    def play_tricks(row, hands, dealer, strat, rnd, scores, tricks, trace, stake):
        contract = row[F_CONTRACT]
        trump = row[F_TRUMP]
        hmode = row[F_BAN_HEART_LEAD]
        tmode = row[F_TRUMP_PLAY]
        broken = False
        pen = np.uint64(row[F_PEN_MASK])
        top = np.uint64(row[F_TOP_MASK])
        a_mask = np.uint64(row[F_PTS_A_MASK])
        a_pts = row[F_PTS_A]
        b_mask = np.uint64(row[F_PTS_B_MASK])
        b_pts = row[F_PTS_B]
        # Where every penalty card is a top card (vrouwen, hartenheer), a seat that discards
        # something else holds none: basic and advanced seats dump a top card first.
        pen_is_top = pen != U0 and pen == top
        record = trace.shape[0] > 0
        for p in range(4):
            scores[p] = 0
            tricks[p] = 0
        voids = 0  # bit 4*seat + suit: the seat showed out of the suit
        clean = 0  # bit per seat: shown to hold no penalty card
        leader = (dealer + 1) & 3
        played = U0
        n = 0
        nr = 0
        for _ in range(13):
            led = -1
            ledm = U0  # the led suit's cards
            wcard = -1
            wseat = leader
            trick = U0
            ban = lead_ban(hmode, broken)
            for pos in range(4):
                p = (leader + pos) & 3
                H = hands[p]
                L = trick_legal(H, pos, led, ledm, ban, trump, tmode, wcard)
                sp = strat[p]
                if sp == STRAT_RANDOM:
                    c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                    nr += 1
                elif L & (L - U1) == U0:
                    c = lowest(L)
                elif family == FAMILY_NEGATIVE:
                    out = ALL52 & ~H & ~played
                    if sp == STRAT_ADVANCED:
                        holder = contract == HARTENHEER and (H & top) != U0
                        if pos == 0:
                            risky = 15 & ~(1 << p) & ~clean if pen_is_top else 15 & ~(1 << p)
                            c = adv_neg_lead(H, L, out, pen, top, voids, risky, contract, holder)
                        elif L & ledm:
                            tpen = (trick & pen) != U0
                            c = adv_neg_follow(
                                H, L, out, pen, top, tpen, pos, wcard, led, holder, contract
                            )
                        else:
                            c = adv_neg_discard(
                                H,
                                out,
                                pen,
                                top,
                                a_mask,
                                a_pts,
                                b_mask,
                                b_pts,
                                contract,
                                stake[p, wseat],
                            )
                    elif pos == 0:
                        c = neg_lead(L, out, pen)
                    elif L & ledm:
                        c = neg_follow(L, wcard, pen, pos)
                    else:
                        c = neg_discard(H, out, pen, top, a_mask, a_pts, b_mask, b_pts)
                elif family == FAMILY_LAATSTE:
                    out = ALL52 & ~H & ~played
                    if sp == STRAT_ADVANCED:
                        c = adv_laatste(H, L, out, pos, led, wcard)
                    else:
                        c = laatste_choice(H, L, out, pos, led, wcard)
                else:
                    out = ALL52 & ~H & ~played
                    later = seats_after(leader, pos)
                    if sp == STRAT_ADVANCED:
                        if pos == 0:
                            c = adv_troeven_lead(H, out, trump, voids, p)
                        elif L & ledm:
                            c = adv_troeven_follow(L, out, trump, voids, pos, led, wcard, later)
                        else:
                            c = adv_troeven_void(
                                L, out, trump, voids, pos, led, wcard, later, stake[p, wseat]
                            )
                    elif pos == 0:
                        c = troeven_lead(H, out, trump, voids, p)
                    elif L & ledm:
                        c = troeven_follow(L, out, trump, voids, pos, led, wcard, later)
                    else:
                        c = troeven_void(L, out, trump, voids, pos, led, wcard, later)
                cb = U1 << np.uint64(c)
                hands[p] = H & ~cb
                trick |= cb
                played |= cb
                if record:
                    trace[n] = c
                n += 1
                if pos == 0:
                    led = suit_of(c)
                    ledm = SUIT13 << np.uint64(13 * led)
                    wcard = c
                else:
                    if suit_of(c) != led:
                        voids |= 1 << (4 * p + led)
                        if pen_is_top and (cb & pen) == U0 and sp != STRAT_RANDOM:
                            clean |= 1 << p
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


adv_tricks_negative = _make_adv_loop(FAMILY_NEGATIVE)
adv_tricks_laatste = _make_adv_loop(FAMILY_LAATSTE)
adv_tricks_troeven = _make_adv_loop(FAMILY_TROEVEN)


@jit(_nrt=False)
def adv_domino(row, hands, dealer, strat, rnd, scores, out_order, trace):
    """``playout.play_domino`` with advanced seats, which remember every pass: a seat that
    passes holds none of the cards playable at that moment."""
    open_rank = row[F_DOMINO_OPEN]
    aces = row[F_DOMINO_ACES]
    record = trace.shape[0] > 0
    for p in range(4):
        scores[p] = 0
        out_order[p] = -1
    playable = domino_opening(open_rank)
    # Cards each seat has shown it does not hold (scalars: this loop allocates nothing).
    nh0 = U0
    nh1 = U0
    nh2 = U0
    nh3 = U0
    laid_mask = U0
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
                nh0 |= playable if turn == 0 else U0
                nh1 |= playable if turn == 1 else U0
                nh2 |= playable if turn == 2 else U0
                nh3 |= playable if turn == 3 else U0
                if record:
                    trace[n] = PASS
                n += 1
            else:
                sp = strat[turn]
                if sp == STRAT_RANDOM:
                    c = kth_lowest(L, scale_draw(rnd[nr], npop(L)))
                    nr += 1
                elif L & (L - U1) == U0:
                    c = lowest(L)
                elif sp == STRAT_ADVANCED:
                    # The cards a stuck opponent (one who provably cannot play now) may hold.
                    out = ALL52 & ~H & ~laid_mask
                    stuck = U0
                    for q in range(4):
                        nh = nh0 if q == 0 else nh1 if q == 1 else nh2 if q == 2 else nh3
                        may = out & ~nh
                        live = q != turn and hands[q] != U0 and (may & playable) == U0
                        stuck |= may if live else U0
                    c = adv_domino_choice(H, L, open_rank, aces, playable, stuck)
                else:
                    c = domino_choice(H, L, open_rank, aces)
                cb = U1 << np.uint64(c)
                hands[turn] = H & ~cb
                laid_mask |= cb
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
def play_staked(row, hands, dealer, strat, s, rnd, scores, tricks, out_order, trace, stake):
    """``playout.play_variant`` with the deal's stakes (``stake``, 4×4) for advanced seats."""
    n_adv = 0
    n_random = 0
    for p in range(4):
        n_adv += strat[p] == STRAT_ADVANCED
        n_random += strat[p] == STRAT_RANDOM
    if n_adv == 0:
        return play_variant(row, hands, dealer, strat, s, rnd, scores, tricks, out_order, trace)
    if n_random > 0:
        fill_draws(s, rnd)
    if row[F_KIND] == KIND_DOMINO:
        for p in range(4):
            tricks[p] = 0
        return adv_domino(row, hands, dealer, strat, rnd, scores, out_order, trace)
    for p in range(4):
        out_order[p] = -1
    if row[F_KIND] == KIND_TROEVEN:
        return adv_tricks_troeven(row, hands, dealer, strat, rnd, scores, tricks, trace, stake)
    if row[F_CONTRACT] == LAATSTE_SLAG:
        return adv_tricks_laatste(row, hands, dealer, strat, rnd, scores, tricks, trace, stake)
    return adv_tricks_negative(row, hands, dealer, strat, rnd, scores, tricks, trace, stake)
