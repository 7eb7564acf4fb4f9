"""The tables behind the figures: small tidy DataFrames computed from a RunStats.

Every mean comes with its 95% interval (normal approximation), every rate with its Wilson
interval; each table is written as CSV beside the report.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import (
    CHOOSER,
    DIFF_VALUES,
    FEATURES,
    GAME_DEALS,
    GAME_TROEVEN_DEALS,
    NT_DIFF_VALUES,
    OWN_TROEVEN,
    PAIRS,
    REL_NAMES,
    REL_OFFSET,
    SCORE_VALUES,
    UNIT_SUMS,
    RunStats,
)
from bonken_sim.rules.totals import deal_total
from bonken_sim.stats import (
    design_effect_ci,
    hist_moments,
    mean_ci_array,
    ratio_ci_array,
    wilson_array,
    wilson_ratio_array,
)

#: high-card-point buckets (A=4, K=3, Q=2, J=1; the mean hand has 10)
HCP_EDGES = (0, 6, 9, 12, 15, 18, 38)
HCP_BUCKETS = ("0-5", "6-8", "9-11", "12-14", "15-17", "18+")
LONGEST_EDGES = (4, 5, 6, 7, 14)
LONGEST_BUCKETS = ("4", "5", "6", "7+")


def rel_label(r: int) -> str:
    return REL_NAMES[r]


def _bucket(hist: np.ndarray, edges: tuple[int, ...], axis: int = 0) -> np.ndarray:
    """Sum a histogram's ``axis`` (indexed by value) into the buckets [edges[k], edges[k+1])."""
    h = np.moveaxis(hist, axis, 0)
    out = np.stack([h[lo:hi].sum(0) for lo, hi in zip(edges[:-1], edges[1:], strict=True)])
    return np.moveaxis(out, 0, axis)


def _ci_frame(n, s1, s2) -> dict[str, np.ndarray]:
    mean, sd, lo, hi = mean_ci_array(n, s1, s2)
    return {"n": np.asarray(n, np.int64), "mean": mean, "sd": sd, "ci_low": lo, "ci_high": hi}


def _seat(stats: RunStats, r: int) -> int:
    return (stats.dealer + REL_OFFSET[r]) % 4


# ---------------------------------------------------------------------------------------
# Section 1: what each contract costs


def expected_score(stats: RunStats) -> pd.DataFrame:
    """Mean raw score per contract (the variants, then the chooser's own troeven call) and
    seat relation."""
    n, s1, s2 = hist_moments(stats.hists.score, SCORE_VALUES)
    rows = []
    for v, name in enumerate(stats.contracts):
        ci = _ci_frame(n[v], s1[v], s2[v])
        for r in range(len(REL_NAMES)):
            rows.append(
                {
                    "variant": name,
                    "relation": rel_label(r),
                    "seat": _seat(stats, r),
                    **{k: ci[k][r] for k in ci},
                    "fair_share": deal_total(name) / 4,
                }
            )
    return pd.DataFrame(rows)


def score_distribution(stats: RunStats) -> pd.DataFrame:
    """Probability of each raw score per variant and relation (scores that occur at all)."""
    rows = []
    for v, name in enumerate(stats.contracts):
        h = stats.hists.score[v]  # (R, NS)
        seen = np.flatnonzero(h.sum(0))
        for r in range(len(REL_NAMES)):
            total = h[r].sum()
            for k in seen:
                rows.append(
                    {
                        "variant": name,
                        "relation": rel_label(r),
                        "score": int(SCORE_VALUES[k]),
                        "count": int(h[r, k]),
                        "probability": h[r, k] / total if total else np.nan,
                    }
                )
    return pd.DataFrame(rows)


def hand_features(stats: RunStats) -> pd.DataFrame:
    """A seat's mean score by the value of one of its own hand features, per relation and
    pooled over the four seats (relation ``all``)."""
    frames = []
    for fname in FEATURES:
        hist = stats.hists.feature(fname)  # (X, V, R, NS)
        pooled = hist.sum(2, keepdims=True)
        full = np.concatenate([hist, pooled], axis=2)  # (X, V, R+1, NS)
        n, s1, s2 = hist_moments(full, SCORE_VALUES)
        ci = _ci_frame(n, s1, s2)
        X, V, RR = n.shape
        idx = np.indices((X, V, RR)).reshape(3, -1)
        keep = n.reshape(-1) > 0
        frame = pd.DataFrame(
            {
                "feature": fname,
                "variant": np.array(stats.contracts)[idx[1]],
                "relation": np.array([*REL_NAMES, "all"])[idx[2]],
                "value": idx[0],
                **{k: a.reshape(-1) for k, a in ci.items()},
            }
        )
        frames.append(frame[keep])
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------
# Section 2: the chooser


