"""Contract choice and doubling by search: a seat's expected scores measured on sampled deals.

At its decision the seat deals the 39 cards it cannot see uniformly at random to the other
three (its own 13 fixed: ``conditional.deal_conditional_into``), plays every sample out
with four `advanced` players and averages. All options are played on the same samples. A
sample's play in a trick contract stops once no card can change a score (``search_dealt``).

- **Choice** (``search_choice``): every contract open to the chooser, on ``n`` samples; the
  searched mean replaces the fitted expected score in the fitted rule (``game.
  choose_fitted``): relative value = searched mean minus the variant's fitted chooser mean
  (what the contract is worth to him on average, so roughly what it is worth when it is
  played later instead), the τ_k troeven call and the forced troeven on his last turn as
  the fitted choice has them.
- **Doubling** (``search_doubles``): the chosen contract, on ``n`` samples, with the doubles
  said so far as the rollouts' stakes; per other seat t the paired mean of ``s_d − s_t`` and
  its standard error. A non-chooser's samples give the chooser only hands for which the
  fitted choice picks this contract (up to ``CHOOSER_TRIES`` draws per sample, then the
  last draw), since a chooser picks what his hand suits. The seat doubles t when that mean
  beats the fitted threshold the fitted rule would apply (θ to start a double, θ_back to
  double back) by more than ``DOUBLE_Z`` standard errors (0: the mean alone, measured
  best); the chooser only doubles back,
  at most two doubles unless all clear θ_back, as ``game.doubling_step``.

Sample ``j`` of a decision is drawn from a stream keyed by the deal's state, the seat and
the decision kind, so a game stays a pure function of the seed. The functions are built
per play build (``make_game_search``): a game kernel's searches and ``decide_game``'s are
the same code.
"""

import numpy as np

from ._jit import jit
from .conditional import deal_conditional_into, unknown_cards
from .doubling_rule import doubles_by_rule
from .expert import SeatSearch
from .ids import KIND_DOMINO, KIND_TROEVEN, LAATSTE_SLAG, N_NEGATIVE, N_VARIANTS, STRAT_ADVANCED
from .play_tricks import deal_start, roll_laatste, roll_negative, roll_troeven
from .rng import deal_state, mix64, play_state
from .ruleset import F_CONTRACT, F_KIND, F_TOTAL

_CHOICE_SALT = np.uint64(0x5EA4C401CE)
_DOUBLE_SALT = np.uint64(0x5EA4D0B1E)
# A searched double must clear its threshold by this many standard errors of its mean.
# Measured in tournaments against the expert profile (seed 3, 1,200 games, 128 samples):
# z = 1 gained +17.4 points a game, z = 0.5 +20.3, z = 0 +23.2; the fitted thresholds carry
# a margin of their own, and 256 samples keep the noise small.
DOUBLE_Z = 0.0
# Draws per sample looking for a chooser's hand the fitted choice fits to the contract.
CHOOSER_TRIES = 32

# A search policy's code: the kind in the low byte (``game.CHOICE_SEARCH`` /
# ``DOUBLE_SEARCH``), the sample count in bits 8-23 (0: the default), a doubling's z as
# 8·z + 1 in bits 24-31 (0: ``DOUBLE_Z``), and in bit 32 a choice's other baseline
# (``search_choice``). Only the defaults are profiles; the rest is for measuring.
POLICY_MASK = 0xFF
SAMPLES_SHIFT = 8
_SAMPLES_MAX = 0xFFFF
Z_SHIFT = 24
LATER_BIT = 32
# Samples per decision: a doubling gained +20.9, +23.2, +25.1 and +26.0 points a game at
# 64, 128, 256 and 512 (z = 0, as above); a choice measured no gain beyond its noise at
# any count (64, 128, 256), so it takes the cheaper 128.
DEFAULT_CHOICE_SAMPLES = 128
DEFAULT_DOUBLE_SAMPLES = 256


@jit
def search_workspace():
    """The arrays a search works in, allocated once per batch: (the unknown cards, a
    shuffled copy, a sampled deal, per option the sum of scores and of squares, a chooser's
    relative values and expected scores for the fitted model, four advanced seats)."""
    adv = np.empty(4, np.int64)
    adv[:] = STRAT_ADVANCED
    acc = np.empty((2, N_VARIANTS))
    acc[:] = 0.0
    return (
        np.empty(39, np.int64),
        np.empty(39, np.int64),
        np.empty(4, np.uint64),
        acc,
        np.empty(N_VARIANTS),
        np.empty(N_VARIANTS),
        adv,
    )


