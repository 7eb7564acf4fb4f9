"""Means, differences of means and proportions with 95% confidence intervals.

Scores are integers, so the sums behind a mean are kept as exact integers: a variance from
``n·Σx² − (Σx)²`` then has no cancellation error, a constant score gives exactly zero width,
and adding chunks in any order gives bit-identical results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

Z95 = 1.959963984540054  # the two-sided 95% normal quantile


@dataclass(frozen=True)
class Estimate:
    """A mean (or proportion) with its standard deviation and 95% confidence interval."""

    mean: float
    sd: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def to_dict(self) -> dict[str, float | list[float]]:
        return {"mean": self.mean, "sd": self.sd, "ci95": [self.lo, self.hi]}


def _variance(n: int, s1: int, s2: int) -> float:
    """Sample variance (n − 1 in the denominator) from exact integer sums."""
    if n < 2:
        return math.nan
    return (n * s2 - s1 * s1) / (n * (n - 1))


def mean_ci(n: int, s1: int, s2: int) -> Estimate:
    """The mean of ``n`` integers with sum ``s1`` and sum of squares ``s2``, normal 95% CI."""
    n, s1, s2 = int(n), int(s1), int(s2)
    mean = s1 / n
    var = _variance(n, s1, s2)
    half = Z95 * math.sqrt(var / n)
    return Estimate(mean, math.sqrt(var), mean - half, mean + half)


def diff_ci(a: Estimate, n_a: int, b: Estimate, n_b: int) -> Estimate:
    """``a − b`` for means of two independent samples (the standard errors add in quadrature).

    ``sd`` is the standard error of the difference here, not a per-deal spread.
    """
    mean = a.mean - b.mean
    se = math.sqrt(a.sd**2 / n_a + b.sd**2 / n_b)
    return Estimate(mean, se, mean - Z95 * se, mean + Z95 * se)


def wilson_ci(k: int, n: int) -> Estimate:
    """The proportion ``k/n`` with Wilson's 95% score interval (good near 0 and 1, unlike the
    normal interval, which collapses to a point there)."""
    p = k / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # At k = 0 or k = n the interval ends exactly at 0 or 1; rounding would leave it short.
    lo = 0.0 if k == 0 else max(0.0, centre - half)
    hi = 1.0 if k == n else min(1.0, centre + half)
    return Estimate(p, math.sqrt(p * (1 - p)), lo, hi)


@dataclass(frozen=True)
class Moments:
    """The count, mean and sum of squared deviations (``m2``) of a sample, built chunk by
    chunk: each chunk from its centred values, chunks merged with Chan et al.'s update. Unlike
    ``Σx² − n·mean²`` in floating point it loses nothing to cancellation when the values are
    large next to their spread (1e9 + noise)."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    @classmethod
    def of(cls, values: Any) -> Moments:
        x = np.asarray(values, np.float64).reshape(-1)
        if len(x) == 0:
            return cls()
        mean = float(x.mean())
        d = x - mean
        return cls(len(x), mean, float(d @ d))

    def merge(self, other: Moments) -> Moments:
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        n = self.n + other.n
        delta = other.mean - self.mean
        mean = self.mean + delta * other.n / n
        return Moments(n, mean, self.m2 + other.m2 + delta * delta * self.n * other.n / n)

    @property
    def variance(self) -> float:
        """The sample variance (n − 1 in the denominator); NaN below two values."""
        return self.m2 / (self.n - 1) if self.n > 1 else math.nan
