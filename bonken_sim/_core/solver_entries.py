"""The exact solver's table traffic at a trick's beginning: the probes that may decide a
position (its exact rank pattern, the set entries of the partition search, the quasi
entries of quasi-symmetry), the relevant cards a frame gathers from its children, and the
store of a frame's bounds under every key that should hold them."""

import numpy as np

from ._jit import jit
from .cards import U0, U1, npop
from .solver_bounds import C_A_MASK, C_B_MASK, C_GEN, C_PARTITION, C_QUASI
from .solver_frames import (
    I_BEST_CARD,
    I_LEADER,
    I_POS,
    I_WCARD,
    U_HAND,
    U_KEY,
    U_KEY2,
    U_QA,
    U_QB,
    U_QCHECK,
    U_QKEY,
    U_REL,
    U_TREL,
)
from .solver_partition import (
    NO_VECTOR,
    counts_keys,
    expand_rel,
    general_keys,
    relevance_vector,
    run_below,
)
from .solver_quasi import (
    keys_and_planes,
    quasi_bounds,
    quasi_find,
    quasi_store,
    quasi_vector,
)
from .solver_table import (
    NO_MOVE,
    VECTORS,
    position_keys,
    tt_entry,
    tt_find,
    tt_store,
    tt_vector,
    vector_at,
    vectors_add,
)

# General entries are stored and probed from 4 tricks left on: below that the probes (a
# list and up to seven keys) cost more time than the searches they save (measured on
# 10-card endings: 3-4% more nodes, 7-10% less time than from 2 tricks on; from 5 tricks
# on, 5-10% more nodes and no faster).
_MIN_CARDS = 16
# Quasi entries from 3 tricks left on: the same nodes as at every trick (herenboeren and
# vrouwen, 16 10-card endings), from 4 tricks on up to 5% more.
_QUASI_MIN_CARDS = 12


@jit
def _quasi_here(ctx, rem):
    """Are quasi entries probed and stored at the trick start with cards ``rem`` in play?"""
    return ctx[C_QUASI] != 0 and npop(rem) >= _QUASI_MIN_CARDS


@jit
def window_cut(lo, hi, alpha, beta):
    """(decided, value) of a position whose value lies in [lo, hi], against the window
    (alpha, beta): decided when the bounds meet or one of them falls outside the window."""
    if lo >= beta or lo == hi:
        return True, lo
    return hi <= alpha, hi


@jit
def probe_table(d, hands, rem, leader, alpha, beta, lo, hi, ctx, tt, su):
    """Frame ``d`` (a trick's beginning, bounds ``lo``, ``hi`` so far) looks itself up:
    (1, value, ...) when an entry decides it against the window (its relevant cards set),
    else (0, 0, lo, hi, best card) with the bounds narrowed by the entries found. Leaves
    the frame's keys for its store."""
    part = ctx[C_PARTITION] != 0
    am = np.uint64(ctx[C_A_MASK])
    bm = np.uint64(ctx[C_B_MASK])
    tt_move = NO_MOVE
    quasi = _quasi_here(ctx, rem)
    if quasi:
        key, key2, qk, qc, pa, pb = keys_and_planes(hands, rem, leader, ctx[C_GEN], am, bm)
        su[d, U_QKEY] = qk
        su[d, U_QCHECK] = np.uint64(qc)
        su[d, U_QA] = pa
        su[d, U_QB] = pb
    else:
        key, key2 = position_keys(hands, rem, leader, ctx[C_GEN], am, bm)
    su[d, U_KEY] = key
    su[d, U_KEY2] = key2
    i = tt_find(tt, key, key2)
    if i >= 0:
        tlo, thi, tt_move = tt_entry(tt, i)
        cut, v = window_cut(tlo, thi, alpha, beta)
        if cut:
            if part:
                su[d, U_REL] = expand_rel(rem, tt_vector(tt, i))
            return 1, v, lo, hi, tt_move
        lo = max(lo, tlo)
        hi = min(hi, thi)
    if part and npop(rem) >= _MIN_CARDS:
        done, v, lo, hi, tt_move = _probe_general(
            hands, rem, leader, alpha, beta, lo, hi, tt_move, ctx, tt
        )
        if done:
            su[d, U_REL] = expand_rel(rem, np.int64(done >> 1))
            return 1, v, lo, hi, tt_move
    if quasi:
        j = quasi_find(tt, su[d, U_QKEY], np.int64(su[d, U_QCHECK]))
        if j >= 0:
            qlo, qhi = quasi_bounds(tt, j, su[d, U_QA], su[d, U_QB], ctx)
            lo = max(lo, qlo)
            hi = min(hi, qhi)
            cut, v = window_cut(lo, hi, alpha, beta)
            if cut:
                if part:
                    su[d, U_REL] = expand_rel(rem, quasi_vector(tt, j))
                return 1, v, lo, hi, tt_move
    return 0, np.int64(0), lo, hi, tt_move


