"""Exact open-hand values of trick contracts: paranoid alpha-beta over uint64 hands.

The value for seat ``P`` of a position at a trick's beginning is the score P can make sure
of in the remaining tricks when the other three play together against P (every hand open).
It is a min-max value: P maximises, the others minimise P's score.

The search is fail-soft alpha-beta over single cards. What keeps it small:

- a transposition table probed only at trick boundaries, keyed on the rank pattern of the
  position (per suit, who holds each card still in play, in rank order, and its point
  class) plus the leader: which low cards fell earlier changes no one's power to beat
  another card, and the score of the remaining tricks does not depend on the order of the
  earlier ones, so positions of one pattern share an entry. An entry keeps a lower and an
  upper bound and the best card; buckets of two keep the costliest entry and the newest;
- partition search in the negative contracts (solver_partition.py): the search gathers the
  cards whose rank decided each bound, and an entry also stands for every position that
  differs only in who holds the cards of a suit below its lowest such card (the counts per
  seat kept);
- quasi-symmetry in herenboeren and vrouwen (solver_quasi.py): an entry also bounds the
  positions of the same pattern with other point classes, widened by the points that
  differ card by card;
- equivalent cards searched once: two cards of one hand are interchangeable when no other
  card still in play (held, or on the current trick) lies between them and they carry the
  same points (so K and Q of a suit differ in herenboeren);
- bounds (solver_bounds.py) from the points still in play; in troeven the top trumps and
  the tricks the seat on lead cashes; in the negative contracts the positions where P can
  duck every remaining trick (at a trick's beginning, or mid-trick once P has lost the
  trick or can still duck it) or must win the next one; they cut whole subtrees against
  the window; the last trick is scored without a search;
- move ordering: the table's best card first, then cheap per-contract guesses (win with the
  lowest card that wins, duck with the highest card that ducks, opponents lead where P
  cannot duck, ...).

The table is a caller-allocated uint64 array (``new_table``) of fixed size: nothing grows
across solves. Each solve takes a fresh generation number, stored in ``table[0]`` and mixed
into every key, so old entries simply stop matching (the table is zeroed only when the
10-bit generation wraps). Every search counts its nodes and stops at a budget
(``max_nodes``; ``ctx[C_ABORTED]`` says so), so no solve can run for hours. ``solve_value``
is the entry point for other kernels (a search player calls it per sampled deal);
``solve_cards`` also values every legal card of the seat on move.
"""

import numpy as np

from ._jit import jit
from .cards import (
    HEARTS,
    SUIT13,
    U0,
    U1,
    above,
    highest,
    lowest,
    npop,
    suit_of,
)
from .ruleset import (
    F_BAN_HEART_LEAD,
    F_LAST_PTS,
    F_PTS_A,
    F_PTS_A_MASK,
    F_PTS_B,
    F_PTS_B_MASK,
    F_TRICK_PTS,
    F_TRUMP,
    F_TRUMP_PLAY,
)
from .solver_bounds import (
    C_A_MASK,
    C_A_PTS,
    C_ABORTED,
    C_B_MASK,
    C_B_PTS,
    C_DUCKS,
    C_GEN,
    C_HMODE,
    C_LAST_PTS,
    C_MAX_NODES,
    C_NODES,
    C_PARTITION,
    C_QUASI,
    C_SEAT,
    C_TMODE,
    C_TRICK_PTS,
    C_TRUMP,
    can_duck_all,
    card_pts,
    ducks_trick_and_rest,
    position_bounds,
)
from .solver_bounds import (
    N_CTX as N_CTX,  # the caller allocates the context: np.zeros(solver.N_CTX, np.int64)
)
from .solver_entries import gather_rel, probe_table, store_bounds, window_cut
from .solver_frames import (
    I_A0,
    I_ALPHA,
    I_B0,
    I_BEST,
    I_BEST_CARD,
    I_BETA,
    I_FIRST,
    I_GAIN,
    I_H1,
    I_H2,
    I_LEADER,
    I_LED,
    I_MOVER,
    I_NODES0,
    I_POS,
    I_WCARD,
    I_WSEAT,
    U_G1,
    U_G2,
    U_HAND,
    U_RBEST,
    U_REL,
    U_TREL,
    U_TRICK,
)
from .solver_frames import N_I as N_I  # the expert's search allocates the solver's stack
from .solver_frames import N_U as N_U
from .solver_frames import STACK as STACK
from .solver_frames import new_stack as new_stack
from .solver_order import BY_SUIT, order, pick, pick_by_suit, representatives
from .solver_partition import (
    bounds_rel,
    last_trick_rel,
    suits_rel,
    trick_rel,
)
from .solver_table import (
    NO_BOUND_HI,
    NO_BOUND_LO,
    NO_MOVE,
    next_generation,
)
from .solver_table import (
    new_table as new_table,  # the caller allocates the table: solver.new_table
)
from .trick import beats, lead_ban, trick_legal

