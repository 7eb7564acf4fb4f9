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

With inference on (I > 0), the K samples are drawn from K * I candidate deals weighed by how
likely the plays seen so far were in each (``infer``); a candidate kept twice is rolled out
once and counts twice, and the test against the advanced card uses the effective number of
samples. With I > 0 (and with N = 100, which weighs nothing) a seat's rollouts are also
adaptive (``adaptive``): what they save pays for the weighing or for more samples.

Settings ride in the seat's strategy code (``ids``): K, E, I and the model's noise N (0:
the defaults).
"""

from collections import namedtuple

import numpy as np

from ._jit import jit
from .cards import U0, U1, highest, lowest, suit_of
from .determinize import sample_hands, suit_exclusions
from .ids import (
    DEFAULT_EXPERT_EXACT_TRICKS,
    DEFAULT_EXPERT_NOISE,
    DEFAULT_EXPERT_SAMPLES,
    EXPERT_EXACT_SHIFT,
    EXPERT_INFER_SHIFT,
    EXPERT_NOISE_SHIFT,
    EXPERT_SAMPLES_MAX,
    EXPERT_SAMPLES_SHIFT,
    STRAT_ADVANCED,
    TRACE_LEN,
)
from .infer import (
    CUTOFF,
    MAX_CANDIDATES,
    MIN_EFFECTIVE_SHARE,
    N_PUBLIC,
    domino_log_likelihood,
    history_entry,
    resample,
    temper,
)
from .rng import mix64
from .ruleset import F_PEN_MASK
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
# With inference on, the search also spends its samples where the decision is close: after
# ``PRUNE_AFTER`` samples, a card this many standard errors worse than the advanced card is
# no longer rolled out, and once every card is, the decision stops sampling.
PRUNE_Z = 2.0
PRUNE_AFTER = 4

# The arrays a decision works in (``expert_workspace``), by name: namedtuples, which numba
# compiles as the plain tuples they are. The open-hand solver's (``solver``): its table,
# context and stacks.
SolverWork = namedtuple("SolverWork", "table ctx si su")
# A rollout's: the sampled hands; the hands, scores and tricks (Domino: finishing order) the
# rollout plays in; per card the sums of its score minus the advanced card's, of their
# squares and the samples it was tried on (``add_diff``); every seat advanced, no random
# draws, no trace; the exclusions per seat (``determinize.suit_exclusions``).
RolloutWork = namedtuple(
    "RolloutWork", "sample work scores tricks sums everyone_adv no_rnd no_trace excl"
)
# The inference's: the deal's plays so far (``infer.history_entry``); the candidate deals,
# their log weights, how often each is kept; four hands of work space; the last decision's
# effective number of samples, for a view's explanation; the public state at the other
# seats' plays (``infer.trick_public``).
InferWork = namedtuple("InferWork", "hist cands logw mult cur k_eff pub")
ExpertWork = namedtuple("ExpertWork", "solver roll infer")
# What an expert seat's decision reads beside the position: the deal's play stream (its
# decisions' samples are drawn from streams keyed by it, ``decision_stream``) and the work.
SeatSearch = namedtuple("SeatSearch", "stream work")


@jit
def expert_settings(code):
    """(K samples, E exact tricks) of an expert seat's strategy code."""
    k = (code >> EXPERT_SAMPLES_SHIFT) & EXPERT_SAMPLES_MAX
    e1 = (code >> EXPERT_EXACT_SHIFT) & 0xFF
    return (k if k > 0 else DEFAULT_EXPERT_SAMPLES), (
        e1 - 1 if e1 > 0 else DEFAULT_EXPERT_EXACT_TRICKS
    )


@jit
def expert_inference(code):
    """(I candidate deals per sample, 0: no inference; the noise of the model of the others'
    play, a fraction) of an expert seat's strategy code."""
    n1 = (code >> EXPERT_NOISE_SHIFT) & 0xFF
    return (code >> EXPERT_INFER_SHIFT) & 0xFF, (n1 - 1 if n1 > 0 else DEFAULT_EXPERT_NOISE) / 100.0


@jit(inline="always")
def adaptive(code):
    """Whether an expert seat spends its rollouts where the decision is close (I > 0, with
    or without inference): one card of each run of equivalent cards (``distinct_cards``),
    and no more rollouts of a card once it is clearly worse (``still_tried``)."""
    return expert_inference(code)[0] > 0


