"""Deals played again with doubling stakes in force (the ladder's stake-aware doubling rung).

Stake-aware (advanced) seats weigh what a double moves (RULES.md §5); ``_core/staked.py``
replays single deals of a seed in one variant each with a 4×4 stake matrix.
"""

from __future__ import annotations

import numpy as np

from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim._core.staked import staked_batch


def staked_scores(
    seed: int,
    deals: np.ndarray,
    dealer: int,
    variants: np.ndarray,
    strategies: np.ndarray,
    stakes: np.ndarray,
    table: np.ndarray | None = None,
) -> np.ndarray:
    """Raw scores (len(deals), 4) int64: deal ``deals[i]`` of ``seed`` played in variant
    ``variants[i]`` with ``stakes[i]`` (4×4, the directions doubled per seat pair), under
    the kernel ``table`` (default RULES.md's, the only one the doubling models know)."""
    out = np.zeros((len(deals), 4), np.int64)
    staked_batch(
        seed_key(seed),
        np.asarray(deals, np.int64),
        dealer,
        np.asarray(variants, np.int64),
        strategies,
        standard_table() if table is None else table,
        np.ascontiguousarray(stakes),
        out,
    )
    return out
