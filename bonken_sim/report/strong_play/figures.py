"""The figures of the report's "Under strong play" section: the paired change of each
contract's cost per seat, and the game values of choice and doubling under both plays."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bonken_sim.report.deals.stats.histograms import REL_NAMES
from bonken_sim.report.page.figure_kit import REL_COLORS, REL_DISPLAY, new_figure

PLAY_COLORS = {"heuristic": "#7f7f7f", "strong": "#d62728"}


def strong_costs(t: pd.DataFrame, tolerance: float) -> Figure:
    """Per variant (rows) and seat (colours): strong − heuristic mean score per deal with its
    95% CI; the band: ± ``tolerance``, the change the findings call negligible."""
    variants = list(dict.fromkeys(t["variant"]))
    n = len(variants)
    title = "Each contract's cost per seat: strong play minus the run's play (same deals, 95% CI)"
    fig = new_figure(0.45 * n + 1.9, title, left=1.4, top=0.8, bottom=1.3)
    ax = fig.subplots()
    y = np.arange(n)
    offsets = np.linspace(-0.27, 0.27, len(REL_NAMES))
    for k, rel in enumerate(REL_NAMES):
        d = t[t["seat"] == rel].set_index("variant").loc[variants]
        m = d["diff_mean"].to_numpy(float)
        err = np.vstack([m - d["diff_ci_low"], d["diff_ci_high"] - m])
        ax.errorbar(m, y + offsets[k], xerr=err, fmt="o", ms=4, capsize=2, lw=1,
                    color=REL_COLORS[rel])  # fmt: skip
    ax.axvspan(-tolerance, tolerance, color="#dddddd", alpha=0.5, lw=0)
    ax.axvline(0, color="#333", lw=0.8)
    ax.set_yticks(y, variants)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlabel("strong play's mean raw score minus the run's, points per deal")
    handles = [Line2D([], [], color=REL_COLORS[r], marker="o", label=REL_DISPLAY[r])
               for r in REL_NAMES]  # fmt: skip
    fig.legend(handles=handles, loc="lower center", ncol=4, frameon=False, title="seat")
    return fig


def strong_values(v: pd.DataFrame) -> Figure:
    """Per skill (contract choice, doubling), its value in whole games with heuristic players
    and under strong play: points per game (left) and win rate (right), 95% CIs."""
    rows = list(v.itertuples(index=False))
    title = "What choosing well and doubling are worth in whole games (95% CI over deal sets)"
    fig = new_figure(0.5 * len(rows) + 1.8, title, left=3.9, top=0.8, bottom=1.1, wspace=0.08)
    ax_pts, ax_win = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(rows))
    labels = []
    for k, r in enumerate(rows):
        color = PLAY_COLORS[r.play]
        for ax, q, scale in ((ax_pts, "total_diff", 1.0), (ax_win, "win_diff", 100.0)):
            m = scale * getattr(r, q)
            lo, hi = scale * getattr(r, f"{q}_ci_low"), scale * getattr(r, f"{q}_ci_high")
            ax.errorbar([m], [k], xerr=[[m - lo], [hi - m]], fmt="o", ms=5, capsize=3,
                        color=color)  # fmt: skip
        labels.append(f"{r.measures}: {r.profile} − {r.versus}")
    for ax in (ax_pts, ax_win):
        ax.axvline(0, color="#333", lw=0.8)
    ax_pts.set_yticks(y, labels)
    ax_pts.set_ylim(len(rows) - 0.5, -0.5)
    ax_pts.set_xlabel("points per game")
    ax_win.set_xlabel("win rate, points of %")
    handles = [Line2D([], [], color=c, marker="o", lw=0, label=f"{p} play")
               for p, c in PLAY_COLORS.items()]  # fmt: skip
    fig.legend(handles=handles, loc="lower center", ncol=2, frameon=False)
    return fig