@jit(inline="always")
def record_play(xs, n, c, seat):
    """An expert build's loop writes play ``n`` into the history the inference replays."""
    xs.work.infer.hist[n] = history_entry(c, seat)


@jit(inline="always")
def candidates(k_samples, ratio, noise, n):
    """How many candidate deals a decision weighs (0: none, plain sampling): K * I, capped
    by the workspace; none before the first play (nothing seen to weigh them by), and none
    under a model that is all noise (every weight equal: plain samples are the same)."""
    return min(k_samples * ratio, MAX_CANDIDATES) if ratio > 0 and n > 0 and noise < 1 else 0


@jit
def decision_stream(s_play, n):
    """The sampling stream of the decision at trace place ``n`` of the deal whose play
    stream starts at ``s_play``."""
    return mix64(s_play ^ mix64(np.uint64(n) + _DECISION_SALT))


@jit
def expert_workspace():
    """The arrays a decision works in, allocated once per batch (an ``ExpertWork``)."""
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
    diffs = np.empty((3, 52), np.int64)
    diffs[:] = 0
    seats = np.empty(4, np.int64)
    seats[:] = STRAT_ADVANCED
    return ExpertWork(
        SolverWork(table, ctx, si, su),
        RolloutWork(
            np.empty(4, np.uint64),
            np.empty(4, np.uint64),
            np.empty(4, np.int64),
            np.empty(4, np.int64),
            diffs,
            seats,
            np.empty(0, np.uint64),
            np.empty(0, np.int64),
            np.empty(4, np.uint64),
        ),
        InferWork(
            np.empty(TRACE_LEN, np.int64),
            np.empty((MAX_CANDIDATES, 4), np.uint64),
            np.empty(MAX_CANDIDATES, np.float64),
            np.empty(MAX_CANDIDATES, np.int64),
            np.empty(4, np.uint64),
            np.empty(1, np.float64),
            np.empty((TRACE_LEN, N_PUBLIC), np.int64),
        ),
    )


@jit(inline="always")
def paired_gain(diffs, c, eff):
    """Card ``c``'s mean gain over the advanced card and that mean's squared z (its square
    over its variance), over the samples it was tried on (``diffs[2, c]``), counted as
    ``eff`` times as many independent ones (1 unless inference kept a sample twice)."""
    k = diffs[2, c]
    mean = diffs[0, c] / k
    var = (diffs[1, c] - diffs[0, c] * mean) / (k - 1) if k > 1 else 0.0
    return mean, mean * mean * (k * eff), var


@jit
def best_card(L, diffs, tie, eff):
    """The card of ``L`` of the largest mean gain over the advanced card ``tie`` (``diffs[0,
    c]``: the sum over the samples it was tried on of card c's score minus tie's;
    ``diffs[1, c]``: of their squares; ``diffs[2, c]``: those samples; at ``tie`` itself its
    own score's sums), counting only a gain above ``DEVIATE_Z`` standard errors of its
    paired mean (``eff``: see ``paired_gain``): a card the samples do not show better stays
    unplayed. Ties: the lowest card."""
    pick = tie
    best = 0.0
    m = L & ~(U1 << np.uint64(tie))
    while m != U0:
        c = lowest(m)
        m &= m - U1
        mean, zz, var = paired_gain(diffs, c, eff)
        if mean <= best:
            continue
        if zz > DEVIATE_Z * DEVIATE_Z * var:
            best = mean
            pick = c
    return pick


@jit
def pruned(live, diffs, eff):
    """The cards of ``live`` still worth trying: a card whose mean gain over the advanced
    card lies below zero by more than ``PRUNE_Z`` standard errors is dropped (it would need
    to climb far past zero to be played)."""
    m = live
    while m != U0:
        c = lowest(m)
        m &= m - U1
        mean, zz, var = paired_gain(diffs, c, eff)
        if mean < 0 and zz > PRUNE_Z * PRUNE_Z * var:
            live &= ~(U1 << np.uint64(c))
    return live