NO_VALUE = -(2**62)  # solve_cards: the card is not legal


@jit
def _setup(ctx, row, seat, tt, max_nodes, partition, quasi):
    ctx[C_SEAT] = seat
    ctx[C_TRUMP] = row[F_TRUMP]
    ctx[C_TMODE] = row[F_TRUMP_PLAY] if row[F_TRUMP] >= 0 else 0
    ctx[C_HMODE] = row[F_BAN_HEART_LEAD]
    ctx[C_TRICK_PTS] = row[F_TRICK_PTS]
    ctx[C_LAST_PTS] = row[F_LAST_PTS]
    ctx[C_A_MASK] = row[F_PTS_A_MASK]
    ctx[C_A_PTS] = row[F_PTS_A]
    ctx[C_B_MASK] = row[F_PTS_B_MASK]
    ctx[C_B_PTS] = row[F_PTS_B]
    ctx[C_GEN] = next_generation(tt)
    ctx[C_NODES] = 0
    ctx[C_MAX_NODES] = max_nodes
    ctx[C_ABORTED] = 0
    positive = max(row[F_TRICK_PTS], 0) + max(row[F_LAST_PTS], 0) + max(row[F_PTS_A], 0)
    ctx[C_DUCKS] = row[F_TRUMP] < 0 and positive + max(row[F_PTS_B], 0) == 0
    ctx[C_PARTITION] = partition and ctx[C_DUCKS]
    # Quasi-symmetry only where some suit has both point cards and plain ones, and more
    # than one point card: with hartenheer's one it saved no node (16 10-card endings).
    pts = np.uint64(row[F_PTS_A_MASK] | row[F_PTS_B_MASK])
    mixed = False
    for s in range(4):
        m = pts & (SUIT13 << np.uint64(13 * s))
        mixed = mixed or (m != U0 and m != SUIT13 << np.uint64(13 * s))
    ctx[C_QUASI] = quasi and ctx[C_DUCKS] and mixed and npop(pts) >= 2


@jit
def _last_trick(hands, rem, leader, ctx):
    """P's score from the last trick (one card a hand: nothing to choose)."""
    wcard = lowest(hands[leader])
    wseat = leader
    for k in range(1, 4):
        s = (leader + k) & 3
        c = lowest(hands[s])
        if beats(c, wcard, ctx[C_TRUMP]):
            wcard, wseat = c, s
    if wseat != ctx[C_SEAT]:
        return np.int64(0)
    return ctx[C_TRICK_PTS] + ctx[C_LAST_PTS] + card_pts(rem, ctx)


