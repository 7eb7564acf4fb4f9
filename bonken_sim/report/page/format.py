"""How the report's page writes a number with its 95% interval (the CSVs keep the numbers).

Two promises of the reading guide are kept here: an interval never collapses to a point on
the page (more decimals are shown until its ends differ), and a number resting on fewer than
:data:`MIN_N` deals gets no interval at all, only its n.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import pandas as pd

#: numbers resting on fewer deals are shown without an interval (too noisy to read)
MIN_N = 100
#: the most decimals shown before a half-width is written as a bound ("< 0.0001")
MOST_DIGITS = 4


def too_few(n: float) -> bool:
    """Whether a number resting on ``n`` deals is too noisy to show with an interval."""
    return bool(np.isfinite(n)) and n < MIN_N


def few_text(n: float) -> str:
    """What a cell resting on fewer than MIN_N deals shows instead of its interval."""
    return f"n = {int(n)}, too few"


def extremes(frame: pd.DataFrame, column: str) -> tuple[pd.Series, pd.Series]:
    """The rows of ``frame`` with the highest and the lowest ``column``: the two ends a
    finding's sentence names (the first of equal ones)."""
    return frame.loc[frame[column].idxmax()], frame.loc[frame[column].idxmin()]


def places(width: float, digits: int) -> int:
    """Decimals (at least ``digits``, at most MOST_DIGITS) that show ``width`` > 0 as a
    non-zero number; MOST_DIGITS + 1 when even those round it to zero."""
    for d in range(digits, MOST_DIGITS + 1):
        if round(width, d) > 0:
            return d
    return MOST_DIGITS + 1


def half_text(half: float, digits: int) -> str:
    """A CI half-width with enough decimals never to read as zero: ``0.04``, ``< 0.0001``."""
    d = places(half, digits)
    if d > MOST_DIGITS:
        return f"< {10.0**-MOST_DIGITS:.{MOST_DIGITS}f}"
    return f"{half:.{d}f}"


def fmt_ci(
    mean: float,
    lo: float,
    hi: float,
    digits: int = 2,
    n: float | None = None,
    signed: bool = True,
) -> str:
    """``+1.23 ± 0.45``: a mean (signed unless ``signed`` is False: a count) and its CI
    half-width, with more decimals where the half-width would round to zero; the mean alone
    without an interval, ``–`` without a mean; ``n = 17, too few`` when ``n`` is given and
    under MIN_N."""
    if n is not None and too_few(n):
        return few_text(n)
    if not np.isfinite(mean):
        return "–"
    sign = "+" if signed else ""
    if not np.isfinite(lo):
        return f"{mean:{sign}.{digits}f}"
    half = (hi - lo) / 2
    if half <= 0:
        return f"{mean:{sign}.{digits}f} (no spread)"
    d = min(places(half, digits), MOST_DIGITS)
    return f"{mean:{sign}.{d}f} ± {half_text(half, digits)}"


def pct_ci(p: float, lo: float, hi: float, digits: int = 1, n: float | None = None) -> str:
    """``12.3% (11.0–13.7%)``: a rate and its interval in percent, with more decimals where
    the rate and its ends would print alike (the rate may equal an end only at 0 or 100%);
    ``–`` without a rate; ``n = 17, too few`` under MIN_N."""
    if n is not None and too_few(n):
        return few_text(n)
    if not np.isfinite(p):
        return "–"
    a, b, c = 100 * max(lo, 0.0), 100 * min(hi, 1.0), 100 * p
    at_end = p <= 0 or p >= 1
    for d in range(digits, MOST_DIGITS + 1):
        texts = (f"{a:.{d}f}", f"{c:.{d}f}", f"{b:.{d}f}")
        if texts[0] != texts[2] and (at_end or len(set(texts)) == 3):
            return f"{texts[1]}% ({texts[0]}–{texts[2]}%)"
    # even MOST_DIGITS decimals print both ends alike: a bound instead
    bound = f"< {10.0**-MOST_DIGITS:.{MOST_DIGITS}f}"
    if b < 10.0**-MOST_DIGITS:
        return f"{100 * p:.{MOST_DIGITS}f}% ({a:.{MOST_DIGITS}f}–{bound}%)"
    return f"{100 * p:.{MOST_DIGITS}f}% (± {bound}%)"


def ci_texts(
    means: Iterable[float],
    los: Iterable[float],
    his: Iterable[float],
    digits: int = 2,
    ns: Iterable[float] | None = None,
    signed: bool = True,
) -> list[str]:
    """:func:`fmt_ci` down three columns (four with the ``ns`` behind them)."""
    rows = _rows(means, los, his, ns)
    return [fmt_ci(m, lo, hi, digits, n, signed) for m, lo, hi, n in rows]


def pct_texts(
    ps: Iterable[float],
    los: Iterable[float],
    his: Iterable[float],
    digits: int = 1,
    ns: Iterable[float] | None = None,
) -> list[str]:
    """:func:`pct_ci` down three columns (four with the ``ns`` behind them)."""
    return [pct_ci(p, lo, hi, digits, n) for p, lo, hi, n in _rows(ps, los, his, ns)]


def _rows(values, los, his, ns) -> list[tuple]:
    """(value, low, high, n) per row; n is None without ``ns``."""
    values = list(values)
    counts = list(ns) if ns is not None else [None] * len(values)
    return list(zip(values, los, his, counts, strict=True))


def percents_summing_to_100(shares: Iterable[float]) -> list[int]:
    """Whole percents of shares that add up to 1, rounded so that they add up to 100 (the
    largest remainders round up), as a reader expects of gain / tie / loss."""
    x = 100 * np.asarray(list(shares), np.float64)
    floor = np.floor(x).astype(int)
    short = 100 - int(floor.sum())
    order = np.argsort(-(x - floor), kind="stable")
    floor[order[: max(short, 0)]] += 1
    return [int(v) for v in floor]


def ci_digits(lo: float, hi: float) -> int:
    """Decimals that keep a 95% interval from printing as a point: two significant digits
    of its half-width (1 to MOST_DIGITS)."""
    half = (hi - lo) / 2
    if not math.isfinite(half) or half <= 0:
        return 1
    return int(min(MOST_DIGITS, max(1, math.ceil(-math.log10(half)) + 1)))


def ci_words(mean: float, lo: float, hi: float, digits: int = 1, unit: str = "") -> str:
    """'+12.3 (95% CI +12.1 to +12.5)' for sentences: at least ``digits`` decimals, more
    where the interval would otherwise print as a point."""
    k = max(digits, ci_digits(lo, hi))
    return f"{mean:+.{k}f}{unit} (95% CI {lo:+.{k}f} to {hi:+.{k}f})"


def ci_column(d: pd.DataFrame) -> list[str]:
    """A table column 'mean ± half-width' from a frame's mean / ci_low / ci_high, each with
    enough decimals to show its interval."""
    return [
        fmt_ci(m, lo, hi, max(2, ci_digits(lo, hi)))
        for m, lo, hi in zip(d["mean"], d["ci_low"], d["ci_high"], strict=True)
    ]
