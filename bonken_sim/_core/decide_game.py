"""A game's contract choice and one seat's doubling from that seat's view, with the game
kernel's own functions (``game.pick_contract``, ``game.doubling_step``, and the searches of
``game_search``), so ``decide`` chooses and doubles exactly as ``play_games`` does in that
position."""

import numpy as np

from ._jit import jit
from .game import (
    SEARCHES,
    choice_options,
    contract_options,
    doubling_step,
    pick_contract,
    without_domino,
)
from .game_search import (
    DEFAULT_CHOICE_SAMPLES,
    DEFAULT_DOUBLE_SAMPLES,
    policy_later,
    policy_samples,
    policy_z,
    search_workspace,
)
from .ids import N_NEGATIVE
from .playout import LEVEL_ADVANCED, playout_scratch
from .seat_value import seat_value, seat_values

# The game kernel's searches of the advanced level: a search's rollouts have four advanced
# seats, which every build at or above the advanced level plays alike.
_search_choice, _search_doubles = SEARCHES[LEVEL_ADVANCED]


@jit
def decide_choice(ds, k, hand, fitted, fixed_order, restricted, free, mean, tau, vt, relv, cvals):
    """The contract the chooser of deal ``k`` holding ``hand`` picks (a variant id), and the
    contracts open to him (bit v: variant v). ``free``: (negatives still open, trump
    options still open, may he still choose troeven); ``fitted``: the fitted choice, else a
    uniform one drawn with the state ``ds``. A fitted choice leaves his expected score per
    variant in ``cvals`` and its value relative to the variant's mean in ``relv``."""
    neg_free, trump_free, may_trump_now = free
    turns_left = (10 - k) // 4 + 1  # as pick_contract counts them (11 deals a game)
    mask, may_trump, must_trump = contract_options(
        fixed_order, k, neg_free, may_trump_now, turns_left
    )
    if restricted and not must_trump:
        mask = without_domino(mask, hand, may_trump, trump_free)
    legal = 0 if must_trump else mask
    if may_trump:
        legal |= trump_free << N_NEGATIVE
    v = pick_contract(ds, k, hand, fitted, fixed_order, restricted, free, (mean, tau, vt), relv,
                      cvals)  # fmt: skip
    return v, legal


@jit
def decide_doubles(v, dealer, d, hand, bits, chooser_fitted, models, cvals):
    """The seats seat ``d`` holding ``hand`` doubles in variant ``v`` (bit t: it doubles t)
    after the doubles ``bits`` said before it (bit 4·a + b: a doubled b), and its own
    expected score. ``chooser_fitted``: the chooser weighs his hand as his fitted choice did
    (``play_games`` reuses that value). ``models``: (mean, bonus, theta, value tables, the
    variant's total, may the chooser start doubles)."""
    mean, bonus, theta, vt, total, chooser_starts = models
    if d == (dealer + 2) & 3 and chooser_fitted:
        seat_values(hand, 2, vt, cvals)
        own = cvals[v]
    else:
        own = seat_value(hand, v, (d - dealer) & 3, vt)
    ok = doubling_step(d, v, dealer, own, bits, mean, bonus, theta, total, chooser_starts)
    return ok, own


@jit
def decide_choice_search(table, ds, k, hand, dealer, rules, free, models, code, relv, stats):
    """The contract the chooser holding ``hand`` picks by search with the policy ``code``
    on samples of the stream ``ds`` (``game_search.search_choice``). ``rules``: (fixed
    order, Domino restricted); ``models``: (mean, bonus, tau). Leaves per variant the
    searched relative value in ``relv`` and the mean score and its standard error in
    ``stats[0]`` / ``stats[1]`` (NaN where not legal)."""
    fixed_order, restricted = rules
    options = choice_options(k, hand, fixed_order, restricted, free)
    sw = search_workspace()
    n = policy_samples(code, DEFAULT_CHOICE_SAMPLES)
    v = _search_choice(table, ds, hand, dealer, options, models, (n, policy_later(code)), sw,
                       playout_scratch(), relv)  # fmt: skip
    acc = sw[3]
    for u in range(relv.shape[0]):
        stats[0, u] = np.nan
        stats[1, u] = np.nan
        if relv[u] > -np.inf:
            m = acc[0, u] / n
            var = (acc[1, u] - acc[0, u] * m) / (n - 1) if n > 1 else 0.0
            stats[0, u] = m
            stats[1, u] = np.sqrt(max(var, 0.0) / n)
    return v


@jit
def decide_doubles_search(table, ds, v, d, dealer, hand, bits, rules, chooser_model, code, est,
                          se):  # fmt: skip
    """The seats seat ``d`` holding ``hand`` doubles by search with the policy ``code`` in
    variant ``v`` after the doubles ``bits`` (``game_search.search_doubles``, on samples
    of the stream ``ds``); its searched edges over each seat and their standard errors in
    ``est`` / ``se``."""
    search = (policy_samples(code, DEFAULT_DOUBLE_SAMPLES), policy_z(code))
    return _search_doubles(table, ds, v, d, dealer, hand, bits, rules, chooser_model, search,
                           search_workspace(), playout_scratch(), est, se)  # fmt: skip
