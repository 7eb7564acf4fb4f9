"""Doubling (RULES.md §5, STRATEGIES.md §5): one pass, thresholds fitted by self-play.

A double of seat t by seat d is a bet on ``s_d − s_t``. Seat d estimates it from its own hand
only: its own expected score from the EV model; the chooser's as the contract's mean plus the
chooser's selection bonus; another non-chooser's as what is left of the contract's total,
shared equally. The policy doubles when the estimate exceeds the variant's fitted θ (θ for
the chooser as target, θ for a non-chooser), doubles back someone who doubled it only above a
stricter threshold θ_back fitted apart on the deals where that happens (one for the chooser,
one for a non-chooser), makes at most two doubles unless every estimate is above its θ_back,
and the chooser only doubles back.
"""

from __future__ import annotations

import numpy as np

from bonken_sim.errors import BadValue
from bonken_sim.models.choice import NAMES, TOTALS, ModelError, Models, holds_ace_or_two
from bonken_sim.models.features import FeatureCache
from bonken_sim.rules.doubling import pass_order


def _relation(seat: int, dealer: int) -> int:
    return (seat - dealer) % 4


def edge_estimates(
    models: Models,
    hands: np.ndarray | list[FeatureCache],
    variant: str,
    dealer: int = 0,
    chooser_bonus: float | None = None,
) -> np.ndarray:
    """est[i, d, t]: seat d's estimate of s_d − s_t on deal i, from d's own hand only.

    ``hands`` is (n, 4) uint64 (seat order) or four FeatureCaches. The EV models are per seat
    relative to the dealer, so any dealer works.
    """
    fcs = hands if isinstance(hands, list) else [FeatureCache(hands[:, p]) for p in range(4)]
    n = len(fcs[0])
    chooser = (dealer + 2) % 4
    if chooser_bonus is None:
        chooser_bonus = float(models.choice.get("selection_bonus", {}).get(variant, 0.0))
    chooser_est = models.mean[variant][2] + chooser_bonus
    total = TOTALS[variant]
    own = np.stack(
        [fcs[p].design(variant) @ models.coef(variant, _relation(p, dealer)) for p in range(4)],
        axis=1,
    )
    est = np.zeros((n, 4, 4))
    for d in range(4):
        for t in range(4):
            if t == d:
                continue
            if t == chooser:
                other = np.full(n, chooser_est)
            elif d == chooser:
                other = (total - own[:, d]) / 3.0  # the chooser knows only his own hand
            else:
                other = (total - own[:, d] - chooser_est) / 2.0
            est[:, d, t] = own[:, d] - other
    return est


THRESHOLD_KEYS = ("theta_chooser", "theta_other", "theta_back_chooser", "theta_back_other")


def threshold_value(entry: dict, key: str) -> float:
    """A fitted threshold of a model entry; ∞ for null (doubling that way never paid)."""
    return np.inf if entry[key] is None else float(entry[key])


def thresholds(models: Models, variant: str) -> tuple[float, float, float, float]:
    """(θ against the chooser, θ against a non-chooser, θ_back of the chooser, θ_back of a
    non-chooser) for ``variant``; ∞ where the fit found that such doubles never paid."""
    entry = models.doubling.get(variant)
    if not entry:
        raise ModelError(f"the models have no doubling thresholds for {variant}")
    missing = [k for k in THRESHOLD_KEYS if k not in entry]
    if missing:
        raise ModelError(
            f"the models have no {', '.join(missing)} for {variant} (refit them: make fit)"
        )

    th_c, th_o, back_c, back_o = (threshold_value(entry, k) for k in THRESHOLD_KEYS)
    return th_c, th_o, back_c, back_o


def doubles_from_estimates(
    est: np.ndarray,
    theta: tuple[float, float, float, float],
    dealer: int = 0,
    chooser_starts: bool = False,
):
    """The policy's one pass: doubled[i, d, t] = seat d doubled seat t on deal i.

    ``theta`` as ``thresholds`` gives it. ``chooser_starts`` (the house rule): the chooser may
    start doubles, under the same rules as the others, instead of only doubling back
    (RULES.md §5)."""
    n = est.shape[0]
    chooser = (dealer + 2) % 4
    doubled = np.zeros((n, 4, 4), dtype=bool)
    for d in pass_order(dealer):
        targets = [t for t in range(4) if t != d]
        th = np.array([theta[0] if t == chooser else theta[1] for t in targets])
        th_back = theta[2] if d == chooser else theta[3]
        e = est[:, d, targets]
        back = doubled[:, targets, d]  # the target doubled d earlier in the pass
        need = np.where(back, th_back, th)
        ok = e > need
        if d == chooser and not chooser_starts:
            ok &= back
        else:
            # At most two doubles, unless every estimate clears θ_back ("zaal" only when
            # strong: the others may gang up on a seat that doubled everyone).
            zaal = (e > th_back).all(axis=1)
            three = ok.all(axis=1) & ~zaal
            weakest = np.argmin(e - need, axis=1)
            ok[three, weakest[three]] = False
        doubled[:, d, targets] = ok
    return doubled


def barred_seats(hands: np.ndarray, variant: str, domino_ace_or_two: bool = False) -> np.ndarray:
    """(n, 4) bool: the seats the house rule domino_ace_or_two keeps from doubling (in
    domino, a seat without an ace or a 2); ``hands`` is (n, 4) uint64."""
    h = np.asarray(hands, dtype=np.uint64)
    if not domino_ace_or_two or variant != "domino":
        return np.zeros(h.shape, dtype=bool)
    return ~holds_ace_or_two(h)


def doubles(
    models: Models,
    hands,
    variant: str,
    dealer: int = 0,
    barred: np.ndarray | None = None,
    chooser_starts: bool = False,
) -> np.ndarray:
    """(n, 4, 4) bool: who doubles whom under the fitted policy, for ``variant`` on each deal.
    ``barred`` (n, 4) bool: seats that may not double (others may still double them);
    ``chooser_starts``: the house rule that lets the chooser start doubles."""
    if variant not in NAMES:
        raise BadValue(f"unknown contract variant {variant!r}")
    est = edge_estimates(models, hands, variant, dealer)
    if barred is not None:
        est[np.asarray(barred, dtype=bool)] = -np.inf
    return doubles_from_estimates(est, thresholds(models, variant), dealer, chooser_starts)
