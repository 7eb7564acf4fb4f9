"""What choosing well and doubling are worth in whole games, with heuristic players and under
strong play side by side: each the pair of profiles that differs in that skill alone (basic
against basic-randomchoice and basic-nodouble; expert against expert-randomchoice and
expert-nodouble), points per game and win rate paired per deal set, and the difference of the
two values.

The two values come from different games, so the interval of their difference adds the two
standard errors in quadrature; where both game sets share deal sets (one seed) the values are
positively correlated and that interval is, if anything, too wide.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bonken_sim.report.games.game_set import tables as T
from bonken_sim.report.games.game_set.stats import GameSetStats
from bonken_sim.stats import Z95

MEASURES = ("contract choice", "doubling")
#: the profile each play's skill pairs are read with first, where a game set has several
HEROES = {"heuristic": "basic", "strong": "expert"}
COLUMNS = [
    "measures", "play", "profile", "versus", "deal_sets",
    "total_diff", "total_diff_ci_low", "total_diff_ci_high",
    "win_diff", "win_diff_ci_low", "win_diff_ci_high",
]  # fmt: skip


def skill_values(play: str, st: GameSetStats | None) -> pd.DataFrame:
    """The rows of ``st``'s pairs that measure choice or doubling alone, one per measure
    (the pair with ``HEROES[play]`` where there is one), tagged with ``play``."""
    if st is None:
        return pd.DataFrame(columns=COLUMNS)
    val = T.value_table(st)
    rows = []
    for m in MEASURES:
        here = val[val["measures"] == m]
        hero = here[(here["profile"] == HEROES[play]) | (here["versus"] == HEROES[play])]
        if len(here):
            rows.append((hero if len(hero) else here).iloc[0])
    out = pd.DataFrame(rows).assign(play=play) if rows else pd.DataFrame(columns=COLUMNS)
    return out.reindex(columns=COLUMNS).reset_index(drop=True)


def value_table(heuristic: GameSetStats | None, strong: GameSetStats) -> pd.DataFrame:
    """Both plays' skill values, heuristic rows first."""
    parts = [skill_values("heuristic", heuristic), skill_values("strong", strong)]
    return pd.concat([p for p in parts if len(p)], ignore_index=True).reindex(columns=COLUMNS)


def difference(a: pd.Series, b: pd.Series, q: str = "total_diff") -> tuple[float, float, float]:
    """``a − b`` of two independent estimates with 95% CIs, and its 95% CI."""
    se_a = (a[f"{q}_ci_high"] - a[f"{q}_ci_low"]) / (2 * Z95)
    se_b = (b[f"{q}_ci_high"] - b[f"{q}_ci_low"]) / (2 * Z95)
    d = float(a[q] - b[q])
    half = Z95 * math.sqrt(se_a**2 + se_b**2)
    return d, d - half, d + half


def win_by_profile(st: GameSetStats) -> pd.DataFrame:
    """The strong game set's win rates and totals per profile (``game_set.tables``)."""
    prof = T.profile_table(st)
    return prof[np.isfinite(prof["win_rate"])].reset_index(drop=True)
