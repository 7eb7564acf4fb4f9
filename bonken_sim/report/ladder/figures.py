"""The figure of the report's "How far from strong play" section (``--ladder``): per contract
variant, the paired gain of one hero among three players of a lower tier, with 95% CIs."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from bonken_sim.report.page.figure_kit import new_figure

#: (lower, hero, colour, label) of each series, top to bottom within a variant's row
SERIES = (
    ("basic", "expert", "#d62728", "expert among basic: basic's distance from expert"),
    ("advanced", "expert", "#1f77b4", "expert among advanced: advanced's distance from expert"),
    ("basic", "advanced", "#7f7f7f", "advanced among basic"),
)
OFFSET = 0.22  # vertical spacing of a variant's three series


def strong_play_gaps(t: pd.DataFrame, tier: str | None) -> Figure:
    """``t``: ``ladder_input.distance_table``. ``tier``: the run's card-play tier, whose series
    is drawn bold (None: no heuristic tier played every seat)."""
    n = len(t)
    title = "How far each heuristic tier is from expert card play (paired gains, 95% CI)"
    fig = new_figure(0.42 * n + 1.9, title, left=1.4, top=0.8, bottom=1.5)
    ax = fig.subplots()
    y = np.arange(n)
    handles = []
    for k, (lower, hero, color, label) in enumerate(SERIES):
        col = f"{lower}_{hero}_"
        m = t[col + "mean"].to_numpy(float)
        err = np.vstack([m - t[col + "ci_low"], t[col + "ci_high"] - m])
        bold = hero == "expert" and lower == tier
        yy = y + (k - 1) * OFFSET
        ax.errorbar(m, yy, xerr=err, fmt="o", color=color, ms=6 if bold else 4,
                    lw=2.2 if bold else 1.1, capsize=2)  # fmt: skip
        name = label + (" (this run's tier)" if bold else "")
        handles.append(Line2D([], [], color=color, marker="o", lw=2.2 if bold else 1.1,
                              label=name))  # fmt: skip
    ax.axvline(0, color="#333", lw=0.8)
    ax.set_yticks(y, t["variant"])
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlabel("hero's mean score minus the seat average (points per deal)")
    fig.legend(handles=handles, loc="lower center", ncol=1, bbox_to_anchor=(0.5, 0.0),
               frameon=False, title="one hero among three of the lower tier, same deals, "
               "seats permuted")  # fmt: skip
    return fig
