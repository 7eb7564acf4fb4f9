"""One deal of one contract variant, played: the entry point every batch, trace,
conditional and game kernel calls (``play_staked``, or ``play_dealt`` on a dealt deal).

One dispatcher serves every variant: the contract is a run-time row of the ruleset table,
which measured as fast as a compiled copy per contract and compiles far quicker; the row's
kind and the seats' strategies choose one build of the trick loop (``play_tricks``) or the
Domino loop (``play_domino``). A deal without an advanced seat runs the builds that carry
none of the advanced tier's code or state; only a deal with an expert seat runs the expert
builds (their search: ``expert``).

The dispatcher and every kernel that calls it come in one build per tier level (``LEVELS``):
a command compiles only the builds of the seats it plays (``tier_level``), so a run of
basic seats never compiles the advanced or expert loops.

``stake[p, q]`` is the number of directions doubled between seats p and q (0, 1 or 2;
RULES.md §5): all zero outside full games; only advanced seats weigh it.
"""

import numba
import numpy as np

from ._jit import cached, jit
from .expert import SeatSearch, expert_workspace
from .ids import (
    KIND_DOMINO,
    KIND_TROEVEN,
    LAATSTE_SLAG,
    STRAT_ADVANCED,
    STRAT_EXPERT,
    STRAT_RANDOM,
    TIER_MASK,
)
from .play_domino import adv_domino, exp_domino, play_domino
from .play_tricks import (
    adv_tricks_laatste,
    adv_tricks_negative,
    adv_tricks_troeven,
    exp_tricks_laatste,
    exp_tricks_negative,
    exp_tricks_troeven,
    tricks_laatste,
    tricks_negative,
    tricks_random,
    tricks_troeven,
)
from .rng import fill_draws, play_state
from .ruleset import F_CONTRACT, F_KIND, standard_table

# The tier levels of the play builds, lowest first: a kernel built for a level carries the
# play loops of that level and every one below it, and no other. A deal's level is the
# highest of its seats' (``tier_level``). numba compiles a function with every function
# it calls, so one dispatcher holding every loop made a run of basic seats compile the
# advanced and expert loops too (and the expert's search and solver), loops it never plays.
LEVEL_BASIC = 0  # random and basic seats
LEVEL_ADVANCED = 1  # and advanced seats
LEVEL_EXPERT = 2  # and expert seats (their search: ``expert``)
LEVELS = (LEVEL_BASIC, LEVEL_ADVANCED, LEVEL_EXPERT)
LEVEL_NAMES = ("basic", "advanced", "expert")


def tier_level(strat):
    """The level of the builds that play seats of strategy codes ``strat`` (any shape):
    Python, for the entry points that pick a build."""
    codes = np.asarray(strat, np.int64)
    if np.any((codes & TIER_MASK) == STRAT_EXPERT):
        return LEVEL_EXPERT
    if np.any(codes == STRAT_ADVANCED):
        return LEVEL_ADVANCED
    return LEVEL_BASIC


def _make_play_staked(level):
    """The dispatcher of the builds of ``level``: ``advanced`` and ``expert`` are constants
    of the build, so numba prunes the branches of the levels above it before typing them
    and never compiles their loops."""
    advanced = level >= LEVEL_ADVANCED
    expert = level >= LEVEL_EXPERT

    @jit(_nrt=False, _link_late=True)  # the loops linked in as they are: _numba_link
    def play_staked(row, hands, dealer, strat, s, rnd, scores, tricks, out_order, trace, stake,
                    xw):  # fmt: skip
        """Play one deal of one variant (``hands`` is consumed); returns the trace length.

        ``s`` is the play stream's state; ``rnd`` is scratch for its draws (52 entries: at
        most one draw per card laid). ``trace`` receives every card (and Domino pass) unless
        empty. ``xw`` is an expert seat's workspace (``expert.expert_workspace``).
        """
        n_adv = 0
        n_random = 0
        n_expert = 0
        for p in range(4):
            n_adv += strat[p] == STRAT_ADVANCED
            n_random += strat[p] == STRAT_RANDOM
            n_expert += (strat[p] & TIER_MASK) == STRAT_EXPERT
        if n_random > 0:
            fill_draws(s, rnd)
        xs = SeatSearch(s, xw)
        if row[F_KIND] == KIND_DOMINO:
            for p in range(4):
                tricks[p] = 0
            if expert and n_expert > 0:
                return exp_domino(row, hands, dealer, strat, rnd, scores, out_order, trace, xs)
            if advanced and n_adv > 0:
                return adv_domino(row, hands, dealer, strat, rnd, scores, out_order, trace, xs)
            return play_domino(row, hands, dealer, strat, rnd, scores, out_order, trace, xs)
        for p in range(4):
            out_order[p] = -1
        args = (row, hands, dealer, strat, rnd, scores, tricks, trace, stake, xs)
        if expert and n_expert > 0:
            if row[F_KIND] == KIND_TROEVEN:
                return exp_tricks_troeven(*args)
            if row[F_CONTRACT] == LAATSTE_SLAG:
                return exp_tricks_laatste(*args)
            return exp_tricks_negative(*args)
        if n_random == 4:
            return tricks_random(*args)
        if advanced and n_adv > 0:
            if row[F_KIND] == KIND_TROEVEN:
                return adv_tricks_troeven(*args)
            if row[F_CONTRACT] == LAATSTE_SLAG:
                return adv_tricks_laatste(*args)
            return adv_tricks_negative(*args)
        if row[F_KIND] == KIND_TROEVEN:
            return tricks_troeven(*args)
        if row[F_CONTRACT] == LAATSTE_SLAG:
            return tricks_laatste(*args)
        return tricks_negative(*args)

    return play_staked


