"""Batch entry points: one call plays many deals and writes into caller-allocated arrays."""

import numpy as np

from ._jit import jit
from .cards import HEARTS, SUIT_MASKS, U0, U1, lowest, rank_of, suit_of
from .deal import deal_into
from .playout import (
    PASS,
    beats,
    domino_after,
    domino_fix_aces,
    domino_opening,
    lead_ban,
    trick_legal,
)
from .playout_advanced import play_staked
from .rng import deal_state, play_state
from .ruleset import (
    ACES_EITHER,
    F_BAN_HEART_LEAD,
    F_CARD_PTS,
    F_DOMINO_ACES,
    F_DOMINO_LAST_PTS,
    F_DOMINO_OPEN,
    F_KIND,
    F_LAST_PTS,
    F_PEN_MASK,
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
    KIND_DOMINO,
)

TRACE_LEN = 256  # 52 cards plus at most 3 passes per card laid in Domino


@jit
def deal_hands(key, deal, hands):
    deck = np.empty(52, np.int64)
    deal_into(deal_state(key, deal), deck, hands)


@jit
def simulate_batch(
    key, deal_start, dealer, variants, strat, table, hands_out, scores_out, tricks_out, order_out
):
    """Deals ``deal_start + i`` for every row ``i`` of the outputs, each played in every variant.

    hands_out (n, 4) uint64; scores_out (n, nv, 4) int16; tricks_out / order_out (n, nv, 4) int8.
    """
    _simulate_rows(
        key,
        deal_start,
        dealer,
        variants,
        strat,
        table,
        hands_out,
        scores_out,
        tricks_out,
        order_out,
        np.empty(52, np.int64),  # deck
        np.empty(4, np.uint64),  # hands in play
        np.empty(4, np.uint64),  # the deal's hands
        np.empty(4, np.int64),  # scores
        np.empty(4, np.int64),  # tricks
        np.empty(4, np.int64),  # Domino finishing order
        np.empty(0, np.int64),  # no trace
        np.empty(52, np.uint64),  # random draws
        np.zeros((4, 4), np.int64),  # stakes: no doubles outside full games
    )


@jit(_nrt=False)
def _simulate_rows(
    key,
    deal_start,
    dealer,
    variants,
    strat,
    table,
    hands_out,
    scores_out,
    tricks_out,
    order_out,
    deck,
    hands,
    dealt,
    scores,
    tricks,
    order,
    no_trace,
    rnd,
    stake,
):
    n = hands_out.shape[0]
    nv = variants.shape[0]
    for i in range(n):
        ds = deal_state(key, deal_start + i)
        deal_into(ds, deck, dealt)
        for p in range(4):
            hands_out[i, p] = dealt[p]
        for j in range(nv):
            v = variants[j]
            for p in range(4):
                hands[p] = dealt[p]
            play_staked(
                table[v],
                hands,
                dealer,
                strat,
                play_state(ds, v),
                rnd,
                scores,
                tricks,
                order,
                no_trace,
                stake,
            )
            for p in range(4):
                scores_out[i, j, p] = scores[p]
                tricks_out[i, j, p] = tricks[p]
                order_out[i, j, p] = order[p]


@jit
def trace_deal(key, deal, dealer, v, strat, table, hands_out, scores, tricks, order, trace):
    """Play one deal of one variant recording every card (and Domino pass) in ``trace``."""
    ds = deal_state(key, deal)
    deck = np.empty(52, np.int64)
    deal_into(ds, deck, hands_out)
    hands = hands_out.copy()
    rnd = np.empty(52, np.uint64)
    stake = np.zeros((4, 4), np.int64)
    return play_staked(
        table[v], hands, dealer, strat, play_state(ds, v), rnd, scores, tricks, order, trace, stake
    )


# Replay verdicts (the Python side turns them into messages).
OK = 0
NOT_IN_HAND = 1
NOT_LEGAL = 2
BAD_PASS = 3
TOO_MANY = 4
TOO_FEW = 5


