"""Full 11-deal games (RULES.md §5–§6): contract choice, one doubling pass, play, settlement.

Everything per deal happens here, in the core: no Python per deal. The choice and doubling
models arrive as dense arrays (``bonken_sim.games.model_arrays``): a coefficient row per
(variant, seat relative to the dealer) over ``FULL_FEATURES``, so one dot product gives a
seat's expected score. The numpy versions in ``bonken_sim.choice`` / ``bonken_sim.doubling``
are the specification; tests check that both decide the same on the same hands.

Deal ``k`` of game ``g`` is deal ``11·g + k`` of the seed (docs/ENGINE.md), so games are
reproducible for any thread count or chunking.
"""

import numpy as np

from ._jit import jit, popcnt
from .cards import U1
from .deal import deal_into
from .playout_advanced import play_staked
from .rng import GOLDEN, deal_state, mix64, play_state, scale_draw
from .ruleset import DOMINO, F_CHOOSER_STARTS, F_DOMINO_NEEDS, F_KIND, F_TOTAL, KIND_DOMINO

DEALS_PER_GAME = 11
N_NEG = 7  # variant ids 0..6 are the negative contracts, 7..11 troeven C, D, H, S, NT
# Base features then trump features, in the order of bonken_sim.model_features.
N_BASE = 18
N_TRUMP_F = 6
N_FULL = 1 + N_BASE + N_TRUMP_F  # with the constant first
# A seat's feature buffer: the N_FULL model features (trump part zero), then the trump part
# for each of the four suits, computed once per hand rather than once per variant.
N_BUF = N_FULL + 4 * N_TRUMP_F

CHOICE_RANDOM = 0
CHOICE_FITTED = 1
DOUBLE_NEVER = 0
DOUBLE_FITTED = 1

# Game errors (the Python side raises on any).
ERR_NONE = 0
ERR_NOT_ZERO = 1  # settled totals do not sum to the raw total (0 under RULES.md)
ERR_NO_CONTRACT = 2  # no legal contract for a chooser (cannot happen under RULES.md §6)

_CHOICE_SALT = np.uint64(0xC401CE)
_S32 = np.uint64(32)
_SUIT = np.uint64(0x1FFF)
_ACES_TWOS = np.uint64(sum(1 << (13 * s + r) for s in range(4) for r in (0, 12)))

# Every kernel here but play_games allocates nothing, so it runs without numba's reference
# counting (_nrt=False, see _jit.jit): the per-deal calls pass many arrays.


@jit(_nrt=False)
def domino_restricted(table):
    """Does the ruleset let only a seat holding an ace or a 2 choose or double Domino?"""
    return table[DOMINO, F_KIND] == KIND_DOMINO and table[DOMINO, F_DOMINO_NEEDS] != 0


@jit(_nrt=False)
def without_domino(mask, hand, may_trump, trump_free):
    """The negatives a chooser holding ``hand`` may choose when Domino needs an ace or a 2:
    without Domino unless he holds one, or unless nothing else is open to him."""
    if (mask >> DOMINO) & 1 == 0 or (hand & _ACES_TWOS) != 0:
        return mask
    rest = mask & ~(1 << DOMINO)
    if rest != 0 or (may_trump and trump_free != 0):
        return rest
    return mask


@jit(_nrt=False)
def _field(h, s):
    return (h >> np.uint64(13 * s)) & _SUIT


@jit(_nrt=False)
def _bit(f, r):
    return np.int64((f >> np.uint64(r)) & U1)


@jit(_nrt=False)
def _unguarded(f0, f1, f2, f3, r):
    low = (U1 << np.uint64(r)) - U1
    n = 0
    for f in (f0, f1, f2, f3):
        if _bit(f, r) == 1 and popcnt(f & low) <= 1:
            n += 1
    return n