@jit(_nrt=False)
def policy_samples(code, default):
    """The sample count a search policy code carries (``default`` when 0)."""
    n = (code >> SAMPLES_SHIFT) & _SAMPLES_MAX
    return n if n > 0 else default


@jit(_nrt=False)
def policy_z(code):
    """The z a doubling search policy code carries (``DOUBLE_Z`` when 0)."""
    z = (code >> Z_SHIFT) & 0xFF
    return (z - 1) / 8.0 if z > 0 else DOUBLE_Z


@jit(_nrt=False)
def policy_later(code):
    """Does a choice search policy code value a contract against a non-chooser's share?"""
    return (code >> LATER_BIT) & 1 != 0


@jit(_nrt=False, inline="always")
def draw_sample(key, j, hand, seat, sw):
    """Sample ``j`` of the stream ``key``: ``hand`` at ``seat``, the rest uniformly dealt
    into ``sw[2]``; returns the sample's state."""
    base, rest, sample = sw[0], sw[1], sw[2]
    st = deal_state(key, j)
    for c in range(39):
        rest[c] = base[c]
    deal_conditional_into(st, hand, seat, rest, sample)
    return st


@jit(_nrt=False)
def acc_stats(acc, u, n):
    """(mean, standard error of the mean) of option ``u`` over ``n`` samples."""
    mean = acc[0, u] / n
    var = (acc[1, u] - acc[0, u] * mean) / (n - 1) if n > 1 else 0.0
    return mean, np.sqrt(max(var, 0.0) / n)


