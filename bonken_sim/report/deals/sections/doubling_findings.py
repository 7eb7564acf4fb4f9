"""What the doubling section says in words: when a double pays, as a rule a player can
remember (by his high-card points), and one line of "what this means" under each doubling
figure. Every number is computed from the run's tables and histograms.

The rule comes from the histogram of s_doubler − s_target by the doubler's exact high-card
points (every pair on every deal), pooled over the pairs of a group (a non-chooser doubling
the chooser, or another non-chooser) and over the contracts of a family (troeven, or the
negative contracts with domino): a double pays on average at the points where the mean gain
is above zero.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.deals.stats.histograms import (
    CHOOSER,
    DIFF_VALUES,
    HCP_N,
    PAIRS,
    REL_NAMES,
    RunStats,
)
from bonken_sim.report.page.format import MIN_N, extremes, fmt_ci, pct_ci
from bonken_sim.stats import design_effect_ci, hist_moments, mean_ci_array

#: the doubles a non-chooser may open with: the chooser may only double back (RULES §5.3)
OPENING_GROUPS = {
    "a non-chooser doubling the chooser": [p for p, (d, t) in enumerate(PAIRS) if t == CHOOSER],
    "a non-chooser doubling another non-chooser": [
        p for p, (d, t) in enumerate(PAIRS) if CHOOSER not in (d, t)
    ],
}


def _families(variants: tuple[str, ...]) -> dict[str, list[int]]:
    """Contract families with their variant indices: troeven and the negative contracts."""
    trump = [v for v, name in enumerate(variants) if name.startswith("troeven")]
    other = [v for v, name in enumerate(variants) if not name.startswith("troeven")]
    fams = {"troeven": trump, "the negative contracts": other}
    return {k: v for k, v in fams.items() if v}


def _paying_range(hcp: np.ndarray, mean: np.ndarray) -> tuple[str, int, int]:
    """How the points where the mean gain is above zero lie: ``("from", x, top)`` for x and
    up, ``("up to", low, x)``, ``("any", low, top)``, ``("never", …)`` or ``("between", a, b)``
    (the widest positive stretch, when it touches neither end)."""
    pos = mean > 0
    if pos.all():
        return "any", int(hcp[0]), int(hcp[-1])
    if not pos.any():
        return "never", int(hcp[0]), int(hcp[-1])
    if pos[-1]:
        first = len(pos) - int(np.argmin(pos[::-1]))  # the start of the final positive stretch
        return "from", int(hcp[first]), int(hcp[-1])
    if pos[0]:
        return "up to", int(hcp[0]), int(hcp[int(np.argmin(pos)) - 1])
    ok = np.flatnonzero(pos)
    return "between", int(hcp[ok[0]]), int(hcp[ok[-1]])


def break_even(stats: RunStats) -> pd.DataFrame:
    """Per opening group and contract family: at which of his high-card points the doubler
    gains on average (``rule``, ``low``, ``high``, over the points held by at least MIN_N
    doubles), the share of such doubles (``share_of_hands``) and the mean gain there."""
    hist = stats.hists.double["all"]  # (HCP_N, NP, V, ND)
    rows = []
    for group, pairs in OPENING_GROUPS.items():
        for family, vs in _families(stats.variants).items():
            h = hist[:, pairs][:, :, vs].sum((1, 2))  # (HCP_N, ND)
            n, s1, s2 = hist_moments(h, DIFF_VALUES)
            mean, _, lo, hi = mean_ci_array(n, s1, s2)
            ok = n >= MIN_N
            if not ok.any():
                continue
            hcp = np.arange(HCP_N)[ok]
            rule, low, high = _paying_range(hcp, mean[ok])
            inside = (np.arange(HCP_N) >= low) & (np.arange(HCP_N) <= high) & ok
            if rule == "never":
                inside[:] = False
            k, t1, t2 = n[inside].sum(), s1[inside].sum(), s2[inside].sum()
            m, _, mlo, _ = mean_ci_array(k, t1, t2) if k else (np.nan,) * 4
            # up to pairs × contracts of these doubles come from one deal: the worst case
            mlo, mhi = design_effect_ci(m, mlo, len(pairs) * len(vs))
            rows.append(
                {
                    "group": group,
                    "family": family,
                    "rule": rule,
                    "low": low,
                    "high": high,
                    "doubles": int(n.sum()),
                    "share_of_hands": k / n.sum(),
                    "mean_gain_there": float(m),
                    "ci_low": float(mlo),
                    "ci_high": float(mhi),
                }
            )
    return pd.DataFrame(rows)


def rule_words(row: pd.Series) -> str:
    """``from 13 high-card points up (30% of hands)``: where a double pays, in words."""
    share = f"{100 * row['share_of_hands']:.0f}% of hands"
    if row["rule"] == "from":
        return f"from {row['low']} high-card points up ({share})"
    if row["rule"] == "up to":
        return f"with at most {row['high']} high-card points ({share})"
    if row["rule"] == "between":
        return f"only with {row['low']} to {row['high']} high-card points ({share})"
    if row["rule"] == "any":
        return "with any hand"
    return "with no hand"


def rule_findings(table: pd.DataFrame) -> list[str]:
    """When to double, in one sentence per opening group, or one for both when their rules
    agree (every family the same points)."""
    per_group = {
        group: "; ".join(_family_rule(r) for _, r in rows.iterrows())
        for group, rows in table.groupby("group", sort=False)
    }
    keys = table.groupby("group", sort=False)[["family", "rule", "low", "high"]]
    same = len({tuple(map(tuple, k.to_numpy())) for _, k in keys}) == 1
    if same and len(per_group) > 1:
        group = " or ".join(g.removeprefix("a non-chooser doubling ") for g in per_group)
        rows = table[table["group"] == next(iter(per_group))]
        text = "; ".join(_family_rule(r, gain=False) for _, r in rows.iterrows())
        return [f"When to double: a non-chooser's double of {group} pays on average {text}."]
    return [f"When to double: for {g}, a double pays on average {t}." for g, t in per_group.items()]


def _family_rule(r: pd.Series, gain: bool = True) -> str:
    out = f"in {r['family']} {rule_words(r)}"
    if gain and r["rule"] != "never":
        out += f", {fmt_ci(r['mean_gain_there'], r['ci_low'], r['ci_high'], 1)} points a double"
    return out


def _opening_half(t: pd.DataFrame) -> pd.DataFrame:
    """A non-chooser's doubles with enough deals, one of each mirrored pair (every pair on
    every deal: t → d is d → t with the sign turned)."""
    order = {name: k for k, name in enumerate(REL_NAMES)}
    d, tg = t["doubler"].map(order), t["target"].map(order)
    half = (tg == CHOOSER) | ((d != CHOOSER) & (tg != CHOOSER) & (d < tg))
    return t[half & (t["n"] >= MIN_N)]


def mean_meaning(t: pd.DataFrame) -> str:
    """Under the mean-gain map: how many pair–contract cells pay and the extremes."""
    ok = _opening_half(t)
    if ok.empty:
        return f"No cell rests on {MIN_N} deals or more: the run is too small to tell."
    pays = int((ok["ci_low"] > 0).sum())
    loses = int((ok["ci_high"] < 0).sum())
    best, worst = extremes(ok, "mean")
    return (
        f"Doubling on every deal, whatever the hand, pays in {pays} of {len(ok)} "
        f"pair–contract cells (interval above zero) and loses in {loses}: at best "
        f"{best['mean']:+.1f} points a double ({_pair(best)} in {best['variant']}), at worst "
        f"{worst['mean']:+.1f} ({_pair(worst)} in {worst['variant']})."
    )


def hcp_meaning(table: pd.DataFrame) -> str:
    """Under the gain-by-points figure: where its lines cross zero, from the rule table."""
    if table.empty:
        return f"No point count holds {MIN_N} doubles or more: the run is too small to tell."
    trend = {"from": "rises with", "up to": "falls with"}
    parts = []
    for family, rows in table.groupby("family", sort=False):
        r = rows.iloc[0]
        words = rule_words(r)
        if r["rule"] in trend:
            words += f": the gain {trend[r['rule']]} the doubler's points"
        parts.append(f"in {family} a double pays {words}")
    return "Pooled over the opening doubles, " + "; ".join(parts) + "."


def rates_meaning(t: pd.DataFrame) -> str:
    """Under the gain / tie / loss map: the contract with the most ties, and how often a
    double gains more often than it loses."""
    ok = _opening_half(t)
    if ok.empty:
        return f"No cell rests on {MIN_N} deals or more: the run is too small to tell."
    ties = ok.groupby("variant", sort=False)["p_tie"].mean()
    top = ties.idxmax()
    more = int((ok["p_positive"] > ok["p_negative"]).sum())
    return (
        f"Ties are most common in {top}: {100 * ties[top]:.0f}% of doubles there move no "
        f"points. A double gains more often than it loses in {more} of {len(ok)} "
        "pair–contract cells."
    )


def policy_meaning(summary: pd.DataFrame, name: str) -> str:
    """Under a doubling rule's realised-gain map: its doubles over all contracts."""
    row = summary[summary["variant"] == "all"].iloc[0]
    if row["deals_with_doubles"] < MIN_N:
        return (
            f"The {name} doubled on only {int(row['deals_with_doubles'])} deals: too few to "
            "tell whether its doubles pay."
        )
    gain = fmt_ci(row["mean"], row["ci_low"], row["ci_high"], 1)
    share = pct_ci(row["p_positive"], row["p_ci_low"], row["p_ci_high"], 0)
    verdict = (
        "its doubles pay"
        if row["ci_low"] > 0
        else "its doubles cost"
        if row["ci_high"] < 0
        else "its doubles neither clearly pay nor clearly cost"
    )
    return (
        f"The {name} made {row['per_deal']:.2f} doubles per deal; each gained {gain} points "
        f"on average (the deal as the unit) and {share} of them gained: {verdict}."
    )


def _pair(row: pd.Series) -> str:
    return f"{row['doubler'].replace('_', ' ')} → {row['target'].replace('_', ' ')}"
