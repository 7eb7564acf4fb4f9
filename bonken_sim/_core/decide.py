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
from .determinize import suit_exclusions
from .domino import domino_lay, domino_opening
from .expert import SeatSearch, adaptive, expert_settings, share_runs
from .ids import (
    KIND_DOMINO,
    KIND_TROEVEN,
    LAATSTE_SLAG,
    N_CARDS,
    PASS,
    STRAT_ADVANCED,
    STRAT_BASIC,
)
from .infer import history_entry
from .play_domino import expert_domino
from .play_tricks import (
    expert_laatste,
    expert_negative,
    expert_troeven,
    mixed_laatste,
    mixed_negative,
    mixed_troeven,
    row_rules,
    shown_voids,
)
from .ruleset import (
    F_BAN_HEART_LEAD,
    F_CONTRACT,
    F_DOMINO_ACES,
    F_DOMINO_OPEN,
    F_KIND,
    F_PEN_MASK,
    F_PTS_A,
    F_PTS_A_MASK,
    F_PTS_B,
    F_PTS_B_MASK,
    F_TOP_MASK,
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
)
from .strategy_advanced import adv_domino_choice, stuck_cards
from .strategy_basic import domino_choice
from .trick import hearts_broken, lay_card, lead_ban, trick_legal, trick_points
from .verdicts import (
    BAD_PASS,
    DEAL_OVER,
    HAND_SIZE,
    NO_DEAL,
    NOT_A_CARD,
    NOT_LEGAL,
    NOT_TO_ACT,
    OK,
    SEEN,
    WRONG_SEAT,
)

# The walk over a view returns a verdict (``verdicts``) with the index of the play
# concerned (the number of plays where the verdict is about the position after them).


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


@jit(inline="always")
def _trick_position(row, dealer, seat, plays, seats, random_seats, later, scores, tricks):
    """The trick loop's state after ``plays`` (checked legal for what each seat is known to
    hold, ``later``), as ``play_tricks.tricks_from`` keeps it, with the scores and tricks
    taken so far (into ``scores`` and ``tricks``) and what an expert seat reads beyond the
    voids (``xvoids``, ``play_tricks.shown_voids``). Returns (verdict, index, state)."""
    n = plays.shape[0]
    trump = row[F_TRUMP]
    tmode = row[F_TRUMP_PLAY]
    hmode = row[F_BAN_HEART_LEAD]
    pen = np.uint64(row[F_PEN_MASK])
    a_mask = np.uint64(row[F_PTS_A_MASK])
    b_mask = np.uint64(row[F_PTS_B_MASK])
    # As in the advanced builds; only an advanced seat reads ``clean``.
    pen_is_top = pen != U0 and pen == np.uint64(row[F_TOP_MASK])
    leader = (dealer + 1) & 3
    played = U0
    voids = 0
    xvoids = 0
    clean = 0
    broken = False
    led, ledm, wcard, wseat, trick = -1, U0, -1, leader, U0
    for q in range(4):
        scores[q] = 0
        tricks[q] = 0
    verdict = OK
    index = n
    for i in range(n):
        pos = i & 3
        p = seats[i]
        c = plays[i]
        ban = lead_ban(hmode, broken)
        legal = trick_legal(later[i], pos, led, ledm, ban, trump, tmode, wcard)
        if (legal >> np.uint64(c)) & U1 == U0:
            verdict = NOT_LEGAL
            index = i
            break
        cb = U1 << np.uint64(c)
        trick |= cb
        played |= cb
        if pos > 0 and suit_of(c) != led:
            voids |= 1 << (4 * p + led)
            if pen_is_top and (cb & pen) == U0 and (random_seats >> p) & 1 == 0:
                clean |= 1 << p
        xvoids = shown_voids(xvoids, voids, c, pos, p, led, ban, trump, tmode, later[i])
        led, ledm, wcard, wseat = lay_card(c, pos, p, led, ledm, wcard, wseat, trump)
        if pos == 3:
            tricks[wseat] += 1
            scores[wseat] += trick_points(trick, row[F_TRICK_PTS], a_mask, row[F_PTS_A], b_mask,
                                          row[F_PTS_B])  # fmt: skip
            broken = hearts_broken(broken, trick)
            leader = wseat
            led, ledm, wcard, trick = -1, U0, -1, U0
    if verdict == OK and n == 52:
        verdict = DEAL_OVER
    if verdict == OK and ((leader + (n & 3)) & 3) != seat:
        verdict = NOT_TO_ACT
    state = (n >> 2, n & 3, leader, led, ledm, wcard, wseat, trick, played, voids, xvoids, clean,
             broken, np.int64(n), pen_is_top)  # fmt: skip
    return verdict, index, state