@jit
def replay(row, hands, dealer, plays, scores, tricks):
    """Check a recorded play card by card. Returns (verdict, index of the offending entry).

    ``hands`` is consumed. A trace may stop early only where RULES.md allows it: at a trick
    boundary once no remaining card or trick can change a score, or in Domino once three
    players are out; the scores are then completed as the rules determine them.
    """
    for p in range(4):
        scores[p] = 0
        tricks[p] = 0
    n = plays.shape[0]
    if row[F_KIND] == KIND_DOMINO:
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
                return OK, i
            H = hands[turn]
            if H != U0:
                if i >= n:
                    return TOO_FEW, i
                L = H & playable
                c = plays[i]
                if c == PASS:
                    if L != U0:
                        return BAD_PASS, i
                else:
                    if c < 0 or c >= 52 or (H >> np.uint64(c)) & U1 == U0:
                        return NOT_IN_HAND, i
                    if (L >> np.uint64(c)) & U1 == U0:
                        return NOT_LEGAL, i
                    hands[turn] = H & ~(U1 << np.uint64(c))
                    playable = domino_after(playable, c, open_rank, aces)
                    if aces == ACES_EITHER and rank_of(c) == 12:
                        playable, aces = domino_fix_aces(playable, c, hands)
                    laid += 1
                    if hands[turn] == U0:
                        n_out += 1
                    if laid == 52:
                        scores[turn] += row[F_DOMINO_LAST_PTS]
                i += 1
            turn = (turn + 1) & 3
        return (OK, i) if i == n else (TOO_MANY, i)
    trump = row[F_TRUMP]
    hmode = row[F_BAN_HEART_LEAD]
    tmode = row[F_TRUMP_PLAY]
    broken = False
    pen = np.uint64(row[F_PEN_MASK])
    leader = (dealer + 1) & 3
    i = 0
    for t in range(13):
        if i == n:
            rest = hands[0] | hands[1] | hands[2] | hands[3]
            settled = row[F_TRICK_PTS] == 0 and row[F_LAST_PTS] == 0 and (rest & pen) == U0
            return (OK, i) if settled else (TOO_FEW, i)
        led = -1
        wcard = -1
        wseat = leader
        trick = U0
        ban = lead_ban(hmode, broken)
        for pos in range(4):
            p = (leader + pos) & 3
            if i >= n:
                return TOO_FEW, i
            c = plays[i]
            H = hands[p]
            if c == PASS:
                return BAD_PASS, i
            if c < 0 or c >= 52 or (H >> np.uint64(c)) & U1 == U0:
                return NOT_IN_HAND, i
            L = trick_legal(
                H, pos, led, SUIT_MASKS[led] if pos > 0 else U0, ban, trump, tmode, wcard
            )
            if (L >> np.uint64(c)) & U1 == U0:
                return NOT_LEGAL, i
            cb = U1 << np.uint64(c)
            hands[p] = H & ~cb
            trick |= cb
            if pos == 0:
                led = suit_of(c)
                wcard = c
            elif beats(c, wcard, trump):
                wcard = c
                wseat = p
            i += 1
        tricks[wseat] += 1
        scores[wseat] += row[F_TRICK_PTS]
        broken |= (trick & HEARTS) != U0
        taken = trick & pen
        while taken != U0:
            scores[wseat] += row[F_CARD_PTS + lowest(taken)]
            taken &= taken - U1
        if t == 12:
            scores[wseat] += row[F_LAST_PTS]
        leader = wseat
    return (OK, i) if i == n else (TOO_MANY, i)


@jit
def legal_now(row, hands, dealer, plays):
    """The legal set (mask) of the seat to act after ``plays`` (for error messages)."""
    if row[F_KIND] == KIND_DOMINO:
        open_rank = row[F_DOMINO_OPEN]
        aces = row[F_DOMINO_ACES]
        playable = domino_opening(open_rank)
        turn = (dealer + 1) & 3
        for i in range(plays.shape[0]):
            while hands[turn] == U0:
                turn = (turn + 1) & 3
            c = plays[i]
            if c != PASS:
                hands[turn] &= ~(U1 << np.uint64(c))
                playable = domino_after(playable, c, open_rank, aces)
                if aces == ACES_EITHER and rank_of(c) == 12:
                    playable, aces = domino_fix_aces(playable, c, hands)
            turn = (turn + 1) & 3
        while hands[turn] == U0:
            turn = (turn + 1) & 3
        return turn, hands[turn] & playable
    trump = row[F_TRUMP]
    hmode = row[F_BAN_HEART_LEAD]
    tmode = row[F_TRUMP_PLAY]
    broken = False
    leader = (dealer + 1) & 3
    led = -1
    wcard = -1
    wseat = leader
    k = plays.shape[0]
    for i in range(k):
        pos = i % 4
        p = (leader + pos) & 3
        c = plays[i]
        hands[p] &= ~(U1 << np.uint64(c))
        broken |= suit_of(c) == 2  # the ban matters only at a lead, after whole tricks
        if pos == 0:
            led = suit_of(c)
            wcard = c
            wseat = p
        elif beats(c, wcard, trump):
            wcard = c
            wseat = p
        if pos == 3:
            leader = wseat
    pos = k % 4
    p = (leader + pos) & 3
    ban = lead_ban(hmode, broken)
    ledm = SUIT_MASKS[led] if pos > 0 else U0
    return p, trick_legal(hands[p], pos, led if pos > 0 else -1, ledm, ban, trump, tmode, wcard)