@jit
def _enter(d, hands, ctx, tt, si, su):
    """Open frame ``d`` (its position fields set by the caller): 1 and the value when the
    position is decided without a search (no cards, bounds, the table), else 0 and the
    frame's candidate cards prepared."""
    ctx[C_NODES] += 1
    P = ctx[C_SEAT]
    pos = si[d, I_POS]
    leader = si[d, I_LEADER]
    alpha = si[d, I_ALPHA]
    beta = si[d, I_BETA]
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    tt_move = NO_MOVE
    # Partition search: the cards whose rank decided what this frame returns (its children
    # add theirs); a position decided here names them now.
    part = ctx[C_PARTITION] != 0
    su[d, U_REL] = U0
    if pos == 0:
        if rem == U0:
            return 1, np.int64(0)
        if npop(rem) == 4:
            if part:
                su[d, U_REL] = last_trick_rel(hands, leader)
            return 1, _last_trick(hands, rem, leader, ctx)
        lo, hi = position_bounds(hands, rem, leader, ctx)
        cut, v = window_cut(lo, hi, alpha, beta)
        if cut:
            if part:
                su[d, U_REL] = bounds_rel(hands, rem, lo, hi, ctx)
            return 1, v
        done, v, lo, hi, tt_move = probe_table(
            d, hands, rem, leader, alpha, beta, lo, hi, ctx, tt, su
        )
        if done:
            return 1, v
        # The value lies in [lo, hi]: a window wider than that only slows the search.
        alpha = max(alpha, lo - 1)
        beta = min(beta, hi + 1)
    elif ctx[C_DUCKS] and si[d, I_WSEAT] != P and ((P - leader) & 3) < pos:
        # P has lost this trick: no points for P in it, and none after it if P can duck
        # everything (the others' cards still to come to this trick only help P).
        if can_duck_all(hands, P, False, False):
            if part:
                su[d, U_REL] = suits_rel(hands, P) | (U1 << np.uint64(si[d, I_WCARD]))
            return 1, np.int64(0)
    elif ctx[C_DUCKS] and (pos == 1 or ((P - leader) & 3) == pos) and P != leader:
        # P is still to play: if P can lose this trick and all later ones, the value is 0.
        # Checked after the lead and at P's turn only: at every card it cost more time than
        # it saved.
        if ducks_trick_and_rest(hands, P, si[d, I_LED], si[d, I_WCARD]):
            if part:
                su[d, U_REL] = suits_rel(hands, P) | (U1 << np.uint64(si[d, I_WCARD]))
            return 1, np.int64(0)
    si[d, I_ALPHA] = alpha
    si[d, I_BETA] = beta
    si[d, I_NODES0] = ctx[C_NODES]
    si[d, I_A0] = alpha
    si[d, I_B0] = beta
    mover = (leader + pos) & 3
    H = hands[mover]
    trump = ctx[C_TRUMP]
    if pos == 0:
        broken = (rem & HEARTS) != HEARTS
        L = trick_legal(H, 0, -1, U0, lead_ban(ctx[C_HMODE], broken), trump, 0, -1)
    else:
        led = si[d, I_LED]
        ledm = SUIT13 << np.uint64(13 * led)
        L = trick_legal(H, pos, led, ledm, False, trump, ctx[C_TMODE], si[d, I_WCARD])
    # Cards already on this trick other than its winner decide nothing more: two cards of the
    # mover with only such cards between them win or lose this trick alike against every
    # card still to come, and leave the same rank pattern once the trick is gathered.
    live = rem if pos == 0 else rem | (U1 << np.uint64(si[d, I_WCARD]))
    cand = representatives(L, H, live, ctx)
    g1, h1, g2, h2 = order(cand, pos, mover, si[d, I_WCARD], si[d, I_WSEAT], hands, ctx)
    first = -1
    if tt_move != NO_MOVE and (cand >> np.uint64(tt_move)) & U1:
        first = tt_move
        fb = ~(U1 << np.uint64(first))
        g1 &= fb
        g2 &= fb
    su[d, U_G1] = g1
    su[d, U_G2] = g2
    su[d, U_HAND] = H
    si[d, I_H1] = h1
    si[d, I_H2] = h2
    si[d, I_FIRST] = first
    si[d, I_MOVER] = mover
    si[d, I_BEST] = NO_VALUE if mover == P else -NO_VALUE
    si[d, I_BEST_CARD] = NO_MOVE
    return 0, np.int64(0)


@jit
def _next_card(d, si, su, by_rank):
    """The next card frame ``d`` tries, or -1 when it is done (all tried, or a cut-off)."""
    if si[d, I_ALPHA] >= si[d, I_BETA]:
        return -1
    c = si[d, I_FIRST]
    if c >= 0:
        si[d, I_FIRST] = -1
        return c
    g1 = su[d, U_G1]
    if g1 != U0:
        h1 = si[d, I_H1]
        c = pick_by_suit(g1, si[d, I_H2]) if h1 == BY_SUIT else pick(g1, h1, by_rank)
        su[d, U_G1] = g1 & ~(U1 << np.uint64(c))
        return c
    g2 = su[d, U_G2]
    if g2 != U0:
        c = pick(g2, si[d, I_H2], by_rank)
        su[d, U_G2] = g2 & ~(U1 << np.uint64(c))
        return c
    return -1


@jit
def _play(d, c, hands, ctx, si, su):
    """Play card ``c`` from frame ``d``: set up frame ``d + 1`` (a new trick after the
    fourth card, P's points for it kept in ``I_GAIN`` of frame ``d``)."""
    P = ctx[C_SEAT]
    pos = si[d, I_POS]
    mover = si[d, I_MOVER]
    cb = U1 << np.uint64(c)
    hands[mover] = su[d, U_HAND] & ~cb
    trick = su[d, U_TRICK] | cb
    if pos == 0:
        led, wcard, wseat = suit_of(c), c, mover
    else:
        led = si[d, I_LED]
        b = beats(c, si[d, I_WCARD], ctx[C_TRUMP])
        wcard = c if b else si[d, I_WCARD]
        wseat = mover if b else si[d, I_WSEAT]
    gain = np.int64(0)
    e = d + 1
    su[d, U_TREL] = U0
    if pos == 3:
        if ctx[C_PARTITION]:
            su[d, U_TREL] = trick_rel(trick, led, wcard)
        if wseat == P:
            gain = ctx[C_TRICK_PTS] + card_pts(trick, ctx)
            if (hands[0] | hands[1] | hands[2] | hands[3]) == U0:
                gain += ctx[C_LAST_PTS]
        si[e, I_POS] = 0
        si[e, I_LEADER] = wseat
        su[e, U_TRICK] = U0
    else:
        si[e, I_POS] = pos + 1
        si[e, I_LEADER] = si[d, I_LEADER]
        si[e, I_LED] = led
        si[e, I_WCARD] = wcard
        si[e, I_WSEAT] = wseat
        su[e, U_TRICK] = trick
    si[d, I_GAIN] = gain
    si[e, I_ALPHA] = si[d, I_ALPHA] - gain
    si[e, I_BETA] = si[d, I_BETA] - gain