@jit(inline="always")
def _trick_choice(row, strat, H, L, state, stake):
    """The card the basic or advanced tier plays from legal cards ``L`` at ``state``."""
    (_t, pos, leader, led, ledm, wcard, wseat, trick, played, voids, _xvoids, clean, _broken, _n,
     pen_is_top) = state  # fmt: skip
    p = (leader + pos) & 3
    out = ALL52 & ~H & ~played
    rules = row_rules(row, pen_is_top)
    trump = row[F_TRUMP]
    if row[F_KIND] == KIND_TROEVEN:
        return mixed_troeven(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                             voids, clean, trump, rules, stake)  # fmt: skip
    if row[F_CONTRACT] == LAATSTE_SLAG:
        return mixed_laatste(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                             voids, clean, trump, rules, stake)  # fmt: skip
    return mixed_negative(strat, H, L, out, pos, p, leader, led, ledm, wcard, wseat, trick,
                          voids, clean, trump, rules, stake)  # fmt: skip


@jit(inline="always")
def _trick_legal_now(row, H, state):
    """The legal cards of hand ``H`` at ``state``."""
    pos, led, ledm, wcard, broken = state[1], state[3], state[4], state[5], state[12]
    ban = lead_ban(row[F_BAN_HEART_LEAD], broken)
    return trick_legal(H, pos, led, ledm, ban, row[F_TRUMP], row[F_TRUMP_PLAY], wcard)


@jit
def _decide_tricks(row, hand, dealer, seat, plays, seats, strat, random_seats, stake, later):
    """``decide_card`` of a trick contract: the state ``play_tricks.tricks_from`` keeps."""
    scores = np.zeros(4, np.int64)
    tricks = np.zeros(4, np.int64)
    verdict, index, state = _trick_position(row, dealer, seat, plays, seats, random_seats, later,
                                            scores, tricks)  # fmt: skip
    if verdict != OK:
        return verdict, index, U0, -1
    n = plays.shape[0]
    L = _trick_legal_now(row, hand, state)
    if strat != STRAT_ADVANCED and strat != STRAT_BASIC:
        return OK, n, L, -1
    if L & (L - U1) == U0:  # a forced card, as the loop plays it
        return OK, n, L, lowest(L)
    return OK, n, L, _trick_choice(row, strat, hand, L, state, stake)


@jit(inline="always")
def _domino_position(row, dealer, seat, plays, seats, later, scratch, out_order):
    """The Domino loop's state after ``plays`` (checked as ``_decide_domino`` says), as
    ``play_domino.domino_from`` keeps it in its advanced builds, with the seats' finishing
    order so far (into ``out_order``). Returns (verdict, index, state, the cards each seat
    still holds by count)."""
    n = plays.shape[0]
    open_rank = row[F_DOMINO_OPEN]
    playable = domino_opening(open_rank)
    aces = row[F_DOMINO_ACES]
    laid_mask = U0
    laid = 0
    n_out = 0
    left = np.full(4, 13, np.int64)
    nh = np.zeros(4, np.uint64)
    for q in range(4):
        out_order[q] = -1
    verdict = OK
    index = n
    for i in range(n):
        q = seats[i]
        c = plays[i]
        if c == PASS:
            if (later[i] & playable) != U0:
                verdict = BAD_PASS
                index = i
                break
            nh[q] |= playable
            continue
        cb = U1 << np.uint64(c)
        if (playable & cb) == U0:
            verdict = NOT_LEGAL
            index = i
            break
        laid_mask |= cb
        laid += 1
        left[q] -= 1
        if left[q] == 0:
            out_order[q] = n_out
            n_out += 1
        scratch[:] = U0
        scratch[0] = ALL52 & ~laid_mask
        playable, aces = domino_lay(playable, c, open_rank, aces, scratch)
    turn = (seats[n - 1] + 1) & 3 if n > 0 else (dealer + 1) & 3
    if verdict == OK and laid_mask == ALL52:
        verdict = DEAL_OVER
    if verdict == OK:
        while left[turn] == 0:
            turn = (turn + 1) & 3
        if turn != seat:
            verdict = NOT_TO_ACT
    state = (turn, playable, aces, np.int64(laid), laid_mask, np.int64(n_out), nh[0], nh[1],
             nh[2], nh[3], np.int64(n))  # fmt: skip
    return verdict, index, state, left


