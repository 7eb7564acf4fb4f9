"""Means, differences of means and proportions with 95% confidence intervals: the one
statistics module of bonken-sim.

Three shapes of input, three families of functions, all with the same normal 95% interval
for means and Wilson's score interval for proportions:

* **exact sums, one estimate** (``mean_ci``, ``diff_ci``, ``wilson_ci`` → :class:`Estimate`):
  scores are integers, so the sums behind a mean are kept as exact Python integers: a
  variance from ``n·Σx² − (Σx)²`` then has no cancellation error, a constant score gives
  exactly zero width, and adding chunks in any order gives bit-identical results.
* **arrays of sums, many cells at once** (``mean_ci_array``, ``wilson_array``,
  ``hist_moments``): the report's statistics live in integer histograms with thousands of
  cells; float64 is exact there (every sum is far below 2^53) and NaN marks empty cells.
* **one sample of values** (``mean_interval``, ``wilson_interval`` → :class:`Interval`, which
  also records ``n``): the ladder and the tournament hold every deal's value in memory.
* **ratios over clusters** (``ratio_ci_array``, ``wilson_ratio_array``): a mean per event
  when one unit (a deal) holds several correlated events (the doubles of one deal), from
  streamed per-unit sums; the unit, not the event, is the sample.
* **float values streamed in chunks** (:class:`Moments`): a run's summary merges the centred
  moments of each part, so large values with a small spread lose nothing to cancellation.
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


# ---------------------------------------------------------------------------------------
# Arrays of sufficient statistics (the report's histograms)


def mean_ci_array(
    n: np.ndarray, s1: np.ndarray, s2: np.ndarray, z: float = Z95
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sample sd and the 95% CI bounds from count, sum and sum of squares, per cell.

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


def wilson_array(k: np.ndarray, n: np.ndarray, z: float = Z95) -> tuple[np.ndarray, ...]:
    """Proportion k/n with its Wilson score 95% interval, per cell (NaN where n = 0)."""
    k = np.asarray(k, np.float64)
    n = np.asarray(n, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denom = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, centre - half, centre + half


def ratio_ci_array(
    n: np.ndarray,
    sx: np.ndarray,
    sy: np.ndarray,
    sxx: np.ndarray,
    syy: np.ndarray,
    sxy: np.ndarray,
    z: float = Z95,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The ratio Σy / Σx over ``n`` units, each contributing (x_i, y_i), with its
    delta-method (linearisation) standard error and normal 95% interval, per cell.

    This is the mean per event when a unit holds x_i events worth y_i in all (the doubles of
    one deal and their summed gain): the events of one unit are not independent, so the
    variance is that of the units' residuals y_i − R·x_i, Σ(y − Rx)² = Syy − 2R·Sxy + R²·Sxx,
    and se(R) = √(n/(n−1) · Σ(y − Rx)²) / Σx. Units with x_i = 0 only count in ``n``.
    NaN where Σx = 0; NaN bounds for fewer than two units."""
    n, sx, sy, sxx, syy, sxy = (np.asarray(a, np.float64) for a in (n, sx, sy, sxx, syy, sxy))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sy / sx
        resid = np.maximum(syy - 2 * r * sxy + r * r * sxx, 0.0)
        se = np.sqrt(resid * n / (n - 1)) / sx
        se = np.where(n > 1, se, np.nan)
    return r, se, r - z * se, r + z * se


def wilson_ratio_array(
    n: np.ndarray,
    sx: np.ndarray,
    sk: np.ndarray,
    sxx: np.ndarray,
    skk: np.ndarray,
    sxk: np.ndarray,
    z: float = Z95,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The share Σk / Σx of events that succeed, when ``n`` units hold x_i events of which
    k_i succeed, with a Wilson 95% interval at the effective sample size.

    The effective size is p(1 − p) / se², se the ratio's delta-method standard error
    (:func:`ratio_ci_array`): the number of independent events that would give the same
    precision. It is capped at Σx (clustering never buys precision here) and is Σx where
    se = 0 (p = 0 or 1), so the interval never collapses to a point."""
    p, se, _, _ = ratio_ci_array(n, sx, sk, sxx, skk, sxk, z)
    sx = np.asarray(sx, np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        n_eff = np.where(se > 0, p * (1 - p) / (se * se), sx)
        n_eff = np.minimum(np.nan_to_num(n_eff, nan=0.0), sx)
    _, lo, hi = wilson_array(p * n_eff, n_eff, z)
    return p, lo, hi


def design_effect_ci(mean: Any, lo: Any, deff: Any) -> tuple[Any, Any]:
    """A mean's (low, high) interval widened by √``deff``: the worst case when up to ``deff``
    of the values pooled in it come from one unit (a deal), since the variance of their sum
    is at most ``deff`` times that of as many independent values."""
    mean = np.asarray(mean, np.float64)
    half = (mean - lo) * np.sqrt(deff)
    return mean - half, mean + half


def hist_moments(hist: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    """Count, sum and sum of squares along the last axis of a histogram over ``values``.

    Exact: the products are integers far below 2^53."""
    h = np.asarray(hist, np.float64)
    v = np.asarray(values, np.float64)
    return h.sum(-1), h @ v, h @ (v * v)


# ---------------------------------------------------------------------------------------
# One sample of values (the ladder, the tournament)


@dataclass(frozen=True)
class Interval:
    """A mean (or rate) with its 95% interval and the sample size behind it."""

    mean: float
    lo: float
    hi: float
    n: int

    def as_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": [self.lo, self.hi], "n": self.n}

    def text(self, width: int = 7) -> str:
        half = (self.hi - self.lo) / 2
        return f"{self.mean:+{width}.2f} ± {half:5.2f}"


def mean_interval(x: np.ndarray) -> Interval:
    """The mean of the values ``x`` with its normal 95% interval (NaN bounds for one value,
    NaN everything for none)."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    half = Z95 * x.std(ddof=1) / math.sqrt(n) if n > 1 else math.nan
    m = float(x.mean())
    return Interval(m, m - half, m + half, n)


def wilson_interval(k: int, n: int) -> Interval:
    """The rate ``k/n`` with Wilson's 95% interval (:func:`wilson_ci`); NaN for n = 0."""
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    e = wilson_ci(k, n)
    return Interval(e.mean, e.lo, e.hi, n)


# ---------------------------------------------------------------------------------------
# Streamed moments of float values (a run's summary)


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