@jit
def playout_scratch():
    """The arrays one playout works in, allocated once per batch (the per-deal loops run
    without numba's reference counting, so they allocate nothing): (hands in play, random
    draws, scores, tricks, Domino finishing order, an empty trace, stakes, an expert seat's
    workspace)."""
    stake = np.empty((4, 4), np.int64)
    stake[:] = 0  # no doubles unless a game kernel sets them (not np.zeros: expert_workspace)
    return (
        np.empty(4, np.uint64),
        np.empty(52, np.uint64),
        np.empty(4, np.int64),
        np.empty(4, np.int64),
        np.empty(4, np.int64),
        np.empty(0, np.int64),
        stake,
        expert_workspace(),
    )


def _make_play_dealt(play_staked):
    """``play_dealt`` over the dispatcher ``play_staked`` of one level."""

    @jit(inline="always")
    def play_dealt(table, v, dealt, ds, dealer, strat, scratch):
        """Play variant ``v`` of the deal with state ``ds`` whose hands are ``dealt`` (copied:
        play consumes its hands), in the ``playout_scratch`` arrays; the scores, tricks and
        finishing order land there. The play stream is ``play_state(ds, v)`` wherever a deal
        comes from, so a deal's play never depends on the kernel that plays it."""
        hands, rnd, scores, tricks, order, no_trace, stake, xw = scratch
        for p in range(4):
            hands[p] = dealt[p]
        return play_staked(table[v], hands, dealer, strat, play_state(ds, v), rnd, scores,
                           tricks, order, no_trace, stake, xw)  # fmt: skip

    return play_dealt


# One build per level: PLAY_STAKED[level] and PLAY_DEALT[level]. A kernel that plays deals
# comes in one build per level as well (``per_level``), picked in Python from its seats.
PLAY_STAKED = tuple(_make_play_staked(level) for level in LEVELS)
PLAY_DEALT = tuple(_make_play_dealt(play) for play in PLAY_STAKED)


def kernel_table(table):
    """``table`` (a ruleset table or one of its rows) as the one array type the kernels are
    compiled for: writable, C-contiguous int64 (a copy of a read-only table, which is small).
    numba compiles a kernel again, every play loop with it, for each array type it meets,
    and the commands pass ``Ruleset.table`` (read-only) where the engine's defaults and the
    tests pass ``standard_table()`` (writable)."""
    return np.require(table, np.int64, ("C", "W"))


def play_staked(row, hands, dealer, strat, s, rnd, scores, tricks, out_order, trace, stake, xw):
    """``PLAY_STAKED``'s build for the seats ``strat``, called from Python (the kernels call
    their level's build directly)."""
    play = PLAY_STAKED[tier_level(strat)]
    return play(kernel_table(row), hands, dealer, strat, s, rnd, scores, tricks, out_order,
                trace, stake, xw)  # fmt: skip


# The play loops each level's dispatcher adds to the levels below, in the order numba meets
# them typing it (Domino first): ``compile_loops`` compiles them ahead, in shares.
LOOPS = (
    (play_domino, tricks_random, tricks_troeven, tricks_laatste, tricks_negative),
    (adv_domino, adv_tricks_troeven, adv_tricks_laatste, adv_tricks_negative),
    (exp_domino, exp_tricks_troeven, exp_tricks_laatste, exp_tricks_negative),
)


def _loop_signatures(level):
    """``LOOPS[level]`` with the argument types the dispatcher passes each loop."""
    hands, rnd, scores, tricks, order, trace, stake, xw = playout_scratch()
    row, strat, xs = standard_table()[0], np.zeros(4, np.int64), SeatSearch(np.uint64(0), xw)
    domino = (row, hands, 0, strat, rnd, scores, order, trace, xs)  # no tricks, no stakes
    trick = (row, hands, 0, strat, rnd, scores, tricks, trace, stake, xs)
    return [
        (loop, tuple(numba.typeof(a) for a in (domino if k == 0 else trick)))
        for k, loop in enumerate(LOOPS[level])
    ]


def loops_to_compile(level):
    """The indices into ``LOOPS[level]`` of the loops not in the cache yet (compiles
    nothing but ``playout_scratch``)."""
    return [k for k, (loop, sig) in enumerate(_loop_signatures(level)) if not cached(loop, sig)]


def compile_loops(level, indices):
    """Compile (or load from the cache) the loops ``LOOPS[level][k]`` for ``k`` in
    ``indices``, for the argument types the dispatcher passes them, so that a kernel's
    compile finds them in the cache: numba compiles one function at a time, and
    ``engine.warmup`` compiles a level's loops in two processes at once."""
    signatures = _loop_signatures(level)
    for k in indices:
        loop, sig = signatures[k]
        loop.compile(sig)


def per_level(make):
    """``make(level)`` for every level: a kernel's builds, indexed by level."""
    return tuple(make(level) for level in LEVELS)
