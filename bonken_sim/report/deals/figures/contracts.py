"""The figures of a deal run's first two sections: what each contract costs (expected
scores, score distributions, scores by hand features) and what choosing is worth (the
chooser's score, the best contract by hand, choice rules, trump and no-trump values).

Each figure is drawn from its table(s) of ``deals.tables``.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.deals.stats.histograms import REL_NAMES
from bonken_sim.report.deals.tables.kit import HCP_BUCKETS, LONGEST_BUCKETS
from bonken_sim.report.page.figure_kit import (
    MIN_N,
    REL_COLORS,
    bars,
    bottom_legend,
    ci_err,
    label_cells,
    legend_or_note,
    line_band,
    new_figure,
    panel_grid,
    rel_legend,
    side_colorbar,
)


def expected_score(t: pd.DataFrame, importance: pd.DataFrame) -> Figure:
    variants = list(dict.fromkeys(t["variant"]))
    fig = new_figure(
        0.42 * len(variants) + 1.9,
        "What decides a seat's score: seat or hand (left); each seat's edge (right, 95% CI)",
        left=1.15,
        top=0.85,
        bottom=1.15,
        wspace=0.08,
    )
    ax_var, ax_edge = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(variants))
    # left: the share of a seat's score variance explained by the seat, and by the single
    # most predictive feature of its own hand (named at the bar)
    imp = importance.set_index(["variant", "feature"])["eta2"]
    top = importance[importance["rank"] == 1].set_index("variant").loc[variants]
    seat = np.array([imp.get((v, "seat"), np.nan) for v in variants])
    ax_var.barh(y - 0.2, 100 * seat, height=0.38, color="#7f7f7f", label="the seat")
    ax_var.barh(y + 0.2, 100 * top["eta2"], height=0.38, color="#2ca02c", label="best hand feature")
    for yi, (f, e) in enumerate(zip(top["feature"], top["eta2"], strict=True)):
        ax_var.text(100 * e, yi + 0.2, f" {FEATURE_WORDS.get(f, f)}", va="center", fontsize=8)
    ax_var.set_yticks(y, variants)
    ax_var.invert_yaxis()
    ax_var.margins(x=0.35)
    ax_var.set_xlabel("% of the score's variance explained")
    ax_var.set_title("seat against the hand's strongest feature")
    ax_var.legend(loc="lower right", fontsize=8)
    offsets = np.linspace(-0.27, 0.27, len(REL_NAMES))
    for k, rel in enumerate(REL_NAMES):
        d = t[t["relation"] == rel].set_index("variant").loc[variants]
        edge = d["mean"] - d["fair_share"]
        kw = dict(fmt="o", ms=4, color=REL_COLORS[rel], capsize=2, lw=1)
        ax_edge.errorbar(edge, y + offsets[k], xerr=ci_err(d), **kw)
    ax_edge.axvline(0, color="black", lw=0.8)
    ax_edge.set_xlabel("mean score − fair share (points per deal)")
    ax_edge.set_title("the seat's edge over a fair share (deal total / 4)")
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


#: a hand feature in words (axis labels, panel titles)
FEATURE_WORDS = {
    "hcp": "high-card points",
    "voids": "void suits",
    "longest": "longest suit (cards)",
    "hearts": "hearts held",
    "aces": "aces held",
    "kings": "kings held",
    "queens": "queens held",
    "jacks": "jacks held",
    "eights": "8s held",
    "twos": "2s held",
    "kh": "holds the K♥",
}


def hand_features(t: pd.DataFrame, panels: Sequence[tuple[str, str]]) -> Figure:
    """One panel per (contract, feature): a seat's mean score by that feature of its hand."""
    fig, axes = panel_grid(
        len(panels),
        2.45,
        1.4,
        "A seat's mean score by its hand's most predictive feature (lines: means; bands: 95% CI)",
        left=0.75,
        bottom=1.1,
        hspace=0.75,
        wspace=0.38,
    )
    for ax, (variant, feature) in zip(axes, panels, strict=False):
        d = t[(t["variant"] == variant) & (t["feature"] == feature) & (t["n"] >= MIN_N)]
        for rel in REL_NAMES:
            dr = d[d["relation"] == rel].sort_values("value")
            if dr.empty:
                continue
            line_band(ax, dr["value"], dr, REL_COLORS[rel], 0.2, lw=1.2)
        ax.set_title(f"{variant}: by {FEATURE_WORDS.get(feature, feature).split(' (')[0]}")
        ax.set_xlabel(FEATURE_WORDS.get(feature, feature), labelpad=1)
        ax.set_ylabel("mean score (points)")
        if feature == "kh":
            ax.set_xticks([0, 1], ["no", "yes"])
            ax.set_xlim(-0.3, 1.3)
        else:
            ax.xaxis.set_major_locator(mpl.ticker.MaxNLocator(integer=True))
    rel_legend(fig)
    return fig


#: the choice rules' colours and names in the figures
RULE_COLORS = {
    "hindsight_quota": "#1f77b4",
    "policy_quota": "#ff7f0e",
    "hindsight": "#aec7e8",
    "policy": "#ffbb78",
}
RULE_WORDS = {
    "hindsight": "hindsight, free",
    "hindsight_quota": "hindsight, quota",
    "policy": "policy, free",
    "policy_quota": "policy, quota",
    "random": "random (a game's mix)",
}


def rule_words(rule: str) -> str:
    """A rule's name in the figures and tables ('quota': held to 4 troeven in 11)."""
    return RULE_WORDS.get(rule, rule.replace("_quota", ", quota"))