def chooser_value(stats: RunStats) -> pd.DataFrame:
    """The chooser's mean score per contract and its advantage over a fair share (total/4)."""
    n, s1, s2 = hist_moments(stats.hists.score[:, CHOOSER], SCORE_VALUES)
    ci = _ci_frame(n, s1, s2)
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
        b = _bucket(hist, edges)  # (B, K, NS)
        n, s1, s2 = hist_moments(b, SCORE_VALUES)
        ci = _ci_frame(n, s1, s2)
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
    h = _bucket(_bucket(stats.hists.hand2, HCP_EDGES, 0), LONGEST_EDGES, 1)  # (B, L, K, NS)
    n, s1, s2 = hist_moments(h, SCORE_VALUES)
    ci = _ci_frame(n, s1, s2)
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


def _eta2(h: np.ndarray) -> np.ndarray:
    """Variance explained by the first axis of score histograms (G, …, NS): the between-group
    sum of squares over the total (η²), per trailing index."""
    n, s1, s2 = hist_moments(h, SCORE_VALUES)
    N, S1, S2 = n.sum(0), s1.sum(0), s2.sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        total = S2 - S1 * S1 / N
        between = np.where(n > 0, s1 * s1 / np.where(n > 0, n, 1), 0.0).sum(0) - S1 * S1 / N
        return np.where(total > 0, between / total, np.nan)


def feature_importance(stats: RunStats) -> pd.DataFrame:
    """Per contract, the share of the variance of a seat's score explained by each of its
    own hand features (η² of the feature's group means, the four seats pooled) and by the
    seat itself (``feature`` = ``seat``); ``rank`` 1 is the most predictive hand feature."""
    rows = []
    seat = _eta2(np.moveaxis(stats.hists.score, 1, 0))  # (K,)
    eta = {f: _eta2(stats.hists.feature(f).sum(2)) for f in FEATURES}  # each (K,)
    for k, name in enumerate(stats.contracts):
        ranked = sorted(FEATURES, key=lambda f: -np.nan_to_num(eta[f][k], nan=-1))
        rows.append({"variant": name, "feature": "seat", "eta2": seat[k], "rank": 0})
        for r, f in enumerate(ranked, 1):
            rows.append({"variant": name, "feature": f, "eta2": eta[f][k], "rank": r})
    return pd.DataFrame(rows)


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
    ci = _ci_frame(n, s1, s2)
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
        ("hcp_bucket", _bucket(h.sum(0), HCP_EDGES), list(HCP_BUCKETS)),
        ("all", h.sum((0, 1))[None, :], ["all"]),
    ):
        n, s1, s2 = hist_moments(hist, NT_DIFF_VALUES)
        ci = _ci_frame(n, s1, s2)
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


# ---------------------------------------------------------------------------------------
# Section 3: doubling


def contract_deals(stats: RunStats, rule: str = "all") -> np.ndarray:
    """(V,) the deals on which each contract is played under a doubling rule: a rule named
    like a choice rule (the fitted ``policy``) plays the contract that rule picks, so only
    those deals count; otherwise (and for ``all``) every deal is played in every contract."""
    c = stats.choice
    if rule != "all" and c is not None and rule in c.rules and c.n:
        return c.chosen[c.rules.index(rule)].astype(np.float64)
    return np.full(len(stats.variants), float(stats.deals))


def _double_rows(hist: np.ndarray, deals: np.ndarray) -> dict[str, np.ndarray]:
    """Moments and the gain / tie / loss rates along the last axis (the s_d − s_t
    histogram), with ``per_deal`` = doubles per deal of the contract (``deals`` broadcasts
    against the leading axes; its last axis is the variant's)."""
    n, s1, s2 = hist_moments(hist, DIFF_VALUES)
    ci = _ci_frame(n, s1, s2)
    rates: dict[str, np.ndarray] = {}
    for name, sign in (("p_positive", DIFF_VALUES > 0), ("p_tie", DIFF_VALUES == 0)):
        p, lo, hi = wilson_array(hist[..., sign].sum(-1), n)
        prefix = "p" if name == "p_positive" else name  # p_ci_low: the gain's, as before
        rates |= {name: p, f"{prefix}_ci_low": lo, f"{prefix}_ci_high": hi}
    p, lo, hi = wilson_array(hist[..., DIFF_VALUES < 0].sum(-1), n)
    rates |= {"p_negative": p, "p_negative_ci_low": lo, "p_negative_ci_high": hi}
    with np.errstate(invalid="ignore", divide="ignore"):
        per_deal = n / deals
    return {**ci, "per_deal": per_deal, **rates}


def doubling(stats: RunStats, rule: str = "all") -> pd.DataFrame:
    """Per variant and ordered pair (doubler → target): the mean of s_doubler − s_target (the
    doubler's gain from one double) and the shares of doubles that gain, tie and lose. For
    rule ``all`` every pair counts once per deal; for a rule only the doubles it made
    (``per_deal``: doubles per deal of that contract, :func:`contract_deals`). A pair doubles
    at most once per deal, so its doubles are independent and the deal-level intervals are
    the plain ones."""
    h = stats.hists.double[rule].sum(0)  # (NP, V, ND)
    cols = _double_rows(h, contract_deals(stats, rule))
    return pd.DataFrame(
        {**_pair_keys(name, d, t), "target_is_chooser": t == CHOOSER, **_at(cols, p, v)}
        for v, name in enumerate(stats.variants)
        for p, (d, t) in enumerate(PAIRS)
    )


