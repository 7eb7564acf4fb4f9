"""How often each kind of double pays in whole games, from game runs' deals as played: a
non-chooser doubling the chooser, a non-chooser doubling another non-chooser, and the chooser
doubling back a player who doubled him. A double of ``t`` by ``d`` pays when ``d`` scores
more than ``t`` in the deal (``d`` then gains ``s_d − s_t``, RULES.md §5).

The unit is the deal set (game ``g`` of a seed, the same cards in every run of that seed):
the doubles of one deal, and of one deal set's seatings, are not independent. Each figure is
a ratio of per-deal-set sums with its delta-method 95% interval over deal sets.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.games import stats as G
from bonken_sim.report.games.game_set.moments import RatioMoments
from bonken_sim.report.games.game_set.stats import GameRun, chooser_deals, lockstep

KINDS = ("of the chooser", "between non-choosers", "back, by the chooser")


def double_kinds(runs: list[GameRun]) -> pd.DataFrame:
    """Per kind of double: doubles per deal, the share that paid and the mean gain per
    double (95% CIs over deal sets), with the deals and doubles counted."""
    rate, paid, gain = (RatioMoments((len(KINDS),)) for _ in range(3))
    deals, doubles = 0, np.zeros(len(KINDS), np.int64)
    by_seed: dict[int, list[GameRun]] = {}
    for r in runs:
        by_seed.setdefault(r.seed, []).append(r)
    for group in by_seed.values():
        for _, blocks in lockstep(group, chooser_deals):
            n, k, won, got = _sums(blocks)
            rate.add(k, n)
            paid.add(won, k)
            gain.add(got, k)
            deals += int(n[:, 0].sum())
            doubles += k.sum(0).astype(np.int64)
    cols: dict[str, np.ndarray] = {}
    for name, mom in (("per_deal", rate), ("paid", paid), ("gain", gain)):
        m, lo, hi = mom.ratio_ci()
        cols |= {f"{name}_mean": m, f"{name}_ci_low": lo, f"{name}_ci_high": hi}
    return pd.DataFrame({"kind": KINDS, "deals": deals, "doubles": doubles, **cols})


def _sums(blocks: list) -> tuple[np.ndarray, ...]:
    """Per deal set of ``blocks`` (the same games in every run): deals, and per kind the
    doubles, those that paid and their gains, each (m, kinds)."""
    m = len(blocks[0][0])
    n, k, won, got = (np.zeros((m, len(KINDS))) for _ in range(4))
    for game, _, raw, dbl, _ in blocks:
        chooser = (game[:, None] + np.arange(G.DEALS_PER_GAME) + 2) % 4  # (m, 11)
        n += G.DEALS_PER_GAME
        for d in range(4):
            for t in range(4):
                if d == t:
                    continue
                made = (dbl.astype(np.int64) >> (4 * d + t)) & 1 == 1  # (m, 11)
                edge = raw[..., d].astype(np.float64) - raw[..., t]
                kind = np.where(chooser == t, 0, np.where(chooser == d, 2, 1))
                for j in range(len(KINDS)):
                    here = made & (kind == j)
                    k[:, j] += here.sum(1)
                    won[:, j] += (here & (edge > 0)).sum(1)
                    got[:, j] += np.where(here, edge, 0.0).sum(1)
    return n, k, won, got