@jit(_nrt=False)
def hand_features(h, out):
    """``out[0..N_FULL)``: 1, the base features, and zeros for the trump part."""
    f0 = _field(h, 0)
    f1 = _field(h, 1)
    f2 = _field(h, 2)
    f3 = _field(h, 3)
    lens = (
        np.int64(popcnt(f0)),
        np.int64(popcnt(f1)),
        np.int64(popcnt(f2)),
        np.int64(popcnt(f3)),
    )
    aces = _bit(f0, 12) + _bit(f1, 12) + _bit(f2, 12) + _bit(f3, 12)
    kings = _bit(f0, 11) + _bit(f1, 11) + _bit(f2, 11) + _bit(f3, 11)
    queens = _bit(f0, 10) + _bit(f1, 10) + _bit(f2, 10) + _bit(f3, 10)
    jacks = _bit(f0, 9) + _bit(f1, 9) + _bit(f2, 9) + _bit(f3, 9)
    tens = _bit(f0, 8) + _bit(f1, 8) + _bit(f2, 8) + _bit(f3, 8)
    twos = _bit(f0, 0) + _bit(f1, 0) + _bit(f2, 0) + _bit(f3, 0)
    eights = _bit(f0, 6) + _bit(f1, 6) + _bit(f2, 6) + _bit(f3, 6)
    lowm = np.uint64(0xF)
    low = (
        np.int64(popcnt(f0 & lowm))
        + np.int64(popcnt(f1 & lowm))
        + np.int64(popcnt(f2 & lowm))
        + np.int64(popcnt(f3 & lowm))
    )
    voids = 0
    singles = 0
    longest = 0
    for n in lens:
        voids += n == 0
        singles += n == 1
        longest = max(longest, n)
    out[0] = 1.0
    out[1] = aces
    out[2] = kings
    out[3] = queens
    out[4] = jacks
    out[5] = tens
    out[6] = low
    out[7] = twos
    out[8] = eights
    out[9] = voids
    out[10] = singles
    out[11] = longest
    out[12] = lens[2]
    out[13] = np.int64(popcnt(f2 & np.uint64(0x1F00)))  # hearts T and up
    out[14] = _bit(f2, 11)
    out[15] = _bit(f2, 12)
    out[16] = _unguarded(f0, f1, f2, f3, 11)
    out[17] = _unguarded(f0, f1, f2, f3, 10)
    out[18] = _unguarded(f0, f1, f2, f3, 9)
    for j in range(1 + N_BASE, N_FULL):
        out[j] = 0.0


@jit(_nrt=False)
def trump_part(h, t, out, off=1 + N_BASE):
    """Write the trump features of hand ``h`` for trump suit ``t`` (0-3; -1: no-trump, all
    zero) to ``out[off : off + N_TRUMP_F]``."""
    if t < 0:
        for j in range(N_TRUMP_F):
            out[off + j] = 0.0
        return
    ft = _field(h, t)
    out[off] = np.int64(popcnt(ft))
    out[off + 1] = np.int64(popcnt(ft & np.uint64(0x1E00)))  # J, Q, K, A
    sa = 0
    sk = 0
    sv = 0
    ss = 0
    for s in range(4):
        if s == t:
            continue
        f = _field(h, s)
        n = np.int64(popcnt(f))
        sa += _bit(f, 12)
        sk += _bit(f, 11)
        sv += n == 0
        ss += n == 1
    out[off + 2] = sa
    out[off + 3] = sk
    out[off + 4] = sv
    out[off + 5] = ss


@jit(_nrt=False)
def seat_features(h, out):
    """Fill a seat's buffer (N_BUF): the model features and the trump part of every suit
    (as ``trump_part`` writes it). A suit's side-suit counts are the hand's totals less that
    suit's own, a few subtractions instead of a pass over the other suits per trump."""
    hand_features(h, out)
    for t in range(4):
        ft = _field(h, t)
        n = np.int64(popcnt(ft))
        off = N_FULL + N_TRUMP_F * t
        out[off] = n
        out[off + 1] = np.int64(popcnt(ft & np.uint64(0x1E00)))  # J, Q, K, A
        out[off + 2] = out[1] - _bit(ft, 12)  # aces in the side suits
        out[off + 3] = out[2] - _bit(ft, 11)  # kings
        out[off + 4] = out[9] - (n == 0)  # voids
        out[off + 5] = out[10] - (n == 1)  # singletons


@jit(_nrt=False)
def value_of(fb, v, rel, coef):
    """Expected score in variant ``v`` of a seat at relation ``rel`` to the dealer, from its
    buffer ``fb`` (``seat_features``)."""
    acc = 0.0
    for j in range(1 + N_BASE):
        acc += coef[v, rel, j] * fb[j]
    if v >= N_NEG and v < 11:  # a suit trump: its block of trump features
        off = N_FULL + N_TRUMP_F * (v - N_NEG)
        for j in range(N_TRUMP_F):
            acc += coef[v, rel, 1 + N_BASE + j] * fb[off + j]
    return acc


@jit(_nrt=False)
def relative_values(fb, rel, coef, mean, relv):
    """relv[v] = expected score in v minus the mean score of v at relation ``rel``."""
    for v in range(12):
        relv[v] = value_of(fb, v, rel, coef) - mean[v, rel]


