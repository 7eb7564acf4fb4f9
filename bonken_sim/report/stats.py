"""Vectorised 95% intervals from sufficient statistics (arrays in, arrays out).

The report's statistics live in integer histograms; these turn counts, sums and sums of
squares into means with normal-approximation intervals and counts into Wilson intervals,
for whole arrays at once (the tables have thousands of cells).
"""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def mean_ci(
    n: np.ndarray, s1: np.ndarray, s2: np.ndarray, z: float = Z95
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample sd and the 95% CI bounds from count, sum and sum of squares.

    Cells with n = 0 give NaN everywhere; n = 1 gives the mean and NaN bounds."""
    n = np.asarray(n, np.float64)
    s1 = np.asarray(s1, np.float64)
    s2 = np.asarray(s2, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s1 / n
        # n·Σx² − (Σx)² is exact for the integer sums used here (well inside 2^53)
        var = np.maximum(n * s2 - s1 * s1, 0.0) / (n * (n - 1))
        var = np.where(n > 1, var, np.nan)
        sd = np.sqrt(var)
        half = z * sd / np.sqrt(n)
    return mean, sd, mean - half, mean + half


def wilson(k: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, ...]:
    """Proportion k/n with its Wilson score 95% interval (NaN where n = 0)."""
    k = np.asarray(k, np.float64)
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, centre - half, centre + half


def hist_moments(hist: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Count, sum and sum of squares along the last axis of a histogram over ``values``.

    Exact: the products are integers far below 2^53."""
    h = np.asarray(hist, np.float64)
    v = np.asarray(values, np.float64)
    return h.sum(-1), h @ v, h @ (v * v)
