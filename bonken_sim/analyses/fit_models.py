"""Fit the contract-choice and doubling models by self-play (STRATEGIES.md §4–§5): an analysis
of the engine's play, so that models/ itself reads the fitted models and imports no engine.

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
``bonken_sim/models/data/models.json`` with the command, seed and deal count that produced it.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from bonken_sim.engine.provenance import versions
from bonken_sim.engine.selfplay import self_play
from bonken_sim.models.features import VARIANT_FEATURES, FeatureCache
from bonken_sim.rules.names import VARIANTS

NAMES = [v.name for v in VARIANTS]
NEGATIVE_IDS = [i for i, n in enumerate(NAMES) if not n.startswith("troeven")]
TROEVEN_IDS = [i for i, n in enumerate(NAMES) if n.startswith("troeven")]
CHOOSER = 2  # seat of the chooser when the dealer is seat 0
THETA_GRID = np.arange(0.0, 80.5, 0.5)
MIN_SELECTED = 2000  # fewer selected deals than this: fit θ on all deals of the variant
MIN_BACK_OPPORTUNITIES = 1000  # the same for θ_back: fewer chances to double back than this


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
    from bonken_sim.models.choice import Models
    from bonken_sim.models.doubling import edge_estimates

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
            theta, gain = best_threshold(e, g, THETA_GRID)
            made = e > theta
            entry[f"theta_{kind}"] = theta if np.isfinite(theta) else None
            entry[f"gain_per_opportunity_{kind}"] = round(gain, 3)
            entry[f"double_rate_{kind}"] = round(float(made.mean()), 4)
            entry[f"gain_per_double_{kind}"] = (
                round(float(g[made].mean()), 3) if made.any() else None
            )
            entry[f"corr_{kind}"] = round(float(np.corrcoef(e, g)[0, 1]), 3)
        back = fit_double_back(est, s, entry)
        on_all = None
        for kind in BACK_PAIRS:
            # Too few opportunities among the chosen deals (a doubled troeven chooser is
            # rare): fit that θ_back on all deals, as θ is for a variant seldom chosen.
            if selected and back[kind]["back_opportunities"] < MIN_BACK_OPPORTUNITIES:
                if on_all is None:  # both kinds come from one fit on all deals
                    est_all = edge_estimates(models, fc, name, chooser_bonus=bonus[name])
                    on_all = fit_double_back(est_all, scores[:, v, :].astype(np.float64), entry)
                back[kind] = {**on_all[kind], "back_fitted_on": "all"}
            for key, value in back[kind].items():
                entry[f"{key}_{kind}"] = value
        out[name] = entry
    return out


def best_threshold(e: np.ndarray, g: np.ndarray, grid: np.ndarray) -> tuple[float, float]:
    """The threshold of ``grid`` whose doubles (estimate ``e`` above it) gain most per
    opportunity in realised ``g``, and that gain; (∞, 0.0) when none gains on average: the
    policy then never makes that double (θ = null)."""
    per_opp = np.array([(g * (e > th)).mean() for th in grid])
    best = int(np.argmax(per_opp))
    if per_opp[best] > 0:
        return float(grid[best]), float(per_opp[best])
    return np.inf, 0.0


# Doubling back: seat d may double back a seat t that doubled it earlier in the pass (the
# chooser, last in the pass, only doubles back). The pairs (d, t) with t before d in the pass
# D+3, D, D+1, chooser (dealer seat 0: 3, 0, 1, then 2):
BACK_PAIRS = {
    "chooser": [(CHOOSER, t) for t in (3, 0, 1)],
    "other": [(0, 3), (1, 3), (1, 0)],
}


def fit_double_back(
    est: np.ndarray, s: np.ndarray, entry: dict[str, Any]
) -> dict[str, dict[str, Any]]:
    """θ_back for the chooser and for a non-chooser, fitted like θ but only on the
    opportunities that arise: the deals where the target doubled the seat first (under the
    fitted θ). A seat that doubled you has signalled a strong hand, so your own estimate of
    the edge over it is too high there; the fit finds how much higher the bar must be. The
    grid starts at θ against a non-chooser (every target here is one): doubling back is never
    easier than doubling first. ``est`` and ``s`` are fit_doubling's for one variant.
    Returns per kind (``chooser``, ``other``) the entries without the kind suffix."""
    from bonken_sim.models.doubling import doubles_from_estimates, threshold_value

    theta_chooser = threshold_value(entry, "theta_chooser")
    theta_other = threshold_value(entry, "theta_other")
    # First doubles only (θ_back = ∞): t acts before d, so t's double of d is never a double
    # back (t's cap of two may still differ slightly once t doubles back others too).
    doubled = doubles_from_estimates(est, (theta_chooser, theta_other, np.inf, np.inf))
    out: dict[str, dict[str, Any]] = {}
    for kind, pairs in BACK_PAIRS.items():
        hit = np.concatenate([doubled[:, t, d] for d, t in pairs])
        e = np.concatenate([est[:, d, t] for d, t in pairs])[hit]
        g = np.concatenate([s[:, d] - s[:, t] for d, t in pairs])[hit]
        theta, per_opp_best = np.inf, 0.0  # null: doubling back never paid
        if len(g) and np.isfinite(theta_other):
            theta, per_opp_best = best_threshold(e, g, THETA_GRID[THETA_GRID >= theta_other])
        made = e > theta
        out[kind] = {
            "theta_back": theta if np.isfinite(theta) else None,
            "back_fitted_on": entry["fitted_on"],
            "back_opportunities": int(len(g)),
            "back_gain_per_opportunity": round(per_opp_best, 3),
            "back_rate": round(float(made.mean()), 4) if len(g) else 0.0,
            "back_gain_per_double": round(float(g[made].mean()), 3) if made.any() else None,
        }
    return out


def fit_models(
    deals: int, seed: int, strategies: str = "basic", threads: int | None = None
) -> dict[str, Any]:
    """Play ``deals`` deals of ``seed`` with ``strategies`` and fit every model on them."""
    from bonken_sim.models.choice import Models, relative_values

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
            **versions(),
            "play_seconds": round(t_play, 2),
            "fit_seconds": round(time.perf_counter() - t0 - t_play, 2),
        },
        "features": {k: list(v) for k, v in VARIANT_FEATURES.items()},
        "ev": ev,
        "mean": mean,
        "choice": choice,
        "doubling": doubling,
    }