@jit(inline="always")
def still_tried(ratio, done, live, diffs, eff):
    """The cards rolled out on the next sample, ``done`` samples counted: with adaptive
    sampling (inference on) and at least ``PRUNE_AFTER`` of them, ``pruned``'s."""
    if ratio > 0 and done >= PRUNE_AFTER:
        return pruned(live, diffs, eff)
    return live


@jit(inline="always")
def decided(inf, k_eff, L, diffs, tie, eff):
    """The decision's card (``best_card``), its effective number of samples kept for a
    view's explanation."""
    inf.k_eff[0] = k_eff
    return best_card(L, diffs, tie, eff)


@jit
def clear_diffs(L, diffs):
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        diffs[0, c] = 0
        diffs[1, c] = 0
        diffs[2, c] = 0


@jit
def add_diff(diffs, c, d, w):
    """Card ``c``'s score ``d`` on a sample that counts ``w`` times."""
    diffs[0, c] += w * d
    diffs[1, c] += w * d * d
    diffs[2, c] += w


@jit(inline="always")
def keep_candidate(inf, i, sample):
    """Candidate ``i`` of a decision with inference is the deal ``sample``."""
    cands = inf.cands
    for q in range(4):
        cands[i, q] = sample[q]


@jit(inline="always")
def load_candidate(inf, i, sample):
    """``sample`` = candidate ``i`` of a decision with inference."""
    cands = inf.cands
    for q in range(4):
        sample[q] = cands[i, q]


@jit(inline="always")
def next_sample(r, n_cand, hands, me, excl, s, sample, inf):
    """The ``r``-th sample a decision rolls out into ``sample`` and how often it counts: a
    fresh draw without inference (``n_cand`` 0), else the ``r``-th candidate (0: not kept,
    skip it). Returns (the stream's state, its count)."""
    if n_cand == 0:
        return sample_hands(hands, me, excl, s, sample), 1
    load_candidate(inf, r, sample)
    return s, inf.mult[r]


@jit
def run_starts(L, hand, gone, pen):
    """The lowest card of each run of equivalent cards of ``L``, as a mask. Two cards of a
    suit are equivalent when neither carries points (``pen``) and every card ranked between
    them is in the seat's ``hand`` or ``gone`` (out of play in finished tricks): whatever
    the others hold, each wins and loses the same tricks."""
    starts = U0
    last = np.int64(-1)
    solid = hand | gone
    m = L
    while m != U0:
        c = lowest(m)
        m &= m - U1
        joins = False
        if last >= 0 and suit_of(c) == suit_of(last):
            if ((pen >> np.uint64(c)) | (pen >> np.uint64(last))) & U1 == U0:
                between = ((U1 << np.uint64(c)) - U1) & ~((U1 << np.uint64(last + 1)) - U1)
                joins = (between & ~solid) == U0
        if not joins:
            starts |= U1 << np.uint64(c)
        last = c
    return starts


@jit(inline="always")
def run_of(starts, c):
    """The lowest card of card ``c``'s run (``run_starts``)."""
    return highest(starts & ((U1 << np.uint64(c + 1)) - U1))


@jit(inline="always")
def trick_runs(row, L, hand, played, trick):
    """``run_starts`` at a trick position: the cards gone are those played in finished
    tricks (a card on the current trick breaks a run), the point cards the contract's."""
    return run_starts(L, hand, played & ~trick, np.uint64(row[F_PEN_MASK]))


@jit
def distinct_cards(row, L, tie, hand, played, trick):
    """The cards of ``L`` an adaptive seat rolls out besides the advanced card ``tie``: the
    lowest of each run of equivalent cards (``trick_runs``), none of the advanced card's
    own run. The cards of a run mostly score the same in every rollout, so rolling out
    more than one spends samples on no question."""
    starts = trick_runs(row, L, hand, played, trick)
    return starts & ~(U1 << np.uint64(run_of(starts, tie)))


@jit
def share_runs(row, L, tie, hand, played, trick, diffs):
    """After an adaptive seat's search, each card of ``L`` it did not roll out takes the
    figures of the card that stood for it (``distinct_cards``): a card of the advanced
    card's run scored exactly as the advanced card on each of its samples, any other the
    lowest card of its run. For a view's explanation, which lists every legal card."""
    starts = trick_runs(row, L, hand, played, trick)
    own = run_of(starts, tie)
    m = L & ~starts & ~(U1 << np.uint64(tie))
    if own != tie:  # the advanced card's run's lowest card was not rolled out either
        m |= U1 << np.uint64(own)
    while m != U0:
        c = lowest(m)
        m &= m - U1
        first = run_of(starts, c)
        if first == own:
            diffs[0, c] = 0
            diffs[1, c] = 0
            diffs[2, c] = diffs[2, tie]
        else:
            for j in range(3):
                diffs[j, c] = diffs[j, first]


