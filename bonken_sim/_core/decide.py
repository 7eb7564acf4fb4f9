"""One card-play decision from a seat's view: the public plays replayed into the play loops'
own state, then the loops' own legal-card and strategy functions called on it.

A seat's view holds its current hand and every play so far (who played what), nothing of the
other hands. The trick loop's state (cards played, voids, seats shown clean, hearts broken,
the trick in progress) and the Domino loop's (the playable cards, the aces, the cards each
seat showed it lacks by passing) follow from the public plays alone, so a decision here is
exactly the one the loop makes in that position.

The other seats' earlier plays are checked as far as the view allows: a seat's hand at a
play held at least that card and every card it plays later, and under the rules a larger
hand only restricts more, so a play the rules forbid for that known part is illegal
whatever else the seat held (``trick_legal`` and Domino's playable set, as the loops apply
them).
"""

import numpy as np

from ._jit import jit
from .cards import ALL52, U0, U1, lowest, npop, suit_of
from .domino import domino_lay, domino_opening
from .ids import (
    KIND_DOMINO,
    KIND_TROEVEN,
    LAATSTE_SLAG,
    N_CARDS,
    PASS,
    STRAT_ADVANCED,
    STRAT_BASIC,
)
from .play_domino import stuck_cards
from .play_tricks import mixed_laatste, mixed_negative, mixed_troeven, row_rules
from .ruleset import (
    F_BAN_HEART_LEAD,
    F_CONTRACT,
    F_DOMINO_ACES,
    F_DOMINO_OPEN,
    F_KIND,
    F_PEN_MASK,
    F_TOP_MASK,
    F_TRUMP,
    F_TRUMP_PLAY,
)
from .strategy_advanced import adv_domino_choice
from .strategy_basic import domino_choice
from .trick import hearts_broken, lay_card, lead_ban, trick_legal

# Verdicts on a view (the engine turns them into messages), with the index of the play
# concerned (the number of plays where the verdict is about the position after them).
OK = 0
NOT_A_CARD = 1  # a pass in a trick contract, or a code that is no card
SEEN = 2  # a card played twice, or played and still in the deciding seat's hand
WRONG_SEAT = 3  # a play by a seat whose turn it was not
NOT_LEGAL = 4  # a card the seat could not play there
BAD_PASS = 5  # a Domino pass by a seat that could play
DEAL_OVER = 6  # the plays end the deal: nothing to decide
NOT_TO_ACT = 7  # after the plays another seat acts
HAND_SIZE = 8  # the hand does not hold 13 less the cards the seat played


@jit
def decide_card(row, hand, dealer, seat, plays, seats, strat, random_seats, stake, later, scratch):
    """The card seat ``seat`` plays holding ``hand`` after ``plays`` (``seats[i]``: who made
    play ``i``, as the view says; card codes, ``PASS``). ``strat``: the seat's tier (basic or
    advanced; random asks only for the legal cards); ``random_seats``: a bit per seat that
    plays random (such a seat's discards show nothing, as in the loop). ``later`` (uint64,
    one per play) and ``scratch`` (uint64[4]) are work space.

    Returns (verdict, index, legal cards, card): the card is the strategy's (``PASS`` when
    Domino forces a pass; -1 for random)."""
    n = plays.shape[0]
    domino = row[F_KIND] == KIND_DOMINO
    played = U0
    for i in range(n):
        c = plays[i]
        if c < 0 or c >= N_CARDS:
            if not (c == PASS and domino):
                return NOT_A_CARD, i, U0, -1
            continue
        cb = U1 << np.uint64(c)
        if (played & cb) != U0 or (hand & cb) != U0:
            return SEEN, i, U0, -1
        played |= cb
    verdict, index = _check_seats(row, dealer, plays, seats)
    if verdict != OK:
        return verdict, index, U0, -1
    # A seat's cards at play i include every card it plays from i on (and, for the deciding
    # seat, its hand now).
    known = scratch
    known[:] = U0
    known[seat] = hand
    for i in range(n - 1, -1, -1):
        q = seats[i]
        if plays[i] != PASS:
            known[q] |= U1 << np.uint64(plays[i])
        later[i] = known[q]
    if npop(known[seat]) != 13:
        return HAND_SIZE, n, U0, -1
    if domino:
        return _decide_domino(row, hand, dealer, seat, plays, seats, strat, later, scratch)
    return _decide_tricks(row, hand, dealer, seat, plays, seats, strat, random_seats, stake,
                          later)  # fmt: skip


@jit
def _check_seats(row, dealer, plays, seats):
    """Whether every play is by the seat whose turn it was (the plays' cards are cards, each
    once): (verdict, index)."""
    n = plays.shape[0]
    turn = (dealer + 1) & 3
    if row[F_KIND] == KIND_DOMINO:
        left = np.full(4, 13, np.int64)
        laid = 0
        for i in range(n):
            if laid == 52:
                return DEAL_OVER, i
            while left[turn] == 0:
                turn = (turn + 1) & 3
            if seats[i] != turn:
                return WRONG_SEAT, i
            if plays[i] != PASS:
                left[turn] -= 1
                laid += 1
            turn = (turn + 1) & 3
        return OK, n
    trump = row[F_TRUMP]
    led, ledm, wcard, wseat = -1, U0, -1, turn
    for i in range(n):
        if i == 52:
            return DEAL_OVER, i
        pos = i & 3
        p = (turn + pos) & 3
        if seats[i] != p:
            return WRONG_SEAT, i
        led, ledm, wcard, wseat = lay_card(plays[i], pos, p, led, ledm, wcard, wseat, trump)
        if pos == 3:
            turn = wseat
    return OK, n


