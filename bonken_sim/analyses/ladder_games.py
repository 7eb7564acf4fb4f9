"""The strategy ladder's whole-game rungs (``bonken-sim ladder --games N``): two profiles at a
time, each a tournament on the same deals (analyses/tournament.py: every deal set played
under the six seatings of two profiles, each holding two seats).

* **distance from the strongest**: each heuristic profile of ``HEURISTIC`` against
  ``STRONGEST``: the heuristic's points per game minus the strongest's.
* **the expert's steps**: each profile of ``STEPS`` against ``expert-fitted`` (fitted choice
  and doubling thresholds, expert card play): what choosing, doubling, or both, by search
  adds (``expert``, the strongest, adds both and adaptive sampling).

A rung's difference is paired per deal set: both profiles' mean totals over the set's six
seatings (they share its cards), then their difference, with a normal 95% interval over
sets. Win rates are Wilson's over seat-games, a shared first place a win for each, as the
tournament's. Every rung plays the same deal sets (the ladder's seed), so they compare.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bonken_sim.analyses.tournament import SeatingTask, arrangements, play_seating
from bonken_sim.errors import BadValue
from bonken_sim.stats import Interval, mean_interval, wilson_interval

#: the strongest whole-game profile (expert card play with adaptive sampling, choice and
#: doubling by search); the heuristic profiles' distance is measured from it
STRONGEST = "expert"
HEURISTIC = ("advanced", "basic", "basic-nodouble", "basic-randomchoice")
BASE = "expert-fitted"  # the expert's game with the fitted choice and doubling
STEPS = ("expert-choice", "expert-double", "expert")  # each against BASE
SEATINGS = len(arrangements(2))  # a deal set's games: every seating of two profiles
MIN_GAMES = 2 * SEATINGS  # two deal sets: the fewest with a confidence interval
MAX_GAMES = 10_000_000


def check_games(games: int) -> None:
    """A BadValue for a count of games the whole-game rungs cannot be measured with."""
    if games == 0:
        return
    if games < MIN_GAMES:
        raise BadValue(
            f"--games must be 0 (no whole-game rungs) or at least {MIN_GAMES} (two deal sets "
            f"of {SEATINGS} seatings: a confidence interval needs two), got {games}"
        )
    if games > MAX_GAMES:
        raise BadValue(f"--games must be at most {MAX_GAMES:,}, got {games:,}")


def pair_rung(
    games: int, seed: int, profile: str, against: str, threads: int | None
) -> dict[str, Any]:
    """``profile`` against ``against`` on ``games`` games (rounded up to whole deal sets):
    ``profile``'s points per game minus ``against``'s, paired per deal set, and both win
    rates."""
    sets = -(-games // SEATINGS)
    pair = (profile, against)
    total = np.zeros((sets, 2))  # per set and profile: the sum of its seat totals
    wins = np.zeros(2, np.int64)
    for seating in arrangements(2):
        task = SeatingTask(seed, seating, pair, 0, sets, False, True, threads)
        r = play_seating(task)
        for seat, j in enumerate(seating):
            total[:, j] += r.totals[:, seat]
            wins[j] += int(r.wins[seat])
    seat_games = sets * SEATINGS * 2  # each profile holds two seats of every game
    per_set = total / (SEATINGS * 2)  # each profile's mean total per game, per deal set
    return {
        "profile": profile,
        "against": against,
        "difference": mean_interval(per_set[:, 0] - per_set[:, 1]),
        "mean_total": {p: mean_interval(per_set[:, j]) for j, p in enumerate(pair)},
        "win_rate": {p: wilson_interval(int(wins[j]), seat_games) for j, p in enumerate(pair)},
    }


def game_rungs(games: int, seed: int, threads: int | None) -> dict[str, Any]:
    """Every whole-game rung on ``games`` games of ``seed`` (rounded up to whole deal sets)."""
    check_games(games)
    sets = -(-games // SEATINGS)
    return {
        "games": sets * SEATINGS,
        "deal_sets": sets,
        "seed": seed,
        "strongest": STRONGEST,
        "base": BASE,
        "distance": {h: pair_rung(games, seed, h, STRONGEST, threads) for h in HEURISTIC},
        "steps": {s: pair_rung(games, seed, s, BASE, threads) for s in STEPS},
    }


def _rate(iv: Interval) -> str:
    return f"{iv.mean:6.1%} [{iv.lo:.1%}, {iv.hi:.1%}]"


def _block(title: str, other: str, rungs: dict[str, Any]) -> list[str]:
    """One table of rungs, each profile against ``other``."""
    theirs = f"{other}'s win rate"
    lines = [
        title,
        f"  points per game of the profile minus {other}'s (paired per deal set), win rates,"
        " 95% CI",
        f"  {'profile':20s}{'points per game':>17s}   {'its win rate':>22s}   {theirs:>22s}",
    ]
    for name, r in rungs.items():
        rates = r["win_rate"]
        lines.append(
            f"  {name:20s}{r['difference'].text(9):>17s}   {_rate(rates[name]):>22s}   "
            f"{_rate(rates[other]):>22s}"
        )
    return lines


def game_text(g: dict[str, Any]) -> list[str]:
    """The whole-game rungs as text lines (``to_text`` of the ladder)."""
    strongest, base = g["strongest"], g["base"]
    head = (
        f"whole games against {strongest}: {g['games']:,} games = {g['deal_sets']:,} deal sets"
        f" × {SEATINGS} seatings, seed {g['seed']}"
    )
    steps = f"the expert's game, step by step: each against {base} (fitted choice and doubling)"
    return [
        *_block(head, strongest, g["distance"]),
        "",
        *_block(steps, base, g["steps"]),
    ]
