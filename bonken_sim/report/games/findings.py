"""Key findings and "what this means" lines of a game run's report (``bonken-sim report
GAME_DIR``), computed from its tables: never a number typed in. The sentences on win rates
and on a pair of profiles that isolates one skill are also the games section's beside a deal
run (``game_set.section``)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.games import stats as G
from bonken_sim.report.page.format import ci_words, extremes, fmt_ci, pct_ci


def win_rates_sentence(prof: pd.DataFrame) -> str:
    """The profiles' win rates, highest first, each with its interval."""
    ranked = prof.sort_values("win_rate", ascending=False)
    parts = [
        f"{n} {pct_ci(p, lo, hi)}"
        for n, p, lo, hi in zip(
            ranked["name"],
            ranked["win_rate"],
            ranked["win_ci_low"],
            ranked["win_ci_high"],
            strict=True,
        )
    ]
    return "Game win rates: " + ", ".join(parts) + " (a shared first place counts for each)."


def value_sentence(row: pd.Series) -> str:
    """One pair that isolates a skill, in game points and win rate."""
    what = {
        "contract choice": "Choosing contracts by the fitted policy rather than at random",
        "doubling": "Doubling by the fitted thresholds rather than never",
        "card play": f"{row['profile'].capitalize()} card play rather than {row['versus']}",
    }[row["measures"]]
    return (
        f"{what} is worth "
        f"{ci_words(row['total_diff'], row['total_diff_ci_low'], row['total_diff_ci_high'])} "
        f"points per game and "
        f"{100 * row['win_diff']:+.1f} percentage points of win rate in whole games "
        f"({row['profile']} − {row['versus']} on the same deals)."
    )


def skill_rows(h2h: pd.DataFrame) -> pd.DataFrame:
    """The head-to-head rows whose two profiles differ in one skill, turned so that the
    better side comes first, with the skill in ``measures``."""
    rows = []
    for row in h2h.to_dict("records"):
        diff = G.single_difference(row["profile"], row["versus"])
        if diff is None:
            continue
        if not diff[1]:
            row["profile"], row["versus"] = row["versus"], row["profile"]
            for q in ("win_diff", "total_diff"):
                lo, hi = row[f"{q}_ci_low"], row[f"{q}_ci_high"]
                row[q], row[f"{q}_ci_low"], row[f"{q}_ci_high"] = -row[q], -hi, -lo
        rows.append({**row, "measures": diff[0]})
    return pd.DataFrame(rows)


def game_run_findings(stats: G.GameStats, res: pd.DataFrame, h2h: pd.DataFrame) -> list[str]:
    """Win rates per profile (per seat when one profile holds every seat), each pair of
    profiles that isolates one skill, and the doubling comparison when there is one."""
    prof = res[res["group"] == "profile"]
    if len(prof) > 1:
        out = [win_rates_sentence(prof)]
    else:
        seats = res[res["group"] == "seat"]
        spread = seats["mean_total"].max() - seats["mean_total"].min()
        out = [
            f"One profile ({prof['name'].iloc[0]}) at every seat: the seats' win rates run "
            f"from {100 * seats['win_rate'].min():.1f}% to {100 * seats['win_rate'].max():.1f}% "
            f"and their mean totals differ by at most {spread:.1f} points per game."
        ]
    out.append(
        f"{100 * stats.shared_first / max(1, stats.games):.1f}% of the {stats.games:,} games "
        "had a shared first place."
    )
    skills = skill_rows(h2h)
    for measure in G.MEASURES:
        if len(skills) and (skills["measures"] == measure).any():
            out.append(value_sentence(skills[skills["measures"] == measure].iloc[0]))
    if len(skills):
        out.append(
            "Each profile kept one seat throughout, and the order round the table moves these "
            "differences too; a deal run's report with --games pools several seatings."
        )
    if stats.compare is not None:
        out.append(doubling_effect_meaning(G.doubling_effect(stats)))
    return out


def results_meaning(res: pd.DataFrame) -> str:
    prof = res[res["group"] == "profile"]
    if len(prof) < 2:
        seats = res[res["group"] == "seat"]
        best, worst = extremes(seats, "win_rate")
        return (
            f"With one profile everywhere the seats differ only by chance: {best['name']} won "
            f"{100 * best['win_rate']:.1f}%, {worst['name']} {100 * worst['win_rate']:.1f}%."
        )
    best, worst = extremes(prof, "win_rate")
    return (
        f"{best['name']} wins most often ({100 * best['win_rate']:.1f}% of games, "
        f"{fmt_ci(best['mean_total'], best['total_ci_low'], best['total_ci_high'], 1)} points "
        f"per game), {worst['name']} least ({100 * worst['win_rate']:.1f}%, "
        f"{fmt_ci(worst['mean_total'], worst['total_ci_low'], worst['total_ci_high'], 1)})."
    )


def _widest(con: pd.DataFrame, value: str, template: str) -> str:
    """``template`` filled with the contract whose ``value`` differs most between the
    profiles (between the seats when one profile holds them all), and the units with the
    highest and the lowest ``value`` there; empty when there is nothing to compare."""
    group = "profile" if (con["group"] == "profile").sum() > len(G.CONTRACTS) else "seat"
    rows = con[con["group"] == group]
    col = f"{value}_mean"
    spread = rows.groupby("contract")[col].agg(lambda x: x.max() - x.min())
    if not len(spread) or not np.isfinite(spread.max()):
        return ""
    c = str(spread.idxmax())
    here = rows[rows["contract"] == c]
    hi, lo = extremes(here, col)
    return template.format(c=c, hi=hi["name"], lo=lo["name"], x=hi[col], y=lo[col])


def contracts_meaning(con: pd.DataFrame) -> str:
    return _widest(
        con,
        "final",
        "The totals part most in {c}: {hi} scores {x:+.1f} settled points per game in it, "
        "{lo} {y:+.1f}.",
    )


def doubling_meaning(con: pd.DataFrame) -> str:
    return _widest(
        con,
        "transfer",
        "Doubling moves the most in {c}: {hi} gains {x:+.1f} points per game there through "
        "doubles, {lo} {y:+.1f}.",
    )


def doubling_effect_meaning(eff: pd.DataFrame) -> str:
    rows = eff[eff["group"] == "profile"]
    if len(rows) < 2:  # one profile's mean over all four seats is always 0: show the seats
        rows = eff[eff["group"] == "seat"]
    top = rows.loc[rows["win_diff"].abs().idxmax()]
    return (
        f"On the same games, doubling changed who finished first in "
        f"{100 * eff['winner_changed'].iloc[0]:.1f}% of them; it moved {top['name']}'s win "
        f"rate most, by {100 * top['win_diff']:+.1f} percentage points "
        f"({fmt_ci(top['total_diff'], top['total_diff_ci_low'], top['total_diff_ci_high'], 1)}"
        " points per game)."
    )
