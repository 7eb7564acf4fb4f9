"""``bonken-sim summary`` of a game run as plain text (the dict of
``game_summary.summarize_game_run``); lines of at most 100 columns."""

from __future__ import annotations

import math
from typing import Any

from bonken_sim.runs.lock import Holder


def has_interval(e: dict[str, Any]) -> bool:
    """Whether the estimate ``e`` has a 95% interval (one game or deal has none: NaN bounds,
    or None in JSON)."""
    ci = e["ci95"]
    return ci is not None and all(x is not None and math.isfinite(x) for x in ci)


def stands_alone(unit: str, what: str) -> str:
    """The line over a table of one deal (game) ``unit``: its ``what`` (scores, differences)
    stand alone, without an interval."""
    return f"one {unit}: its {what} stand alone (a 95% CI needs two {unit}s or more)"


def _pm(e: dict[str, Any], digits: int = 2) -> str:
    """``+3.21 ± 0.45``: a mean and the half-width of its 95% interval; the mean alone when
    it has no interval."""
    if not has_interval(e):
        return f"{e['mean']:+.{digits}f}"
    lo, hi = e["ci95"]
    return f"{e['mean']:+.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def _rate(e: dict[str, Any]) -> str:
    """``26.10% [24.52, 27.74]``: a win rate and its Wilson interval, in percent."""
    lo, hi = e["ci95"]
    return f"{100 * e['mean']:6.2f}% [{100 * lo:5.2f}, {100 * hi:5.2f}]"


def being_written(writer: dict[str, Any] | None) -> list[str]:
    """The line a summary prints about a run that is being written (none when it is not)."""
    if writer is None:
        return []
    holder = Holder.from_dict(writer)
    return [f"being written now by {holder.describe()}: this covers the parts finished so far"]


def _head(s: dict[str, Any]) -> list[str]:
    players = s["players"]
    who = players[0] if len(set(players)) == 1 else ",".join(players)
    return [
        f"{s['run']}: {s.get('run_kind', 'game run')}, {s['state']}, "
        f"{s['games_done']:,} of {s['games']:,} games, seed {s['seed']}",
        f"players {who}, order {s['order']}, doubling {'on' if s['doubling'] else 'off'}, "
        f"ruleset {s['ruleset']}",
        *being_written(s.get("writer")),
    ]


def game_summary_lines(s: dict[str, Any]) -> list[str]:
    """The summary of a game run: per seat and per profile the win rate and mean total, then
    the settled points per game from each contract, each with its 95% interval."""
    lines = _head(s)
    # a profile column as wide as its longest name (a match's ``cmd:...`` players are long)
    w = max(22, *(len(str(p)) + 2 for p in s["players"]))
    if not s["seats"]:
        return [*lines, "no finished part yet: nothing to summarise"]
    lines += [
        "",
        "win rate: rank 1, a shared first place counting for each (Wilson 95% CI)",
        "mean total: the settled total per game ± the half-width of its 95% CI",
        *([] if s["games_done"] > 1 else [stands_alone("game", "totals and points")]),
        f"{'seat':<5}{'profile':<{w}}{'win rate':>24}{'mean total':>20}",
    ]
    for row in s["seats"]:
        lines.append(
            f"{row['seat']:<5}{row['profile']:<{w}}{_rate(row['win_rate']):>24}"
            f"{_pm(row['mean_total']):>20}"
        )
    by_profile = len(s["profiles"]) < 4  # some profile holds several seats
    if by_profile:
        lines += ["", f"{'profile':<{w}}{'seats':<7}{'win rate':>24}{'mean total per seat':>22}"]
        for row in s["profiles"]:
            seats = ",".join(str(p) for p in row["seats"])
            lines.append(
                f"{row['profile']:<{w}}{seats:<7}{_rate(row['win_rate']):>24}"
                f"{_pm(row['mean_total']):>22}"
            )
    if s["shared_first"]:
        k = s["shared_first"]
        lines.append(f"{k:,} game{'s' if k != 1 else ''} had a shared first place")
    lines += [
        "",
        "settled points per game from each contract ± the 95% CI half-width, by seat",
        "(they add up to the mean totals)",
        f"{'contract':<13}{'deals':>11}" + "".join(f"{f'seat {p}':>17}" for p in range(4)),
    ]
    for row in s["contracts"]:
        cells = "".join(f"{_pm(e):>17}" for e in row["seats"])
        lines.append(f"{row['contract']:<13}{row['deals']:>11,}{cells}")
    if by_profile:
        names = [p["profile"] for p in s["profiles"]]
        lines += ["", "the same per profile (per seat it holds)"]
        lines.append(f"{'contract':<13}" + "".join(f"{n[:16]:>17}" for n in names))
        for row in s["contracts"]:
            cells = "".join(f"{_pm(row['profiles'][n]):>17}" for n in names)
            lines.append(f"{row['contract']:<13}{cells}")
    return lines


def counted(n: int, noun: str) -> str:
    """``1 part``, ``3 parts``: a count with its noun."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
