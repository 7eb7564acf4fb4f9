"""Replay: a recorded play checked card by card against the rules, with the scores, who made
each play and what each trick scored. The rules are ``trick.py``'s and ``domino.py``'s, the
same the play loops use.

Every kernel here returns (verdict, index, seat, legal): the verdict (``verdicts``: OK or
the first broken rule), the index of the offending entry, and the seat to act at that entry
with its legal cards (for error messages; -1 and no cards once the deal is over).
"""

import numpy as np

from ._jit import jit
from .cards import U0, U1
from .domino import domino_lay, domino_opening
from .ids import KIND_DOMINO, N_CARDS, PASS
from .ruleset import (
    F_BAN_HEART_LEAD,
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
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
)
from .trick import hearts_broken, lay_card, lead_ban, trick_legal, trick_points
from .verdicts import BAD_PASS, NOT_IN_HAND, NOT_LEGAL, OK, TOO_FEW, TOO_MANY

# Columns of a trick's row in ``results``.
R_LEADER, R_WINNER, R_POINTS = 0, 1, 2
N_RESULT_FIELDS = 3


@jit
def held(H, c):
    """Is ``c`` a card (not a pass or garbage) in hand ``H``?"""
    return 0 <= c < N_CARDS and (H >> np.uint64(c)) & U1 != U0


@jit
def replay(row, hands, dealer, plays, scores, tricks, seats, results):
    """Check a recorded play card by card; returns (verdict, index, seat, legal).

    ``hands`` is consumed. ``seats[i]`` receives the seat of play ``i``; ``results`` (13, 3),
    unless empty, each trick's leader, winner and points (R_LEADER, R_WINNER, R_POINTS; the
    last trick's points included), for trick contracts. A trace may stop early only where
    RULES.md allows it: at a trick boundary once no remaining card or trick can change a
    score, or in Domino once three players are out; the scores are then completed as the
    rules determine them.
    """
    for p in range(4):
        scores[p] = 0
        tricks[p] = 0
    if row[F_KIND] == KIND_DOMINO:
        return replay_domino(row, hands, dealer, plays, scores, seats)
    return replay_tricks(row, hands, dealer, plays, scores, tricks, seats, results)


@jit
def replay_domino(row, hands, dealer, plays, scores, seats):
    """``replay`` of a Domino deal."""
    n = plays.shape[0]
    open_rank = row[F_DOMINO_OPEN]
    aces = row[F_DOMINO_ACES]
    playable = domino_opening(open_rank)
    turn = (dealer + 1) & 3
    laid = 0
    n_out = 0
    i = 0
    while laid < 52:
        if n_out == 3 and i == n:
            for p in range(4):
                if hands[p] != U0:
                    scores[p] += row[F_DOMINO_LAST_PTS]
            return OK, i, -1, U0
        H = hands[turn]
        if H != U0:
            L = H & playable
            if i >= n:
                return TOO_FEW, i, turn, L
            c = plays[i]
            seats[i] = turn
            if c == PASS:
                if L != U0:
                    return BAD_PASS, i, turn, L
            else:
                if not held(H, c):
                    return NOT_IN_HAND, i, turn, L
                if (L >> np.uint64(c)) & U1 == U0:
                    return NOT_LEGAL, i, turn, L
                hands[turn] = H & ~(U1 << np.uint64(c))
                playable, aces = domino_lay(playable, c, open_rank, aces, hands)
                laid += 1
                if hands[turn] == U0:
                    n_out += 1
                if laid == 52:
                    scores[turn] += row[F_DOMINO_LAST_PTS]
            i += 1
        turn = (turn + 1) & 3
    return (OK if i == n else TOO_MANY), i, -1, U0


@jit
def replay_tricks(row, hands, dealer, plays, scores, tricks, seats, results):
    """``replay`` of a trick contract."""
    n = plays.shape[0]
    trump = row[F_TRUMP]
    hmode = row[F_BAN_HEART_LEAD]
    tmode = row[F_TRUMP_PLAY]
    pen = np.uint64(row[F_PEN_MASK])
    a_mask = np.uint64(row[F_PTS_A_MASK])
    b_mask = np.uint64(row[F_PTS_B_MASK])
    broken = False
    leader = (dealer + 1) & 3
    i = 0
    for t in range(13):
        ban = lead_ban(hmode, broken)
        if i == n:
            rest = hands[0] | hands[1] | hands[2] | hands[3]
            settled = row[F_TRICK_PTS] == 0 and row[F_LAST_PTS] == 0 and (rest & pen) == U0
            legal = trick_legal(hands[leader], 0, -1, U0, ban, trump, tmode, -1)
            return (OK if settled else TOO_FEW), i, leader, legal
        led = -1
        ledm = U0
        wcard = -1
        wseat = leader
        trick = U0
        for pos in range(4):
            p = (leader + pos) & 3
            H = hands[p]
            L = trick_legal(H, pos, led, ledm, ban, trump, tmode, wcard)
            if i >= n:
                return TOO_FEW, i, p, L
            c = plays[i]
            if c == PASS:
                return BAD_PASS, i, p, L
            if not held(H, c):
                return NOT_IN_HAND, i, p, L
            if (L >> np.uint64(c)) & U1 == U0:
                return NOT_LEGAL, i, p, L
            seats[i] = p
            cb = U1 << np.uint64(c)
            hands[p] = H & ~cb
            trick |= cb
            led, ledm, wcard, wseat = lay_card(c, pos, p, led, ledm, wcard, wseat, trump)
            i += 1
        pts = trick_points(trick, row[F_TRICK_PTS], a_mask, row[F_PTS_A], b_mask, row[F_PTS_B]) + (
            row[F_LAST_PTS] if t == 12 else 0
        )
        tricks[wseat] += 1
        scores[wseat] += pts
        broken = hearts_broken(broken, trick)
        if results.shape[0] > 0:
            results[t, R_LEADER] = leader
            results[t, R_WINNER] = wseat
            results[t, R_POINTS] = pts
        leader = wseat
    return (OK if i == n else TOO_MANY), i, -1, U0
