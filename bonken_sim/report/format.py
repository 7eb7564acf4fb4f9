"""How the report's page writes a number with its 95% interval (the CSVs keep the numbers)."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np


def fmt_ci(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    """``+1.23 ± 0.45``: a signed mean and its CI half-width; the mean alone without an
    interval, ``–`` without a mean."""
    if not np.isfinite(mean):
        return "–"
    if not np.isfinite(lo):
        return f"{mean:+.{digits}f}"
    return f"{mean:+.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def pct_ci(p: float, lo: float, hi: float, digits: int = 1) -> str:
    """``12.3% (11.0–13.7%)``: a rate and its interval in percent; ``–`` without a rate."""
    if not np.isfinite(p):
        return "–"
    return f"{100 * p:.{digits}f}% ({100 * lo:.{digits}f}–{100 * hi:.{digits}f}%)"


def ci_texts(
    means: Iterable[float], los: Iterable[float], his: Iterable[float], digits: int = 2
) -> list[str]:
    """:func:`fmt_ci` down three columns."""
    return [fmt_ci(m, lo, hi, digits) for m, lo, hi in zip(means, los, his, strict=True)]


def pct_texts(ps: Iterable[float], los: Iterable[float], his: Iterable[float], digits: int = 1):
    """:func:`pct_ci` down three columns."""
    return [pct_ci(p, lo, hi, digits) for p, lo, hi in zip(ps, los, his, strict=True)]
