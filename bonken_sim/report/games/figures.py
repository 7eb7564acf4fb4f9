"""The figures of a game run's report: win rates and totals per profile and seat, where
the totals come from per contract, what doubling moved, and the doubling on/off comparison.

Each figure is drawn from its table of ``games.stats`` or ``games.game_set.tables``.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from bonken_sim.report.page.figure_kit import bottom_legend, new_figure

UNIT_GROUP_COLORS = {"profile": "#1f77b4", "seat": "#7f7f7f"}
UNIT_PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")


def _err_clipped(rows) -> np.ndarray:
    """Error-bar lengths; rounding can leave a bound a hair past the mean (never negative)."""
    return np.maximum(np.nan_to_num(np.vstack(rows), nan=0.0), 0.0)


def unit_labels(t: pd.DataFrame) -> list[str]:
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
    err = scale * _err_clipped([t[mean] - t[lo], t[hi] - t[mean]])
    colors = [UNIT_GROUP_COLORS[g] for g in t["group"]]
    for yi, mi, e0, e1, c in zip(y, m, err[0], err[1], colors, strict=True):
        ax.errorbar(mi, yi, xerr=[[e0], [e1]], fmt="o", ms=5, color=c, capsize=3, lw=1.2)
        ax.annotate(fmt.format(mi), (mi, yi), xytext=(0, 6), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8)  # fmt: skip
    _unit_axis(ax, t)
    _profile_separator(ax, t)
    ax.margins(x=0.12)


def _unit_axis(ax, t: pd.DataFrame) -> None:
    """The rows of ``t`` (sorted: profiles first) labelled on the y axis, top down."""
    ax.set_yticks(np.arange(len(t)), unit_labels(t))
    ax.set_ylim(len(t) - 0.4, -0.7)


def _profile_separator(ax, t: pd.DataFrame) -> None:
    """A dotted line between the profile rows and the seat rows, when there are both."""
    n_prof = int((t["group"] == "profile").sum())
    if 0 < n_prof < len(t):
        ax.axhline(n_prof - 0.5, color="black", lw=0.6, ls=":")


def _unit_legend(
    fig: Figure, extra: Sequence = (), profile_label: str = "", seats: bool = True
) -> None:
    label = profile_label or "per profile (game = unit; mean over its seats)"
    handles = [*extra,
        mpl.lines.Line2D([], [], color=UNIT_GROUP_COLORS["profile"], marker="o", label=label),
    ]  # fmt: skip
    if seats:
        handles.append(
            mpl.lines.Line2D([], [], color=UNIT_GROUP_COLORS["seat"], marker="o", label="per seat")
        )
    bottom_legend(fig, handles, "")


def _unit_figure(t: pd.DataFrame, title: str, wspace: float) -> Figure:
    """A figure of one row per profile and seat of ``t`` (the game results and the effect
    of doubling look alike): their names in the left margin, the legend below."""
    return new_figure(0.42 * len(t) + 2.0, title, left=2.1, top=0.8, bottom=1.1, wspace=wspace)


def game_results(t: pd.DataFrame, win_ci: str = "Wilson 95% CI", unit: str = "") -> Figure:
    """Win rate and mean total per row of ``t``; ``win_ci`` names the win rates' interval,
    ``unit`` (if given) what a profile's point is a mean over."""
    fig = _unit_figure(t, "Game results: win rate and mean settled total (95% CI)", 0.08)
    ax_win, ax_tot = fig.subplots(1, 2, sharey=True)
    _unit_rows(ax_win, t, "win_rate", "win_ci_low", "win_ci_high", 100, "{:.1f}%")
    ax_win.axvline(25, color="black", ls="--", lw=0.8)
    ax_win.set_xlabel("win rate (% of games with first place; shared first counts for each)")
    ax_win.set_title(f"win rate, {win_ci}; dashed: 1 in 4")
    _unit_rows(ax_tot, t, "mean_total", "total_ci_low", "total_ci_high")
    ax_tot.axvline(0, color="black", lw=0.8)
    ax_tot.set_xlabel("mean settled total per game (points)")
    ax_tot.set_title("mean total (totals of a game sum to 0)")
    _unit_legend(fig, profile_label=unit, seats=bool((t["group"] == "seat").any()))
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
        err = _err_clipped([d[f"{value}_mean"] - d[f"{value}_ci_low"],
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
    t["label"] = unit_labels(t)
    return t


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


def game_contracts(t: pd.DataFrame) -> Figure:
    return _per_contract(
        t,
        "final",
        "Where the totals come from: each contract's settled points per game − a fair share "
        "(95% CI)",
        "settled points per game − fair share (points)",
        size=(0.55, 1.3),
        fair=True,
    )


def game_doubling(t: pd.DataFrame) -> Figure:
    return _per_contract(
        t,
        "transfer",
        "What doubling moved: settled − raw points per game, per contract (95% CI)",
        "points gained (+) or lost (−) to doubles, per game",
        size=(0.5, 1.2),
    )


def _per_contract(
    t: pd.DataFrame, value: str, title: str, xlabel: str, size: tuple, fair: bool = False
) -> Figure:
    """``value`` per contract (rows), per profile (left) and per seat (right); ``fair``:
    minus the contract's fair share (its settled points per game averaged over the seats).
    ``size``: (inches per contract, left margin)."""
    t = _labelled(t)
    n_contracts = t["contract"].nunique()
    fig = new_figure(
        size[0] * n_contracts + 2.8,
        title,
        left=size[1],
        top=0.8,
        bottom=1.45,
        wspace=0.12,
    )
    seats = t[t["group"] == "seat"]
    centre = seats.groupby("contract", sort=False)["final_mean"].mean() if fair else None
    profiles = list(dict.fromkeys(t.loc[t["group"] == "profile", "name"]))
    axes = _profile_seat_axes(fig, len(profiles))
    if len(axes) == 2:
        _contract_panel(axes[0], t[t["group"] == "profile"], value, profiles, centre)
    _contract_panel(axes[-1], seats, value, list(dict.fromkeys(seats["name"])), centre)
    for ax in axes:
        ax.set_xlabel(xlabel)
    return fig


def doubling_effect(t: pd.DataFrame) -> Figure:
    title = "Effect of doubling: the same games with doubling on and off (95% CI)"
    fig = _unit_figure(t, title, 0.1)
    ax_rate, ax_dw, ax_dt = fig.subplots(1, 3, sharey=True, width_ratios=[1.2, 1, 1])
    t = t.sort_values("group", kind="stable", key=lambda g: g != "profile")
    y = np.arange(len(t))
    sides: list = []
    for side, marker, color, dy in (("on", "o", "#d62728", -0.13), ("off", "s", "#1f77b4", 0.13)):
        m = 100 * t[f"win_rate_{side}"].to_numpy(float)
        err = 100 * _err_clipped([t[f"win_rate_{side}"] - t[f"win_{side}_ci_low"],
                               t[f"win_{side}_ci_high"] - t[f"win_rate_{side}"]])  # fmt: skip
        ax_rate.errorbar(m, y + dy, xerr=err, fmt=marker, ms=4, capsize=2, lw=1, color=color)
        sides.append(mpl.lines.Line2D([], [], color=color, marker=marker,
                                      label=f"doubling {side} (left panel)"))  # fmt: skip
    _unit_axis(ax_rate, t)
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
        _profile_separator(ax, t)
    _unit_legend(fig, sides)
    return fig


# ---------------------------------------------------------------------------------------
# The games beside a deal run (game_set)


def _pair_rows(ax, t: pd.DataFrame, mean: str, scale: float, fmt: str) -> None:
    """One point with its 95% CI per pair of profiles (rows of ``t``, top down)."""
    y = np.arange(len(t))
    m = scale * t[mean].to_numpy(float)
    err = scale * _err_clipped([t[mean] - t[f"{mean}_ci_low"], t[f"{mean}_ci_high"] - t[mean]])
    for yi, mi, e0, e1 in zip(y, m, err[0], err[1], strict=True):
        color = UNIT_PALETTE[0] if mi >= 0 else UNIT_PALETTE[1]
        ax.errorbar(mi, yi, xerr=[[e0], [e1]], fmt="o", ms=5, color=color, capsize=3, lw=1.2)
        ax.annotate(fmt.format(mi), (mi, yi), xytext=(0, 6), textcoords="offset points",
                    ha="center", va="bottom", fontsize=8)  # fmt: skip
    ax.axvline(0, color="black", lw=0.8)
    ax.margins(x=0.15)


def game_values(t: pd.DataFrame) -> Figure:
    """Per pair of profiles (the pairs that isolate one skill first): the per-deal-set
    difference in win rate and in mean total, with 95% intervals."""
    fig = new_figure(0.45 * len(t) + 1.6, "What each skill is worth in whole games: "
                     "profile − versus on the same deals (95% CI)", left=3.4, top=0.8,
                     bottom=0.7, wspace=0.08)  # fmt: skip
    ax_w, ax_t = fig.subplots(1, 2, sharey=True)
    _pair_rows(ax_w, t, "win_diff", 100, "{:+.1f}")
    _pair_rows(ax_t, t, "total_diff", 1, "{:+.1f}")
    labels = [
        (f"{m}: " if m else "") + f"{a} − {b}"
        for m, a, b in zip(t["measures"].fillna(""), t["profile"], t["versus"], strict=True)
    ]
    ax_w.set_yticks(np.arange(len(t)), labels)
    ax_w.set_ylim(len(t) - 0.4, -0.7)
    ax_w.set_xlabel("win rate difference (percentage points)")
    ax_w.set_title("win rate")
    ax_t.set_xlabel("mean settled total difference (points per game)")
    ax_t.set_title("points per game")
    return fig


def chooser_doubles(t: pd.DataFrame) -> Figure:
    """Per contract, for choosers who chose by the fitted policy: what doubling the chooser
    gains if every other player doubled him, and what the doubles actually made gained."""
    t = t[t["chooser_choice"] == "fitted"]
    fig = new_figure(0.42 * len(t) + 1.7, "Doubling the chooser in games, where he chose the "
                     "contract (95% CI over deal sets)", left=1.3, top=0.8, bottom=0.7,
                     wspace=0.08)  # fmt: skip
    ax_a, ax_m = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(t))
    panels = (
        (ax_a, "always_mean", "always", "if every other player doubled him"),
        (ax_m, "gain_per_double", "gain", "the doubles of him players made"),
    )
    for ax, mean, ci, title in panels:
        lo, hi = f"{ci}_ci_low", f"{ci}_ci_high"
        m = t[mean].to_numpy(float)
        ok = np.isfinite(m)
        err = _err_clipped([t[mean] - t[lo], t[hi] - t[mean]])[:, ok]
        colors = [UNIT_PALETTE[0] if v >= 0 else UNIT_PALETTE[1] for v in m[ok]]
        ax.scatter(m[ok], y[ok], c=colors, s=22, zorder=3)
        ax.errorbar(m[ok], y[ok], xerr=err, fmt="none", ecolor="#555", capsize=3, lw=1)
        for yi in y[~ok]:
            ax.annotate("no doubles", (0, yi), ha="left", va="center", fontsize=8, color="#777",
                        xytext=(4, 0), textcoords="offset points")  # fmt: skip
        ax.axvline(0, color="black", lw=0.8)
        ax.set_title(title)
        ax.set_xlabel("doubler's gain per double: s_d − s_chooser (points)")
    ax_a.set_yticks(y, list(t["contract"]))
    ax_a.set_ylim(len(t) - 0.4, -0.7)
    return fig