@jit(inline="always")
def _domino_advanced(row, H, L, state, left, scratch):
    """The advanced tier's Domino card from legal cards ``L`` at ``state``."""
    turn, playable, aces, _laid, laid_mask, _n_out, nh0, nh1, nh2, nh3, _n = state
    for q in range(4):
        scratch[q] = U1 if left[q] > 0 else U0
    stuck = stuck_cards(H, turn, scratch, laid_mask, playable, nh0, nh1, nh2, nh3)
    return adv_domino_choice(H, L, row[F_DOMINO_OPEN], aces, playable, stuck)


@jit
def _decide_domino(row, hand, dealer, seat, plays, seats, strat, later, scratch):
    """``decide_card`` in Domino: the state ``play_domino.domino_from`` keeps. ``scratch``
    stands in for the four hands where the loop reads them: their union (the cards not laid,
    for the aces' direction) and which seats still hold cards."""
    out_order = np.empty(4, np.int64)
    verdict, index, state, left = _domino_position(row, dealer, seat, plays, seats, later,
                                                   scratch, out_order)  # fmt: skip
    if verdict != OK:
        return verdict, index, U0, -1
    n = plays.shape[0]
    H = hand
    L = H & state[1]
    if L == U0:
        return OK, n, L, PASS
    if strat != STRAT_ADVANCED and strat != STRAT_BASIC:
        return OK, n, L, -1
    if L & (L - U1) == U0:
        return OK, n, L, lowest(L)
    if strat == STRAT_ADVANCED:
        return OK, n, L, _domino_advanced(row, H, L, state, left, scratch)
    return OK, n, L, domino_choice(H, L, row[F_DOMINO_OPEN], state[2])


# --- the expert tier ------------------------------------------------------------------------


@jit
def consistent_hands(unseen, me, sizes, excl, out):
    """Some deal of the ``unseen`` cards to the seats other than ``me``, seat q taking
    ``sizes[q]`` of them and none of ``excl[q]`` (into ``out``; ``out[me]`` is left as it
    is); False if there is none. An expert's search reads the other hands only for their
    sizes and union, and falls back on them when its draws keep failing: from a view this
    deal, which follows from the view alone, stands in for the hands it never sees.

    Each card in turn goes to a seat with room, moving cards along a chain of seats that may
    hold them when every seat that may take it is full (an augmenting path over the three
    seats, so the deal is found whenever one exists)."""
    for q in range(4):
        if q != me:
            out[q] = U0
    prev = np.empty(4, np.int64)
    queue = np.empty(4, np.int64)
    m = unseen
    while m != U0:
        c = lowest(m)
        m &= m - U1
        cb = U1 << np.uint64(c)
        for q in range(4):
            prev[q] = -1
        head, tail = 0, 0
        for q in range(4):
            if q != me and (excl[q] & cb) == U0:
                prev[q] = 4  # reached from the card itself
                queue[tail] = q
                tail += 1
        found = -1
        while head < tail:
            q = queue[head]
            head += 1
            if npop(out[q]) < sizes[q]:
                found = q
                break
            for r in range(4):
                if r != me and prev[r] < 0 and (out[q] & ~excl[r]) != U0:
                    prev[r] = q
                    queue[tail] = r
                    tail += 1
        if found < 0:
            return False
        q = found
        while prev[q] != 4:
            src = prev[q]
            x = U1 << np.uint64(lowest(out[src] & ~excl[q]))
            out[src] &= ~x
            out[q] |= x
            q = src
        out[q] |= cb
    return True


