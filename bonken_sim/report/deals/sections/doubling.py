"""Section 3 of a deal run's report: whether doubling pays, per pair of seats, by high-card
points and under each doubling rule; with its findings and "what this means" lines, every
number computed from the run."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bonken_sim.report.deals.sections import doubling_findings as DF
from bonken_sim.report.deals.stats.histograms import RunStats
from bonken_sim.report.deals.tables import doubling as T
from bonken_sim.report.page.format import MIN_N, ci_texts, pct_texts
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection, Drawings, Tables

#: what a deal run cannot say about doubling the chooser, and where it is measured instead
CHOOSER_CAVEAT = (
    "In a deal run every contract is played on every deal, so the chooser here did not pick "
    "the contract for his hand: a double of the chooser is measured against a chooser who "
    "did not choose. In a game he chooses the contract that suits him, which makes doubling "
    "him worth less than these figures say."
)


def doubling_section(
    stats: RunStats,
    double_policies: Sequence[str],
    has_games: bool = False,
) -> BuiltSection:
    """Section 3: the gain of a double per contract and pair of seats, when it pays by the
    doubler's points, and the realised gain of each doubling rule (``double_policies``).
    ``has_games``: the page also has a game run's results, where doubling the chooser is
    measured as a game plays it."""
    tabs: Tables = {}
    draw: Drawings = {}
    tabs["doubling"] = T.doubling(stats)
    tabs["doubling_by_hcp"] = T.doubling_by_hcp(stats)
    tabs["doubling_groups_by_hcp"] = T.doubling_groups_by_hcp(stats)
    tabs["doubling_break_even"] = rule = DF.break_even(stats)
    draw["doubling_mean"] = ("doubling_mean", (tabs["doubling"],))
    draw["doubling_win_rate"] = ("doubling_win_rate", (tabs["doubling"],))
    draw["doubling_by_hcp"] = ("doubling_by_hcp", (tabs["doubling_groups_by_hcp"],))
    where = (
        "The games section measures it where he really chose."
        if has_games
        else "Only a game run (bonken-sim game, profiles basic against basic-nodouble) "
        "measures it where he really chose."
    )
    figs3 = [
        FigureItem(
            "doubling_mean",
            "Mean gain of a double per contract and seat pair",
            "Each cell: the mean of s_doubler − s_target over all deals of a contract "
            "variant (columns) for one ordered pair of seats (rows: doubler → target), "
            "with its 95% CI half-width. That is what one double would have gained the "
            "doubler on average if he doubled on every deal; blue = it pays. The reverse "
            "double (target → doubler) gains exactly the opposite, so each pair is drawn "
            "once; the chooser may only double back (RULES.md §5.3), the opposite of the "
            f"top rows. Grey cells rest on fewer than {MIN_N} deals and show only their n."
            f"\n\n{CHOOSER_CAVEAT} {where}",
            ["doubling"],
            meaning=DF.mean_meaning(tabs["doubling"]),
        ),
        FigureItem(
            "doubling_win_rate",
            "How often a double gains, ties and loses",
            "Each cell: the share of deals (%) on which the doubler scores more than his "
            "target (the double gains), the same (it moves nothing) and less (it loses), "
            "rounded to add up to 100, and the largest of their three Wilson 95% CI "
            "half-widths. Colour: the share that gains minus the share that loses. Ties are "
            "common in the all-or-nothing contracts. doubling.csv has every rate with its "
            "interval.",
            ["doubling"],
            meaning=DF.rates_meaning(tabs["doubling"]),
        ),
        FigureItem(
            "doubling_by_hcp",
            "When a double pays, by the doubler's strength",
            "Per contract, the doubler's mean gain per double (95% band) by his own "
            "high-card points, with the pairs pooled into doubles of the chooser (red), "
            "doubles between two non-choosers (blue) and the chooser's doubles back "
            "(green). Where a line is above zero, doubling with such a hand pays on "
            "average. doubling_by_hcp.csv has every pair separately, with P(gain); "
            "doubling_break_even.csv the points where a double pays, per contract family.",
            ["doubling_groups_by_hcp", "doubling_by_hcp", "doubling_break_even"],
            meaning=DF.hcp_meaning(rule),
        ),
    ]
    policy_tables: list[tuple[str, pd.DataFrame]] = []
    for name in double_policies:
        key = f"doubling_{name}"
        tabs[key] = T.doubling(stats, name)
        tabs[f"{key}_summary"] = summary = T.doubling_summary(stats, name)
        policy_tables.append(
            (
                f"The {name}'s doubles, on the contracts it chooses (95% CI, the deal as the unit)",
                _policy_table(summary),
            )
        )
        title = f"Doubling by the {name}: realised gain per double made (±95% CI)"
        draw[key] = ("doubling_mean", (tabs[key], title, False))
        figs3.append(
            FigureItem(
                key,
                f"Realised gain per double of the {name}",
                f"Each cell: the mean of s_doubler − s_target over the doubles the {name} "
                "actually made, with the 95% CI half-width. As in a game, it doubles only "
                "in the contract the choice policy picks on each deal, so contracts that are "
                f"rarely chosen have few doubles; grey cells rest on fewer than {MIN_N} and "
                "show only their n. The CSVs also give doubles per deal of the contract and "
                "the share of doubles that gained.",
                [key, f"{key}_summary"],
                meaning=DF.policy_meaning(summary, name),
            )
        )
    section = Section(
        "3. Doubling profitability",
        "A double moves s_doubler − s_target points from the target to the doubler "
        "(twice if both double each other). These figures show, for every contract and "
        "ordered pair of seats, whether that difference tends to be positive, and with "
        f"which hands. {CHOOSER_CAVEAT} {where}",
        figs3,
        tables=policy_tables,
        note="" if double_policies else "The fitted doubling policy is not part of this report.",
        findings=[
            *DF.rule_findings(rule),
            "A deal run plays every contract on every deal, so doubling the chooser is "
            f"measured here against a chooser who did not pick the contract for his hand. {where}",
        ],
    )
    return BuiltSection(section, tabs, draw)


def _policy_table(summary: pd.DataFrame) -> pd.DataFrame:
    """A doubling rule's summary as shown on the page: doubles per deal of the contract,
    gain per double and share of doubles that gained, each over deals (n < MIN_N deals with
    a double: no interval)."""
    n = summary["deals_with_doubles"]
    return pd.DataFrame(
        {
            "contract": summary["variant"],
            "deals of this contract": summary["deals"],
            "doubles per deal of this contract": ci_texts(
                summary["per_deal"],
                summary["per_deal_ci_low"],
                summary["per_deal_ci_high"],
                2,
                summary["deals"],
                signed=False,
            ),
            "gain per double (points)": ci_texts(
                summary["mean"], summary["ci_low"], summary["ci_high"], 1, n
            ),
            "doubles that gain": pct_texts(
                summary["p_positive"], summary["p_ci_low"], summary["p_ci_high"], 0, n
            ),
        }
    )
