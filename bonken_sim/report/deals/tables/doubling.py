"""The tables of a deal run's section 3, whether doubling pays: the gain of a double per
contract and pair of seats, by the doubler's high-card points, and each doubling rule's
realised gain (the deal as the unit). Written as CSV beside the report."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import (
    CHOOSER,
    DIFF_VALUES,
    PAIRS,
    REL_NAMES,
    UNIT_SUMS,
    RunStats,
)
from bonken_sim.report.deals.tables.kit import (
    HCP_BUCKETS,
    HCP_EDGES,
    bucketed,
    ci_frame,
)
from bonken_sim.stats import (
    design_effect_ci,
    hist_moments,
    mean_ci_array,
    ratio_ci_array,
    wilson_array,
    wilson_ratio_array,
)


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
    ci = ci_frame(n, s1, s2)
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
    h = bucketed(stats.hists.double[rule], HCP_EDGES)  # (B, NP, V, ND)
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
    h = bucketed(stats.hists.double[rule], HCP_EDGES)  # (B, NP, V, ND)
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
