"""Sums and sums of squares of per-unit values, cell by cell, for the games beside a deal
run: a mean per cell where each cell has its own count, and a ratio of two sums per cell
(gain per double) with its interval taken over the units, not over the doubles."""

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

    def add_cells(self, cell: tuple[np.ndarray, ...], x: np.ndarray) -> None:
        """Fold one value per unit into the cell its index arrays name."""
        flat = np.ravel_multi_index(cell, self.n.shape)
        size = self.n.size
        self.n += np.bincount(flat, minlength=size).reshape(self.n.shape)
        self.s1 += np.bincount(flat, x, size).reshape(self.n.shape)
        self.s2 += np.bincount(flat, x * x, size).reshape(self.n.shape)

    def ci(self) -> tuple[np.ndarray, ...]:
        """Mean, sd, 95% CI low and high per cell (NaN where empty)."""
        return mean_ci_array(self.n, self.s1, self.s2)


class RatioMoments:
    """Per cell, the ratio Σy / Σx of two per-unit sums (e.g. the gain per double: the
    gains summed over a deal's doubles, over the doubles of the deal), with the delta-method
    95% interval over units: the doubles of one deal are not independent draws."""

    def __init__(self, shape: tuple[int, ...]) -> None:
        self.n = np.zeros(shape, np.int64)
        self.sums = {k: np.zeros(shape) for k in ("y", "x", "yy", "xx", "xy")}

    def add_cells(self, cell: tuple[np.ndarray, ...], y: np.ndarray, x: np.ndarray) -> None:
        flat = np.ravel_multi_index(cell, self.n.shape)
        size, shape = self.n.size, self.n.shape
        self.n += np.bincount(flat, minlength=size).reshape(shape)
        for key, w in (("y", y), ("x", x), ("yy", y * y), ("xx", x * x), ("xy", x * y)):
            self.sums[key] += np.bincount(flat, w, size).reshape(shape)

    def ratio_ci(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Σy/Σx and its 95% CI per cell (NaN where Σx = 0, no bounds under 2 units)."""
        s, n = self.sums, self.n.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            r = np.where(s["x"] > 0, s["y"] / s["x"], np.nan)
            dev = np.maximum(s["yy"] - 2 * r * s["xy"] + r * r * s["xx"], 0.0)
            var = np.where(n > 1, dev / (n - 1), np.nan)
            half = Z95 * np.sqrt(var / n) / (s["x"] / n)
        return r, r - half, r + half

    def per_unit(self) -> tuple[np.ndarray, ...]:
        """The mean of x per unit (e.g. doubles per deal): mean, sd, CI low, high."""
        return mean_ci_array(self.n, self.sums["x"], self.sums["xx"])
