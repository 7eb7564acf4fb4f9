"""Full 11-deal games (RULES.md §5–§6): contract choice, one doubling pass, play, settlement.

Everything per deal happens here, in the core: no Python per deal. The choice and doubling
models arrive as dense arrays (``bonken_sim.games.model_arrays``): a coefficient row per
(variant, seat relative to the dealer) over ``FULL_FEATURES``, folded into per-card tables
(``seat_value``) that give a seat's expected score. The numpy versions in
``bonken_sim.choice`` / ``bonken_sim.doubling`` are the specification; tests check that
both decide the same on the same hands.

Deal ``k`` of game ``g`` is deal ``11·g + k`` of the seed (docs/ENGINE.md), so games are
reproducible for any thread count or chunking.
"""

import numpy as np

from ._jit import jit
from .deal import deal_into
from .doubling_rule import NO_MARGIN, doubles_by_rule
from .game_search import (
    DEFAULT_CHOICE_SAMPLES,
    DEFAULT_DOUBLE_SAMPLES,
    POLICY_MASK,
    make_game_search,
    policy_later,
    policy_samples,
    policy_z,
    search_workspace,
)
from .ids import ACES_AND_TWOS, N_NEGATIVE, N_TRUMP_OPTIONS, N_VARIANTS, STRAT_ADVANCED
from .playout import (
    LEVEL_ADVANCED,
    PLAY_DEALT,
    kernel_table,
    per_level,
    playout_scratch,
    tier_level,
)
from .rng import GOLDEN, deal_state, mix64, scale_draw
from .ruleset import DOMINO, F_CHOOSER_STARTS, F_DOMINO_NEEDS, F_KIND, F_TOTAL, KIND_DOMINO
from .seat_value import seat_value, seat_values, value_tables

DEALS_PER_GAME = 11

CHOICE_RANDOM = 0
CHOICE_FITTED = 1
CHOICE_SEARCH = 2  # game_search; the sample count above the low byte (POLICY_MASK)
DOUBLE_NEVER = 0
DOUBLE_FITTED = 1
DOUBLE_SEARCH = 2  # game_search, as CHOICE_SEARCH

# Game errors (the Python side raises on any).
ERR_NONE = 0
ERR_NOT_ZERO = 1  # settled totals do not sum to the raw total (0 under RULES.md)
ERR_NO_CONTRACT = 2  # no legal contract for a chooser (cannot happen under RULES.md §6)

_CHOICE_SALT = np.uint64(0xC401CE)
_S32 = np.uint64(32)
_ACES_TWOS = np.uint64(ACES_AND_TWOS)

# Every kernel here but play_games allocates nothing, so it runs without numba's reference
# counting (_nrt=False, see _jit.jit). The per-deal steps are inlined into the game loop
# (inline="always", numba's own inlining, before LLVM): as calls, each pushed the dozen arrays
# it reads onto the stack on every deal, a hundred words for the doubling alone.


@jit(_nrt=False, inline="always")
def domino_restricted(table):
    """Does the ruleset let only a seat holding an ace or a 2 choose or double Domino?"""
    return table[DOMINO, F_KIND] == KIND_DOMINO and table[DOMINO, F_DOMINO_NEEDS] != 0


@jit(_nrt=False, inline="always")
def without_domino(mask, hand, may_trump, trump_free):
    """The negatives a chooser holding ``hand`` may choose when Domino needs an ace or a 2:
    without Domino unless he holds one, or unless nothing else is open to him."""
    if (mask >> DOMINO) & 1 == 0 or (hand & _ACES_TWOS) != 0:
        return mask
    rest = mask & ~(1 << DOMINO)
    if rest != 0 or (may_trump and trump_free != 0):
        return rest
    return mask


@jit(_nrt=False, inline="always")
def best_legal(relv, free, lo, hi):
    """The variant of ``lo … hi − 1`` with bit ``v − lo`` set in ``free`` and the largest
    ``relv``, the first of equals; -1 if none. Selects, not branches: which variant wins is
    unpredictable, and as a chain of compares and jumps the choice took 3% of a basic game."""
    best = -1
    top = -np.inf
    for v in range(lo, hi):
        x = relv[v]
        take = ((free >> (v - lo)) & 1 != 0) & ((best < 0) | (x > top))
        best = v if take else best
        top = x if take else top
    return best


