"""The sections of a deal run's report: what each contract costs, what choosing is worth,
and whether doubling pays. Each section builder returns the section's text with the tables
it computed (written as CSV) and how to draw its figures.
"""

from __future__ import annotations

from collections.abc import Sequence

from bonken_sim.report.deals.sections.choice import choice_section
from bonken_sim.report.deals.sections.costs import costs_section
from bonken_sim.report.deals.sections.doubling import doubling_section
from bonken_sim.report.deals.stats.histograms import RunStats
from bonken_sim.report.page.format import MIN_N
from bonken_sim.report.page.section_types import BuiltSection

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
) -> list[BuiltSection]:
    """The three sections, each with its tables and drawings (``has_games``: the page also
    reports a game run)."""
    return [
        costs_section(stats),
        choice_section(stats, has_games),
        doubling_section(stats, double_policies, has_games),
    ]
