"""What every table of a deal run uses: the hand buckets, and the mean columns with their 95%
intervals (normal approximation)."""

from __future__ import annotations

import numpy as np

from bonken_sim.stats import mean_ci_array

#: high-card-point buckets (A=4, K=3, Q=2, J=1; the mean hand has 10)
HCP_EDGES = (0, 6, 9, 12, 15, 18, 38)
HCP_BUCKETS = ("0-5", "6-8", "9-11", "12-14", "15-17", "18+")
LONGEST_EDGES = (4, 5, 6, 7, 14)
LONGEST_BUCKETS = ("4", "5", "6", "7+")


def bucketed(hist: np.ndarray, edges: tuple[int, ...], axis: int = 0) -> np.ndarray:
    """Sum a histogram's ``axis`` (indexed by value) into the buckets [edges[k], edges[k+1])."""
    h = np.moveaxis(hist, axis, 0)
    out = np.stack([h[lo:hi].sum(0) for lo, hi in zip(edges[:-1], edges[1:], strict=True)])
    return np.moveaxis(out, 0, axis)


def ci_frame(n, s1, s2) -> dict[str, np.ndarray]:
    """The columns n, mean, sd and the 95% interval's ends of a table, from the moments."""
    mean, sd, lo, hi = mean_ci_array(n, s1, s2)
    return {"n": np.asarray(n, np.int64), "mean": mean, "sd": sd, "ci_low": lo, "ci_high": hi}
