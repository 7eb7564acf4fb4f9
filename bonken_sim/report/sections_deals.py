"""The sections of a deal run's report: what each contract costs, what choosing is worth,
and whether doubling pays. Each section builder adds its tables (written as CSV) and the
figures to draw from them, and returns the section's text.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bonken_sim.report import doubling_findings as DF
from bonken_sim.report import tables as T
from bonken_sim.report.figure_kit import REL_DISPLAY
from bonken_sim.report.figures import FigureSpec
from bonken_sim.report.format import MIN_N, ci_texts, pct_texts
from bonken_sim.report.histograms import REL_NAMES, RunStats
from bonken_sim.report.render import FigureItem, Section
from bonken_sim.rules.totals import deal_total

#: the tables of a report by CSV name, and how to draw each figure by figure name
Tables = dict[str, pd.DataFrame]
Drawings = dict[str, FigureSpec]

GUIDE = (
    "Seats are named by where they sit relative to the dealer D: the leader (D+1) plays the "
    "first card, the chooser (D+2, across from the dealer) picks the contract, the first "
    "doubler (D+3) speaks first in the doubling round, then the dealer. In a run every deal "
    "is played in every contract variant on the same cards, so 'chooser' is the seat that "
    "would choose; comparisons between contracts are paired on the same deals.",
    "Scores are raw scores per deal, before doubling. Each contract has a fixed deal total "
    "(bukken and hartenjagen −65, herenboeren and vrouwen −120, hartenheer, laatste slag "
    "and domino −50, troeven +130); a seat's fair share is a quarter of it.",
    "Every mean is shown with its 95% confidence interval (error bars, bands, or ± in the "
    "tables); rates with Wilson 95% intervals, with as many decimals as it takes for an "
    f"interval's ends to differ. A number resting on fewer than {MIN_N} deals gets no "
    "interval: it is left out of the line plots, and a heatmap cell or table entry shows "
    "only its n (grey). Where one deal holds several doubles, the deal is the unit: the "
    "doubles of one deal are not independent.",
    "The chooser's relative score of a contract is his score minus that contract's mean "
    "chooser score over the whole run: what choosing it on this hand gains over the "
    "contract's average, which is what matters when every contract must be played once "
    "in a game.",
    "Doubling: when player d doubles player t, d gains s_d − s_t from t (RULES.md §5), so "
    "a double pays for the doubler exactly when he scores more than his target.",
    "The numbers describe the strategies that played this run (see 'strategies' above), "
    "not perfect play. Every figure's numbers are in tables/*.csv beside this page.",
)


def deal_sections(
    stats: RunStats, double_policies: Sequence[str], has_games: bool = False
) -> tuple[list[Section], Drawings, Tables]:
    """The sections, a draw function per figure and every table to write as CSV
    (``has_games``: the page also reports a game run)."""
    tabs: Tables = {}
    draw: Drawings = {}
    sections = [
        _contract_costs(stats, tabs, draw),
        _choice_value(stats, tabs, draw),
        _doubling(stats, double_policies, tabs, draw, has_games),
    ]
    return sections, draw, tabs


def _contract_costs(stats: RunStats, tabs: Tables, draw: Drawings) -> Section:
    """Section 1: each seat's mean score per contract, its distribution, and how it
    depends on the seat's own hand."""
    tabs["expected_score"] = es = T.expected_score(stats)
    tabs["score_distribution"] = T.score_distribution(stats)
    tabs["hand_features"] = T.hand_features(stats)
    draw["expected_score"] = ("expected_score", (tabs["expected_score"],))
    draw["score_distribution"] = ("score_distribution", (tabs["score_distribution"],))
    draw["hand_features"] = ("hand_features", (tabs["hand_features"], stats.variants))
    table = pd.DataFrame({"variant": stats.variants})
    for rel in REL_NAMES:
        d = es[es["relation"] == rel].set_index("variant").loc[list(stats.variants)]
        table[REL_DISPLAY[rel]] = ci_texts(d["mean"], d["ci_low"], d["ci_high"])
    table["fair share"] = [f"{deal_total(v) / 4:+.2f}" for v in stats.variants]
    return Section(
        "1. What each contract costs",
        "The mean raw score of each seat in each contract variant, how the score is "
        "distributed, and how it depends on the seat's own hand.",
        [
            FigureItem(
                "expected_score",
                "Expected score per contract variant and seat",
                "Left: each seat's mean raw score per deal (dots, with 95% CI bars; the "
                "bars are often narrower than the dots) and the fair share, a quarter of "
                "the deal total (black tick). Right: the same means minus the fair share, "
                "so the differences between seats can be read: a dot right of zero is a "
                "seat that does better than an equal split of the contract's points.",
                ["expected_score"],
            ),
            FigureItem(
                "score_distribution",
                "Score distributions",
                "For each contract variant, the share of deals (in %) on which a seat "
                "scores each possible raw score, one colour per seat. The all-or-nothing "
                "contracts (hartenheer, laatste slag, domino) have two bars: 0 and −50.",
                ["score_distribution"],
            ),
            FigureItem(
                "hand_features",
                "Scores by hand features",
                "Each panel: a seat's mean score in one contract (y, with a 95% band) "
                "against one feature of its own hand (x), one line per seat. High-card "
                "points count A=4, K=3, Q=2, J=1 (10 on average). A falling line means "
                "that feature costs points in that contract. hand_features.csv has every "
                "variant against every feature (hcp, voids, longest suit, hearts, aces, "
                "kings, queens, jacks, 8s, 2s, K♥ held), per seat and pooled (relation "
                "'all').",
                ["hand_features"],
            ),
        ],
        tables=[("Mean raw score per deal ± 95% CI half-width", table)],
    )


