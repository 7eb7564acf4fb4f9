"""The figures of a deal run's third section: whether a double pays, per contract and
ordered pair of seats (heatmaps of the mean gain and of the share of doubles that gain, the
gain by the doubler's high-card points, and each doubling rule's realised gain).

Each figure is drawn from its table(s) of ``deals.tables``.
"""

from __future__ import annotations

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.deals.stats.histograms import CHOOSER, PAIRS, REL_NAMES
from bonken_sim.report.deals.tables.doubling import DOUBLE_GROUPS
from bonken_sim.report.deals.tables.kit import HCP_BUCKETS
from bonken_sim.report.page.figure_kit import (
    MIN_N,
    bottom_legend,
    label_cells,
    line_band,
    new_figure,
    panel_grid,
    side_colorbar,
)
from bonken_sim.report.page.format import half_text, percents_summing_to_100


def _pair_order(halve: bool = False) -> list[tuple[str, str]]:
    """Pairs with the chooser as target first, then the others, then the chooser's own.
    ``halve``: one of each mirrored pair (d → t and t → d), the chooser as target and the
    others in playing order, for tables where t → d is d → t with the sign turned."""
    pairs = [
        (d, t) for d, t in PAIRS if not halve or t == CHOOSER or (CHOOSER not in (d, t) and d < t)
    ]
    named = [(REL_NAMES[d], REL_NAMES[t]) for d, t in pairs]
    return sorted(named, key=lambda p: (p[0] == "chooser", p[1] != "chooser"))


def _double_heatmap(
    t: pd.DataFrame,
    value: str,
    title: str,
    text,
    label: str,
    halve: bool,
    fontsize: float = 7.5,
) -> Figure:
    """Pairs (rows) × variants (columns) coloured by ``value`` (diverging around 0, blue =
    good for the doubler) and labelled ``text(row)``; cells resting on fewer than MIN_N
    deals are grey and show only their n."""
    variants = list(dict.fromkeys(t["variant"]))
    order = _pair_order(halve)
    key = t.set_index(["doubler", "target", "variant"])
    idx = pd.MultiIndex.from_tuples([(d, tg, v) for d, tg in order for v in variants])
    rows = key.reindex(idx)
    shape = (len(order), len(variants))
    n = rows["n"].fillna(0).to_numpy(float).reshape(shape)
    few = n < MIN_N
    grid = np.where(few, np.nan, rows[value].to_numpy(float).reshape(shape))
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
    span = float(np.nanmax(np.abs(grid))) if finite.any() else 1.0
    span = span or 1.0
    cmap = mpl.colormaps["RdBu"].with_extremes(bad="0.9")
    # "none": the SVG keeps one pixel per cell and the browser scales it sharply
    image = ax.imshow(grid, cmap=cmap, vmin=-span, vmax=span, aspect="auto", interpolation="none")
    records = rows.reset_index(drop=True).to_dict("records")

    def cell(i: int, j: int) -> str:
        if few[i, j]:
            return f"n = {int(n[i, j])}"
        return text(records[i * len(variants) + j])

    dark = ~few & (np.abs(np.nan_to_num(grid)) > 0.6 * span)
    label_cells(ax, np.where(few, 0.0, grid), cell, dark, fontsize=fontsize, linespacing=1.05)
    ax.set_xticks(range(len(variants)), variants, rotation=35, ha="right")
    names = [f"{d.replace('_', ' ')} → {tg.replace('_', ' ')}" for d, tg in order]
    ax.set_yticks(range(len(order)), names)
    ax.set_ylabel("doubler → target")
    ax.grid(False)
    side_colorbar(fig, image, 1.15, 0.25, 0.55, label)
    return fig


def _mean_text(row: dict) -> str:
    out = f"{row['mean']:+.1f}"
    half = (row["ci_high"] - row["ci_low"]) / 2
    return out + ("\n±" + half_text(half, 1) if np.isfinite(half) else "")


def doubling_mean(t: pd.DataFrame, title: str | None = None, halve: bool = True) -> Figure:
    """The mean gain per double. ``halve`` (every pair on every deal): t → d is d → t with
    the sign turned, so only one of each mirrored pair is drawn."""
    return _double_heatmap(
        t,
        "mean",
        title or "Doubling: the doubler's mean gain s_doubler − s_target per double (±95% CI)",
        _mean_text,
        "mean gain of one double (points); blue = it pays",
        halve,
    )


def _rates_text(row: dict) -> str:
    shares = [row["p_positive"], row["p_tie"], row["p_negative"]]
    pct = percents_summing_to_100(shares)
    halves = [
        row["p_ci_high"] - row["p_ci_low"],
        row["p_tie_ci_high"] - row["p_tie_ci_low"],
        row["p_negative_ci_high"] - row["p_negative_ci_low"],
    ]
    return "·".join(map(str, pct)) + "\n±" + half_text(50 * max(halves), 0)


def doubling_win_rate(t: pd.DataFrame) -> Figure:
    """Gain / tie / loss: the shares of deals on which a double gains, ties and loses, in
    percent (adding up to 100), coloured by gain minus loss; one of each mirrored pair
    (t → d has gain and loss swapped)."""
    t = t.assign(net=t["p_positive"] - t["p_negative"])
    return _double_heatmap(
        t,
        "net",
        "Doubling: % of doubles that gain · tie · lose (± largest 95% Wilson half-width)",
        _rates_text,
        "share that gains − share that loses; blue = gains more often",
        True,
        fontsize=6.5,
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
