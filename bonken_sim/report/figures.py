"""The report's figures, one function per figure, each drawn from its table(s).

Figures are built as bare ``matplotlib.figure.Figure`` objects (no pyplot state), sized for
the report page: 11 inches wide, shown at about 1000 pixels.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.aggregate import PAIRS, REL_NAMES
from bonken_sim.report.tables import DOUBLE_GROUPS, HCP_BUCKETS, LONGEST_BUCKETS

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
MIN_N = 100  # points resting on fewer deals are left out of line plots (too noisy to read)


def style():
    """A context manager applying the report's matplotlib style."""
    return mpl.rc_context(STYLE)


def _fig(
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


def _rel_legend(fig: Figure, relations: Sequence[str] = REL_NAMES, title: str = "seat") -> None:
    handles = [
        mpl.lines.Line2D([], [], color=REL_COLORS[r], marker="o", label=REL_DISPLAY[r])
        for r in relations
    ]
    _bottom_legend(fig, handles, title)


def _bottom_legend(fig: Figure, handles: list, title: str) -> None:
    fig.legend(
        handles=handles,
        loc="lower center",
        ncol=len(handles),
        title=title,
        bbox_to_anchor=(0.5, 0.0),
        frameon=False,
    )


def _bars(ax, x, heights, width: float, color: str, horizontal: bool = False) -> None:
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


def _grid(n: int, ncols: int = 4) -> tuple[int, int]:
    return max(1, -(-n // ncols)), ncols


# ---------------------------------------------------------------------------------------
# Section 1


def expected_score(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    fig = _fig(
        0.42 * len(variants) + 1.9,
        "Expected raw score per contract and seat (95% CI)",
        left=1.15,
        top=0.85,
        bottom=1.15,
        wspace=0.08,
    )
    ax_mean, ax_edge = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(variants))
    offsets = np.linspace(-0.27, 0.27, len(REL_NAMES))
    for k, rel in enumerate(REL_NAMES):
        d = t[t["relation"] == rel].set_index("variant").loc[variants]
        edge = d["mean"] - d["fair_share"]
        err = np.vstack([d["mean"] - d["ci_low"], d["ci_high"] - d["mean"]])
        kw = dict(fmt="o", ms=4, color=REL_COLORS[rel], capsize=2, lw=1)
        ax_mean.errorbar(d["mean"], y + offsets[k], xerr=err, **kw)
        ax_edge.errorbar(edge, y + offsets[k], xerr=err, **kw)
    fair = t.drop_duplicates("variant").set_index("variant").loc[variants, "fair_share"]
    ax_mean.scatter(fair, y, marker="|", s=300, color="black", zorder=3)
    ax_mean.set_yticks(y, variants)
    ax_mean.invert_yaxis()
    ax_mean.set_xlabel("mean raw score per deal (points)")
    ax_mean.set_title("mean score; black | = fair share (deal total / 4)")
    ax_edge.axvline(0, color="black", lw=0.8)
    ax_edge.set_xlabel("mean score − fair share (points per deal)")
    ax_edge.set_title("the seat's edge over a fair share")
    _rel_legend(fig)
    return fig


def score_distribution(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    nrows, ncols = _grid(len(variants))
    fig = _fig(
        2.35 * nrows + 1.4,
        "Distribution of a seat's raw score in each contract",
        left=0.7,
        bottom=1.1,
        hspace=0.75,
        wspace=0.35,
    )
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).reshape(-1)
    for ax, name in zip(axes, variants, strict=False):
        d = t[t["variant"] == name]
        scores = np.sort(d["score"].unique())
        step = np.min(np.diff(scores)) if len(scores) > 1 else 10
        width = 0.8 * step / len(REL_NAMES)
        for k, rel in enumerate(REL_NAMES):
            dr = d[d["relation"] == rel].set_index("score").loc[scores]
            x = scores + (k - 1.5) * width
            _bars(ax, x, 100 * dr["probability"].to_numpy(), width, REL_COLORS[rel])
        ax.set_ylim(bottom=0)
        ax.set_title(name)
        ax.set_xlabel("score (points)", labelpad=1)
        ax.set_ylabel("% of deals")
        if len(scores) <= 5:
            ax.set_xticks(scores)
    for ax in axes[len(variants) :]:
        ax.set_visible(False)
    _rel_legend(fig)
    return fig


#: (variant, feature, x label) of the hand-feature panels
FEATURE_PANELS = (
    ("bukken", "hcp", "high-card points"),
    ("bukken", "voids", "void suits"),
    ("hartenjagen", "hearts", "hearts held"),
    ("hartenjagen", "voids", "void suits"),
    ("herenboeren", "hcp", "high-card points"),
    ("vrouwen", "queens", "queens held"),
    ("hartenheer", "kh", "holds the K♥"),
    ("laatste_slag", "longest", "longest suit (cards)"),
    ("domino", "twos", "2s held"),
    ("domino", "aces", "aces held"),
    ("domino", "eights", "8s held"),
    ("troeven_NT", "hcp", "high-card points"),
)


FEATURE_TITLES = {"hcp": "high cards", "kh": "K♥ held", "longest": "longest suit"}


def hand_features(t: pd.DataFrame, variants: Sequence[str]) -> Figure:
    panels = [p for p in FEATURE_PANELS if p[0] in variants]
    nrows, ncols = _grid(len(panels))
    fig = _fig(
        2.45 * nrows + 1.4,
        "A seat's mean score by its own hand (lines: means; bands: 95% CI)",
        left=0.75,
        bottom=1.1,
        hspace=0.75,
        wspace=0.38,
    )
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).reshape(-1)
    for ax, (variant, feature, xlabel) in zip(axes, panels, strict=False):
        d = t[(t["variant"] == variant) & (t["feature"] == feature) & (t["n"] >= MIN_N)]
        for rel in REL_NAMES:
            dr = d[d["relation"] == rel].sort_values("value")
            if dr.empty:
                continue
            c = REL_COLORS[rel]
            ax.plot(dr["value"], dr["mean"], marker="o", ms=3, color=c, lw=1.2)
            ax.fill_between(dr["value"], dr["ci_low"], dr["ci_high"], color=c, alpha=0.2, lw=0)
        ax.set_title(f"{variant}: by {FEATURE_TITLES.get(feature, feature)}")
        ax.set_xlabel(xlabel, labelpad=1)
        ax.set_ylabel("mean score (points)")
        if feature == "kh":
            ax.set_xticks([0, 1], ["no", "yes"])
            ax.set_xlim(-0.3, 1.3)
        else:
            ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    _rel_legend(fig)
    return fig


# ---------------------------------------------------------------------------------------
# Section 2


def chooser_value(t: pd.DataFrame) -> Figure:
    variants = list(t["variant"])
    fig = _fig(
        0.34 * len(variants) + 1.6,
        "The chooser's score per contract (95% CI)",
        left=1.15,
        top=0.85,
        bottom=0.6,
        wspace=0.08,
    )
    ax_mean, ax_adv = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(variants))
    err = np.vstack([t["mean"] - t["ci_low"], t["ci_high"] - t["mean"]])
    colors = ["#d62728" if v < 0 else "#1f77b4" for v in t["advantage"]]
    ax_mean.barh(y, t["mean"], xerr=err, color="#999999", capsize=2)
    ax_mean.scatter(t["fair_share"], y, marker="|", s=250, color="black", zorder=3)
    ax_mean.set_yticks(y, variants)
    ax_mean.invert_yaxis()
    ax_mean.set_xlabel("chooser's mean raw score per deal (points)")
    ax_mean.set_title("mean score; black | = fair share (deal total / 4)")
    ax_adv.barh(y, t["advantage"], xerr=err, color=colors, capsize=2)
    ax_adv.axvline(0, color="black", lw=0.8)
    ax_adv.set_xlabel("mean score − fair share (points per deal)")
    ax_adv.set_title("chooser's edge: blue = better than a fair share")
    return fig


def best_contract(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    fig = _fig(
        0.36 * len(variants) + 1.7,
        "Which contract is best for the chooser's hand: relative score by hand bucket",
        left=1.15,
        right=1.3,
        top=0.85,
        bottom=0.65,
        wspace=0.06,
    )
    axes = fig.subplots(1, 2, width_ratios=[len(HCP_BUCKETS), len(LONGEST_BUCKETS)])
    usable = t.loc[t["n"] >= MIN_N, "mean_relative"]
    vmax = float(np.nanmax(np.abs(usable))) if len(usable) else 1.0
    image = None
    for ax, (feature, labels, xlabel) in zip(
        axes,
        (
            ("hcp", HCP_BUCKETS, "chooser's high-card points"),
            ("longest", LONGEST_BUCKETS, "chooser's longest suit (cards)"),
        ),
        strict=True,
    ):
        d = t[t["feature"] == feature]
        cols = list(labels)

        def grid(value: str, d=d, cols=cols) -> pd.DataFrame:
            return d.pivot(index="variant", columns="bucket", values=value).loc[variants, cols]

        n = grid("n").to_numpy()
        best = grid("best").to_numpy().astype(bool)
        values = np.where(n >= MIN_N, grid("mean_relative").to_numpy(float), np.nan)
        image = ax.imshow(values, cmap="RdBu", vmin=-vmax, vmax=vmax, aspect="auto")
        for i in range(values.shape[0]):
            for j in range(values.shape[1]):
                if not np.isfinite(values[i, j]):
                    continue
                dark = abs(values[i, j]) > 0.6 * vmax
                ax.text(
                    j,
                    i,
                    f"{values[i, j]:+.1f}",
                    ha="center",
                    va="center",
                    fontsize=8,
                    color="white" if dark else "black",
                    fontweight="bold" if best[i, j] else "normal",
                )
                if best[i, j]:
                    ax.add_patch(
                        mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.2)
                    )
        ax.set_xticks(range(len(labels)), labels)
        ax.set_yticks(range(len(variants)), variants if ax is axes[0] else [])
        ax.set_xlabel(xlabel)
        ax.grid(False)
        ax.set_title(f"by {xlabel.split(' ', 1)[1]}; box = best")
    if image is not None:
        cax = fig.add_axes((1 - 1.05 / WIDTH, 0.2, 0.12 / WIDTH, 0.6))
        fig.colorbar(image, cax=cax, label="chooser's score − contract's mean (points)")
    return fig


def choice_value(rules: pd.DataFrame, freq: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(freq["variant"]))
    fig = _fig(
        max(4.2, 0.3 * len(variants) + 1.6),
        "Value of the choice: chooser's relative score per turn, paired (95% CI)",
        left=1.75,
        top=0.85,
        wspace=0.55,
    )
    ax_gain, ax_freq = fig.subplots(1, 2, width_ratios=[1, 1.1])
    single = rules[rules["versus"] == ""]
    pairs = rules[rules["versus"] != ""]
    labels = list(single["rule"]) + [
        f"{a} − {b}" for a, b in zip(pairs["rule"], pairs["versus"], strict=True)
    ]
    means = np.concatenate([single["mean"], pairs["mean"]])
    lo = np.concatenate([single["ci_low"], pairs["ci_low"]])
    hi = np.concatenate([single["ci_high"], pairs["ci_high"]])
    y = np.arange(len(labels))
    colors = ["#1f77b4"] * len(single) + ["#ff7f0e"] * len(pairs)
    err = np.vstack([means - lo, hi - means])
    ax_gain.barh(y, means, xerr=err, color=colors, capsize=3)
    for yi, m in zip(y, means, strict=True):
        ax_gain.text(m, yi, f" {m:+.2f} ", va="center", ha="left" if m >= 0 else "right")
    ax_gain.set_yticks(y, labels)
    ax_gain.invert_yaxis()
    ax_gain.axvline(0, color="black", lw=0.8)
    ax_gain.set_xlabel("points per chooser turn")
    ax_gain.set_title("blue: rule's relative score; orange: paired gain")
    ax_gain.margins(x=0.3)
    chosen = freq[freq["rule"] != "random"]
    rule_names = list(dict.fromkeys(chosen["rule"]))
    yv = np.arange(len(variants))
    h = 0.8 / max(1, len(rule_names))
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
    for k, rule in enumerate(rule_names):
        d = chosen[chosen["rule"] == rule].set_index("variant").loc[variants]
        offset = (k - (len(rule_names) - 1) / 2) * h
        ax_freq.barh(yv + offset, 100 * d["share"], height=h, label=rule, color=palette[k % 4])
    ax_freq.axvline(100 / len(variants), color="black", ls="--", lw=0.8, label="random")
    ax_freq.set_yticks(yv, variants)
    ax_freq.invert_yaxis()
    ax_freq.set_xlabel("% of deals on which the rule picks the contract")
    ax_freq.set_title("what each rule chooses")
    ax_freq.legend(loc="lower right")
    return fig


def trump_value(t: pd.DataFrame, by_length: pd.DataFrame, nt_mean: float | None) -> Figure:
    fig = _fig(
        4.4,
        "Trump suit value: chooser's score by his length and honours in trumps (95% CI)",
        left=0.75,
        top=0.85,
        wspace=0.22,
    )
    ax_len, ax_suit = fig.subplots(1, 2, sharey=True)
    d = t[(t["trump"] == "any") & (t["n"] >= MIN_N)]
    cmap = mpl.colormaps["viridis"]
    for h in range(5):
        dh = d[d["honours"] == h].sort_values("length")
        if dh.empty:
            continue
        c = cmap(h / 4.5)
        ax_len.plot(
            dh["length"],
            dh["mean"],
            marker="o",
            ms=3,
            color=c,
            label=f"{h} honour" + ("" if h == 1 else "s"),
        )
        ax_len.fill_between(dh["length"], dh["ci_low"], dh["ci_high"], color=c, alpha=0.25, lw=0)
    if nt_mean is not None and np.isfinite(nt_mean):
        ax_len.axhline(nt_mean, color="black", ls="--", lw=0.8, label="NT, any hand")
    ax_len.set_xlabel("chooser's cards in the trump suit")
    ax_len.set_ylabel("chooser's mean score (points)")
    ax_len.set_title("4 suits pooled; honours = A, K, Q, J of trumps")
    ax_len.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    ax_len.legend(loc="upper left", fontsize=8)
    # per suit, honours pooled: the four suits should agree
    for suit, color in zip("CDHS", ("#2ca02c", "#ff7f0e", "#d62728", "#1f77b4"), strict=True):
        ds = by_length[(by_length["trump"] == suit) & (by_length["n"] >= MIN_N)]
        if ds.empty:
            continue
        ax_suit.plot(ds["length"], ds["mean"], marker="o", ms=3, color=color, label=f"trump {suit}")
        ax_suit.fill_between(
            ds["length"], ds["ci_low"], ds["ci_high"], color=color, alpha=0.2, lw=0
        )
    ax_suit.set_xlabel("chooser's cards in the trump suit")
    ax_suit.set_title("per trump suit, honours pooled")
    ax_suit.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    ax_suit.legend(loc="upper left", fontsize=8)
    return fig


def nt_vs_suit(t: pd.DataFrame) -> Figure:
    fig = _fig(
        3.9,
        "No-trump against the chooser's longest suit as trump (paired on the same deals, 95% CI)",
        left=0.8,
        top=0.85,
        wspace=0.12,
    )
    axes = fig.subplots(1, 2, sharey=True)
    for ax, (by, xlabel) in zip(
        axes,
        (
            ("longest", "chooser's longest suit (cards)"),
            ("hcp_bucket", "chooser's high-card points"),
        ),
        strict=True,
    ):
        d = t[(t["by"] == by) & (t["n"] >= MIN_N)]
        x = np.arange(len(d))
        err = np.vstack([d["mean"] - d["ci_low"], d["ci_high"] - d["mean"]])
        colors = ["#1f77b4" if m > 0 else "#d62728" for m in d["mean"]]
        ax.bar(x, d["mean"], yerr=err, color=colors, capsize=3)
        ax.set_xticks(x, d["value"])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.set_title("blue: NT scores more; red: the suit does")
    axes[0].set_ylabel("NT − longest-suit trump (points)")
    return fig


# ---------------------------------------------------------------------------------------
# Section 3


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
    fig = _fig(
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
    for i in range(shape[0]):
        for j in range(shape[1]):
            if not finite[i, j]:
                continue
            dark = abs(grid[i, j] - center) > 0.6 * span
            text = fmt(grid[i, j])
            if np.isfinite(half[i, j]):
                text += "\n±" + (half_fmt or fmt)(half[i, j]).lstrip("+")
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=7.5,
                color="white" if dark else "black",
                linespacing=1.05,
            )
    ax.set_xticks(range(len(variants)), variants, rotation=35, ha="right")
    rows = [f"{d.replace('_', ' ')} → {tg.replace('_', ' ')}" for d, tg in order]
    ax.set_yticks(range(len(order)), rows)
    ax.set_ylabel("doubler → target")
    ax.grid(False)
    cax = fig.add_axes((1 - 1.15 / WIDTH, 0.25, 0.12 / WIDTH, 0.55))
    fig.colorbar(image, cax=cax, label=label)
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
    nrows, ncols = _grid(len(variants))
    fig = _fig(
        2.35 * nrows + 1.6,
        "When a double pays: the doubler's mean gain by his high-card points (95% CI bands)",
        left=0.75,
        bottom=1.45,
        hspace=0.45,
        wspace=0.38,
    )
    # the panels share their x (the hcp buckets) without sharex: shared axes propagate every
    # limit and tick change to all twelve, which cost more than drawing them
    axes = np.atleast_1d(fig.subplots(nrows, ncols)).reshape(-1)
    colors = dict(zip(DOUBLE_GROUPS, ("#d62728", "#1f77b4", "#2ca02c"), strict=True))
    x = np.arange(len(HCP_BUCKETS))
    for ax, name in zip(axes, variants, strict=False):
        d = t[t["variant"] == name]
        for group, c in colors.items():
            dg = d[d["group"] == group].set_index("hcp_bucket").loc[list(HCP_BUCKETS)]
            ok = dg["n"].to_numpy() >= MIN_N
            ax.plot(x[ok], dg["mean"][ok], marker="o", ms=3, color=c)
            ax.fill_between(x[ok], dg["ci_low"][ok], dg["ci_high"][ok], color=c, alpha=0.2, lw=0)
        ax.axhline(0, color="black", lw=0.8)
        ax.set_title(name)
        ax.set_ylabel("gain per double (points)")
    for ax in axes:
        ax.set_xticks(x, HCP_BUCKETS)
        ax.set_xlim(-0.3, len(HCP_BUCKETS) - 0.7)
        ax.tick_params(axis="x", labelbottom=True, labelsize=8)
    for ax in axes[-ncols:]:
        ax.set_xlabel("doubler's high-card points")
    for ax in axes[len(variants) :]:
        ax.set_visible(False)
    handles = [mpl.lines.Line2D([], [], color=c, marker="o", label=g) for g, c in colors.items()]
    _bottom_legend(fig, handles, "doubler → target")
    return fig


# ---------------------------------------------------------------------------------------
# Game runs

UNIT_GROUP_COLORS = {"profile": "#1f77b4", "seat": "#7f7f7f"}
UNIT_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def _err(rows) -> np.ndarray:
    """Error-bar lengths; rounding can leave a bound a hair past the mean (never negative)."""
    return np.maximum(np.nan_to_num(np.vstack(rows), nan=0.0), 0.0)


def _unit_labels(t: pd.DataFrame) -> list[str]:
    """'basic (2 seats)' for a profile, 'seat 1: basic' for a seat."""
    return [
        f"{n} ({s} seat{'s' if s > 1 else ''})" if g == "profile" else f"{n}: {p}"
        for g, n, p, s in zip(t["group"], t["name"], t["profile"], t["seats"], strict=True)
    ]


def _unit_rows(ax, t: pd.DataFrame, mean, lo, hi, scale: float = 1.0, fmt: str = "{:+.1f}"):
    """One point with its CI per row of ``t`` (profiles first, then seats), labelled."""
    t = t.sort_values("group", kind="stable", key=lambda g: g != "profile")
    y = np.arange(len(t))
    m = scale * t[mean].to_numpy(float)
    err = scale * _err([t[mean] - t[lo], t[hi] - t[mean]])
    colors = [UNIT_GROUP_COLORS[g] for g in t["group"]]
    for yi, mi, e0, e1, c in zip(y, m, err[0], err[1], colors, strict=True):
        ax.errorbar(mi, yi, xerr=[[e0], [e1]], fmt="o", ms=5, color=c, capsize=3, lw=1.2)
        ax.annotate(fmt.format(mi), (mi, yi), xytext=(0, 6), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8)  # fmt: skip
    ax.set_yticks(y, _unit_labels(t))
    ax.set_ylim(len(t) - 0.4, -0.7)
    n_prof = int((t["group"] == "profile").sum())
    if 0 < n_prof < len(t):
        ax.axhline(n_prof - 0.5, color="black", lw=0.6, ls=":")
    ax.margins(x=0.12)


def _unit_legend(fig: Figure, extra: Sequence = ()) -> None:
    handles = [*extra,
        mpl.lines.Line2D([], [], color=UNIT_GROUP_COLORS["profile"], marker="o",
                         label="per profile (game = unit; mean over its seats)"),
        mpl.lines.Line2D([], [], color=UNIT_GROUP_COLORS["seat"], marker="o", label="per seat"),
    ]  # fmt: skip
    _bottom_legend(fig, handles, "")


def game_results(t: pd.DataFrame) -> Figure:
    fig = _fig(
        0.42 * len(t) + 2.0,
        "Game results: win rate and mean settled total (95% CI)",
        left=2.1,
        top=0.8,
        bottom=1.1,
        wspace=0.08,
    )
    ax_win, ax_tot = fig.subplots(1, 2, sharey=True)
    _unit_rows(ax_win, t, "win_rate", "win_ci_low", "win_ci_high", 100, "{:.1f}%")
    ax_win.axvline(25, color="black", ls="--", lw=0.8)
    ax_win.set_xlabel("win rate (% of games with first place; shared first counts for each)")
    ax_win.set_title("win rate, Wilson 95% CI; dashed: 1 in 4")
    _unit_rows(ax_tot, t, "mean_total", "total_ci_low", "total_ci_high")
    ax_tot.axvline(0, color="black", lw=0.8)
    ax_tot.set_xlabel("mean settled total per game (points)")
    ax_tot.set_title("mean total (totals of a game sum to 0)")
    _unit_legend(fig)
    return fig


def _contract_panel(ax, t: pd.DataFrame, value: str, names: Sequence[str], centre=None) -> None:
    """Per contract (rows) one point with its CI per unit in ``names`` (offset, coloured)."""
    contracts = list(dict.fromkeys(t["contract"]))
    y = np.arange(len(contracts))
    offsets = np.linspace(-0.3, 0.3, len(names)) if len(names) > 1 else [0.0]
    for k, name in enumerate(names):
        d = t[t["name"] == name].set_index("contract").loc[contracts]
        shift = 0.0 if centre is None else centre.loc[contracts].to_numpy()
        m = d[f"{value}_mean"].to_numpy() - shift
        err = _err([d[f"{value}_mean"] - d[f"{value}_ci_low"],
                         d[f"{value}_ci_high"] - d[f"{value}_mean"]])  # fmt: skip
        label = d["label"].iloc[0]
        ax.errorbar(m, y + offsets[k], xerr=err, fmt="o", ms=4, capsize=2, lw=1,
                    color=UNIT_PALETTE[k % len(UNIT_PALETTE)], label=label)  # fmt: skip
    labels = contracts
    if centre is not None:
        labels = [f"{c}\n(fair {centre[c]:+.1f})" for c in contracts]
    ax.set_yticks(y, labels)
    ax.set_ylim(len(contracts) - 0.5, -0.5)
    ax.axvline(0, color="black", lw=0.8)
    # below the panel: inside it would cover points
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=2, fontsize=8,
              frameon=False)  # fmt: skip