@jit(_nrt=False)
def choose_fitted(relv, neg_free, trump_free, may_trump, must_trump, turns_left, tau):
    """The relative-value choice (bonken_sim.choice.choose); -1 if nothing is legal."""
    best_n = -1
    best_t = -1
    if not must_trump:
        for v in range(N_NEG):
            if (neg_free >> v) & 1 and (best_n < 0 or relv[v] > relv[best_n]):
                best_n = v
    if may_trump:
        for v in range(N_NEG, 12):
            if (trump_free >> (v - N_NEG)) & 1 and (best_t < 0 or relv[v] > relv[best_t]):
                best_t = v
    if best_n < 0:
        return best_t
    if best_t < 0:
        return best_n
    if turns_left <= 1:
        return best_t
    k = min(turns_left, tau.shape[0] - 1)
    return best_t if relv[best_t] - relv[best_n] > tau[k] else best_n


@jit(_nrt=False)
def choose_random(s, neg_free, trump_free, may_trump, must_trump):
    """Uniform over the legal contracts (troeven counts once), then a uniform trump option."""
    n_neg = 0
    if not must_trump:
        for v in range(N_NEG):
            n_neg += (neg_free >> v) & 1
    n_trump = 0
    if may_trump:
        for v in range(5):
            n_trump += (trump_free >> v) & 1
    n = n_neg + (1 if n_trump > 0 else 0)
    if n == 0:
        return -1, s
    s = s + GOLDEN
    x = mix64(s)
    k = scale_draw(x >> _S32, n)
    if k < n_neg:
        for v in range(N_NEG):
            if (neg_free >> v) & 1:
                if k == 0:
                    return v, s
                k -= 1
    k = scale_draw(x & np.uint64(0xFFFFFFFF), n_trump)
    for v in range(5):
        if (trump_free >> v) & 1:
            if k == 0:
                return N_NEG + v, s
            k -= 1
    return -1, s


@jit(_nrt=False)
def doubling_pass(
    v, dealer, pol, own_ev, mean, bonus, theta, total, doubled, est, need, ok, chooser_starts
):
    """One pass in the order D+3, D, D+1, chooser (bonken_sim.doubling.doubles_from_estimates).

    ``own_ev[p]`` is seat p's own expected score in ``v``; ``doubled[d, t]`` is filled in;
    ``est``, ``need``, ``ok`` are scratch arrays of 4. ``chooser_starts`` (a house rule):
    the chooser may start doubles like anyone else, not only double back.
    """
    chooser = (dealer + 2) & 3
    chooser_est = mean[v, 2] + bonus[v]
    for d in range(4):
        for t in range(4):
            doubled[d, t] = 0
    for step in (3, 0, 1, 2):
        d = (dealer + step) & 3
        if pol[d] == DOUBLE_NEVER:
            continue
        own = own_ev[d]
        n_ok = 0
        all_zaal = True
        for t in range(4):
            ok[t] = False
            if t == d:
                continue
            if t == chooser:
                other = chooser_est
                th = theta[v, 0]
            elif d == chooser:
                other = (total - own) / 3.0
                th = theta[v, 1]
            else:
                other = (total - own - chooser_est) / 2.0
                th = theta[v, 1]
            est[t] = own - other
            back = doubled[t, d] != 0
            need[t] = 2.0 * th if back else th
            ok[t] = est[t] > need[t]
            if d == chooser and not back and not chooser_starts:
                ok[t] = False
            if not est[t] > 2.0 * th:
                all_zaal = False
            n_ok += ok[t]
        if (d != chooser or chooser_starts) and n_ok == 3 and not all_zaal:
            weakest = -1
            margin = np.inf
            for t in range(4):
                if t != d and est[t] - need[t] < margin:
                    margin = est[t] - need[t]
                    weakest = t
            ok[weakest] = False
        for t in range(4):
            if t != d and ok[t]:
                doubled[d, t] = 1


@jit
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
    return _play_game_rows(
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
        np.empty(52, np.int64),  # deck
        np.empty(4, np.uint64),  # dealt
        np.empty(4, np.uint64),  # hands
        np.empty(4, np.int64),  # scores
        np.empty(4, np.int64),  # tricks
        np.empty(4, np.int64),  # order
        np.empty(0, np.int64),  # no_trace
        np.empty(52, np.uint64),  # rnd
        np.empty((4, N_BUF)),  # fbuf
        np.empty(12),  # relv
        np.zeros(4),  # own_ev
        np.empty(4),  # est
        np.empty(4),  # need
        np.zeros(4, np.bool_),  # ok
        np.zeros((4, 4), np.int64),  # doubled
        np.zeros((4, 4), np.int64),  # stake: directions doubled per seat pair: what play weighs
        np.zeros(4, np.bool_),  # had_trump
        np.zeros(4, np.int64),  # totals
        np.empty(4, np.int64),  # strat
        np.empty(4, np.int64),  # pol
        np.empty(4, np.int64),  # dpol: pol, less the seats a Domino restriction keeps out
    )


