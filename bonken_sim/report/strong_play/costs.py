"""What each contract costs each seat under strong play beside the run's own play, paired on
the same deals: per contract variant and seat (leader, chooser, first doubler, dealer), the
mean raw score of both runs over the strong run's deals and the mean of their per-deal
difference with its 95% interval over deals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import REL_NAMES, REL_OFFSET
from bonken_sim.report.deals.stats.run_reader import iter_parts, run_layout
from bonken_sim.report.strong_play.read import deal_count
from bonken_sim.stats import mean_interval

COLUMNS = [
    "variant", "seat", "deals",
    "heuristic_mean", "heuristic_ci_low", "heuristic_ci_high",
    "strong_mean", "strong_ci_low", "strong_ci_high",
    "diff_mean", "diff_ci_low", "diff_ci_high",
]  # fmt: skip


def first_scores(root: Path, manifest: dict, variants: tuple[str, ...], n: int) -> np.ndarray:
    """(len(variants), 4 seats, n) raw scores of deals ``0 … n − 1`` of a complete deal run
    that played (at least) ``variants``."""
    layout = run_layout(root, manifest)
    parts = sorted(
        (p for p in manifest["parts"] if int(p["deal_start"]) < n),
        key=lambda p: int(p["deal_start"]),
    )
    blocks = [p.scores for p in iter_parts(layout, parts, range(4), [])]
    every = np.concatenate(blocks, axis=2)[:, :, :n]
    return every[[layout.variants.index(v) for v in variants]]


def paired_costs(run: tuple[Path, dict], strong: tuple[Path, dict]) -> pd.DataFrame:
    """One row per (variant the strong run played, seat): ``heuristic_*`` the run's mean raw
    score on the strong run's deals, ``strong_*`` the strong run's, ``diff_*`` strong − run
    per deal (95% CIs over deals)."""
    root, manifest = strong
    layout = run_layout(root, manifest)
    variants, dealer = layout.variants, layout.dealer
    n = deal_count(manifest)
    ours = first_scores(root, manifest, variants, n)
    theirs = first_scores(run[0], run[1], variants, n)
    rows = []
    for v, name in enumerate(variants):
        for rel, offset in zip(REL_NAMES, REL_OFFSET, strict=True):
            seat = (dealer + offset) % 4
            h, s = theirs[v, seat].astype(np.float64), ours[v, seat].astype(np.float64)
            hi, si, di = mean_interval(h), mean_interval(s), mean_interval(s - h)
            rows.append([name, rel, n, hi.mean, hi.lo, hi.hi, si.mean, si.lo, si.hi,
                         di.mean, di.lo, di.hi])  # fmt: skip
    return pd.DataFrame(rows, columns=COLUMNS)
