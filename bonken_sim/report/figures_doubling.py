"""The figures of a deal run's third section: whether a double pays, per contract and
ordered pair of seats (heatmaps of the mean gain and of the share of doubles that gain, the
gain by the doubler's high-card points, and each doubling rule's realised gain).

Each figure is drawn from its table(s) of ``tables``.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.figure_kit import (
    MIN_N,
    bottom_legend,
    label_cells,
    line_band,
    new_figure,
    panel_grid,
    side_colorbar,
)
from bonken_sim.report.histograms import PAIRS, REL_NAMES
from bonken_sim.report.tables import DOUBLE_GROUPS, HCP_BUCKETS


def _pair_order() -> list[tuple[str, str]]:
    """Pairs with the chooser as target first, then the others, then the chooser's own."""
    named = [(REL_NAMES[d], REL_NAMES[t]) for d, t in PAIRS]
    return sorted(named, key=lambda p: (p[0] == "chooser", p[1] != "chooser"))


def _double_heatmap(
    t: pd.DataFrame,
    value: str,
    lo: str,
    hi: str,
    title: str,
    fmt,
    label: str,
    cmap: str,
    center,
    half_fmt=None,
) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    order = _pair_order()
    key = t.set_index(["doubler", "target", "variant"])
    idx = pd.MultiIndex.from_tuples([(d, tg, v) for d, tg in order for v in variants])
    shape = (len(order), len(variants))
    grid = key[value].reindex(idx).to_numpy(float).reshape(shape)
    half = ((key[hi] - key[lo]) / 2).reindex(idx).to_numpy(float).reshape(shape)
    fig = new_figure(
        0.52 * len(order) + 1.9,
        title,
        left=2.2,
        right=1.4,
        top=0.6,
        bottom=1.2,
    )
    ax = fig.subplots()
    finite = np.isfinite(grid)
    span = float(np.nanmax(np.abs(grid - center))) if finite.any() else 1.0
    span = span or 1.0
    image = ax.imshow(grid, cmap=cmap, vmin=center - span, vmax=center + span, aspect="auto")

    def text(i: int, j: int) -> str:
        out = fmt(grid[i, j])
        if np.isfinite(half[i, j]):
            out += "\n±" + (half_fmt or fmt)(half[i, j]).lstrip("+")
        return out

    dark = np.abs(grid - center) > 0.6 * span
    label_cells(ax, grid, text, dark, fontsize=7.5, linespacing=1.05)
    ax.set_xticks(range(len(variants)), variants, rotation=35, ha="right")
    rows = [f"{d.replace('_', ' ')} → {tg.replace('_', ' ')}" for d, tg in order]
    ax.set_yticks(range(len(order)), rows)
    ax.set_ylabel("doubler → target")
    ax.grid(False)
    side_colorbar(fig, image, 1.15, 0.25, 0.55, label)
    return fig


def doubling_mean(t: pd.DataFrame, title: str | None = None) -> Figure:
    return _double_heatmap(
        t,
        "mean",
        "ci_low",
        "ci_high",
        title or "Doubling: the doubler's mean gain s_doubler − s_target per double (±95% CI)",
        lambda x: f"{x:+.1f}",
        "mean gain of one double (points); blue = it pays",
        "RdBu",
        0.0,
    )


def doubling_win_rate(t: pd.DataFrame, title: str | None = None) -> Figure:
    return _double_heatmap(
        t,
        "p_positive",
        "p_ci_low",
        "p_ci_high",
        title or "Doubling: probability that a double gains, s_doubler > s_target (±95% Wilson)",
        lambda x: f"{100 * x:.0f}%",
        "P(doubler scores more than target)",
        "PuOr_r",
        0.5,
        # large runs have intervals under one point: show a decimal rather than "±0%"
        lambda x: f"{100 * x:.1f}%" if x < 0.01 else f"{100 * x:.0f}%",
    )


def doubling_by_hcp(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    # the panels share their x (the hcp buckets) without sharex: shared axes propagate every
    # limit and tick change to all twelve, which cost more than drawing them
    fig, axes = panel_grid(
        len(variants),
        2.35,
        1.6,
        "When a double pays: the doubler's mean gain by his high-card points (95% CI bands)",
        left=0.75,
        bottom=1.45,
        hspace=0.45,
        wspace=0.38,
    )
    colors = dict(zip(DOUBLE_GROUPS, ("#d62728", "#1f77b4", "#2ca02c"), strict=True))
    x = np.arange(len(HCP_BUCKETS))
    for ax, name in zip(axes, variants, strict=False):
        d = t[t["variant"] == name]
        for group, c in colors.items():
            dg = d[d["group"] == group].set_index("hcp_bucket").loc[list(HCP_BUCKETS)]
            ok = dg["n"].to_numpy() >= MIN_N
            line_band(ax, x[ok], dg[ok], c, 0.2)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(name)
        ax.set_ylabel("gain per double (points)")
    for ax in axes:
        ax.set_xticks(x, HCP_BUCKETS)
        ax.set_xlim(-0.3, len(HCP_BUCKETS) - 0.7)
        ax.tick_params(axis="x", labelbottom=True, labelsize=8)
    for ax in axes[-4:]:  # the bottom row
        ax.set_xlabel("doubler's high-card points")
    handles = [mpl.lines.Line2D([], [], color=c, marker="o", label=g) for g, c in colors.items()]
    bottom_legend(fig, handles, "doubler → target")
    return fig