@jit(_nrt=False)  # allocates nothing: see _jit.jit
def _play_game_rows(
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
    deck,
    dealt,
    hands,
    scores,
    tricks,
    order,
    no_trace,
    rnd,
    fbuf,
    relv,
    own_ev,
    est,
    need,
    ok,
    doubled,
    stake,
    had_trump,
    totals,
    strat,
    pol,
    dpol,
):
    n = out_totals.shape[0]
    restricted = domino_restricted(table)
    chooser_starts = table[0, F_CHOOSER_STARTS] != 0
    for i in range(n):
        g = game_start + i
        d0 = g & 3  # the first dealer rotates across games: no seat is favoured
        neg_free = (1 << N_NEG) - 1
        trump_free = 31
        game_total = 0
        for p in range(4):
            had_trump[p] = False
            totals[p] = 0
            strat[p] = card_strat[i, p]
            pol[p] = double_pol[i, p]
        for k in range(DEALS_PER_GAME):
            dealer = (d0 + k) & 3
            chooser = (dealer + 2) & 3
            ds = deal_state(key, np.int64(DEALS_PER_GAME) * g + k)
            deal_into(ds, deck, dealt)
            turns_left = 0
            for j in range(k, DEALS_PER_GAME):
                if ((d0 + j + 2) & 3) == chooser:
                    turns_left += 1
            fitted_choice = choice_pol[i, chooser] == CHOICE_FITTED
            for p in range(4):  # features only for the seats whose policy reads them
                if (doubling_on and pol[p] == DOUBLE_FITTED) or (p == chooser and fitted_choice):
                    seat_features(dealt[p], fbuf[p])
            if fixed_order:
                if k < N_NEG:
                    may_trump = False
                    must_trump = False
                    mask = 1 << k
                else:
                    may_trump = True
                    must_trump = True
                    mask = 0
            else:
                mask = neg_free
                may_trump = not had_trump[chooser]
                must_trump = may_trump and turns_left == 1
            if restricted and not must_trump:
                mask = without_domino(mask, dealt[chooser], may_trump, trump_free)
            if fitted_choice:
                relative_values(fbuf[chooser], 2, coef, mean, relv)
                v = choose_fitted(relv, mask, trump_free, may_trump, must_trump, turns_left, tau)
            else:
                cs = mix64(ds ^ _CHOICE_SALT)
                v, cs = choose_random(cs, mask, trump_free, may_trump, must_trump)
            if v < 0:
                return ERR_NO_CONTRACT
            if v < N_NEG:
                neg_free &= ~(1 << v)
            else:
                trump_free &= ~(1 << (v - N_NEG))
                had_trump[chooser] = True
            out_variant[i, k] = v
            total = np.float64(table[v, F_TOTAL])
            game_total += table[v, F_TOTAL]
            for p in range(4):
                for q in range(4):
                    doubled[p, q] = 0
            if doubling_on:
                for p in range(4):
                    dpol[p] = pol[p]
                    if restricted and v == DOMINO and (dealt[p] & _ACES_TWOS) == 0:
                        dpol[p] = DOUBLE_NEVER
                    if dpol[p] == DOUBLE_FITTED:
                        own_ev[p] = value_of(fbuf[p], v, (p - dealer) & 3, coef)
                doubling_pass(
                    v,
                    dealer,
                    dpol,
                    own_ev,
                    mean,
                    bonus,
                    theta,
                    total,
                    doubled,
                    est,
                    need,
                    ok,
                    chooser_starts,
                )
            for p in range(4):
                hands[p] = dealt[p]
                for q in range(4):
                    stake[p, q] = doubled[p, q] + doubled[q, p]
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
                final = scores[p]
                for q in range(4):
                    m = doubled[p, q] + doubled[q, p]
                    final += m * (scores[p] - scores[q])
                out_raw[i, k, p] = scores[p]
                out_final[i, k, p] = final
                totals[p] += final
            bits = 0
            for a in range(4):
                for b in range(4):
                    if doubled[a, b]:
                        bits |= 1 << (4 * a + b)
            out_dbl[i, k] = bits
        # Settlement moves points between players only, so the game sums to the contracts'
        # own totals: exactly 0 under RULES.md, whatever a house ruleset makes it otherwise.
        if totals[0] + totals[1] + totals[2] + totals[3] != game_total:
            return ERR_NOT_ZERO
        for p in range(4):
            out_totals[i, p] = totals[p]
    return ERR_NONE
