"""Pass 2 of the report: the chooser's relative score under each choice rule, valued as a
game values a choice.

The chooser's relative score of a contract (his score minus the baseline of that contract,
see :class:`~bonken_sim.report.deals.stats.histograms.GameChoice`) needs the means over the
whole run before the per-deal hindsight choice exists, so this pass re-reads the chooser's
score column only, with the picks pass 1 kept.

A game has troeven on 4 of its 11 deals, once per player. A rule that may call troeven on
every deal is therefore also scored under that quota: it calls troeven when its value of the
call beats its best negative by more than a price τ, with τ set so that it calls troeven on
4/11 of the deals (the best use of a fixed number of troeven turns: a Lagrange price).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bonken_sim.report.deals.stats.histograms import CHOOSER, ChoiceStats, GameChoice
from bonken_sim.report.deals.stats.part_histograms import CALL_KEY, GAP_SUFFIX, NEG_SUFFIX
from bonken_sim.report.deals.stats.run_reader import Layout, iter_parts

#: the rows a rule held to the game's troeven quota gets: "<rule>_quota"
QUOTA_SUFFIX = "_quota"
#: deals (the run's first, in part order) from which hindsight's troeven price is set
PRICE_SAMPLE = 1 << 17


def paired_choice(
    rel: np.ndarray,
    chosen: Mapping[str, np.ndarray],
    acc: ChoiceStats | None = None,
    weights: np.ndarray | None = None,
) -> ChoiceStats:
    """Fold one block of deals into the choice comparison.

    ``rel`` (V, n): the chooser's relative score of every variant on each deal; ``chosen``:
    rule name → variant index per deal. Random choice enters as its exact expectation over
    the variants with ``weights`` (default uniform): paired with every rule, with less
    variance than a sampled choice. Returns ``acc`` updated (or a new one)."""
    V, n = rel.shape
    if acc is None:
        acc = ChoiceStats.empty((*chosen, "random"), V)
    w = np.full(V, 1 / V) if weights is None else weights
    cols = np.arange(n)
    values = np.stack([rel[chosen[name], cols] for name in chosen] + [w @ rel])  # (k, n)
    sums = values.sum(1)
    # every pair's Σ(x − y)² from one Gram matrix: Σx² − 2Σxy + Σy²
    gram = values @ values.T
    sq = np.diag(gram)
    acc.sums += sums
    acc.sumsq += sq
    acc.diff_sums += sums[:, None] - sums[None, :]
    acc.diff_sumsq += np.maximum(sq[:, None] - 2 * gram + sq[None, :], 0.0)
    for i, name in enumerate(chosen):
        pick, x = chosen[name], values[i]
        acc.chosen[i] += np.bincount(pick, minlength=V)
        acc.pick_sums[i] += np.bincount(pick, x, minlength=V)
        acc.pick_sumsq[i] += np.bincount(pick, x * x, minlength=V)
    acc.n += n
    return acc


#: a tie-break far below any gap's resolution (gaps are differences of scores, or float32)
_TIE = 1e-9
_GOLDEN = 0.6180339887498949


def tie_broken(gap: np.ndarray, start: int) -> np.ndarray:
    """``gap`` (deals ``start`` … of the run) with a deterministic tie-break by deal number:
    scores are discrete, so many deals share a gap and a price alone could not hit the
    quota; the golden-ratio sequence spreads the tied deals evenly."""
    u = ((start + np.arange(len(gap))) * _GOLDEN) % 1.0
    return np.asarray(gap, np.float64) + _TIE * u


def quota_pick(
    troeven: np.ndarray, rel: np.ndarray, tau: float, start: int
) -> tuple[np.ndarray, np.ndarray]:
    """Hindsight under the quota on ``rel`` (V, n) of deals ``start`` …: (pick, the
    tie-broken gap best troeven − best negative)."""
    t_idx, n_idx = np.flatnonzero(troeven), np.flatnonzero(~troeven)
    best_t = t_idx[rel[t_idx].argmax(0)]
    best_n = n_idx[rel[n_idx].argmax(0)]
    cols = np.arange(rel.shape[1])
    gap = tie_broken(rel[best_t, cols] - rel[best_n, cols], start)
    return np.where(gap > tau, best_t, best_n), gap


def hindsight_gaps(
    layout: Layout, parts: Sequence[Mapping[str, Any]], baseline: np.ndarray, troeven
) -> np.ndarray:
    """Hindsight's (best troeven − best negative) on the run's first PRICE_SAMPLE deals."""
    out, have = [], 0
    seats = layout.seats
    for part in iter_parts(layout, parts, [seats[CHOOSER]], []):
        rel = part.scores[:, 0, :].astype(np.float64) - baseline[:, None]
        out.append(quota_pick(troeven, rel, np.inf, part.start)[1])
        have += part.n
        if have >= PRICE_SAMPLE:
            break
    return np.concatenate(out)[:PRICE_SAMPLE] if out else np.zeros(0)


def price(gaps: np.ndarray, quota: float) -> float:
    """The τ above which a share ``quota`` of ``gaps`` lie (+inf without gaps)."""
    return float(np.quantile(gaps, 1 - quota)) if len(gaps) else float("inf")


def compare_choices(
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    game: GameChoice,
    picks: Mapping[int, Mapping[str, np.ndarray]] | None = None,
    rules: Sequence[str] = (),
) -> ChoiceStats:
    """The choice comparison over ``parts`` given the game's valuation (``game``) and the
    choice rules' picks from pass 1 (by part index, then rule name): hindsight, hindsight
    under the quota, every rule, every rule with game values under the quota, random."""
    quota_rules = [r for r in rules if r in game.tau]
    names = ["hindsight"]
    if "hindsight" in game.tau:
        names.append("hindsight" + QUOTA_SUFFIX)
    for r in rules:
        names += [r] + ([r + QUOTA_SUFFIX] if r in quota_rules else [])
    acc = ChoiceStats.empty((*names, "random"), len(layout.variants))
    acc.game = game
    seats = layout.seats
    for part in iter_parts(layout, parts, [seats[CHOOSER]], []):
        rel = part.scores[:, 0, :].astype(np.float64) - game.baseline[:, None]
        mine = (picks or {}).get(part.index, {})
        chosen: dict[str, np.ndarray] = {"hindsight": rel.argmax(0)}
        if "hindsight" in game.tau:
            chosen["hindsight" + QUOTA_SUFFIX] = quota_pick(
                game.troeven, rel, game.tau["hindsight"], part.start
            )[0]
        for name in rules:
            chosen[name] = mine[name].astype(np.intp)
            if name in quota_rules:
                calls = tie_broken(mine[name + GAP_SUFFIX], part.start) > game.tau[name]
                neg = mine[name + NEG_SUFFIX].astype(np.intp)
                chosen[name + QUOTA_SUFFIX] = np.where(calls, mine[name + CALL_KEY], neg)
        paired_choice(rel, chosen, acc, game.weights)
    return acc
