"""How the page writes numbers with intervals: never an interval that reads as a point, and
no interval at all for a number resting on fewer than MIN_N deals."""

from __future__ import annotations

import re

import numpy as np
import pytest

from bonken_sim.report.page.format import (
    MIN_N,
    ci_texts,
    fmt_ci,
    pct_ci,
    pct_texts,
    percents_summing_to_100,
)
from bonken_sim.stats import mean_ci_array, wilson_array


def test_a_tiny_half_width_gets_the_decimals_it_needs():
    assert fmt_ci(12.5299, 12.508, 12.551, 1) == "+12.53 ± 0.02"
    assert fmt_ci(1.0, 0.99996, 1.00004, 1) == "+1.0000 ± < 0.0001"
    assert fmt_ci(-3.0, -4.0, -2.0, 1) == "-3.0 ± 1.0"


def test_a_count_is_not_signed():
    assert fmt_ci(2.3, 2.27, 2.33, 2, signed=False) == "2.30 ± 0.03"
    assert ci_texts([2.3], [2.27], [2.33], 2, signed=False) == ["2.30 ± 0.03"]


def test_a_rate_never_prints_as_one_of_its_ends():
    assert pct_ci(0.404, 0.396, 0.412, 0) == "40.4% (39.6–41.2%)"
    assert (
        pct_ci(0.0, 0.0, 0.004, 0) == "0% (0–0%)" or pct_ci(0.0, 0.0, 0.004, 0) == "0.0% (0.0–0.4%)"
    )


def test_no_spread_says_so_instead_of_zero():
    assert fmt_ci(0.0, 0.0, 0.0, 1) == "+0.0 (no spread)"


@pytest.mark.parametrize("n", [10**3, 10**5, 10**7])
@pytest.mark.parametrize("p", [0.0, 0.001, 0.65, 0.999])
def test_a_rate_interval_never_collapses(p, n):
    share, lo, hi = wilson_array(round(p * n), n)
    text = pct_ci(float(share), float(lo), float(hi), 0)
    c, a, b = re.fullmatch(r"(\S+)% \(([^–()]+)–([^()%]+)%\)", text).groups()
    assert a != b, text
    assert c == a if p == 0 else c not in (a, b), text  # the rate is an end only at 0%


def test_a_mean_interval_never_reads_as_zero():
    rng = np.random.default_rng(2)
    for n in (200, 10**5, 10**7):
        sd = rng.uniform(0.01, 5)
        mean, _, lo, hi = mean_ci_array(n, 3.0 * n, n * (9 + sd * sd))
        text = fmt_ci(float(mean), float(lo), float(hi), 1)
        assert not re.search(r"± 0(\.0+)?(?![\d.])", text), text


def test_too_few_deals_show_n_and_no_interval():
    assert fmt_ci(-45.0, -54.8, -35.2, 1, n=2) == "n = 2, too few"
    assert pct_ci(0.5, 0.2, 0.8, 0, n=MIN_N - 1) == f"n = {MIN_N - 1}, too few"
    assert "±" in fmt_ci(-45.0, -54.8, -35.2, 1, n=MIN_N)
    texts = ci_texts([1.0, 2.0], [0.5, 1.5], [1.5, 2.5], 1, ns=[17, 400])
    assert texts == ["n = 17, too few", "+2.0 ± 0.5"]
    assert pct_texts([0.5], [0.4], [0.6], 0, ns=[3]) == ["n = 3, too few"]


@pytest.mark.parametrize(
    "shares", [(1 / 3, 1 / 3, 1 / 3), (0.445, 0.105, 0.45), (0.0, 0.5, 0.5), (0.996, 0.002, 0.002)]
)
def test_gain_tie_loss_percents_add_up_to_100(shares):
    pct = percents_summing_to_100(shares)
    assert sum(pct) == 100
    assert all(abs(p - 100 * s) < 1 for p, s in zip(pct, shares, strict=True))