@jit
def _probe_general(hands, rem, leader, alpha, beta, lo, hi, tt_move, ctx, tt):
    """The general entries (solver_partition) that may stand for this position: the keys of
    the relevance vectors listed under its counts. Returns (decided, value, lo, hi, best
    card): ``decided`` is 1 + 2 * the vector of the entry that decided the position, else 0
    and the bounds narrowed by the entries found."""
    am = np.uint64(ctx[C_A_MASK])
    bm = np.uint64(ctx[C_B_MASK])
    ck1, ck2 = counts_keys(hands, leader, ctx[C_GEN])
    li = tt_find(tt, ck1, ck2)
    if li < 0:
        return np.int64(0), np.int64(0), lo, hi, tt_move
    for k in range(VECTORS):
        vec = vector_at(tt, li, k)
        if vec == NO_VECTOR:
            break
        g1, g2 = general_keys(hands, leader, ctx[C_GEN], am, bm, vec)
        if g1 == U0:
            continue
        j = tt_find(tt, g1, g2)
        if j < 0:
            continue
        tlo, thi, mv = tt_entry(tt, j)
        if tlo >= beta or tlo == thi:
            return 1 + 2 * vec, tlo, lo, hi, tt_move
        if thi <= alpha:
            return 1 + 2 * vec, thi, lo, hi, tt_move
        lo = max(lo, tlo)
        hi = min(hi, thi)
        if tt_move == NO_MOVE:
            tt_move = mv
    return np.int64(0), np.int64(0), lo, hi, tt_move


@jit
def gather_rel(d, c, hands, ctx, si, su):
    """Frame ``d`` learns which cards' ranks mattered below its card ``c`` (solver_partition):
    the child's, the trick's winner, and the cards searched as ``c`` when ``c`` is one."""
    crel = su[d + 1, U_REL] | su[d, U_TREL]
    if (crel >> np.uint64(c)) & U1:
        live = hands[0] | hands[1] | hands[2] | hands[3]
        if si[d, I_POS] > 0:
            live |= U1 << np.uint64(si[d, I_WCARD])
        am = np.uint64(ctx[C_A_MASK])
        bm = np.uint64(ctx[C_B_MASK])
        crel |= run_below(c, su[d, U_HAND], live, am, bm)
    su[d, U_REL] |= crel
    return crel


@jit
def store_bounds(d, hands, lo, hi, work, tt, ctx, si, su):
    """Store frame ``d``'s bounds: under the key of the set of positions they hold for when
    that set is larger than the position's pattern (solver_partition), under the pattern's
    key, and as a quasi entry (solver_quasi)."""
    gen = ctx[C_GEN]
    move = si[d, I_BEST_CARD]
    am = np.uint64(ctx[C_A_MASK])
    bm = np.uint64(ctx[C_B_MASK])
    vec = NO_VECTOR
    general = False
    if ctx[C_PARTITION]:
        vec, general = relevance_vector(su[d, U_REL], hands, am | bm)
    if _quasi_here(ctx, hands[0] | hands[1] | hands[2] | hands[3]):
        qa, qb = su[d, U_QA], su[d, U_QB]
        quasi_store(tt, su[d, U_QKEY], su[d, U_QCHECK], lo, hi, work, gen, qa, qb, vec)
    if general and npop(hands[0]) >= _MIN_CARDS // 4:
        leader = si[d, I_LEADER]
        g1, g2 = general_keys(hands, leader, gen, am, bm, vec)
        tt_store(tt, g1, g2, lo, hi, move, work, gen, vec)
        ck1, ck2 = counts_keys(hands, leader, gen)
        vectors_add(tt, ck1, ck2, vec, work, gen)
    # Under its own pattern too: the list of vectors keeps only the newest seven (measured
    # on 10-card endings: 1-18% more nodes without this copy).
    tt_store(tt, su[d, U_KEY], su[d, U_KEY2], lo, hi, move, work, gen, vec)