@jit(_nrt=False, inline="always")
def choose_fitted(relv, neg_free, trump_free, may_trump, must_trump, turns_left, tau):
    """The relative-value choice (bonken_sim.choice.choose); -1 if nothing is legal."""
    best_n = -1 if must_trump else best_legal(relv, neg_free, 0, N_NEGATIVE)
    best_t = best_legal(relv, trump_free, N_NEGATIVE, N_VARIANTS) if may_trump else -1
    if best_n < 0:
        return best_t
    if best_t < 0:
        return best_n
    if turns_left <= 1:
        return best_t
    k = min(turns_left, tau.shape[0] - 1)
    return best_t if relv[best_t] - relv[best_n] > tau[k] else best_n


@jit(_nrt=False, inline="always")
def choose_random(s, neg_free, trump_free, may_trump, must_trump):
    """Uniform over the legal contracts (troeven counts once), then a uniform trump option."""
    n_neg = 0
    if not must_trump:
        for v in range(N_NEGATIVE):
            n_neg += (neg_free >> v) & 1
    n_trump = 0
    if may_trump:
        for v in range(N_TRUMP_OPTIONS):
            n_trump += (trump_free >> v) & 1
    n = n_neg + (1 if n_trump > 0 else 0)
    if n == 0:
        return -1, s
    s = s + GOLDEN
    x = mix64(s)
    k = scale_draw(x >> _S32, n)
    if k < n_neg:
        for v in range(N_NEGATIVE):
            if (neg_free >> v) & 1:
                if k == 0:
                    return v, s
                k -= 1
    k = scale_draw(x & np.uint64(0xFFFFFFFF), n_trump)
    for v in range(N_TRUMP_OPTIONS):
        if (trump_free >> v) & 1:
            if k == 0:
                return N_NEGATIVE + v, s
            k -= 1
    return -1, s


@jit(_nrt=False, inline="always")
def doubling_step(d, v, dealer, own, bits, mean, bonus, theta, total, chooser_starts):
    """Seat ``d``'s turn in the doubling pass: the seats it doubles, as bits (bit t: d
    doubles t), given its own expected score ``own`` in ``v`` and the doubles said before
    it (``bits`` as ``doubling_pass`` keeps them). ``decide`` asks it for one seat."""
    chooser = (dealer + 2) & 3
    chooser_est = mean[v, 2] + bonus[v]
    starts = d != chooser or chooser_starts  # may double a seat that did not double him
    # what the seat expects a non-chooser to score
    other = (total - own) / 3.0 if d == chooser else (total - own - chooser_est) / 2.0
    est = (
        own - (chooser_est if chooser == 0 else other),
        own - (chooser_est if chooser == 1 else other),
        own - (chooser_est if chooser == 2 else other),
        own - (chooser_est if chooser == 3 else other),
    )
    return doubles_by_rule(d, v, chooser, bits, theta, starts, est, NO_MARGIN)


@jit(_nrt=False, inline="always")
def doubling_pass(v, dealer, pol, own_ev, mean, bonus, theta, total, chooser_starts):
    """One pass in the order D+3, D, D+1, chooser (bonken_sim.doubling.doubles_from_estimates).

    ``own_ev[p]`` is seat p's own expected score in ``v``. Returns the doubles as bits: bit
    4·d + t set when seat d doubled seat t. ``chooser_starts`` (a house rule): the chooser may
    start doubles like anyone else, not only double back. Decisions are kept as bits, not in
    arrays: the pass runs on every deal of a game.
    """
    bits = 0
    for step in (3, 0, 1, 2):
        d = (dealer + step) & 3
        if pol[d] == DOUBLE_NEVER:
            continue
        ok = doubling_step(d, v, dealer, own_ev[d], bits, mean, bonus, theta, total,
                           chooser_starts)  # fmt: skip
        bits |= ok << (4 * d)
    return bits


@jit(_nrt=False, inline="always")
def contract_options(fixed_order, k, neg_free, may_trump_now, turns_left):
    """What the chooser of deal ``k`` may choose: (negatives mask, may trump, must trump).
    In a fixed order deal k is the k-th negative, then troeven; else any negative still
    open, and troeven once (``may_trump_now``), forced on his last turn."""
    if fixed_order:
        if k < N_NEGATIVE:
            return 1 << k, False, False
        return 0, True, True
    return neg_free, may_trump_now, may_trump_now and turns_left == 1