def _choice_value(stats: RunStats, tabs: Tables, draw: Drawings) -> Section:
    """Section 2: the chooser's score per contract, the best contract by hand, the choice
    rules against each other, trump and no-trump values."""
    tabs["chooser_value"] = T.chooser_value(stats)
    tabs["best_contract"] = T.best_contract(stats)
    rules, freq = T.choice_value(stats)
    tabs["choice_value"], tabs["choice_frequency"] = rules, freq
    tabs["trump_value"] = T.trump_value(stats)
    tabs["trump_length"] = T.trump_length(stats)
    tabs["nt_vs_suit"] = T.nt_vs_suit(stats)
    draw["chooser_value"] = ("chooser_value", (tabs["chooser_value"],))
    draw["best_contract"] = ("best_contract", (tabs["best_contract"],))
    figs2 = [
        FigureItem(
            "chooser_value",
            "The chooser's score per contract",
            "Left: the chooser's mean raw score in each variant (bars, 95% CI) and the fair "
            "share (black tick). Right: his edge over the fair share; blue = he does better "
            "than an equal split. Since the chooser does not lead, this is the value of his "
            "seat, before any choosing.",
            ["chooser_value"],
        ),
        FigureItem(
            "best_contract",
            "Best contract by hand bucket",
            "Each cell: the chooser's relative score (his score minus the contract's mean "
            "chooser score over the run) among hands in that bucket; blue = the contract "
            "goes better than on an average hand. The boxed, bold cell in each column is "
            "the best choice for hands in that bucket. Left by high-card points, right by "
            "the length of the longest suit. Every cell's CI is in best_contract.csv.",
            ["best_contract"],
        ),
    ]
    intro2 = (
        "What choosing is worth. The chooser's relative score of a contract is his score "
        "minus that contract's mean chooser score over this run."
    )
    if not rules.empty:
        draw["choice_value"] = ("choice_value", (rules, freq))
        figs2.append(
            FigureItem(
                "choice_value",
                "Hindsight against random choice",
                "Left, blue: the chooser's mean relative score per turn when he picks "
                "with perfect hindsight (per deal, the variant with the highest relative "
                "score, knowing how every variant plays out), "
                + ("with the fitted policy, " if "policy" in set(rules["rule"]) else "")
                + "and uniformly at random over the run's variants (0 by construction). "
                "Orange: paired differences between the rules on the same deals, with 95% CI. "
                "Random choice enters as its exact average over the variants on each deal. "
                "Right: how often each rule picks each variant (dashed: random).",
                ["choice_value", "choice_frequency"],
            )
        )
        hv = rules[(rules["rule"] == "hindsight") & (rules["versus"] == "random")].iloc[0]
        intro2 += (
            f" Perfect hindsight gains {hv['mean']:.1f} points per chooser turn over a "
            f"random choice (95% CI {hv['ci_low']:.1f} to {hv['ci_high']:.1f}): the most any "
            "choice rule could gain."
        )
    if tabs["trump_value"].shape[0]:
        nt = stats.vloc("troeven_NT")
        nt_mean = float(tabs["chooser_value"]["mean"].iloc[nt]) if nt is not None else None
        draw["trump_value"] = (
            "trump_value",
            (tabs["trump_value"], tabs["trump_length"], nt_mean),
        )
        figs2.append(
            FigureItem(
                "trump_value",
                "Trump suit value by length and honours",
                "Left: the chooser's mean score with a suit as trump, by how many cards he "
                "holds in it (x) and how many of its A, K, Q, J (colours), the four suits "
                "pooled, with 95% bands; dashed: his mean score in no-trump over all hands. "
                "Each extra trump is worth roughly the rise of a line per card. Right: the "
                "same per trump suit, honours pooled: the suits should agree.",
                ["trump_value", "trump_length"],
            )
        )
    if tabs["nt_vs_suit"].shape[0]:
        draw["nt_vs_suit"] = ("nt_vs_suit", (tabs["nt_vs_suit"],))
        figs2.append(
            FigureItem(
                "nt_vs_suit",
                "No-trump against suit trumps",
                "On the same deals, the chooser's score in no-trump minus his score with his "
                "longest suit as trump (ties: more honours, then the higher suit), by the "
                "length of that suit (left) and by his high-card points (right), with 95% CI. "
                "Below zero the suit is the better call. nt_vs_suit.csv also gives the share "
                "of deals on which each is better.",
                ["nt_vs_suit"],
            )
        )
    return Section(
        "2. Contract-choice value",
        intro2,
        figs2,
        note=""
        if "policy" in set(rules.get("rule", pd.Series(dtype=str)))
        else "The fitted choice policy is not part of this report.",
    )


#: what a deal run cannot say about doubling the chooser, and where it is measured instead
CHOOSER_CAVEAT = (
    "In a deal run every contract is played on every deal, so the chooser here did not pick "
    "the contract for his hand: a double of the chooser is measured against a chooser who "
    "did not choose. In a game he chooses the contract that suits him, which makes doubling "
    "him worth less than these figures say."
)


def _doubling(
    stats: RunStats,
    double_policies: Sequence[str],
    tabs: Tables,
    draw: Drawings,
    has_games: bool = False,
) -> Section:
    """Section 3: the gain of a double per contract and pair of seats, when it pays by the
    doubler's points, and the realised gain of each doubling rule (``double_policies``).
    ``has_games``: the page also has a game run's results, where doubling the chooser is
    measured as a game plays it."""
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
    return Section(
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