@jit
def _decide_tricks(row, hand, dealer, seat, plays, seats, strat, random_seats, stake, later):
    """``decide_card`` of a trick contract: the state ``play_tricks.tricks_from`` keeps."""
    n = plays.shape[0]
    trump = row[F_TRUMP]
    tmode = row[F_TRUMP_PLAY]
    hmode = row[F_BAN_HEART_LEAD]
    pen = np.uint64(row[F_PEN_MASK])
    # As in the advanced builds; only an advanced seat reads ``clean``.
    pen_is_top = pen != U0 and pen == np.uint64(row[F_TOP_MASK])
    leader = (dealer + 1) & 3
    played = U0
    voids = 0
    clean = 0
    broken = False
    led, ledm, wcard, wseat, trick = -1, U0, -1, leader, U0
    for i in range(n):
        pos = i & 3
        p = seats[i]
        c = plays[i]
        ban = lead_ban(hmode, broken)
        legal = trick_legal(later[i], pos, led, ledm, ban, trump, tmode, wcard)
        if (legal >> np.uint64(c)) & U1 == U0:
            return NOT_LEGAL, i, U0, -1
        cb = U1 << np.uint64(c)
        trick |= cb
        played |= cb
        if pos > 0 and suit_of(c) != led:
            voids |= 1 << (4 * p + led)
            if pen_is_top and (cb & pen) == U0 and (random_seats >> p) & 1 == 0:
                clean |= 1 << p
        led, ledm, wcard, wseat = lay_card(c, pos, p, led, ledm, wcard, wseat, trump)
        if pos == 3:
            broken = hearts_broken(broken, trick)
            leader = wseat
            led, ledm, wcard, trick = -1, U0, -1, U0
    if n == 52:
        return DEAL_OVER, n, U0, -1
    pos = n & 3
    p = (leader + pos) & 3
    if p != seat:
        return NOT_TO_ACT, n, U0, -1
    H = hand
    L = trick_legal(H, pos, led, ledm, lead_ban(hmode, broken), trump, tmode, wcard)
    if strat != STRAT_ADVANCED and strat != STRAT_BASIC:
        return OK, n, L, -1
    if L & (L - U1) == U0:  # a forced card, as the loop plays it
        return OK, n, L, lowest(L)
    out = ALL52 & ~H & ~played
    rules = row_rules(row, pen_is_top)
    if row[F_KIND] == KIND_TROEVEN:
        c = mixed_troeven(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                          voids, clean, trump, rules, stake)  # fmt: skip
    elif row[F_CONTRACT] == LAATSTE_SLAG:
        c = mixed_laatste(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                          voids, clean, trump, rules, stake)  # fmt: skip
    else:
        c = mixed_negative(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                           voids, clean, trump, rules, stake)  # fmt: skip
    return OK, n, L, c


@jit
def _decide_domino(row, hand, dealer, seat, plays, seats, strat, later, scratch):
    """``decide_card`` in Domino: the state ``play_domino.domino_from`` keeps. ``scratch``
    stands in for the four hands where the loop reads them: their union (the cards not laid,
    for the aces' direction) and which seats still hold cards."""
    n = plays.shape[0]
    open_rank = row[F_DOMINO_OPEN]
    playable = domino_opening(open_rank)
    aces = row[F_DOMINO_ACES]
    laid_mask = U0
    left = np.full(4, 13, np.int64)
    nh = np.zeros(4, np.uint64)
    for i in range(n):
        q = seats[i]
        c = plays[i]
        if c == PASS:
            if (later[i] & playable) != U0:
                return BAD_PASS, i, U0, -1
            nh[q] |= playable
            continue
        cb = U1 << np.uint64(c)
        if (playable & cb) == U0:
            return NOT_LEGAL, i, U0, -1
        laid_mask |= cb
        left[q] -= 1
        scratch[:] = U0
        scratch[0] = ALL52 & ~laid_mask
        playable, aces = domino_lay(playable, c, open_rank, aces, scratch)
    if laid_mask == ALL52:
        return DEAL_OVER, n, U0, -1
    turn = (seats[n - 1] + 1) & 3 if n > 0 else (dealer + 1) & 3
    while left[turn] == 0:
        turn = (turn + 1) & 3
    if turn != seat:
        return NOT_TO_ACT, n, U0, -1
    H = hand
    L = H & playable
    if L == U0:
        return OK, n, L, PASS
    if strat != STRAT_ADVANCED and strat != STRAT_BASIC:
        return OK, n, L, -1
    if L & (L - U1) == U0:
        return OK, n, L, lowest(L)
    if strat == STRAT_ADVANCED:
        for q in range(4):
            scratch[q] = U1 if left[q] > 0 else U0
        stuck = stuck_cards(H, turn, scratch, laid_mask, playable, nh[0], nh[1], nh[2], nh[3])
        return OK, n, L, adv_domino_choice(H, L, open_rank, aces, playable, stuck)
    return OK, n, L, domino_choice(H, L, open_rank, aces)
