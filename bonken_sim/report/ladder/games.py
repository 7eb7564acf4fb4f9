"""The whole-game rungs of a strategy ladder (``bonken-sim ladder --games N``) in the report's
"How far from strong play": read from the ladder's JSON, as tables (each heuristic profile
against the strongest; each search step of the expert's game against expert-fitted) and
findings in words, every number read from the ladder. A ladder measured without them (or
saved before they existed) has no ``games`` key: the section then leaves them out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import pandas as pd

from bonken_sim.report.page.format import ci_digits, ci_words, fmt_ci, pct_ci

#: what each step of the expert's game changes against expert-fitted (fitted choice and
#: doubling thresholds); a profile not named here is shown by its name
STEP_WORDS = {
    "expert-choice": "contract choice by search",
    "expert-double": "doubling by search",
    "expert": "choice and doubling by search, card play with adaptive sampling",
}
#: what the strongest profile plays, for the section's introduction
PROFILE_WORDS = {
    "expert": "expert card play with adaptive sampling, contract choice and doubling by search"
}
COLUMNS = [
    "kind",  # "distance" (a heuristic profile against the strongest) or "step"
    "profile",
    "against",
    "mean",  # the profile's points per game minus the other's, paired per deal set
    "ci_low",
    "ci_high",
    "deal_sets",
    "win_rate",  # the profile's, then the other's, Wilson 95% CIs over seat-games
    "win_low",
    "win_high",
    "against_win_rate",
    "against_win_low",
    "against_win_high",
    "seat_games",
]


class GameRungsError(ValueError):
    """The ladder's ``games`` block is not what ``bonken-sim ladder --games`` writes."""


@dataclass(frozen=True)
class GameRungs:
    games: int
    deal_sets: int
    seed: int
    strongest: str
    base: str  # expert-fitted, the steps are measured against it
    table: pd.DataFrame  # COLUMNS, the distances first, then the steps


def read_game_rungs(block: Any) -> GameRungs:
    """The whole-game rungs of a ladder's ``games`` block (GameRungsError if malformed)."""
    try:
        counts = [block[k] for k in ("games", "deal_sets", "seed")]
        strongest, base = str(block["strongest"]), str(block["base"])
        kinds = {"distance": block["distance"], "step": block["steps"]}
    except (TypeError, KeyError):
        raise GameRungsError("its whole-game rungs are incomplete") from None
    if not all(isinstance(c, int) for c in counts) or not all(
        isinstance(v, dict) and v for v in kinds.values()
    ):
        raise GameRungsError("its whole-game rungs are not counts and rungs")
    rows = [_row(kind, name, r) for kind, rungs in kinds.items() for name, r in rungs.items()]
    games, sets, seed = counts
    return GameRungs(games, sets, seed, strongest, base, pd.DataFrame(rows, columns=COLUMNS))


def _row(kind: str, name: str, r: Any) -> tuple:
    try:
        profile, against = str(r["profile"]), str(r["against"])
        d = r["difference"]
        mine, theirs = r["win_rate"][profile], r["win_rate"][against]
        lo, hi = (float(x) for x in d["ci95"])
        wlo, whi = (float(x) for x in mine["ci95"])
        alo, ahi = (float(x) for x in theirs["ci95"])
        row = (kind, profile, against, float(d["mean"]), lo, hi, int(d["n"]))
        rates = (float(mine["mean"]), wlo, whi, float(theirs["mean"]), alo, ahi, int(mine["n"]))
    except (TypeError, KeyError, ValueError):
        raise GameRungsError(f"its whole-game rung {name} is not intervals") from None
    if profile != name or row[-1] < 2 or not math.isfinite(row[3]):
        raise GameRungsError(f"its whole-game rung {name} has no interval")
    return row + rates


def _rows(g: GameRungs, kind: str) -> pd.DataFrame:
    return g.table[g.table["kind"] == kind].reset_index(drop=True)


def _rate(t: pd.DataFrame, prefix: str) -> list[str]:
    cols = (prefix + "win_rate", prefix + "win_low", prefix + "win_high")
    return [pct_ci(p, lo, hi) for p, lo, hi in zip(*(t[c] for c in cols), strict=True)]


def _points(t: pd.DataFrame) -> list[str]:
    return [
        fmt_ci(m, lo, hi, 2) for m, lo, hi in zip(t["mean"], t["ci_low"], t["ci_high"], strict=True)
    ]


def distance_shown(g: GameRungs) -> pd.DataFrame:
    """Each heuristic profile against the strongest: points per game and both win rates."""
    t = _rows(g, "distance")
    return pd.DataFrame(
        {
            "profile": t["profile"],
            f"points per game minus {g.strongest}'s": _points(t),
            "its win rate": _rate(t, ""),
            f"{g.strongest}'s win rate": _rate(t, "against_"),
        }
    )


def steps_shown(g: GameRungs) -> pd.DataFrame:
    """Each step of the expert's game against expert-fitted."""
    t = _rows(g, "step")
    return pd.DataFrame(
        {
            "profile": t["profile"],
            "what it changes": [STEP_WORDS.get(p, p) for p in t["profile"]],
            f"points per game minus {g.base}'s": _points(t),
            "its win rate": _rate(t, ""),
            f"{g.base}'s win rate": _rate(t, "against_"),
        }
    )


def _gap(row: pd.Series, strongest: str) -> str:
    """'advanced is 12.3 points per game behind expert (95% CI 10.1 to 14.5)'."""
    m, lo, hi = row["mean"], row["ci_low"], row["ci_high"]
    if m < 0:  # behind: the distance as a positive number, its interval turned round
        m, lo, hi = -m, -hi, -lo
    k = max(1, ci_digits(lo, hi))
    side = "behind" if row["mean"] < 0 else "ahead of"
    sure = "" if lo > 0 or hi < 0 else ", not significantly different"
    return (
        f"{row['profile']} is {m:.{k}f} points per game {side} {strongest} "
        f"(95% CI {lo:.{k}f} to {hi:.{k}f}{sure})"
    )


def game_findings(g: GameRungs) -> list[str]:
    """Two sentences: each heuristic profile's distance from the strongest, nearest first;
    then what each search step of the expert's game adds."""
    dist = _rows(g, "distance").sort_values("mean", ascending=False)
    parts = [_gap(row, g.strongest) for _, row in dist.iterrows()]
    near = dist.iloc[0]
    first = (
        f"Over {g.games:,} whole games per pair (seed {g.seed}), "
        + "; ".join(parts)
        + f". The nearest, {near['profile']}, wins {near['win_rate']:.1%} of its seat-games "
        f"against {g.strongest}'s {near['against_win_rate']:.1%}."
    )
    steps = []
    for _, row in _rows(g, "step").iterrows():
        name = row["profile"]
        what = f"{STEP_WORDS[name]} ({name})" if name in STEP_WORDS else name
        sure = "" if row["ci_low"] > 0 or row["ci_high"] < 0 else ", not significant"
        gain = ci_words(row["mean"], row["ci_low"], row["ci_high"], 1, " points per game")
        steps.append(f"{what} gains {gain}{sure}")
    second = (
        f"Against {g.base} (the fitted choice and doubling thresholds), " + "; ".join(steps) + "."
    )
    return [first, second]
