"""The tables of a deal run's section 1, what each contract costs: each seat's mean score, its
distribution, and how it depends on the seat's own hand. Written as CSV beside the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import (
    FEATURES,
    REL_NAMES,
    REL_OFFSET,
    SCORE_VALUES,
    RunStats,
)
from bonken_sim.report.deals.tables.kit import (
    ci_frame,
)
from bonken_sim.rules.totals import deal_total
from bonken_sim.stats import (
    hist_moments,
)


def rel_label(r: int) -> str:
    return REL_NAMES[r]


def _seat(stats: RunStats, r: int) -> int:
    return (stats.dealer + REL_OFFSET[r]) % 4


def expected_score(stats: RunStats) -> pd.DataFrame:
    """Mean raw score per contract (the variants, then the chooser's own troeven call) and
    seat relation."""
    n, s1, s2 = hist_moments(stats.hists.score, SCORE_VALUES)
    rows = []
    for v, name in enumerate(stats.contracts):
        ci = ci_frame(n[v], s1[v], s2[v])
        for r in range(len(REL_NAMES)):
            rows.append(
                {
                    "variant": name,
                    "relation": rel_label(r),
                    "seat": _seat(stats, r),
                    **{k: ci[k][r] for k in ci},
                    "fair_share": deal_total(name) / 4,
                }
            )
    return pd.DataFrame(rows)


def score_distribution(stats: RunStats) -> pd.DataFrame:
    """Probability of each raw score per variant and relation (scores that occur at all)."""
    rows = []
    for v, name in enumerate(stats.contracts):
        h = stats.hists.score[v]  # (R, NS)
        seen = np.flatnonzero(h.sum(0))
        for r in range(len(REL_NAMES)):
            total = h[r].sum()
            for k in seen:
                rows.append(
                    {
                        "variant": name,
                        "relation": rel_label(r),
                        "score": int(SCORE_VALUES[k]),
                        "count": int(h[r, k]),
                        "probability": h[r, k] / total if total else np.nan,
                    }
                )
    return pd.DataFrame(rows)


def hand_features(stats: RunStats) -> pd.DataFrame:
    """A seat's mean score by the value of one of its own hand features, per relation and
    pooled over the four seats (relation ``all``)."""
    frames = []
    for fname in FEATURES:
        hist = stats.hists.feature(fname)  # (X, V, R, NS)
        pooled = hist.sum(2, keepdims=True)
        full = np.concatenate([hist, pooled], axis=2)  # (X, V, R+1, NS)
        n, s1, s2 = hist_moments(full, SCORE_VALUES)
        ci = ci_frame(n, s1, s2)
        X, V, RR = n.shape
        idx = np.indices((X, V, RR)).reshape(3, -1)
        keep = n.reshape(-1) > 0
        frame = pd.DataFrame(
            {
                "feature": fname,
                "variant": np.array(stats.contracts)[idx[1]],
                "relation": np.array([*REL_NAMES, "all"])[idx[2]],
                "value": idx[0],
                **{k: a.reshape(-1) for k, a in ci.items()},
            }
        )
        frames.append(frame[keep])
    return pd.concat(frames, ignore_index=True)


def _eta2(h: np.ndarray) -> np.ndarray:
    """Variance explained by the first axis of score histograms (G, …, NS): the between-group
    sum of squares over the total (η²), per trailing index."""
    n, s1, s2 = hist_moments(h, SCORE_VALUES)
    N, S1, S2 = n.sum(0), s1.sum(0), s2.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = S2 - S1 * S1 / N
        between = np.where(n > 0, s1 * s1 / np.where(n > 0, n, 1), 0.0).sum(0) - S1 * S1 / N
        return np.where(total > 0, between / total, np.nan)


def feature_importance(stats: RunStats) -> pd.DataFrame:
    """Per contract, the share of the variance of a seat's score explained by each of its
    own hand features (η² of the feature's group means, the four seats pooled) and by the
    seat itself (``feature`` = ``seat``); ``rank`` 1 is the most predictive hand feature."""
    rows = []
    seat = _eta2(np.moveaxis(stats.hists.score, 1, 0))  # (K,)
    eta = {f: _eta2(stats.hists.feature(f).sum(2)) for f in FEATURES}  # each (K,)
    for k, name in enumerate(stats.contracts):
        ranked = sorted(FEATURES, key=lambda f: -np.nan_to_num(eta[f][k], nan=-1))
        rows.append({"variant": name, "feature": "seat", "eta2": seat[k], "rank": 0})
        for r, f in enumerate(ranked, 1):
            rows.append({"variant": name, "feature": f, "eta2": eta[f][k], "rank": r})
    return pd.DataFrame(rows)
