"""A game's contract choice and one seat's doubling from that seat's view, with the game
kernel's own functions (``game.pick_contract``, ``game.doubling_step``), so ``decide``
chooses and doubles exactly as ``play_games`` does in that position."""

from ._jit import jit
from .game import contract_options, doubling_step, pick_contract, without_domino
from .ids import N_NEGATIVE
from .seat_value import seat_value, seat_values


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