@jit
def _take(d, c, v, ctx, si):
    """Frame ``d`` learns that card ``c`` is worth ``v``."""
    if si[d, I_MOVER] == ctx[C_SEAT]:
        if v > si[d, I_BEST]:
            si[d, I_BEST] = v
            si[d, I_BEST_CARD] = c
            si[d, I_ALPHA] = max(si[d, I_ALPHA], v)
    elif v < si[d, I_BEST]:
        si[d, I_BEST] = v
        si[d, I_BEST_CARD] = c
        si[d, I_BETA] = min(si[d, I_BETA], v)


@jit
def _close(d, hands, tt, ctx, si, su):
    """Frame ``d`` is done: its value, stored in the table at a trick's beginning (an upper
    bound after a fail-low, a lower bound after a fail-high, else exact)."""
    best = si[d, I_BEST]
    # A lower bound of P's (an upper bound of the others') rests on the best card alone.
    cut = best >= si[d, I_B0] if si[d, I_MOVER] == ctx[C_SEAT] else best <= si[d, I_A0]
    if cut and ctx[C_PARTITION]:
        su[d, U_REL] = su[d, U_RBEST]
    if si[d, I_POS] == 0:
        lo = best if best > si[d, I_A0] else NO_BOUND_LO
        hi = best if best < si[d, I_B0] else NO_BOUND_HI
        work = ctx[C_NODES] - si[d, I_NODES0]
        store_bounds(d, hands, lo, hi, work, tt, ctx, si, su)
    return best


@jit
def search(hands, ctx, tt, si, su):
    """Fail-soft alpha-beta from the position in frame 0 of ``si``/``su`` (I_POS, I_LEADER,
    I_LED, I_WCARD, I_WSEAT, U_TRICK, and the window I_ALPHA, I_BETA): P's score from the
    cards still to be played to this trick on (its points counted when it completes).

    Iterative, one stack frame per card: numba cannot reload a cached recursive function.
    ``hands`` is played on and restored. When the node budget runs out the search stops
    where it is (storing nothing more), sets ``ctx[C_ABORTED]`` and returns 0."""
    # d typed int64 from the start: numba compiled every frame helper twice when the
    # first call passed a literal 0 (Literal[int](0), then int64).
    d = np.int64(0)
    done, v = _enter(d, hands, ctx, tt, si, su)
    if done:
        return v
    by_rank = ctx[C_TRICK_PTS] > 0
    part = ctx[C_PARTITION] != 0
    while True:
        c = _next_card(d, si, su, by_rank)
        if c >= 0:
            _play(d, c, hands, ctx, si, su)
            if ctx[C_NODES] >= ctx[C_MAX_NODES]:
                _abort(d, hands, ctx, si, su)
                return np.int64(0)
            done, v = _enter(d + 1, hands, ctx, tt, si, su)
            if not done:
                d += 1
                continue
        else:
            v = _close(d, hands, tt, ctx, si, su)
            if d == 0:
                return v
            d -= 1
            c = lowest(su[d, U_HAND] & ~hands[si[d, I_MOVER]])
        # Back in frame d from the card c it played, worth v from there on.
        hands[si[d, I_MOVER]] = su[d, U_HAND]
        if part:
            crel = gather_rel(d, c, hands, ctx, si, su)
            _take(d, c, v + si[d, I_GAIN], ctx, si)
            if si[d, I_BEST_CARD] == c:
                su[d, U_RBEST] = crel
        else:
            _take(d, c, v + si[d, I_GAIN], ctx, si)


@jit
def _abort(d, hands, ctx, si, su):
    """Out of nodes in frame ``d``: give every hand back its cards (each frame kept its
    mover's hand before playing) and flag the context."""
    for e in range(d, -1, -1):
        hands[si[e, I_MOVER]] = su[e, U_HAND]
    ctx[C_ABORTED] = 1