def _labelled(t: pd.DataFrame) -> pd.DataFrame:
    t = t.copy()
    t["label"] = _unit_labels(t)
    return t


def game_contracts(t: pd.DataFrame) -> Figure:
    t = _labelled(t)
    n_contracts = t["contract"].nunique()
    fig = _fig(
        0.55 * n_contracts + 2.8,
        "Where the totals come from: each contract's settled points per game − a fair share "
        "(95% CI)",
        left=1.3,
        top=0.8,
        bottom=1.45,
        wspace=0.12,
    )
    seats = t[t["group"] == "seat"]
    fair = seats.groupby("contract", sort=False)["final_mean"].mean()
    profiles = list(dict.fromkeys(t.loc[t["group"] == "profile", "name"]))
    axes = _profile_seat_axes(fig, len(profiles))
    if len(axes) == 2:
        _contract_panel(axes[0], t[t["group"] == "profile"], "final", profiles, fair)
    _contract_panel(axes[-1], seats, "final", list(dict.fromkeys(seats["name"])), fair)
    for ax in axes:
        ax.set_xlabel("settled points per game − fair share (points)")
    return fig


def _profile_seat_axes(fig: Figure, n_profiles: int) -> list:
    """A per-profile and a per-seat panel; only the seat one when one profile holds all four
    seats (its mean over them is the fair share itself: nothing to show)."""
    if n_profiles > 1:
        ax_p, ax_s = fig.subplots(1, 2, sharey=True)
        ax_p.set_title("per profile (mean over its seats)")
        ax_s.set_title("per seat")
        return [ax_p, ax_s]
    ax = fig.subplots()
    ax.set_title("per seat (one profile holds all four)")
    return [ax]


