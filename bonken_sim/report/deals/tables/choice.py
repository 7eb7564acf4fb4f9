"""The tables of a deal run's section 2, what choosing is worth: the chooser's score per
contract, the best contract by hand, the choice rules against each other, trump and no-trump
values. Every mean comes with its 95% interval, every rate with its Wilson interval; each
table is written as CSV beside the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import (
    CHOOSER,
    GAME_DEALS,
    GAME_TROEVEN_DEALS,
    NT_DIFF_VALUES,
    OWN_TROEVEN,
    SCORE_VALUES,
    RunStats,
)
from bonken_sim.report.deals.tables.kit import (
    HCP_BUCKETS,
    HCP_EDGES,
    LONGEST_BUCKETS,
    LONGEST_EDGES,
    bucketed,
    ci_frame,
)
from bonken_sim.rules.totals import deal_total
from bonken_sim.stats import (
    hist_moments,
    mean_ci_array,
    wilson_array,
)


def chooser_value(stats: RunStats) -> pd.DataFrame:
    """The chooser's mean score per contract and its advantage over a fair share (total/4)."""
    n, s1, s2 = hist_moments(stats.hists.score[:, CHOOSER], SCORE_VALUES)
    ci = ci_frame(n, s1, s2)
    fair = np.array([deal_total(v) / 4 for v in stats.contracts])
    return pd.DataFrame(
        {
            "variant": stats.contracts,
            **ci,
            "fair_share": fair,
            "advantage": ci["mean"] - fair,
            "advantage_ci_low": ci["ci_low"] - fair,
            "advantage_ci_high": ci["ci_high"] - fair,
        }
    )


def choice_set(stats: RunStats) -> list[int]:
    """The contracts a chooser weighs (indices into ``stats.contracts``): the negatives and
    troeven in the trump he names, when the run has his call; else every variant."""
    if not stats.call_rule:
        return list(range(len(stats.variants)))
    names = stats.contracts
    return [k for k, v in enumerate(names) if not v.startswith("troeven") or v == OWN_TROEVEN]


def _best_of(rel: np.ndarray, allowed: list[int]) -> np.ndarray:
    """(…, K) bool: the allowed contract with the highest value along the last axis."""
    best = np.zeros(rel.shape, bool)
    sub = rel[..., allowed]
    ok = np.isfinite(sub).any(-1)
    pick = np.asarray(allowed)[np.argmax(np.where(np.isfinite(sub), sub, -np.inf), -1)]
    np.put_along_axis(best, pick[..., None], ok[..., None], -1)
    return best


def best_contract(stats: RunStats) -> pd.DataFrame:
    """The chooser's relative score (his score minus the contract's mean chooser score over
    the run) per contract, by buckets of his hcp and of his longest suit; ``best`` marks the
    contract of the choice set (:func:`choice_set`, ``in_choice_set``) with the highest
    relative score in each bucket."""
    mu = stats.mu_chooser
    allowed = choice_set(stats)
    frames = []
    for feature, edges, labels in (
        ("hcp", HCP_EDGES, HCP_BUCKETS),
        ("longest", LONGEST_EDGES, LONGEST_BUCKETS),
    ):
        hist = stats.hists.feature(feature)[:, :, CHOOSER, :]  # (X, K, NS)
        b = bucketed(hist, edges)  # (B, K, NS)
        n, s1, s2 = hist_moments(b, SCORE_VALUES)
        ci = ci_frame(n, s1, s2)
        rel = ci["mean"] - mu[None, :]
        best = _best_of(rel, allowed)
        for k, label in enumerate(labels):
            for v, name in enumerate(stats.contracts):
                frames.append(
                    {
                        "feature": feature,
                        "bucket": label,
                        "variant": name,
                        "n": int(n[k, v]),
                        "mean_relative": rel[k, v],
                        "ci_low": ci["ci_low"][k, v] - mu[v],
                        "ci_high": ci["ci_high"][k, v] - mu[v],
                        "in_choice_set": v in allowed,
                        "best": bool(best[k, v]),
                    }
                )
    return pd.DataFrame(frames)


