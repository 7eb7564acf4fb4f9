"""Fit the contract-choice and doubling models by self-play (STRATEGIES.md §4–§5).

``fit_models`` plays deals in every variant with the given card-play strategies and fits:

* ``ev``: for every variant and seat (relative to the dealer), an ordinary least-squares
  model of the seat's raw score on its own hand's features (``model_features``);
* ``mean``: every variant's mean score per seat (μ_c), the yardstick of relative value;
* ``choice``: the chooser's selection bonus per variant and the trump-call thresholds τ_k
  (backward induction on the fitted relative values);
* ``doubling``: per variant, the thresholds θ above which doubling the chooser / another
  player pays most per opportunity, fitted on the deals where the chooser's policy picks
  that variant.

The result is a JSON-able dict; ``scripts/fit_models.py`` (``make fit``) writes it to
``bonken_sim/data/models.json`` with the command, seed and deal count that produced it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from . import __version__
from ._core._jit import cache_dir
from .model_features import VARIANT_FEATURES, FeatureCache
from .rules import VARIANTS
from .selfplay import self_play

NAMES = [v.name for v in VARIANTS]
NEGATIVE_IDS = [i for i, n in enumerate(NAMES) if not n.startswith("troeven")]
TROEVEN_IDS = [i for i, n in enumerate(NAMES) if n.startswith("troeven")]
CHOOSER = 2  # seat of the chooser when the dealer is seat 0
THETA_GRID = np.arange(0.0, 80.5, 0.5)
MIN_SELECTED = 2000  # fewer selected deals than this: fit θ on all deals of the variant


def ols(x: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """Least squares of y on x (x has its constant column); coefficients and fit quality."""
    coef, *_ = np.linalg.lstsq(x, y, rcond=None)
    resid = y - x @ coef
    sst = float(((y - y.mean()) ** 2).sum())
    return {
        "coef": [round(float(c), 4) for c in coef],
        "r2": round(1.0 - float((resid**2).sum()) / sst, 4) if sst > 0 else 0.0,
        "sd": round(float(y.std()), 3),
        "sd_resid": round(float(resid.std()), 3),
        "n": int(len(y)),
    }


def fit_ev(hands: np.ndarray, scores: np.ndarray) -> tuple[dict, dict]:
    """Per-variant, per-seat EV models and mean scores from self-play arrays."""
    ev: dict[str, dict[str, Any]] = {}
    mean: dict[str, list[float]] = {}
    caches = [FeatureCache(hands[:, p]) for p in range(4)]
    for v, name in enumerate(NAMES):
        ev[name] = {}
        mean[name] = [round(float(scores[:, v, p].mean()), 4) for p in range(4)]
        for p in range(4):
            ev[name][f"seat_{p}"] = ols(caches[p].design(name), scores[:, v, p].astype(np.float64))
    return ev, mean


def trump_thresholds(t_rel: np.ndarray, n_rel: np.ndarray, max_turns: int = 3) -> dict[str, float]:
    """τ_k: call troeven with k chooser turns left iff T − N > τ_k (STRATEGIES.md §4).

    T and N are the best relative values of a troeven option and of a negative on one hand.
    Taking troeven now leaves negatives for the k − 1 later turns (worth E[N] each, ignoring
    that the set of negatives shrinks); taking a negative keeps the call for later:
    V_1 = E[T],  V_k = E[max(T + (k−1)·E[N], N + V_{k−1})],  τ_k = V_{k−1} − (k−1)·E[N].
    """
    en = float(n_rel.mean())
    v = float(t_rel.mean())
    tau: dict[str, float] = {}
    for k in range(2, max_turns + 1):
        tau[str(k)] = round(v - (k - 1) * en, 3)
        v = float(np.maximum(t_rel + (k - 1) * en, n_rel + v).mean())
    return tau


def fit_doubling(hands, scores, ev, mean, bonus, chosen) -> dict[str, dict[str, Any]]:
    """θ per variant for doubling the chooser and for doubling another non-chooser.

    The objective is the realised gain s_d − s_t summed over the doubles a threshold makes,
    per opportunity (one-sided: targets do not double back), over the deals where the chooser's
    policy picks the variant (all deals when too few are picked).
    """
    from .choice import Models
    from .doubling import edge_estimates

    models = Models({"ev": ev, "mean": mean})
    fc = [FeatureCache(hands[:, p]) for p in range(4)]
    out: dict[str, dict[str, Any]] = {}
    for v, name in enumerate(NAMES):
        sel = chosen == v
        selected = int(sel.sum()) >= MIN_SELECTED
        idx = np.nonzero(sel)[0] if selected else np.arange(len(hands))
        fcs = [FeatureCache(hands[idx, p]) for p in range(4)] if selected else fc
        est = edge_estimates(models, fcs, name, chooser_bonus=bonus[name])
        s = scores[idx, v, :].astype(np.float64)
        entry: dict[str, Any] = {"fitted_on": "chosen" if selected else "all", "n": int(len(idx))}
        for kind, pairs in (
            ("chooser", [(d, CHOOSER) for d in range(4) if d != CHOOSER]),
            ("other", [(d, t) for d in range(4) for t in range(4) if CHOOSER != d != t != CHOOSER]),
        ):
            e = np.concatenate([est[:, d, t] for d, t in pairs])
            g = np.concatenate([s[:, d] - s[:, t] for d, t in pairs])
            per_opp = np.array([(g * (e > th)).mean() for th in THETA_GRID])
            best = int(np.argmax(per_opp))
            # When no threshold gains on average, the policy never doubles (θ = null).
            theta = float(THETA_GRID[best]) if per_opp[best] > 0 else np.inf
            made = e > theta
            entry[f"theta_{kind}"] = theta if np.isfinite(theta) else None
            entry[f"gain_per_opportunity_{kind}"] = round(float(max(per_opp[best], 0.0)), 3)
            entry[f"double_rate_{kind}"] = round(float(made.mean()), 4)
            entry[f"gain_per_double_{kind}"] = (
                round(float(g[made].mean()), 3) if made.any() else None
            )
            entry[f"corr_{kind}"] = round(float(np.corrcoef(e, g)[0, 1]), 3)
        out[name] = entry
    return out


def fit_models(
    deals: int, seed: int, strategies: str = "basic", threads: int | None = None
) -> dict[str, Any]:
    """Play ``deals`` deals of ``seed`` with ``strategies`` and fit every model on them."""
    from .choice import Models, relative_values

    t0 = time.perf_counter()
    sp = self_play(deals, seed, strategies, threads)
    t_play = time.perf_counter() - t0
    ev, mean = fit_ev(sp.hands, sp.scores)
    draft = Models({"ev": ev, "mean": mean, "choice": {}, "doubling": {}})
    rel = relative_values(draft, sp.hands[:, CHOOSER], CHOOSER)
    chosen = np.argmax(rel, axis=1)
    bonus = {}
    share = {}
    for v, name in enumerate(NAMES):
        sel = chosen == v
        share[name] = round(float(sel.mean()), 4)
        got = sp.scores[sel, v, CHOOSER].astype(np.float64)
        bonus[name] = round(float(got.mean() - mean[name][CHOOSER]), 3) if sel.any() else 0.0
    t_best = rel[:, TROEVEN_IDS].max(axis=1)
    n_best = rel[:, NEGATIVE_IDS].max(axis=1)
    choice = {
        "selection_bonus": bonus,
        "chosen_share": share,
        "tau": trump_thresholds(t_best, n_best),
        "mean_best_troeven": round(float(t_best.mean()), 3),
        "mean_best_negative": round(float(n_best.mean()), 3),
    }
    doubling = fit_doubling(sp.hands, sp.scores, ev, mean, bonus, chosen)
    return {
        "format": "bonken-sim-models",
        "version": 1,
        "provenance": {
            "seed": seed,
            "deals": deals,
            "strategies": strategies,
            "dealer": 0,
            "bonken_sim": __version__,
            "engine": cache_dir().name,
            "play_seconds": round(t_play, 2),
            "fit_seconds": round(time.perf_counter() - t0 - t_play, 2),
        },
        "features": {k: list(v) for k, v in VARIANT_FEATURES.items()},
        "ev": ev,
        "mean": mean,
        "choice": choice,
        "doubling": doubling,
    }