def _pair_keys(variant: str, doubler: int, target: int) -> dict:
    """The key columns of a doubling row: the variant and the (doubler, target) roles."""
    return {"variant": variant, "doubler": REL_NAMES[doubler], "target": REL_NAMES[target]}


def _at(cols: dict, *index: int) -> dict:
    """Every column's value at ``index`` (the leading axes of the _double_rows arrays)."""
    return {key: a[index] for key, a in cols.items()}


def doubling_by_hcp(stats: RunStats, rule: str = "all") -> pd.DataFrame:
    """As :func:`doubling`, by the doubler's hcp bucket."""
    h = _bucket(stats.hists.double[rule], HCP_EDGES)  # (B, NP, V, ND)
    cols = _double_rows(h, contract_deals(stats, rule))
    return pd.DataFrame(
        {**_pair_keys(name, d, t), "hcp_bucket": label, **_at(cols, k, p, v)}
        for k, label in enumerate(HCP_BUCKETS)
        for v, name in enumerate(stats.variants)
        for p, (d, t) in enumerate(PAIRS)
    )


def doubling_summary(stats: RunStats, rule: str) -> pd.DataFrame:
    """A doubling rule per variant and over all variants (``all``), with the deal as the
    unit (the doubles of one deal are not independent): the deals the contract was played
    on, doubles per such deal, the mean gain per double (a ratio over deals, delta-method
    interval) and the share of doubles that gained (Wilson at the effective size)."""
    u = dict(zip(UNIT_SUMS, stats.hists.double_units[rule].T.astype(np.float64), strict=True))
    deals = np.append(contract_deals(stats, rule), float(stats.deals))
    per = mean_ci_array(deals, u["x"], u["xx"])
    gain = ratio_ci_array(deals, u["x"], u["g"], u["xx"], u["gg"], u["xg"])
    share = wilson_ratio_array(deals, u["x"], u["k"], u["xx"], u["kk"], u["xk"])
    return pd.DataFrame(
        {
            "variant": [*stats.variants, "all"],
            "deals": deals.astype(np.int64),
            "deals_with_doubles": u["u"].astype(np.int64),
            "n": u["x"].astype(np.int64),
            "per_deal": per[0],
            "per_deal_ci_low": per[2],
            "per_deal_ci_high": per[3],
            "mean": gain[0],
            "se": gain[1],
            "ci_low": gain[2],
            "ci_high": gain[3],
            "p_positive": share[0],
            "p_ci_low": share[1],
            "p_ci_high": share[2],
        }
    )


#: the groups of pairs drawn in the hcp figure: the chooser may only double back (RULES §5.3)
DOUBLE_GROUPS = {
    "other → chooser": [p for p, (d, t) in enumerate(PAIRS) if t == CHOOSER],
    "other → other": [p for p, (d, t) in enumerate(PAIRS) if CHOOSER not in (d, t)],
    "chooser → other (double back)": [p for p, (d, t) in enumerate(PAIRS) if d == CHOOSER],
}


def doubling_groups_by_hcp(stats: RunStats, rule: str = "all") -> pd.DataFrame:
    """The doubler's gain by his hcp bucket, pairs pooled into the three groups drawn.

    Two pairs of a group can both fall in a bucket on the same deal (two non-choosers of
    similar strength doubling the chooser), and their gains share the target's score: the
    mean's interval is widened for the worst case, a design effect of the group's number of
    pairs (``ci_low``/``ci_high``; ``ci_naive_*`` treat every double as independent)."""
    h = _bucket(stats.hists.double[rule], HCP_EDGES)  # (B, NP, V, ND)
    grouped = np.stack([h[:, idx].sum(1) for idx in DOUBLE_GROUPS.values()], 1)  # (B, G, V, ND)
    cols = _double_rows(grouped, contract_deals(stats, rule))
    size = np.array([len(idx) for idx in DOUBLE_GROUPS.values()], np.float64)[None, :, None]
    cols["ci_naive_low"], cols["ci_naive_high"] = cols["ci_low"], cols["ci_high"]
    cols["ci_low"], cols["ci_high"] = design_effect_ci(cols["mean"], cols["ci_low"], size)
    rows = []
    for k, label in enumerate(HCP_BUCKETS):
        for v, name in enumerate(stats.variants):
            for g, group in enumerate(DOUBLE_GROUPS):
                rows.append(
                    {
                        "variant": name,
                        "group": group,
                        "hcp_bucket": label,
                        **{key: a[k, g, v] for key, a in cols.items()},
                    }
                )
    return pd.DataFrame(rows)