@jit(_nrt=False, inline="always")
def choice_options(k, hand, fixed_order, restricted, free):
    """What the chooser holding ``hand`` may choose for deal ``k``: (negatives mask, trump
    options open, may trump, must trump, his turns left). ``free``: (negatives still open,
    trump options still open, may he still choose troeven)."""
    neg_free, trump_free, may_trump_now = free
    turns_left = (DEALS_PER_GAME - 1 - k) // 4 + 1  # his turns: this deal and every fourth
    mask, may_trump, must_trump = contract_options(
        fixed_order, k, neg_free, may_trump_now, turns_left
    )
    if restricted and not must_trump:
        mask = without_domino(mask, hand, may_trump, trump_free)
    return mask, trump_free, may_trump, must_trump, turns_left


@jit(_nrt=False, inline="always")
def pick_contract(ds, k, hand, fitted_choice, fixed_order, restricted, free, models, relv, cvals):
    """The contract the chooser holding ``hand`` picks for deal ``k`` (state ``ds``), -1 if
    nothing is legal. ``free``: (negatives still open, trump options still open, may he
    still choose troeven); ``models``: (mean, tau, value tables). A fitted choice leaves the
    chooser's expected score per variant in ``cvals`` (his doubling reads it)."""
    mean, tau, vt = models
    mask, trump_free, may_trump, must_trump, turns_left = choice_options(
        k, hand, fixed_order, restricted, free
    )
    if fitted_choice:
        seat_values(hand, 2, vt, cvals)
        for u in range(N_VARIANTS):
            relv[u] = cvals[u] - mean[u, 2]
        return choose_fitted(relv, mask, trump_free, may_trump, must_trump, turns_left, tau)
    cs = mix64(ds ^ _CHOICE_SALT)
    return choose_random(cs, mask, trump_free, may_trump, must_trump)[0]


@jit(_nrt=False, inline="always")
def deal_doubles(v, dealer, dealt, pol, fitted_choice, restricted, cvals, models, work):
    """The doubling pass of a deal in variant ``v`` (bits as ``doubling_pass``): every seat
    with a fitted policy weighs its hand (the chooser's value is known from his choice)."""
    mean, bonus, tau, theta, vt, total, chooser_starts = models
    own_ev, dpol = work
    chooser = (dealer + 2) & 3
    for p in range(4):
        dpol[p] = pol[p]
        if restricted and v == DOMINO and (dealt[p] & _ACES_TWOS) == 0:
            dpol[p] = DOUBLE_NEVER
        if dpol[p] == DOUBLE_FITTED:
            if p == chooser and fitted_choice:  # weighed for the choice already
                own_ev[p] = cvals[v]
            else:
                own_ev[p] = seat_value(dealt[p], v, (p - dealer) & 3, vt)
    return doubling_pass(v, dealer, dpol, own_ev, mean, bonus, theta, total, chooser_starts)


# The searches of each level's build (game_search): (search_choice, search_doubles) over
# that level's play. ``decide_game`` uses the advanced level's: one build, one cache key.
SEARCHES = per_level(lambda level: make_game_search(PLAY_DEALT[level], pick_contract,
                                                    choose_fitted))  # fmt: skip