@jit
def decide_expert(row, hand, dealer, seat, plays, seats, code, random_seats, stake, later,
                  scratch, s_play, xw):  # fmt: skip
    """``decide_card`` for an expert seat (strategy code ``code``, ``expert.expert_settings``):
    the position replayed as for the other tiers, the tier's search then run on it with the
    decision stream of ``s_play``, sampling the other hands from what the seat knows (the
    seats' counts, the cards unseen, the voids and Domino passes shown). After the call
    ``xw``'s per-card sums (``expert_workspace``) hold what the search weighed: each legal
    card's summed score minus the advanced card's (and its square) over the samples, and
    at the advanced card its own summed score (and square); a card an adaptive seat did
    not roll out holds the figures of the card that stood for it (``share_runs``).

    Returns (verdict, index, legal cards, card, the advanced card, samples)."""
    verdict, index, legal, card = decide_card(row, hand, dealer, seat, plays, seats,
                                              STRAT_ADVANCED, random_seats, stake, later,
                                              scratch)  # fmt: skip
    k_samples = expert_settings(code)[0]
    if verdict != OK or card == PASS or legal & (legal - U1) == U0:
        return verdict, index, legal, card, card, np.int64(0)
    tie = card
    n = plays.shape[0]
    hands = np.empty(4, np.uint64)
    excl = np.zeros(4, np.uint64)
    sizes = np.full(4, 13, np.int64)
    for i in range(n):
        if plays[i] != PASS:
            sizes[seats[i]] -= 1
    hands[seat] = hand
    hist = xw.infer.hist  # the plays as an expert build's loop records them, for its inference
    for i in range(n):
        hist[i] = history_entry(plays[i], seats[i])
    xs = SeatSearch(s_play, xw)
    scores = np.zeros(4, np.int64)
    if row[F_KIND] == KIND_DOMINO:
        out_order = np.empty(4, np.int64)
        _v, _i, state, _left = _domino_position(row, dealer, seat, plays, seats, later, scratch,
                                                out_order)  # fmt: skip
        laid_mask = state[4]
        excl[0], excl[1], excl[2], excl[3] = state[6], state[7], state[8], state[9]
        if not consistent_hands(ALL52 & ~laid_mask & ~hand, seat, sizes, excl, hands):
            return NO_DEAL, n, legal, card, tie, np.int64(0)
        c = expert_domino(row, hands, code, legal, tie, state, scores, out_order, xs)
        return OK, n, legal, c, tie, k_samples
    tricks = np.zeros(4, np.int64)
    _v, _i, st = _trick_position(row, dealer, seat, plays, seats, random_seats, later, scores,
                                 tricks)  # fmt: skip
    (t, pos, leader, led, ledm, wcard, wseat, trick, played, voids, xvoids, clean, broken, nn,
     _pen_is_top) = st  # fmt: skip
    for q in range(4):
        excl[q] = suit_exclusions(xvoids, q)
    if not consistent_hands(ALL52 & ~played & ~hand, seat, sizes, excl, hands):
        return NO_DEAL, n, legal, card, tie, np.int64(0)
    know = (t, pos, leader, led, ledm, wcard, wseat, trick, played, voids, xvoids, clean, broken,
            nn)  # fmt: skip
    if row[F_KIND] == KIND_TROEVEN:
        c = expert_troeven(row, hands, code, seat, legal, tie, know, scores, tricks, stake, xs)
    elif row[F_CONTRACT] == LAATSTE_SLAG:
        c = expert_laatste(row, hands, code, seat, legal, tie, know, scores, tricks, stake, xs)
    else:
        c = expert_negative(row, hands, code, seat, legal, tie, know, scores, tricks, stake, xs)
    if adaptive(code):
        share_runs(row, legal, tie, hand, played, trick, xw.roll.sums)
    return OK, n, legal, c, tie, k_samples
