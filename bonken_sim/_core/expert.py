"""The `expert` tier: determinized search over the play loops.

At a card decision with a choice, an expert seat samples K deals of the unseen cards
consistent with what it knows (``determinize``), plays each legal card in every sample and
the rest of the deal with every seat `advanced` (the play loops started from the position:
``play_tricks`` / ``play_domino``'s ``play_from``), and plays the card of the best mean score
for itself, leaving the advanced tier's card only for one whose mean gain over it beats
``DEVIATE_Z`` standard errors (``best_card``). All cards are tried on the same samples, so
each is scored against the advanced card on the same deals.

The samples of a decision come from a stream keyed by the deal's play stream and the
decision's place in the trace, so a decision is a pure function of (seed, deal, variant,
strategies, the play so far): reproducible across threads, chunks and executors.

Settings ride in the seat's strategy code (``ids``): K and E (0: the defaults).
"""

import numpy as np

from ._jit import jit
from .cards import U0, U1, lowest
from .determinize import sample_hands, suit_exclusions
from .ids import (
    DEFAULT_EXPERT_EXACT_TRICKS,
    DEFAULT_EXPERT_SAMPLES,
    EXPERT_EXACT_SHIFT,
    EXPERT_SAMPLES_MAX,
    EXPERT_SAMPLES_SHIFT,
    STRAT_ADVANCED,
)
from .rng import mix64
from .solver import C_ABORTED, N_CTX, N_I, N_U, STACK, solve_value
from .solver_table import ENTRY

_DECISION_SALT = np.uint64(0xE5E27)
# The open-hand solver's share of the workspace: a small table (2**12 entries, 96 KiB: the
# endings it solves are a few tricks) and a node budget per solve, past which the sample's
# ending is played out by the advanced tier instead.
_TABLE_BITS = 12
SOLVE_MAX_NODES = 200_000
# An expert seat leaves the advanced card only for a card whose mean gain over it, paired
# on the same samples, exceeds this many standard errors: at the argmax alone, sampling
# noise made it trade good cards for worse ones (measured in Domino: -0.46 ± 0.29 at K = 24).
DEVIATE_Z = 1.0


@jit
def expert_settings(code):
    """(K samples, E exact tricks) of an expert seat's strategy code."""
    k = (code >> EXPERT_SAMPLES_SHIFT) & EXPERT_SAMPLES_MAX
    e1 = (code >> EXPERT_EXACT_SHIFT) & 0xFF
    return (k if k > 0 else DEFAULT_EXPERT_SAMPLES), (
        e1 - 1 if e1 > 0 else DEFAULT_EXPERT_EXACT_TRICKS
    )


@jit
def decision_stream(s_play, n):
    """The sampling stream of the decision at trace place ``n`` of the deal whose play
    stream starts at ``s_play``."""
    return mix64(s_play ^ mix64(np.uint64(n) + _DECISION_SALT))


@jit
def expert_workspace():
    """The arrays a decision works in, allocated once per batch: (sampled hands, hands in a
    rollout, its scores, its tricks, per card the sums of its score minus the advanced
    card's and of their squares, every seat advanced, no random draws, no trace, the
    exclusions per seat), and the solver's (table, context, stack)."""
    # The solver's new_table and new_stack, which are plain Python. np.empty and a filled
    # slice, not np.zeros and np.full: numba compiles each of those per dtype and shape, and
    # this function is in every kernel's first compile (2.4-2.6 CPU-s before, 1.2-1.4 after).
    table = np.empty(2 + ENTRY * (1 << _TABLE_BITS), np.uint64)
    table[:] = 0
    ctx = np.empty(N_CTX, np.int64)
    ctx[:] = 0
    si = np.empty((STACK, N_I), np.int64)
    si[:] = 0
    su = np.empty((STACK, N_U), np.uint64)
    su[:] = 0
    diffs = np.empty((2, 52), np.int64)
    diffs[:] = 0
    seats = np.empty(4, np.int64)
    seats[:] = STRAT_ADVANCED
    return (table, ctx, si, su), (
        np.empty(4, np.uint64),
        np.empty(4, np.uint64),
        np.empty(4, np.int64),
        np.empty(4, np.int64),
        diffs,
        seats,
        np.empty(0, np.uint64),
        np.empty(0, np.int64),
        np.empty(4, np.uint64),
    )


@jit
def best_card(L, diffs, tie, k):
    """The card of ``L`` of the largest mean gain over the advanced card ``tie`` (``diffs[0,
    c]``: the sum over the ``k`` samples of card c's score minus tie's; ``diffs[1, c]``: of
    their squares; at ``tie`` itself its own score's sums), counting only a gain above
    ``DEVIATE_Z`` standard errors of its paired mean: a card the samples do not show better
    stays unplayed. Ties: the lowest card."""
    pick = tie
    best = 0.0
    m = L & ~(U1 << np.uint64(tie))
    while m != U0:
        c = lowest(m)
        m &= m - U1
        mean = diffs[0, c] / k
        if mean <= best:
            continue
        var = (diffs[1, c] - diffs[0, c] * mean) / (k - 1) if k > 1 else 0.0
        if mean * mean * k > DEVIATE_Z * DEVIATE_Z * var:
            best = mean
            pick = c
    return pick


@jit
def clear_diffs(L, diffs):
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        diffs[0, c] = 0
        diffs[1, c] = 0