def hand_grid(stats: RunStats) -> pd.DataFrame:
    """The best contract of the choice set by the chooser's hcp bucket and longest-suit
    bucket jointly: every contract's relative score per cell, ``best`` marking the highest."""
    mu = stats.mu_chooser
    allowed = choice_set(stats)
    h = bucketed(bucketed(stats.hists.hand2, HCP_EDGES, 0), LONGEST_EDGES, 1)  # (B, L, K, NS)
    n, s1, s2 = hist_moments(h, SCORE_VALUES)
    ci = ci_frame(n, s1, s2)
    rel = ci["mean"] - mu
    best = _best_of(rel, allowed)
    idx = np.indices(n.shape).reshape(3, -1)
    frame = pd.DataFrame(
        {
            "hcp_bucket": np.array(HCP_BUCKETS)[idx[0]],
            "longest_bucket": np.array(LONGEST_BUCKETS)[idx[1]],
            "contract": np.array(stats.contracts)[idx[2]],
            "n": n.reshape(-1),
            "mean_relative": rel.reshape(-1),
            "ci_low": (ci["ci_low"] - mu).reshape(-1),
            "ci_high": (ci["ci_high"] - mu).reshape(-1),
            "in_choice_set": np.isin(idx[2], allowed),
            "best": best.reshape(-1),
        }
    )
    return frame


#: a player's chooser turns per game of eleven deals (three players choose three times, one
#: twice: 11/4 on average), to put a value per chooser turn in game terms
TURNS_PER_GAME = GAME_DEALS / 4


def choice_value(stats: RunStats) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rules, frequency): the chooser's mean relative score per turn under each choice rule
    (and per game: × TURNS_PER_GAME) and the paired gain of each rule over every other; how
    often each rule picks each variant, and troeven in any trump (``troeven``), beside the
    share a game gives each contract (``game_share``)."""
    c = stats.choice
    if c is None or c.n == 0:
        return pd.DataFrame(), pd.DataFrame()
    cols = ("mean", "sd", "ci_low", "ci_high")
    alone = mean_ci_array(np.full(len(c.rules), c.n), c.sums, c.sumsq)
    paired = mean_ci_array(np.full(c.diff_sums.shape, c.n), c.diff_sums, c.diff_sumsq)
    troeven = np.array([v.startswith("troeven") for v in stats.variants])
    weights = c.game.weights if c.game is not None else np.full(len(troeven), 1 / len(troeven))
    picked = np.vstack([c.chosen[:-1], c.n * weights])  # random: its exact expectation
    rows = []
    for i, rule in enumerate(c.rules):
        rows.append(
            {
                "rule": rule,
                "versus": "",
                "n": c.n,
                **{k: a[i] for k, a in zip(cols, alone, strict=True)},
                "troeven_share": picked[i, troeven].sum() / c.n,
            }
        )
    for i, rule in enumerate(c.rules):
        for j, other in enumerate(c.rules):
            if i < j:
                pair = {k: a[i, j] for k, a in zip(cols, paired, strict=True)}
                rows.append({"rule": rule, "versus": other, "n": c.n, **pair})
    table = pd.DataFrame(rows)
    for k in ("mean", "ci_low", "ci_high"):
        table[f"{k}_per_game"] = table[k] * TURNS_PER_GAME
    freq = []
    for i, rule in enumerate(c.rules):
        counts = [*picked[i], picked[i, troeven].sum()]
        for name, count in zip([*stats.variants, OWN_TROEVEN], counts, strict=True):
            if name == OWN_TROEVEN and not troeven.any():
                continue
            freq.append(
                {
                    "rule": rule,
                    "variant": name,
                    "count": count,
                    "share": count / c.n,
                    "game_share": _game_share(name),
                }
            )
    return table, pd.DataFrame(freq)


def _game_share(name: str) -> float:
    """The share of a game's deals a contract gets (NaN for a single trump option)."""
    if name == OWN_TROEVEN:
        return GAME_TROEVEN_DEALS / GAME_DEALS
    return np.nan if name.startswith("troeven") else 1 / GAME_DEALS


