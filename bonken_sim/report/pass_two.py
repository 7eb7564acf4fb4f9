"""Pass 2 of the report: the chooser's relative score under each choice rule.

The chooser's relative score of a contract (his score minus that contract's mean chooser
score) needs the means over the whole run before the per-deal hindsight choice exists, so
this pass re-reads the chooser's score column only, with the picks pass 1 kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bonken_sim.report.histograms import CHOOSER, ChoiceStats
from bonken_sim.report.run_reader import Layout, iter_parts


def paired_choice(
    rel: np.ndarray, chosen: Mapping[str, np.ndarray], acc: ChoiceStats | None = None
) -> ChoiceStats:
    """Fold one block of deals into the choice comparison.

    ``rel`` (V, n): the chooser's relative score of every variant on each deal; ``chosen``:
    rule name → variant index per deal. Uniform random choice enters as its exact expectation
    over the variants (the mean of each column): paired with every rule, with less variance
    than a sampled choice. Returns ``acc`` updated (or a new one)."""
    V, n = rel.shape
    if acc is None:
        acc = ChoiceStats.empty((*chosen, "random"), V)
    cols = np.arange(n)
    values = [rel[chosen[name], cols] for name in chosen] + [rel.mean(0)]
    for i, x in enumerate(values):
        acc.sums[i] += x.sum()
        acc.sumsq[i] += (x * x).sum()
        for j, y in enumerate(values):
            if j != i:
                d = x - y
                acc.diff_sums[i, j] += d.sum()
                acc.diff_sumsq[i, j] += (d * d).sum()
        if i < len(chosen):
            acc.chosen[i] += np.bincount(chosen[acc.rules[i]], minlength=V)
    acc.n += n
    return acc


def pass_two(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    mu: np.ndarray,
    picks: Mapping[int, Mapping[str, np.ndarray]] | None = None,
    rules: Sequence[str] = (),
) -> ChoiceStats:
    """The choice comparison over ``parts``, given each variant's mean chooser score and the
    choice rules' picks from pass 1 (by part index, then rule name)."""
    acc = ChoiceStats.empty(("hindsight", *rules, "random"), len(layout.variants))
    seats = layout.seats
    for part in iter_parts(layout, parts, [seats[CHOOSER]], []):
        rel = part.scores[:, 0, :].astype(np.float64) - mu[:, None]
        chosen: dict[str, np.ndarray] = {"hindsight": rel.argmax(0)}
        for name in rules:
            chosen[name] = (picks or {})[part.index][name].astype(np.intp)
        paired_choice(rel, chosen, acc)
    return acc
