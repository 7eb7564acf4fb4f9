"""What every figure of the report is drawn with: the style, the page-sized figure with
fixed margins, panel grids, legends, bars, bands, error bars, heatmap labels and colour bars.

Figures are built as bare ``matplotlib.figure.Figure`` objects (no pyplot state), sized for
the report page: 11 inches wide, shown at about 1000 pixels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.deals.stats.histograms import REL_NAMES
from bonken_sim.report.page.format import MIN_N

WIDTH = 11.0
STYLE = {
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.labelsize": 10,
    "legend.fontsize": 9,
    "figure.titlesize": 13,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "svg.fonttype": "none",  # text stays text in the SVG: smaller, searchable
    "svg.hashsalt": "bonken-sim",  # deterministic ids in the SVG
}
REL_COLORS = dict(zip(REL_NAMES, ("#1f77b4", "#d62728", "#2ca02c", "#9467bd"), strict=True))
REL_DISPLAY = {r: r.replace("_", " ") for r in REL_NAMES}


def style():
    """A context manager applying the report's matplotlib style."""
    return mpl.rc_context(STYLE)


def new_figure(
    height: float,
    title: str,
    left: float = 0.8,
    right: float = 0.25,
    top: float = 0.75,
    bottom: float = 0.6,
    wspace: float = 0.3,
    hspace: float = 0.5,
) -> Figure:
    """A figure with fixed margins (inches; ``wspace``/``hspace`` as fractions of a panel).

    Explicit margins instead of matplotlib's constrained layout: that costs about a second
    per multi-panel figure on this machine, more than drawing it."""
    fig = Figure(figsize=(WIDTH, height))
    fig.subplots_adjust(
        left=left / WIDTH,
        right=1 - right / WIDTH,
        top=1 - top / height,
        bottom=bottom / height,
        wspace=wspace,
        hspace=hspace,
    )
    fig.suptitle(title, fontweight="bold", y=1 - 0.12 / height, va="top")
    return fig


def panel_grid(
    n: int, row_height: float, extra: float, title: str, **margins: float
) -> tuple[Figure, np.ndarray]:
    """A figure of ``n`` panels, four to a row (``row_height`` inches a row plus ``extra``),
    and its axes as a flat array; the cells past ``n`` are hidden."""
    ncols = 4
    nrows = max(1, -(-n // ncols))
    fig = new_figure(row_height * nrows + extra, title, **margins)
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).reshape(-1)
    for ax in axes[n:]:
        ax.set_visible(False)
    return fig, axes


def bottom_legend(fig: Figure, handles: list, title: str) -> None:
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=len(handles),
        title=title,
        bbox_to_anchor=(0.5, 0.0),
        frameon=False,
    )


def legend_or_note(ax, **legend: Any) -> None:
    """The panel's legend or, when it shows no line (every group rests on fewer than MIN_N
    deals: a small run), a note saying so; matplotlib warns about an empty legend."""
    if ax.get_legend_handles_labels()[0]:
        ax.legend(**legend)
        return
    ax.text(
        0.5,
        0.5,
        f"too few deals\n(no group of {MIN_N} or more)",
        transform=ax.transAxes,
        ha="center",
        va="center",
        color="0.4",
    )


def rel_legend(fig: Figure, relations: Sequence[str] = REL_NAMES, title: str = "seat") -> None:
    """The legend of the seat relations' colours, below the panels."""
    handles = [
        mpl.lines.Line2D([], [], color=REL_COLORS[r], marker="o", label=REL_DISPLAY[r])
        for r in relations
    ]
    bottom_legend(fig, handles, title)


def bars(ax, x, heights, width: float, color: str, horizontal: bool = False) -> None:
    """Bars as one PolyCollection: drawing hundreds of Rectangle patches is slow."""
    x = np.asarray(x, float)
    h = np.asarray(heights, float)
    ok = np.isfinite(h)
    x, h = x[ok], h[ok]
    lo, hi = x - width / 2, x + width / 2
    zero = np.zeros_like(h)
    if horizontal:
        verts = np.stack([np.c_[zero, lo], np.c_[h, lo], np.c_[h, hi], np.c_[zero, hi]], 1)
    else:
        verts = np.stack([np.c_[lo, zero], np.c_[lo, h], np.c_[hi, h], np.c_[hi, zero]], 1)
    ax.add_collection(mpl.collections.PolyCollection(list(verts), facecolors=color, linewidths=0))
    ax.autoscale_view()


def ci_err(d: pd.DataFrame) -> np.ndarray:
    """Error-bar lengths (below, above) of a table's ``mean`` and its 95% CI."""
    return np.vstack([d["mean"] - d["ci_low"], d["ci_high"] - d["mean"]])


def line_band(ax, x, d: pd.DataFrame, color: Any, alpha: float, **line: Any) -> None:
    """A table's means as a line with dots and its 95% CI as a band around it."""
    ax.plot(x, d["mean"], marker="o", ms=3, color=color, **line)
    ax.fill_between(x, d["ci_low"], d["ci_high"], color=color, alpha=alpha, lw=0)


def label_cells(
    ax,
    values: np.ndarray,
    text: Callable[[int, int], str],
    dark: np.ndarray,
    bold: np.ndarray | None = None,
    **kw: Any,
) -> None:
    """Each finite cell of a heatmap labelled with ``text(i, j)``: white on ``dark`` cells,
    bold on ``bold`` ones."""
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            if not np.isfinite(values[i, j]):
                continue
            if bold is not None:
                kw["fontweight"] = "bold" if bold[i, j] else "normal"
            color = "white" if dark[i, j] else "black"
            ax.text(j, i, text(i, j), ha="center", va="center", color=color, **kw)


def side_colorbar(fig: Figure, image, right: float, bottom: float, height: float, label: str):
    """A colour bar ``right`` inches from the figure's right edge."""
    cax = fig.add_axes((1 - right / WIDTH, bottom, 0.12 / WIDTH, height))
    fig.colorbar(image, cax=cax, label=label)
