"""Sums and sums of squares of per-unit values, cell by cell, for the games beside a deal
run: a mean per cell where each cell has its own count, and ratios of two per-unit sums
(a gain per double, a score per chooser turn) with intervals taken over the units (deal
sets), not over the doubles or turns, which are not independent within one."""

from __future__ import annotations

import numpy as np

from bonken_sim.stats import Z95, mean_ci_array


class CountedMoments:
    """Count, sum and sum of squares per cell; each unit adds to the cells it has a value
    in."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.n = np.zeros(shape, np.int64)
        self.s1 = np.zeros(shape)
        self.s2 = np.zeros(shape)

    def add(self, x: np.ndarray, mask: np.ndarray) -> None:
        """Fold (units, *shape) values in, where ``mask`` (same shape) is True."""
        v = np.where(mask, x, 0.0)
        self.n += mask.sum(0)
        self.s1 += v.sum(0)
        self.s2 += (v * v).sum(0)

    def ci(self) -> tuple[np.ndarray, ...]:
        """Mean, sd, 95% CI low and high per cell (NaN where empty)."""
        return mean_ci_array(self.n, self.s1, self.s2)


class RatioMoments:
    """Per cell, the ratio Σy / Σx of two per-unit sums, with the delta-method 95% interval
    over units. Keeps Σ z zᵀ of z = (y of every cell, x of every cell), so the difference of
    two cells' ratios gets its interval too (both measured on the same units)."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.shape = shape
        self.cells = int(np.prod(shape))
        self.n = 0
        self.sum = np.zeros(2 * self.cells)
        self.cross = np.zeros((2 * self.cells, 2 * self.cells))

    def add(self, y: np.ndarray, x: np.ndarray) -> None:
        """Fold (units, *shape) numerators ``y`` and denominators ``x`` in (every unit counts,
        also one with x = 0)."""
        z = np.concatenate([y.reshape(len(y), -1), x.reshape(len(x), -1)], 1)
        self.n += len(z)
        self.sum += z.sum(0)
        self.cross += z.T @ z

    def _parts(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        c = self.cells
        sy, sx = self.sum[:c], self.sum[c:]
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(sx > 0, sy / sx, np.nan)
        return sy, sx, r

    def ratio_ci(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Σy/Σx and its 95% CI per cell (NaN where Σx = 0, no bounds under 2 units)."""
        c, n = self.cells, self.n
        _, sx, r = self._parts()
        idx = np.arange(c)
        yy, xx, xy = self.cross[idx, idx], self.cross[c + idx, c + idx], self.cross[idx, c + idx]
        with np.errstate(invalid="ignore", divide="ignore"):
            dev = np.maximum(yy - 2 * r * xy + r * r * xx, 0.0)  # Σ (y − r·x)²
            half = Z95 * np.sqrt(dev / (n - 1) / n) / (sx / n) if n > 1 else np.full(c, np.nan)
        shape = self.shape
        return r.reshape(shape), (r - half).reshape(shape), (r + half).reshape(shape)

    def diff_ci(self, i: int, j: int) -> tuple[float, float, float]:
        """Ratio of cell i − ratio of cell j (flat indices) and its 95% CI."""
        c, n = self.cells, self.n
        _, sx, r = self._parts()
        if n < 2 or not (sx[i] > 0 and sx[j] > 0):
            return float("nan"), float("nan"), float("nan")
        w = np.zeros(2 * c)
        w[i], w[c + i] = n / sx[i], -r[i] * n / sx[i]
        w[j], w[c + j] = -n / sx[j], r[j] * n / sx[j]
        dev = max(float(w @ self.cross @ w), 0.0)  # Σ d², d the linearised difference
        half = Z95 * np.sqrt(dev / (n - 1) / n)
        d = float(r[i] - r[j])
        return d, d - half, d + half