def game_doubling(t: pd.DataFrame) -> Figure:
    t = _labelled(t)
    n_contracts = t["contract"].nunique()
    fig = _fig(
        0.5 * n_contracts + 2.8,
        "What doubling moved: settled − raw points per game, per contract (95% CI)",
        left=1.2,
        top=0.8,
        bottom=1.45,
        wspace=0.12,
    )
    seats = t[t["group"] == "seat"]
    profiles = list(dict.fromkeys(t.loc[t["group"] == "profile", "name"]))
    axes = _profile_seat_axes(fig, len(profiles))
    if len(axes) == 2:
        _contract_panel(axes[0], t[t["group"] == "profile"], "transfer", profiles)
    _contract_panel(axes[-1], seats, "transfer", list(dict.fromkeys(seats["name"])))
    for ax in axes:
        ax.set_xlabel("points gained (+) or lost (−) to doubles, per game")
    return fig


def doubling_effect(t: pd.DataFrame) -> Figure:
    fig = _fig(
        0.42 * len(t) + 2.0,
        "Effect of doubling: the same games with doubling on and off (95% CI)",
        left=2.1,
        top=0.8,
        bottom=1.1,
        wspace=0.1,
    )
    ax_rate, ax_dw, ax_dt = fig.subplots(1, 3, sharey=True, width_ratios=[1.2, 1, 1])
    t = t.sort_values("group", kind="stable", key=lambda g: g != "profile")
    y = np.arange(len(t))
    sides: list = []
    for side, marker, color, dy in (("on", "o", "#d62728", -0.13), ("off", "s", "#1f77b4", 0.13)):
        m = 100 * t[f"win_rate_{side}"].to_numpy(float)
        err = 100 * _err([t[f"win_rate_{side}"] - t[f"win_{side}_ci_low"],
                               t[f"win_{side}_ci_high"] - t[f"win_rate_{side}"]])  # fmt: skip
        ax_rate.errorbar(m, y + dy, xerr=err, fmt=marker, ms=4, capsize=2, lw=1, color=color)
        sides.append(mpl.lines.Line2D([], [], color=color, marker=marker,
                                      label=f"doubling {side} (left panel)"))  # fmt: skip
    ax_rate.set_yticks(y, _unit_labels(t))
    ax_rate.set_ylim(len(t) - 0.4, -0.7)
    ax_rate.axvline(25, color="black", ls="--", lw=0.8)
    ax_rate.set_xlabel("win rate (% of games)")
    ax_rate.set_title("win rate, Wilson 95% CI")
    _unit_rows(ax_dw, t, "win_diff", "win_diff_ci_low", "win_diff_ci_high", 100, "{:+.1f}")
    ax_dw.axvline(0, color="black", lw=0.8)
    ax_dw.set_xlabel("win rate on − off (percentage points)")
    ax_dw.set_title("paired per game")
    _unit_rows(ax_dt, t, "total_diff", "total_diff_ci_low", "total_diff_ci_high")
    ax_dt.axvline(0, color="black", lw=0.8)
    ax_dt.set_xlabel("mean total on − off (points per game)")
    ax_dt.set_title("paired per game")
    for ax in (ax_rate, ax_dw, ax_dt):
        n_prof = int((t["group"] == "profile").sum())
        if 0 < n_prof < len(t):
            ax.axhline(n_prof - 0.5, color="black", lw=0.6, ls=":")
    _unit_legend(fig, sides)
    return fig
