"""Section 1 of a deal run's report: what each contract costs each seat, how the score is
distributed, and which features of a seat's own hand move it most; with its findings and
"what this means" lines, every number computed from the run."""

from __future__ import annotations

import pandas as pd

from bonken_sim.report.deals.stats.histograms import REL_NAMES, RunStats
from bonken_sim.report.deals.tables import costs as T
from bonken_sim.report.deals.tables.choice import choice_set
from bonken_sim.report.page.figure_kit import REL_DISPLAY
from bonken_sim.report.page.format import ci_column
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection, Drawings, Tables
from bonken_sim.rules.totals import deal_total


def costs_section(stats: RunStats) -> BuiltSection:
    """Section 1: each seat's mean score per contract, its distribution, and how it
    depends on the seat's own hand."""
    es = T.expected_score(stats)
    dist = T.score_distribution(stats)
    hf = T.hand_features(stats)
    imp = T.feature_importance(stats)
    tabs: Tables = {
        "expected_score": es,
        "score_distribution": dist,
        "hand_features": hf,
        "feature_importance": imp,
    }
    draw: Drawings = {
        "expected_score": ("expected_score", (es, imp)),
        "score_distribution": ("score_distribution", (dist,)),
        "hand_features": ("hand_features", (hf, _feature_panels(stats, imp))),
    }
    contracts = list(stats.contracts)
    table = pd.DataFrame({"contract": contracts})
    for rel in REL_NAMES:
        d = es[es["relation"] == rel].set_index("variant").loc[contracts]
        table[REL_DISPLAY[rel]] = ci_column(d)
    table["fair share"] = [f"{deal_total(v) / 4:+.2f}" for v in contracts]
    own = (
        f" The row troeven is troeven in the trump the chooser names ({stats.call_rule}): "
        "every seat's score on the deal in the variant the chooser would call."
        if stats.call_rule
        else ""
    )
    section = Section(
        "1. What each contract costs",
        "The mean raw score of each seat in each contract variant, how the score is "
        "distributed, and how it depends on the seat's own hand." + own,
        [
            FigureItem(
                "expected_score",
                "What decides a seat's score, and each seat's edge",
                "Left: the share of the variance of a seat's score in each contract that the "
                "seat explains (grey: the seat's own mean against the others') and that the "
                "single most predictive feature of the seat's own hand explains (green, named "
                "at the bar; η², the between-group share of the sum of squares). Right: each "
                "seat's mean raw score minus the fair share, a quarter of the deal total, "
                "with 95% CI: a dot right of zero is a seat that does better than an equal "
                "split. The means themselves are in the table below.",
                ["expected_score", "feature_importance"],
                meaning=_importance_meaning(imp),
            ),
            FigureItem(
                "score_distribution",
                "Score distributions",
                "For each contract variant, the share of deals (in %) on which a seat "
                "scores each possible raw score, one colour per seat. The all-or-nothing "
                "contracts (hartenheer, laatste slag, domino) have two bars: 0 and −50.",
                ["score_distribution"],
                meaning=_spread_meaning(es),
            ),
            FigureItem(
                "hand_features",
                "Scores by the hand's most predictive feature",
                "One panel per contract: a seat's mean score (y, with a 95% band) against "
                "the feature of its own hand that explains most of its score in that "
                "contract (x; feature_importance.csv ranks them all), one line per seat. "
                "High-card points count A=4, K=3, Q=2, J=1 (10 on average). "
                "hand_features.csv has every contract against every feature (hcp, voids, "
                "longest suit, hearts, aces, kings, queens, jacks, 8s, 2s, K♥ held), per "
                "seat and pooled (relation 'all').",
                ["hand_features", "feature_importance"],
                meaning=_hand_meaning(hf, imp),
            ),
        ],
        tables=[
            ("Mean raw score per deal ± 95% CI half-width", table),
            ("The most predictive features of a seat's hand (% of variance)", _top_features(imp)),
        ],
        findings=_cost_findings(stats, es, imp, hf),
        key=1,  # seat against hand; the seats' edges stay in the section
    )
    return BuiltSection(section, tabs, draw)


def _cost_findings(
    stats: RunStats, es: pd.DataFrame, imp: pd.DataFrame, hf: pd.DataFrame
) -> list[str]:
    """Seat against hand, and the range of the seat edges, over the contracts a chooser
    weighs (the fixed-suit troeven rows are left to the tables)."""
    from bonken_sim.report.deals.figures.contracts import FEATURE_WORDS
    from bonken_sim.report.page.figure_kit import MIN_N

    weighed = [stats.contracts[k] for k in choice_set(stats)]
    imp = imp[imp["variant"].isin(weighed)]
    seat = imp[imp["feature"] == "seat"].set_index("variant")["eta2"]
    top = imp[imp["rank"] == 1].set_index("variant")
    wins = int((top["eta2"] > seat[top.index]).sum())
    c = top["eta2"].idxmax()
    f = top.loc[c, "feature"]
    pooled = hf[(hf["variant"] == c) & (hf["feature"] == f) & (hf["relation"] == "all")]
    pooled = pooled[pooled["n"] >= MIN_N].sort_values("value")
    where = (
        f"In {top.index[0]}"
        if len(top) == 1
        else f"In all {len(top)} contracts"
        if wins == len(top)
        else f"In {wins} of {len(top)} contracts"
    )
    verb = "explains" if wins else "does not explain"
    lead = f"{where} a single feature of the hand {verb} more of a seat's score than the seat"
    span = (
        f": from {pooled['mean'].iloc[0]:+.1f} at {pooled['value'].iloc[0]} to "
        f"{pooled['mean'].iloc[-1]:+.1f} points per deal at {pooled['value'].iloc[-1]}"
        if len(pooled) >= 2
        else ""
    )
    out = [
        f"{lead}: the seat explains at most {seat.max():.1%} of its variance "
        f"({seat.idxmax()}), one feature of the hand up to {top.loc[c, 'eta2']:.0%} "
        f"({FEATURE_WORDS[f]} in {c}{span})."
    ]
    edge = es[es["variant"].isin(weighed)]
    edge = edge.assign(edge=edge["mean"] - edge["fair_share"])
    worst = edge.loc[edge["edge"].idxmin()]
    best = edge.loc[edge["edge"].idxmax()]
    out.append(
        f"A seat's edge over a fair share ranges from {worst['edge']:+.1f} points per deal "
        f"({REL_DISPLAY[worst['relation']]} in {worst['variant']}) to {best['edge']:+.1f} "
        f"({REL_DISPLAY[best['relation']]} in {best['variant']})."
    )
    low = _low_cards_finding(hf, imp)
    if low:
        out.append(low)
    return out


