"""bonken_sim.stats: the one statistics module (exact sums, arrays of sums, one sample)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bonken_sim.stats import (
    Z95,
    design_effect_ci,
    hist_moments,
    mean_ci,
    mean_ci_array,
    mean_interval,
    ratio_ci_array,
    wilson_array,
    wilson_ci,
    wilson_interval,
    wilson_ratio_array,
)


def test_mean_interval_is_the_normal_interval():
    x = np.random.default_rng(1).normal(3.0, 2.0, 500)
    iv = mean_interval(x)
    half = Z95 * x.std(ddof=1) / math.sqrt(500)
    assert iv.mean == pytest.approx(x.mean()) and iv.hi - iv.mean == pytest.approx(half)
    assert math.isnan(mean_interval(np.zeros(0)).mean)


def test_wilson_interval_known_values():
    iv = wilson_interval(0, 10)
    assert iv.lo == 0.0 and iv.hi == pytest.approx(0.2775, abs=1e-4)  # the textbook value
    iv = wilson_interval(50, 100)
    assert (iv.lo, iv.hi) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson_interval(0, 0).n == 0 and math.isnan(wilson_interval(0, 0).mean)


def test_array_and_exact_sums_agree():
    """The vectorised interval is the exact-sum one, cell by cell; empty cells are NaN and
    one value has no interval."""
    x = np.random.default_rng(2).integers(-13, 14, (3, 40)) * 5
    n = np.array([40, 40, 40])
    s1, s2 = x.sum(1), (x * x).sum(1)
    mean, sd, lo, hi = mean_ci_array(n, s1, s2)
    for i in range(3):
        e = mean_ci(40, int(s1[i]), int(s2[i]))
        assert (mean[i], sd[i], lo[i], hi[i]) == pytest.approx((e.mean, e.sd, e.lo, e.hi))
    empty = mean_ci_array(np.array([0, 1]), np.array([0, 5]), np.array([0, 25]))
    assert np.isnan(empty[0][0]) and empty[0][1] == 5 and np.isnan(empty[2][1])


def test_wilson_array_is_wilson_ci():
    k, n = np.array([0, 3, 50, 10]), np.array([10, 7, 100, 10])
    p, lo, hi = wilson_array(k, n)
    for i in range(len(k)):
        e = wilson_ci(int(k[i]), int(n[i]))
        assert (p[i], lo[i], hi[i]) == pytest.approx((e.mean, e.lo, e.hi), abs=1e-12)
    assert np.isnan(wilson_array(np.array([0]), np.array([0]))[0]).all()


def test_hist_moments_are_the_sample_sums():
    values = np.array([-10, 0, 5])
    hist = np.array([[2, 0, 1], [0, 3, 0]])
    n, s1, s2 = hist_moments(hist, values)
    assert n.tolist() == [3, 3] and s1.tolist() == [-15, 0] and s2.tolist() == [225, 0]


def _unit_sums(x: np.ndarray, y: np.ndarray) -> tuple:
    return len(x), x.sum(), y.sum(), x @ x, y @ y, x @ y


def test_ratio_ci_is_the_linearised_interval_over_units():
    """Σy/Σx with the standard error of the units' residuals y − R·x, computed directly."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, 400).astype(float)  # events per unit, some units without any
    y = x * 2.0 + rng.normal(0, 3, 400) * x
    r, se, lo, hi = ratio_ci_array(*_unit_sums(x, y))
    ratio = y.sum() / x.sum()
    resid = y - ratio * x
    direct = math.sqrt((resid @ resid) / (400 * 399)) / x.mean()
    assert r == pytest.approx(ratio) and se == pytest.approx(direct)
    assert (lo, hi) == pytest.approx((ratio - Z95 * direct, ratio + Z95 * direct))


def test_ratio_with_one_event_per_unit_is_the_plain_mean():
    y = np.random.default_rng(4).normal(1, 2, 300)
    one = np.ones(300)
    _, _, lo, hi = ratio_ci_array(*_unit_sums(one, y))
    _, _, mlo, mhi = mean_ci_array(300, y.sum(), y @ y)
    assert (lo, hi) == pytest.approx((mlo, mhi))


def test_events_of_one_unit_do_not_narrow_the_interval():
    """Counting every event twice in its unit (perfectly correlated copies) leaves the
    interval as it is; treating the copies as independent would narrow it by √2."""
    y = np.random.default_rng(5).normal(0, 1, 200)
    _, se1, _, _ = ratio_ci_array(*_unit_sums(np.ones(200), y))
    _, se2, _, _ = ratio_ci_array(*_unit_sums(np.full(200, 2.0), 2 * y))
    assert se2 == pytest.approx(se1)
    p1 = wilson_ratio_array(*_unit_sums(np.ones(200), (y > 0).astype(float)))
    p2 = wilson_ratio_array(*_unit_sums(np.full(200, 2.0), 2 * (y > 0).astype(float)))
    assert p2 == pytest.approx(p1)


def test_wilson_ratio_with_one_event_per_unit_is_close_to_wilson():
    k = (np.random.default_rng(6).random(500) < 0.3).astype(float)
    p, lo, hi = wilson_ratio_array(*_unit_sums(np.ones(500), k))
    _, wlo, whi = wilson_array(k.sum(), 500)
    assert p == pytest.approx(k.mean())
    assert (lo, hi) == pytest.approx((wlo, whi), abs=2e-3)  # effective size n − 1, not n


def test_wilson_ratio_never_collapses():
    """All events succeed: the share is 1 and the interval still has width."""
    x = np.full(150, 2.0)
    p, lo, hi = wilson_ratio_array(*_unit_sums(x, x))
    assert p == 1.0 and lo < 1.0 and hi == pytest.approx(1.0)
    r = ratio_ci_array(*_unit_sums(np.zeros(5), np.zeros(5)))
    assert all(math.isnan(v) for v in r)


def test_design_effect_covers_the_worst_case():
    """Three perfectly correlated copies of each deal's value: the naive interval over the
    copies is √3 too narrow, the widened one is the interval over deals."""
    y = np.random.default_rng(7).normal(0, 1, 300)
    copies = np.repeat(y, 3)
    mean, _, lo, _ = mean_ci_array(900, copies.sum(), copies @ copies)
    wide_lo, wide_hi = design_effect_ci(mean, lo, 3)
    _, _, dlo, dhi = mean_ci_array(300, y.sum(), y @ y)
    assert (wide_lo, wide_hi) == pytest.approx((dlo, dhi), abs=1e-3)  # n − 1 against 3n − 1