@jit
def _start(si, su, pos, leader, led, wcard, trick, alpha, beta):
    si[0, I_POS] = pos
    si[0, I_LEADER] = leader
    si[0, I_LED] = led
    si[0, I_WCARD] = wcard
    si[0, I_WSEAT] = leader
    su[0, U_TRICK] = trick
    si[0, I_ALPHA] = alpha
    si[0, I_BETA] = beta


@jit
def _bisect(hands, ctx, tt, si, su, pos, leader, led, wcard, trick, lo, hi):
    """The exact value of a position with value in [lo, hi], by zero-window tests "is it at
    least g?" (each far cheaper than one wide-window search; the table keeps the bounds
    from test to test). Fail-soft answers move a bound past g when they can.

    In the negative contracts without trumps the tests walk down from the highest bound
    (MTD(f) from above: "is it at least hi?", then at least the upper bound that test
    returned, ...): their values sit near the top of the range and the tests above the
    value are cheap (measured on 9-card endings: 7-21% fewer nodes than bisection; the
    same in laatste_slag, which has one test). Elsewhere g bisects [lo, hi]."""
    while lo < hi and not ctx[C_ABORTED]:
        g = hi if ctx[C_DUCKS] else (lo + hi + 1) >> 1
        _start(si, su, pos, leader, led, wcard, trick, g - 1, g)
        v = search(hands, ctx, tt, si, su)
        if v >= g:
            lo = v
        else:
            hi = v
    return lo


@jit
def solve_value(hands, leader, seat, row, tt, ctx, si, su, max_nodes):
    """The value for ``seat`` of the ending ``hands`` (uint64[4], equal counts, the last
    trick of the remaining ones is trick 13) with ``leader`` to lead, under ruleset row
    ``row``. ``tt``: a table from new_table; ``ctx``: int64[N_CTX] scratch (its C_NODES
    holds the nodes searched afterwards); ``si``, ``su``: a stack from new_stack.
    ``hands`` is restored before returning.

    The search stops after ``max_nodes`` nodes: then ``ctx[C_ABORTED]`` is 1 and the
    returned number means nothing."""
    return solve_value_with(hands, leader, seat, row, tt, ctx, si, su, max_nodes, True, True)


@jit
def solve_value_with(hands, leader, seat, row, tt, ctx, si, su, max_nodes, partition, quasi):
    """solve_value; ``partition`` False keeps every table entry to its own rank pattern,
    ``quasi`` False leaves out the quasi-symmetry entries (the tests compare them)."""
    _setup(ctx, row, seat, tt, max_nodes, partition, quasi)
    lo, hi = position_bounds(hands, hands[0] | hands[1] | hands[2] | hands[3], leader, ctx)
    return _bisect(hands, ctx, tt, si, su, 0, leader, -1, -1, U0, lo, hi)


@jit
def solve_cards(hands, leader, seat, row, tt, ctx, si, su, values, max_nodes):
    """solve_value, and ``values[c]`` (int64[52]) the exact value for ``seat`` after the
    leader plays card ``c`` (NO_VALUE for cards the leader may not play). ``max_nodes``
    counts all the cards' searches together (see solve_value)."""
    _setup(ctx, row, seat, tt, max_nodes, True, True)
    for c in range(52):
        values[c] = NO_VALUE
    rem = hands[0] | hands[1] | hands[2] | hands[3]
    H = hands[leader]
    L = trick_legal(H, 0, -1, U0, lead_ban(ctx[C_HMODE], (rem & HEARTS) != HEARTS), 0, 0, -1)
    cand = representatives(L, H, rem, ctx)
    lo, hi = position_bounds(hands, rem, -1, ctx)  # bounds for every lead, not the best one
    maxing = leader == seat
    best = np.int64(NO_VALUE) if maxing else -np.int64(NO_VALUE)
    m = cand
    while m != U0:
        c = highest(m)
        m &= ~(U1 << np.uint64(c))
        hands[leader] = H & ~(U1 << np.uint64(c))
        v = _bisect(hands, ctx, tt, si, su, 1, leader, suit_of(c), c, U1 << np.uint64(c), lo, hi)
        hands[leader] = H
        if ctx[C_ABORTED]:
            return np.int64(0)
        values[c] = v
        best = max(best, v) if maxing else min(best, v)
    # An equivalent card below a searched one has its value.
    m = L & ~cand
    while m != U0:
        c = highest(m)
        m &= ~(U1 << np.uint64(c))
        up = above(c) & rem
        values[c] = values[lowest(up)]
    return best