def make_search(card_value, log_weights):
    """The search of one decision, shared by the trick contracts and Domino.
    ``card_value(row, sample, at, xs, c)`` is the seat's score when it plays ``c`` at the
    position ``at`` in the deal ``sample``, the rest of the deal played out;
    ``log_weights(row, me, n, n_cand, noise, at, xs)`` writes the first ``n_cand``
    candidates' log weights (``infer``)."""

    @jit(inline="always")
    def search(row, hands, me, excl, L, tie, live, code, n, s, at, xs):
        """The card seat ``me`` plays from legal cards ``L`` (``tie``: the advanced card;
        ``live``: the others worth rolling out) at trace place ``n``, sampling from stream
        state ``s``."""
        sample, sums = xs.work.roll.sample, xs.work.roll.sums
        inf = xs.work.infer
        logw, mult = inf.logw, inf.mult
        k_samples = expert_settings(code)[0]
        ratio, noise = expert_inference(code)
        clear_diffs(L, sums)
        n_cand = candidates(k_samples, ratio, noise, n)
        k_eff = np.float64(k_samples)
        if n_cand > 0:  # draw the candidates, weigh each by the plays seen, keep K
            for i in range(n_cand):
                s = sample_hands(hands, me, excl, s, sample)
                keep_candidate(inf, i, sample)
            log_weights(row, me, n, n_cand, noise, at, xs)
            temper(logw, n_cand, MIN_EFFECTIVE_SHARE * k_samples)
            s, k_eff = resample(logw, n_cand, k_samples, mult, s)
        done = 0
        eff = k_eff / k_samples
        for r in range(n_cand if n_cand > 0 else k_samples):
            s, w = next_sample(r, n_cand, hands, me, excl, s, sample, inf)
            if w == 0:
                continue
            # the advanced card first: every other card is scored against it on this sample
            base = card_value(row, sample, at, xs, tie)
            add_diff(sums, tie, base, w)  # its own score, for a view's explanation
            m = live
            while m != U0:
                c = lowest(m)
                m &= m - U1
                add_diff(sums, c, card_value(row, sample, at, xs, c) - base, w)
            done += w
            live = still_tried(ratio, done, live, sums, eff)
            if live == U0:
                break
        return decided(inf, k_eff, L, sums, tie, eff)

    return search


