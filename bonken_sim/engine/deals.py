"""Many deals at once, for runs: the batch kernel and the hand features, as the columns a
run's Parquet parts are made of.

The run layer calls this and never the kernels; the feature layout (which row of the
features array is which hand feature) is the kernels', named here for the run's schema.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bonken_sim._core.features import KH_ROW, N_FEATURES, SEAT_FEATURES

__all__ = ["KH_ROW", "N_FEATURES", "SEAT_FEATURES", "DealColumns", "play_deal_columns"]


@dataclass
class DealColumns:
    """Deals ``start … start+n-1`` of one seed, every variant played, in column layout."""

    hands: np.ndarray  # (n, 4) uint64
    features: np.ndarray  # (N_FEATURES, n) int8: row f*4+seat per seat feature, then KH_ROW
    scores: np.ndarray  # (4, nv, n) int16
    tricks: np.ndarray  # (4, nv, n) int8
    order: np.ndarray  # (4, nv, n) int8: Domino's going-out order


def play_deal_columns(
    seed: int,
    start: int,
    n: int,
    dealer: int,
    variants: tuple[int, ...],
    strategies: tuple[int, ...],
    table: np.ndarray,
) -> DealColumns:
    """Deal and play ``n`` deals from deal index ``start`` in each of ``variants`` (on the
    same cards) with the four seats' ``strategies`` under the ruleset ``table``."""
    from bonken_sim._core import kernels as K
    from bonken_sim._core.features import hand_features, result_columns
    from bonken_sim._core.rng import seed_key

    nv = len(variants)
    hands = np.empty((n, 4), np.uint64)
    scores = np.empty((n, nv, 4), np.int16)
    tricks = np.empty((n, nv, 4), np.int8)
    order = np.empty((n, nv, 4), np.int8)
    K.simulate_batch(
        seed_key(seed),
        start,
        dealer,
        np.array(variants, np.int64),
        np.array(strategies, np.int64),
        table,
        hands,
        scores,
        tricks,
        order,
    )
    feats = np.empty((N_FEATURES, n), np.int8)
    hand_features(hands, feats)
    s_cols = np.empty((4, nv, n), np.int16)
    t_cols = np.empty((4, nv, n), np.int8)
    o_cols = np.empty((4, nv, n), np.int8)
    result_columns(scores, tricks, order, s_cols, t_cols, o_cols)
    return DealColumns(hands, feats, s_cols, t_cols, o_cols)