def _make_play_games(level):
    """``play_games`` built for the play builds of ``level``."""
    play_dealt = PLAY_DEALT[level]
    # Searches roll out with advanced seats: only the builds that carry the advanced loops
    # search (a constant of the build, so the basic build prunes the branches).
    can_search = level >= LEVEL_ADVANCED
    search_choice, search_doubles = SEARCHES[level]

    @jit(_nrt=False)
    def searched_doubles(v, dealer, dealt, pol, fitted_choice, restricted, cvals, models, work,
                         chooser_model, search):  # fmt: skip
        """``deal_doubles`` where some seat doubles by search (``game_search``): each seat
        in the pass order by its own policy."""
        mean, bonus, tau, theta, vt, total, chooser_starts = models
        own_ev, dpol = work
        table, ds, sw, est, se, scratch = search
        chooser = (dealer + 2) & 3
        for p in range(4):
            dpol[p] = pol[p] & POLICY_MASK
            if restricted and v == DOMINO and (dealt[p] & _ACES_TWOS) == 0:
                dpol[p] = DOUBLE_NEVER
            if dpol[p] == DOUBLE_FITTED:
                if p == chooser and fitted_choice:
                    own_ev[p] = cvals[v]
                else:
                    own_ev[p] = seat_value(dealt[p], v, (p - dealer) & 3, vt)
        bits = 0
        for step in (3, 0, 1, 2):
            d = (dealer + step) & 3
            if dpol[d] == DOUBLE_NEVER:
                continue
            if dpol[d] == DOUBLE_SEARCH:
                n = policy_samples(pol[d], DEFAULT_DOUBLE_SAMPLES)
                ok = search_doubles(table, ds, v, d, dealer, dealt[d], bits,
                                    (theta, chooser_starts), chooser_model,
                                    (n, policy_z(pol[d])), sw, scratch, est, se)  # fmt: skip
            else:
                ok = doubling_step(d, v, dealer, own_ev[d], bits, mean, bonus, theta, total,
                                   chooser_starts)  # fmt: skip
            bits |= ok << (4 * d)
        return bits

    # Not late linked (_numba_link), unlike the other kernels over the play loops: with the
    # game kernels finalized that way, basic games ran at 33-41k games per CPU-second against
    # 56-70k (three alternated processes each, one thread).
    @jit()
    def play_games(key, game_start, card_strat, choice_pol, double_pol, fixed_order, doubling_on,
                   table, coef, mean, bonus, tau, theta, out_variant, out_dbl, out_raw, out_final,
                   out_totals):  # fmt: skip
        policies = (card_strat, choice_pol, double_pol, fixed_order, doubling_on)
        models = (mean, bonus, tau, theta, value_tables(coef))
        outs = (out_variant, out_dbl, out_raw, out_final, out_totals)
        work = (
            np.empty(52, np.int64),  # deck
            np.empty(4, np.uint64),  # dealt
            np.empty(N_VARIANTS),  # relv
            np.empty(N_VARIANTS),  # cvals
            np.zeros(4),  # own_ev
            np.zeros(4, np.bool_),  # had_trump
            np.zeros(4, np.int64),  # totals
            np.empty(4, np.int64),  # strat
            np.empty(4, np.int64),  # pol
            np.empty(4, np.int64),  # dpol: pol, less the seats a Domino restriction keeps out
        )
        search = (search_workspace(), np.empty(4), np.empty(4))  # and a double's (est, se)
        return play_game_rows(
            key, game_start, policies, table, models, outs, work, playout_scratch(), search
        )

    @jit(_nrt=False)  # allocates nothing: see _jit.jit
    def play_game_rows(key, game_start, policies, table, models, outs, work, scratch, search):
        card_strat, choice_pol, double_pol, fixed_order, doubling_on = policies
        sw, est, se = search
        mean, bonus, tau, theta, vt = models
        out_variant, out_dbl, out_raw, out_final, out_totals = outs
        deck, dealt, relv, cvals, own_ev, had_trump, totals, strat, pol, dpol = work
        scores, stake = scratch[2], scratch[6]  # stake: directions doubled per seat pair
        restricted = domino_restricted(table)
        chooser_starts = table[0, F_CHOOSER_STARTS] != 0
        for i in range(out_totals.shape[0]):
            g = game_start + i
            d0 = g & 3  # the first dealer rotates across games: no seat is favoured
            neg_free = (1 << N_NEGATIVE) - 1
            trump_free = (1 << N_TRUMP_OPTIONS) - 1
            game_total = 0
            any_advanced = False
            for p in range(4):
                had_trump[p] = False
                totals[p] = 0
                strat[p] = card_strat[i, p]
                pol[p] = double_pol[i, p]
                any_advanced |= strat[p] >= STRAT_ADVANCED  # expert seats search advanced play
            double_search = False
            if can_search:
                for p in range(4):
                    double_search |= (double_pol[i, p] & POLICY_MASK) == DOUBLE_SEARCH
                    # a search plays its samples with the stakes it knows: reset them after
                    any_advanced |= (choice_pol[i, p] & POLICY_MASK) == CHOICE_SEARCH
                any_advanced |= double_search
            for k in range(DEALS_PER_GAME):
                dealer = (d0 + k) & 3
                chooser = (dealer + 2) & 3
                ds = deal_state(key, np.int64(DEALS_PER_GAME) * g + k)
                deal_into(ds, deck, dealt)
                fitted_choice = choice_pol[i, chooser] == CHOICE_FITTED
                free = (neg_free, trump_free, not had_trump[chooser])
                cpol = choice_pol[i, chooser]
                if can_search and (cpol & POLICY_MASK) == CHOICE_SEARCH:
                    options = choice_options(k, dealt[chooser], fixed_order, restricted, free)
                    n = policy_samples(cpol, DEFAULT_CHOICE_SAMPLES)
                    v = search_choice(table, ds, dealt[chooser], dealer, options,
                                      (mean, bonus, tau), (n, policy_later(cpol)), sw, scratch,
                                      relv)  # fmt: skip
                else:
                    v = pick_contract(ds, k, dealt[chooser], fitted_choice, fixed_order,
                                      restricted, free, (mean, tau, vt), relv, cvals)  # fmt: skip
                if v < 0:
                    return ERR_NO_CONTRACT
                if v < N_NEGATIVE:
                    neg_free &= ~(1 << v)
                else:
                    trump_free &= ~(1 << (v - N_NEGATIVE))
                    had_trump[chooser] = True
                out_variant[i, k] = v
                game_total += table[v, F_TOTAL]
                bits = 0
                if doubling_on:
                    deal_models = (mean, bonus, tau, theta, vt, np.float64(table[v, F_TOTAL]),
                                   chooser_starts)  # fmt: skip
                    if can_search and double_search:
                        chooser_model = (True, k, free, fixed_order, restricted, (mean, tau, vt))
                        where = (table, ds, sw, est, se, scratch)
                        bits = searched_doubles(v, dealer, dealt, pol, fitted_choice, restricted,
                                                cvals, deal_models, (own_ev, dpol),
                                                chooser_model, where)  # fmt: skip
                    else:
                        bits = deal_doubles(v, dealer, dealt, pol, fitted_choice, restricted,
                                            cvals, deal_models, (own_ev, dpol))  # fmt: skip
                if any_advanced:  # only advanced play reads the stakes
                    for p in range(4):
                        for q in range(4):
                            stake[p, q] = ((bits >> (4 * p + q)) & 1) + ((bits >> (4 * q + p)) & 1)
                play_dealt(table, v, dealt, ds, dealer, strat, scratch)
                for p in range(4):
                    final = scores[p]
                    if bits:
                        for q in range(4):
                            m = ((bits >> (4 * p + q)) & 1) + ((bits >> (4 * q + p)) & 1)
                            final += m * (scores[p] - scores[q])
                    out_raw[i, k, p] = scores[p]
                    out_final[i, k, p] = final
                    totals[p] += final
                out_dbl[i, k] = bits
            # Settlement moves points between players only, so the game sums to the contracts'
            # own totals: exactly 0 under RULES.md, whatever a house ruleset makes it otherwise.
            if totals[0] + totals[1] + totals[2] + totals[3] != game_total:
                return ERR_NOT_ZERO
            for p in range(4):
                out_totals[i, p] = totals[p]
        return ERR_NONE

    return play_games


_BUILDS = per_level(_make_play_games)


def play_games(
    key,
    game_start,
    card_strat,
    choice_pol,
    double_pol,
    fixed_order,
    doubling_on,
    table,
    coef,
    mean,
    bonus,
    tau,
    theta,
    out_variant,
    out_dbl,
    out_raw,
    out_final,
    out_totals,
):
    """Play games ``game_start + i`` for every row i of the outputs; returns an error code.

    card_strat / choice_pol / double_pol: (n, 4) per game and seat. out_variant (n, 11) int8;
    out_dbl (n, 11) int16 with bit 4·d + t set when seat d doubled seat t; out_raw (n, 11, 4) int16;
    out_final (n, 11, 4) int16; out_totals (n, 4) int32.
    """
    return _BUILDS[tier_level(card_strat)](
        key, game_start, card_strat, choice_pol, double_pol, fixed_order, doubling_on,
        kernel_table(table), coef, mean, bonus, tau, theta, out_variant, out_dbl, out_raw,
        out_final, out_totals,
    )  # fmt: skip
