"""The figures of a deal run's first two sections: what each contract costs (expected
scores, score distributions, scores by hand features) and what choosing is worth (the
chooser's score, the best contract by hand, choice rules, trump and no-trump values).

Each figure is drawn from its table(s) of ``tables``.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.figure_kit import (
    MIN_N,
    REL_COLORS,
    bars,
    ci_err,
    label_cells,
    legend_or_note,
    line_band,
    new_figure,
    panel_grid,
    rel_legend,
    side_colorbar,
)
from bonken_sim.report.histograms import REL_NAMES
from bonken_sim.report.tables import HCP_BUCKETS, LONGEST_BUCKETS


def expected_score(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    fig = new_figure(
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
        err = ci_err(d)
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
    rel_legend(fig)
    return fig


def score_distribution(t: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    fig, axes = panel_grid(
        len(variants),
        2.35,
        1.4,
        "Distribution of a seat's raw score in each contract",
        left=0.7,
        bottom=1.1,
        hspace=0.75,
        wspace=0.35,
    )
    for ax, name in zip(axes, variants, strict=False):
        d = t[t["variant"] == name]
        scores = np.sort(d["score"].unique())
        step = np.min(np.diff(scores)) if len(scores) > 1 else 10
        width = 0.8 * step / len(REL_NAMES)
        for k, rel in enumerate(REL_NAMES):
            dr = d[d["relation"] == rel].set_index("score").loc[scores]
            x = scores + (k - 1.5) * width
            bars(ax, x, 100 * dr["probability"].to_numpy(), width, REL_COLORS[rel])
        ax.set_ylim(bottom=0)
        ax.set_title(name)
        ax.set_xlabel("score (points)", labelpad=1)
        ax.set_ylabel("% of deals")
        if len(scores) <= 5:
            ax.set_xticks(scores)
    rel_legend(fig)
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
    fig, axes = panel_grid(
        len(panels),
        2.45,
        1.4,
        "A seat's mean score by its own hand (lines: means; bands: 95% CI)",
        left=0.75,
        bottom=1.1,
        hspace=0.75,
        wspace=0.38,
    )
    for ax, (variant, feature, xlabel) in zip(axes, panels, strict=False):
        d = t[(t["variant"] == variant) & (t["feature"] == feature) & (t["n"] >= MIN_N)]
        for rel in REL_NAMES:
            dr = d[d["relation"] == rel].sort_values("value")
            if dr.empty:
                continue
            line_band(ax, dr["value"], dr, REL_COLORS[rel], 0.2, lw=1.2)
        ax.set_title(f"{variant}: by {FEATURE_TITLES.get(feature, feature)}")
        ax.set_xlabel(xlabel, labelpad=1)
        ax.set_ylabel("mean score (points)")
        if feature == "kh":
            ax.set_xticks([0, 1], ["no", "yes"])
            ax.set_xlim(-0.3, 1.3)
        else:
            ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    rel_legend(fig)
    return fig


def chooser_value(t: pd.DataFrame) -> Figure:
    variants = list(t["variant"])
    fig = new_figure(
        0.34 * len(variants) + 1.6,
        "The chooser's score per contract (95% CI)",
        left=1.15,
        top=0.85,
        bottom=0.6,
        wspace=0.08,
    )
    ax_mean, ax_adv = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(variants))
    err = ci_err(t)
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
    fig = new_figure(
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

        def cell(i: int, j: int, v: np.ndarray = values) -> str:
            return f"{v[i, j]:+.1f}"

        label_cells(
            ax,
            values,
            cell,
            np.abs(values) > 0.6 * vmax,
            bold=best,
            fontsize=8,
        )
        for i, j in zip(*np.nonzero(best & np.isfinite(values)), strict=True):
            ax.add_patch(mpl.patches.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=2.2))
        ax.set_xticks(range(len(labels)), labels)
        ax.set_yticks(range(len(variants)), variants if ax is axes[0] else [])
        ax.set_xlabel(xlabel)
        ax.grid(False)
        ax.set_title(f"by {xlabel.split(' ', 1)[1]}; box = best")
    if image is not None:
        label = "chooser's score − contract's mean (points)"
        side_colorbar(fig, image, 1.05, 0.2, 0.6, label)
    return fig


def choice_value(rules: pd.DataFrame, freq: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(freq["variant"]))
    fig = new_figure(
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
    fig = new_figure(
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
        label = f"{h} honour" + ("" if h == 1 else "s")
        line_band(ax_len, dh["length"], dh, cmap(h / 4.5), 0.25, label=label)
    if nt_mean is not None and np.isfinite(nt_mean):
        ax_len.axhline(nt_mean, color="black", ls="--", lw=0.8, label="NT, any hand")
    ax_len.set_xlabel("chooser's cards in the trump suit")
    ax_len.set_ylabel("chooser's mean score (points)")
    ax_len.set_title("4 suits pooled; honours = A, K, Q, J of trumps")
    ax_len.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    legend_or_note(ax_len, loc="upper left", fontsize=8)
    # per suit, honours pooled: the four suits should agree
    for suit, color in zip("CDHS", ("#2ca02c", "#ff7f0e", "#d62728", "#1f77b4"), strict=True):
        ds = by_length[(by_length["trump"] == suit) & (by_length["n"] >= MIN_N)]
        if ds.empty:
            continue
        line_band(ax_suit, ds["length"], ds, color, 0.2, label=f"trump {suit}")
    ax_suit.set_xlabel("chooser's cards in the trump suit")
    ax_suit.set_title("per trump suit, honours pooled")
    ax_suit.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    legend_or_note(ax_suit, loc="upper left", fontsize=8)
    return fig


def nt_vs_suit(t: pd.DataFrame) -> Figure:
    fig = new_figure(
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
        err = ci_err(d)
        colors = ["#1f77b4" if m > 0 else "#d62728" for m in d["mean"]]
        ax.bar(x, d["mean"], yerr=err, color=colors, capsize=3)
        ax.set_xticks(x, d["value"])
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel(xlabel)
        ax.set_title("blue: NT scores more; red: the suit does")
    axes[0].set_ylabel("NT − longest-suit trump (points)")
    return fig