def choice_picks(stats: RunStats) -> pd.DataFrame:
    """Per choice rule and contract of the choice set (troeven: any trump): how often the
    rule picks it and the chooser's mean relative score on those deals (95% CI): what a
    contract is worth when that rule chooses it."""
    c = stats.choice
    if c is None or c.n == 0:
        return pd.DataFrame()
    troeven = np.array([v.startswith("troeven") for v in stats.variants])
    groups = [(v, [k]) for k, v in enumerate(stats.variants) if not troeven[k]]
    if troeven.any():
        groups.append((OWN_TROEVEN, list(np.flatnonzero(troeven))))
    rows = []
    for i, rule in enumerate(c.rules[:-1]):  # random picks nothing in particular
        for name, idx in groups:
            n, s1, s2 = (
                c.chosen[i, idx].sum(),
                c.pick_sums[i, idx].sum(),
                c.pick_sumsq[i, idx].sum(),
            )
            mean, sd, lo, hi = (float(a) for a in mean_ci_array(n, s1, s2))
            rows.append(
                {
                    "rule": rule,
                    "contract": name,
                    "n": int(n),
                    "share": n / c.n,
                    "game_share": _game_share(name),
                    "mean": mean,
                    "sd": sd,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
    return pd.DataFrame(rows)


def trump_value(stats: RunStats) -> pd.DataFrame:
    """The chooser's mean score with a suit as trump by his length and honours (A K Q J) in
    it, per trump suit and pooled over the four suits (``trump`` = ``any``)."""
    return _by_trump(stats.hists.trump, ("length", "honours"))  # (4, 14, 5, NS)


def trump_length(stats: RunStats) -> pd.DataFrame:
    """The chooser's mean score with a suit as trump by his length in it, honours pooled, per
    trump suit and over the four (``any``)."""
    return _by_trump(stats.hists.trump.sum(2), ("length",))  # (4, 14, NS)


def _by_trump(h: np.ndarray, columns: tuple[str, ...]) -> pd.DataFrame:
    """Score moments of a (4 trump suits, *``columns``, NS) histogram, per suit and over the
    four (``any``), one row per cell that has deals."""
    full = np.concatenate([h, h.sum(0, keepdims=True)])
    n, s1, s2 = hist_moments(full, SCORE_VALUES)
    ci = ci_frame(n, s1, s2)
    idx = np.indices(n.shape).reshape(n.ndim, -1)
    frame = pd.DataFrame(
        {
            "trump": np.array(["C", "D", "H", "S", "any"])[idx[0]],
            **{name: idx[1 + k] for k, name in enumerate(columns)},
            **{k: a.reshape(-1) for k, a in ci.items()},
        }
    )
    return frame[frame["n"] > 0].reset_index(drop=True)


def nt_vs_suit(stats: RunStats) -> pd.DataFrame:
    """The chooser's score in troeven NT minus his score with his longest suit as trump (ties:
    more honours, then the higher suit), paired on the same deals, by his longest-suit
    length and by his hcp bucket."""
    h = stats.hists.nt  # (14 longest, HCP_N, NNT)
    rows = []
    pos = NT_DIFF_VALUES > 0
    neg = NT_DIFF_VALUES < 0
    for by, hist, labels in (
        ("longest", h.sum(1), [str(x) for x in range(14)]),
        ("hcp_bucket", bucketed(h.sum(0), HCP_EDGES), list(HCP_BUCKETS)),
        ("all", h.sum((0, 1))[None, :], ["all"]),
    ):
        n, s1, s2 = hist_moments(hist, NT_DIFF_VALUES)
        ci = ci_frame(n, s1, s2)
        p, plo, phi = wilson_array(hist[:, pos].sum(1), n)
        for k, label in enumerate(labels):
            if n[k] == 0:
                continue
            rows.append(
                {
                    "by": by,
                    "value": label,
                    **{key: a[k] for key, a in ci.items()},
                    "p_nt_better": p[k],
                    "p_ci_low": plo[k],
                    "p_ci_high": phi[k],
                    "p_suit_better": hist[k, neg].sum() / n[k],
                }
            )
    return pd.DataFrame(rows)