@jit
def add_diff(diffs, c, d):
    diffs[0, c] += d
    diffs[1, c] += d * d


def make_trick_expert(rollout):
    """The expert decision of a trick contract whose rollouts run ``rollout`` (an advanced
    ``play_from`` of ``play_tricks``)."""

    @jit(inline="always")
    def rollout_value(row, p, sample, scores, tricks, stake, state, xs):
        """Seat ``p``'s score at the end of the deal ``sample`` played on from ``state``, every
        seat advanced; if ``state`` stops before the end, the solver values the rest (on a
        solve out of budget, the rollout plays it instead)."""
        tt, ctx, si, su = xs[1][0]
        _sample, work, wscores, wtricks, _sums, everyone_adv, no_rnd, no_trace, _excl = xs[1][1]
        for q in range(4):
            work[q] = sample[q]
            wscores[q] = scores[q]
            wtricks[q] = tricks[q]
        leader = rollout(row, work, everyone_adv, no_rnd, wscores, wtricks, no_trace, stake,
                         state, xs)[1]  # fmt: skip
        if state[4] == 13:
            return wscores[p]
        v = solve_value(work, leader, p, row, tt, ctx, si, su, SOLVE_MAX_NODES)
        if ctx[C_ABORTED] == 0:
            return wscores[p] + v
        (lead0, pos, c, t, _stop, led, ledm, wcard, wseat, trick, played, voids, clean, broken,
         n, nr) = state  # fmt: skip
        full = (lead0, pos, c, t, np.int64(13), led, ledm, wcard, wseat, trick, played, voids,
                clean, broken, n, nr)  # fmt: skip
        for q in range(4):
            work[q] = sample[q]
            wscores[q] = scores[q]
            wtricks[q] = tricks[q]
        rollout(row, work, everyone_adv, no_rnd, wscores, wtricks, no_trace, stake, full, xs)
        return wscores[p]

    @jit(_nrt=False)
    def trick_expert(row, hands, code, p, L, tie, know, scores, tricks, stake, xs):
        """The card seat ``p`` plays from legal cards ``L`` (``tie``: the advanced card)
        at the position ``know`` of the trick loop."""
        (t, pos, leader, led, ledm, wcard, wseat, trick, played, voids, xvoids, clean, broken,
         n) = know  # fmt: skip
        s_play = xs[0]
        sample, _work, _ws, _wt, sums, _adv, _rnd, _trace, excl = xs[1][1]
        k_samples, exact = expert_settings(code)
        # Solve the ending exactly once E or fewer tricks remain after this one: play this
        # trick out, then the solver (open hands) values the rest.
        # (typed values in the states, not literals: see play_tricks.deal_start)
        stop = t + 1 if 0 < 13 - t - 1 <= exact else np.int64(13)
        for q in range(4):
            excl[q] = suit_exclusions(xvoids, q)
        s = decision_stream(s_play, n)
        clear_diffs(L, sums)
        for _ in range(k_samples):
            s = sample_hands(hands, p, excl, s, sample)
            # the advanced card first: every other card is scored against it on this sample
            c = tie
            m = L & ~(U1 << np.uint64(tie))
            base = 0
            while True:
                state = (leader, pos, c, t, stop, led, ledm, wcard, wseat, trick, played, voids,
                         clean, broken, n, np.int64(0))  # fmt: skip
                v = rollout_value(row, p, sample, scores, tricks, stake, state, xs)
                if c == tie:
                    base = v
                    add_diff(sums, tie, v)  # its own score, for a view's explanation
                else:
                    add_diff(sums, c, v - base)
                if m == U0:
                    break
                c = lowest(m)
                m &= m - U1
        return best_card(L, sums, tie, k_samples)

    return trick_expert


def make_domino_expert(rollout):
    """The expert decision of Domino whose rollouts run ``rollout`` (the advanced
    ``play_from`` of ``play_domino``)."""

    @jit(_nrt=False)
    def domino_expert(row, hands, code, L, tie, know, scores, out_order, xs):
        """The card the seat to act lays from legal cards ``L`` (``tie``: the advanced
        card) at the position ``know`` of the Domino loop. A seat that passed holds none of
        the cards playable then (``nh*``)."""
        turn, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n = know
        s_play = xs[0]
        sample, work, wscores, worder, sums, everyone_adv, no_rnd, no_trace, excl = xs[1][1]
        k_samples = expert_settings(code)[0]
        excl[0] = nh0
        excl[1] = nh1
        excl[2] = nh2
        excl[3] = nh3
        s = decision_stream(s_play, n)
        clear_diffs(L, sums)
        for _ in range(k_samples):
            s = sample_hands(hands, turn, excl, s, sample)
            c = tie  # the advanced card first, as in the trick contracts
            m = L & ~(U1 << np.uint64(tie))
            base = 0
            while True:
                for q in range(4):
                    work[q] = sample[q]
                    wscores[q] = scores[q]
                    worder[q] = out_order[q]
                state = (turn, c, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3,
                         n, np.int64(0))  # fmt: skip
                rollout(row, work, everyone_adv, no_rnd, wscores, worder, no_trace, state, xs)
                if c == tie:
                    base = wscores[turn]
                    add_diff(sums, tie, base)  # its own score, for a view's explanation
                else:
                    add_diff(sums, c, wscores[turn] - base)
                if m == U0:
                    break
                c = lowest(m)
                m &= m - U1
        return best_card(L, sums, tie, k_samples)

    return domino_expert