def chooser_value(picks: pd.DataFrame) -> Figure:
    """Per contract, the chooser's mean relative score on the deals a rule picks it."""
    contracts = list(dict.fromkeys(picks["contract"]))
    rules = [r for r in RULE_COLORS if r in set(picks["rule"])] or list(
        dict.fromkeys(picks["rule"])
    )
    fig = new_figure(
        0.42 * len(contracts) + 1.7,
        "What a contract is worth when it is chosen: relative score on the deals picked (95% CI)",
        left=1.15,
        top=0.85,
        bottom=1.0,
    )
    ax = fig.subplots()
    y = np.arange(len(contracts))
    h = 0.8 / len(rules)
    palette = ("#1f77b4", "#ff7f0e", "#aec7e8", "#ffbb78", "#2ca02c", "#9467bd")
    handles = []
    for k, rule in enumerate(rules):
        d = picks[(picks["rule"] == rule)].set_index("contract").reindex(contracts)
        ok = d["n"].to_numpy() >= MIN_N
        mean = np.where(ok, d["mean"], np.nan)
        err = np.where(ok, ci_err(d), np.nan)
        color = RULE_COLORS.get(rule, palette[k % len(palette)])
        yy = y + (k - (len(rules) - 1) / 2) * h
        ax.barh(yy, mean, height=h, xerr=err, color=color, capsize=2)
        ends = mean + np.where(mean >= 0, err[1], -err[0])  # the label goes past the CI
        for yi, m, share in zip(yy, ends, d["share"], strict=True):
            if np.isfinite(m):
                pct = f"{100 * share:.0f}%" if share >= 0.01 else f"{100 * share:.1f}%"
                ax.text(
                    m,
                    yi,
                    f" {pct} ",
                    va="center",
                    fontsize=7,
                    ha="left" if m >= 0 else "right",
                )
        handles.append(mpl.patches.Patch(color=color, label=rule_words(rule)))
    ax.set_yticks(y, contracts)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)
    ax.margins(x=0.12)
    ax.set_xlabel("chooser's score − the contract's baseline, on the deals the rule picks it")
    ax.set_title("bars: mean relative score when picked; label: % of deals on which it is picked")
    bottom_legend(fig, handles, "choice rule")
    return fig


def best_contract(t: pd.DataFrame) -> Figure:
    t = t[t["in_choice_set"]] if "in_choice_set" in t else t
    variants = list(dict.fromkeys(t["variant"]))
    fig = new_figure(
        0.36 * len(variants) + 1.7,
        "Which contract is best for the chooser's hand (troeven: in the trump he names)",
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


def _shown_pairs(rules: pd.DataFrame) -> pd.DataFrame:
    """The paired differences worth a bar: every rule against random, and hindsight against
    the fitted policy, each under the quota."""
    pairs = rules[rules["versus"] != ""]
    keep = (pairs["versus"] == "random") | (
        (pairs["rule"] == "hindsight_quota") & (pairs["versus"] == "policy_quota")
    )
    return pairs[keep]


def choice_value(rules: pd.DataFrame, freq: pd.DataFrame) -> Figure:
    contracts = (
        [v for v in dict.fromkeys(freq["variant"]) if not v.startswith("troeven_")]
        if "troeven" in set(freq["variant"])
        else list(dict.fromkeys(freq["variant"]))
    )
    single = rules[rules["versus"] == ""]
    pairs = _shown_pairs(rules)
    fig = new_figure(
        max(4.2, 0.3 * (len(single) + len(pairs)) + 1.6),
        "Value of the choice: chooser's relative score per turn, paired on the same deals (95% CI)",
        left=2.2,
        right=1.9,
        top=0.85,
        wspace=0.55,
    )
    ax_gain, ax_freq = fig.subplots(1, 2, width_ratios=[1, 0.9])
    labels = [rule_words(r) for r in single["rule"]] + [
        f"{rule_words(a)} − {rule_words(b).split(' (')[0]}"
        for a, b in zip(pairs["rule"], pairs["versus"], strict=True)
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
    ax_gain.set_yticks(y, labels, fontsize=8)
    ax_gain.invert_yaxis()
    ax_gain.axvline(0, color="black", lw=0.8)
    ax_gain.set_xlabel("points per chooser turn")
    ax_gain.set_title("blue: rule's relative score; orange: paired gain")
    ax_gain.margins(x=0.3)
    chosen = freq[(freq["rule"] != "random") & freq["variant"].isin(contracts)]
    rule_names = [r for r in dict.fromkeys(chosen["rule"])]
    yv = np.arange(len(contracts))
    h = 0.8 / max(1, len(rule_names))
    palette = ("#2ca02c", "#9467bd", "#8c564b", "#e377c2")
    for k, rule in enumerate(rule_names):
        d = chosen[chosen["rule"] == rule].set_index("variant").loc[contracts]
        offset = (k - (len(rule_names) - 1) / 2) * h
        color = RULE_COLORS.get(rule, palette[k % len(palette)])
        ax_freq.barh(yv + offset, 100 * d["share"], height=h, label=rule_words(rule), color=color)
    game = freq.drop_duplicates("variant").set_index("variant").loc[contracts, "game_share"]
    if np.isfinite(game.to_numpy(float)).any():
        ax_freq.scatter(
            100 * game, yv, marker="|", s=250, color="black", zorder=3, label="a game's share"
        )
    ax_freq.set_yticks(yv, contracts)
    ax_freq.invert_yaxis()
    ax_freq.set_xlabel("% of deals on which the rule picks the contract")
    ax_freq.set_title("what each rule chooses")
    ax_freq.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
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
