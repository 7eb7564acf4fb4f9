"""The rules of doubling (RULES.md §5): the order of the one doubling pass and the
settlement of a deal's raw scores under the doubles said. What a seat doubles (the fitted
thresholds, the search) is a strategy's business, in ``models/`` and ``engine/``."""

from __future__ import annotations

import numpy as np


def pass_order(dealer: int = 0) -> list[int]:
    """Seats in doubling order: D+3, D, D+1, then the chooser D+2."""
    return [(dealer + k) % 4 for k in (3, 0, 1, 2)]


def multiplicity(doubled: np.ndarray) -> np.ndarray:
    """m[i, a, b] = m[i, b, a] ∈ {0, 1, 2}: the number of directions doubled between a and b."""
    d = doubled.astype(np.int64)
    return d + d.transpose(0, 2, 1)


def settle(scores: np.ndarray, m: np.ndarray) -> np.ndarray:
    """final_i = raw_i + Σ_j m_ij (raw_i − raw_j) (RULES.md §5); scores (n, 4), m (n, 4, 4)."""
    s = np.asarray(scores, dtype=np.int64)
    diff = s[:, :, None] - s[:, None, :]
    return s + (m * diff).sum(axis=2)