def _low_cards_finding(hf: pd.DataFrame, imp: pd.DataFrame) -> str:
    """Laatste slag, when the 2s held are its strongest feature: the run's means at the
    fewest and most 2s, and why."""
    from bonken_sim.report.page.figure_kit import MIN_N

    top = imp[(imp["variant"] == "laatste_slag") & (imp["rank"] == 1)]
    if top.empty or top["feature"].iloc[0] != "twos":
        return ""
    d = hf[
        (hf["variant"] == "laatste_slag")
        & (hf["feature"] == "twos")
        & (hf["relation"] == "all")
        & (hf["n"] >= MIN_N)
    ].sort_values("value")
    if len(d) < 2:
        return ""
    a, b = d.iloc[0], d.iloc[-1]
    return (
        f"In laatste slag what counts is the 2s held, not high cards: {a['mean']:+.1f} points "
        f"per deal with {a['value']} twos, {b['mean']:+.1f} with {b['value']}: a 2 kept to the "
        "end almost never wins the last trick."
    )


def _feature_panels(stats: RunStats, imp: pd.DataFrame) -> list[tuple[str, str]]:
    """(contract, feature) panels: each contract a chooser weighs against its most predictive
    hand feature, and against the runner-up too when that explains nearly as much (within a
    fifth): a near tie is not a ranking."""
    panels = []
    for k in choice_set(stats):
        name = stats.contracts[k]
        ranked = imp[(imp["variant"] == name) & (imp["rank"] >= 1)].sort_values("rank")
        first, second = ranked.iloc[0], ranked.iloc[1]
        panels.append((name, first["feature"]))
        if second["eta2"] >= 0.8 * first["eta2"]:
            panels.append((name, second["feature"]))
    return panels


def _top_features(imp: pd.DataFrame, k: int = 3) -> pd.DataFrame:
    from bonken_sim.report.deals.figures.contracts import FEATURE_WORDS

    rows = []
    for v, g in imp.groupby("variant", sort=False):
        g = g.sort_values("rank")
        row = {"contract": v, "seat": f"{100 * g.iloc[0]['eta2']:.2f}%"}
        for r in range(1, k + 1):
            f = g[g["rank"] == r].iloc[0]
            row[f"feature {r}"] = f"{FEATURE_WORDS[f['feature']]} {100 * f['eta2']:.1f}%"
        rows.append(row)
    return pd.DataFrame(rows)


def _importance_meaning(imp: pd.DataFrame) -> str:
    seat = imp[imp["feature"] == "seat"].set_index("variant")["eta2"]
    top = imp[imp["rank"] == 1].set_index("variant")["eta2"]
    wins = int((top > seat).sum())
    return (
        f"The seat explains at most {seat.max():.1%} of a score's variance, the hand's "
        f"strongest feature {top.min():.0%} to {top.max():.0%}: the hand outweighs the seat "
        f"in {wins} of {len(top)} contracts."
    )


def _spread_meaning(es: pd.DataFrame) -> str:
    sd = es.groupby("variant", sort=False)["sd"].mean()
    return (
        f"Scores spread most in {sd.idxmax()} (sd {sd.max():.1f} points per deal) and least "
        f"in {sd.idxmin()} (sd {sd.min():.1f})."
    )


def _hand_meaning(hf: pd.DataFrame, imp: pd.DataFrame) -> str:
    """The K♥ in hartenheer, explained, when the run has it; else the strongest feature."""
    kh = hf[(hf["feature"] == "kh") & (hf["variant"] == "hartenheer") & (hf["relation"] == "all")]
    if len(kh) == 2:
        held, not_held = kh.set_index("value").loc[1, "mean"], kh.set_index("value").loc[0, "mean"]
        return (
            f"Holding the K♥ in hartenheer costs {held:+.1f} points per deal against "
            f"{not_held:+.1f} without it: its holder decides when it falls, throwing it on "
            "another player's trick as soon as he cannot follow suit, so it mostly lands "
            "with someone else."
        )
    top = imp[imp["rank"] == 1].sort_values("eta2").iloc[-1]
    return f"The strongest single feature is {top['feature']} in {top['variant']}."
