"""``summarize`` takes a seat's variance from merged centred moments: with values large next to
their spread (1e9 + noise) the old ``(Σx² − n·mean²)/(n − 1)`` in floating point cancels to
nonsense, the merged moments keep every digit that matters."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bonken_sim.runs.readers import seat_summary
from bonken_sim.stats import Moments


def _noisy(n: int = 100_000) -> np.ndarray:
    rng = np.random.default_rng(5)
    return 1e9 + rng.integers(-3, 4, n).astype(np.float64)  # spread ~2, mean ~1e9


def test_merged_moments_keep_the_variance_of_large_values():
    x = _noisy()
    exact = float(np.var(x - 1e9, ddof=1))  # shifting by a constant is exact here
    merged = Moments()
    for chunk in np.array_split(x, 37):  # batches of any size, merged in order
        merged = merged.merge(Moments.of(chunk))
    assert merged.n == len(x)
    assert merged.variance == pytest.approx(exact, rel=1e-9)
    # what the old formula made of the same values: far off (here, not even close)
    n, s1, s2 = len(x), float(x.sum()), float((x * x).sum())
    mean = s1 / n
    old = (s2 - n * mean * mean) / (n - 1)
    assert abs(old - exact) > 0.1 * exact


def test_merging_is_order_free_and_an_empty_side_changes_nothing():
    x = _noisy(1000)
    a, b = Moments.of(x[:300]), Moments.of(x[300:])
    ab, ba = a.merge(b), b.merge(a)
    assert ab.n == ba.n == 1000
    assert ab.variance == pytest.approx(ba.variance, rel=1e-12)
    assert a.merge(Moments()) == a and Moments().merge(a) == a
    assert math.isnan(Moments.of([7.0]).variance)


def test_seat_summary_takes_the_mean_from_the_exact_sum():
    scores = np.array([-130, 0, 0, -130, -260, 0], np.int64)
    doc = seat_summary(int(scores.sum()), Moments.of(scores))
    assert doc["mean"] == scores.sum() / len(scores)
    assert doc["sd"] == pytest.approx(float(np.std(scores, ddof=1)), rel=1e-12)
    half = 1.959963984540054 * doc["sd"] / math.sqrt(len(scores))
    assert doc["ci95"] == pytest.approx([doc["mean"] - half, doc["mean"] + half], rel=1e-12)
    one = seat_summary(5, Moments.of([5]))  # one sample: no spread to speak of, as mean_ci
    assert one["mean"] == 5 and math.isnan(one["sd"]) and math.isnan(one["ci95"][0])