def make_trick_expert(rollout, inference):
    """The expert decision of a trick contract whose rollouts run ``rollout`` (an advanced
    ``play_from`` of ``play_tricks``), weighing candidate deals with ``inference`` (the pair
    of ``infer.make_trick_log_likelihood``) when inference is on."""
    public, log_likelihood = inference

    @jit(inline="always")
    def rollout_value(row, p, sample, scores, tricks, stake, state, xs):
        """Seat ``p``'s score at the end of the deal ``sample`` played on from ``state``, every
        seat advanced; if ``state`` stops before the end, the solver values the rest (on a
        solve out of budget, the rollout plays it instead)."""
        tt, ctx, si, su = xs.work.solver
        roll = xs.work.roll
        work, wscores, wtricks = roll.work, roll.scores, roll.tricks
        everyone_adv, no_rnd, no_trace = roll.everyone_adv, roll.no_rnd, roll.no_trace
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

    @jit(inline="always")
    def card_value(row, sample, at, xs, c):
        """``make_search``'s: card ``c`` played at the trick position ``at``."""
        (p, leader, pos, t, stop, led, ledm, wcard, wseat, trick, played, voids, clean, broken,
         n, scores, tricks, stake) = at  # fmt: skip
        state = (leader, pos, c, t, stop, led, ledm, wcard, wseat, trick, played, voids, clean,
                 broken, n, np.int64(0))  # fmt: skip
        return rollout_value(row, p, sample, scores, tricks, stake, state, xs)

    @jit(inline="always")
    def log_weights(row, me, n, n_cand, noise, at, xs):
        """``make_search``'s: the plays walked once (``public``), each candidate then asks
        the model."""
        stake = at[17]
        sample = xs.work.roll.sample
        inf = xs.work.infer
        logw = inf.logw
        rows = public(row, me, inf.hist, n, inf.pub)
        best = -np.inf
        for i in range(n_cand):
            load_candidate(inf, i, sample)
            logw[i] = log_likelihood(row, sample, inf.pub, rows, stake, noise, best - CUTOFF)
            best = max(best, logw[i])

    search = make_search(card_value, log_weights)

    @jit(_nrt=False)
    def trick_expert(row, hands, code, p, L, tie, know, scores, tricks, stake, xs):
        """The card seat ``p`` plays from legal cards ``L`` (``tie``: the advanced card)
        at the position ``know`` of the trick loop."""
        (t, pos, leader, led, ledm, wcard, wseat, trick, played, voids, xvoids, clean, broken,
         n) = know  # fmt: skip
        excl = xs.work.roll.excl
        exact = expert_settings(code)[1]
        # Solve the ending exactly once E or fewer tricks remain after this one: play this
        # trick out, then the solver (open hands) values the rest.
        # (typed values in the states, not literals: see play_tricks.deal_start)
        stop = t + 1 if 0 < 13 - t - 1 <= exact else np.int64(13)
        for q in range(4):
            excl[q] = suit_exclusions(xvoids, q)
        at = (p, leader, pos, t, stop, led, ledm, wcard, wseat, trick, played, voids, clean,
              broken, n, scores, tricks, stake)  # fmt: skip
        if adaptive(code):
            live = distinct_cards(row, L, tie, hands[p], played, trick)
        else:
            live = L & ~(U1 << np.uint64(tie))
        s = decision_stream(xs.stream, n)
        return search(row, hands, p, excl, L, tie, live, code, n, s, at, xs)

    return trick_expert


def make_domino_expert(rollout):
    """The expert decision of Domino whose rollouts run ``rollout`` (the advanced
    ``play_from`` of ``play_domino``)."""

    @jit(inline="always")
    def card_value(row, sample, at, xs, c):
        """``make_search``'s: card ``c`` laid at the Domino position ``at``."""
        (turn, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n, scores,
         out_order) = at  # fmt: skip
        roll = xs.work.roll
        work, wscores, worder = roll.work, roll.scores, roll.tricks  # Domino: finishing order
        everyone_adv, no_rnd, no_trace = roll.everyone_adv, roll.no_rnd, roll.no_trace
        for q in range(4):
            work[q] = sample[q]
            wscores[q] = scores[q]
            worder[q] = out_order[q]
        state = (turn, c, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n,
                 np.int64(0))  # fmt: skip
        rollout(row, work, everyone_adv, no_rnd, wscores, worder, no_trace, state, xs)
        return wscores[turn]

    @jit(inline="always")
    def log_weights(row, me, n, n_cand, noise, at, xs):
        """``make_search``'s: each candidate's Domino replay."""
        sample = xs.work.roll.sample
        inf = xs.work.infer
        logw = inf.logw
        best = -np.inf
        for i in range(n_cand):
            load_candidate(inf, i, sample)
            logw[i] = domino_log_likelihood(row, sample, me, inf.hist, n, noise, best - CUTOFF,
                                            inf.cur)  # fmt: skip
            best = max(best, logw[i])

    search = make_search(card_value, log_weights)

    @jit(_nrt=False)
    def domino_expert(row, hands, code, L, tie, know, scores, out_order, xs):
        """The card the seat to act lays from legal cards ``L`` (``tie``: the advanced
        card) at the position ``know`` of the Domino loop. A seat that passed holds none of
        the cards playable then (``nh*``)."""
        turn, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n = know
        excl = xs.work.roll.excl
        excl[0] = nh0
        excl[1] = nh1
        excl[2] = nh2
        excl[3] = nh3
        at = (turn, playable, aces, laid, laid_mask, n_out, nh0, nh1, nh2, nh3, n, scores,
              out_order)  # fmt: skip
        live = L & ~(U1 << np.uint64(tie))
        s = decision_stream(xs.stream, n)
        return search(row, hands, turn, excl, L, tie, live, code, n, s, at, xs)

    return domino_expert