def make_game_search(play_dealt, pick_contract, choose_fitted):
    """(``search_choice``, ``search_doubles``) over the play build ``play_dealt`` and the
    game kernel's fitted choice (passed in: ``game`` imports this module)."""

    @jit(inline="always")
    def search_dealt(table, v, dealt, ds, dealer, adv, scratch):
        """``play_dealt`` for a search's sample, four advanced seats (``adv``), of which the
        search reads only the scores: a trick contract is played by the rollouts' build of
        the loop (``play_tricks.play_from``), which stops once no card can change a score.
        The scores are ``play_dealt``'s (advanced seats draw nothing from the play stream)."""
        row = table[v]
        if row[F_KIND] == KIND_DOMINO:
            play_dealt(table, v, dealt, ds, dealer, adv, scratch)
            return
        hands, rnd, scores, tricks, order, no_trace, stake, xw = scratch
        for p in range(4):
            hands[p] = dealt[p]
            scores[p] = 0
            tricks[p] = 0
            order[p] = -1
        args = (row, hands, adv, rnd, scores, tricks, no_trace, stake, deal_start(dealer),
                SeatSearch(play_state(ds, v), xw))  # fmt: skip
        if row[F_KIND] == KIND_TROEVEN:
            roll_troeven(*args)
        elif row[F_CONTRACT] == LAATSTE_SLAG:
            roll_laatste(*args)
        else:
            roll_negative(*args)

    @jit(_nrt=False)
    def search_choice(table, ds, hand, dealer, options, models, search, sw, scratch, relv):
        """The contract the chooser holding ``hand`` picks by search (-1 if none is legal);
        ``options``: (negatives mask, trump options open, may trump, must trump, turns
        left), as ``game.pick_contract`` computes them; ``models``: (mean, bonus, tau);
        ``search``: (samples, later). Leaves per variant the searched relative value in
        ``relv`` and the sums in ``sw[3]`` (legal variants only).

        A contract's worth later, the baseline of its relative value: the fitted chooser
        mean (as the fitted choice), or with ``later`` what a non-chooser expects when
        another chooser picks it, (total − chooser mean − selection bonus) / 3."""
        mask, trump_free, may_trump, must_trump, turns_left = options
        mean, bonus, tau = models
        n, later = search
        chooser = (dealer + 2) & 3
        legal = 0 if must_trump else mask
        if may_trump:
            legal |= trump_free << N_NEGATIVE
        acc, adv = sw[3], sw[6]
        scores, stake = scratch[2], scratch[6]
        count = 0
        only = -1
        for u in range(N_VARIANTS):
            acc[0, u] = 0.0
            acc[1, u] = 0.0
            relv[u] = -np.inf
            if (legal >> u) & 1:
                count += 1
                only = u
        if count <= 1:
            return only
        for p in range(4):
            for q in range(4):
                stake[p, q] = 0  # nobody has doubled yet
        unknown_cards(hand, sw[0])
        key = mix64(ds ^ _CHOICE_SALT)
        for j in range(n):
            st = draw_sample(key, j, hand, chooser, sw)
            for u in range(N_VARIANTS):
                if (legal >> u) & 1:
                    search_dealt(table, u, sw[2], st, dealer, adv, scratch)
                    x = np.float64(scores[chooser])
                    acc[0, u] += x
                    acc[1, u] += x * x
        for u in range(N_VARIANTS):
            if (legal >> u) & 1:
                base = mean[u, 2]
                if later:
                    base = (table[u, F_TOTAL] - mean[u, 2] - bonus[u]) / 3.0
                relv[u] = acc[0, u] / n - base
        return choose_fitted(relv, mask, trump_free, may_trump, must_trump, turns_left, tau)

    @jit(_nrt=False)
    def search_doubles(table, ds, v, d, dealer, hand, bits, rules, chooser_model, search, sw,
                       scratch, est, se):  # fmt: skip
        """The seats seat ``d`` holding ``hand`` doubles by search in variant ``v`` (bit t:
        it doubles t) after the doubles ``bits`` (bit 4·a + b: a doubled b). ``rules``:
        (theta, may the chooser start doubles); ``search``: (samples, z).
        ``chooser_model``: (fit the chooser's hand to the contract?, deal k, (negatives,
        trump options, may trump) open before the choice, fixed order, Domino restricted,
        (mean, tau, value tables)). Leaves the mean
        of ``s_d − s_t`` and its standard error in ``est[t]`` / ``se[t]`` for the seats it
        may double (NaN for the others)."""
        theta, chooser_starts = rules
        n, z = search
        fit_chooser, k, free, fixed_order, restricted, models = chooser_model
        chooser = (dealer + 2) & 3
        starts = d != chooser or chooser_starts
        may = 0
        for t in range(4):
            est[t] = np.nan
            se[t] = np.nan
            if t != d and (starts or (bits >> (4 * t + d)) & 1):
                may |= 1 << t
        if may == 0:
            return 0
        acc, adv = sw[3], sw[6]
        scores, stake = scratch[2], scratch[6]
        for p in range(4):
            for q in range(4):
                stake[p, q] = ((bits >> (4 * p + q)) & 1) + ((bits >> (4 * q + p)) & 1)
        for t in range(4):
            acc[0, t] = 0.0
            acc[1, t] = 0.0
        unknown_cards(hand, sw[0])
        key = mix64(ds ^ mix64(np.uint64(d) + _DOUBLE_SALT))
        fit = fit_chooser and d != chooser
        draw = 0
        for _ in range(n):
            st = draw_sample(key, draw, hand, d, sw)
            draw += 1
            if fit:
                for _try in range(CHOOSER_TRIES - 1):
                    picked = pick_contract(st, k, sw[2][chooser], True, fixed_order,
                                           restricted, free, models, sw[4], sw[5])  # fmt: skip
                    if picked == v:
                        break
                    st = draw_sample(key, draw, hand, d, sw)
                    draw += 1
            search_dealt(table, v, sw[2], st, dealer, adv, scratch)
            for t in range(4):
                if (may >> t) & 1:
                    x = np.float64(scores[d] - scores[t])
                    acc[0, t] += x
                    acc[1, t] += x * x
        for t in range(4):
            if (may >> t) & 1:
                m, e = acc_stats(acc, t, n)
                est[t] = m
                se[t] = e
        return doubles_from_search(v, d, dealer, bits, (est, se, z), theta, starts)

    return search_choice, search_doubles


@jit(_nrt=False)
def doubles_from_search(v, d, dealer, bits, edges, theta, starts):
    """The fitted rule (``doubling_rule``) with searched edges ``(est, se, z)``: double t
    when ``est[t]`` beats its threshold by more than ``z`` standard errors."""
    est, se, z = edges
    margin = (z * se[0], z * se[1], z * se[2], z * se[3])
    return doubles_by_rule(d, v, (dealer + 2) & 3, bits, theta, starts, est, margin)
