"""The games section of a deal run's report (``--games``): the profiles' win rates, what
contract choice, doubling and card play are worth in whole games, and doubling the chooser
where he chose the contract; with its key findings and a "what this means" line under each
figure, every number computed from the runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from bonken_sim.report.games.figures import unit_labels
from bonken_sim.report.games.findings import value_sentence, win_rates_sentence
from bonken_sim.report.games.game_set import tables as T
from bonken_sim.report.games.game_set.stats import GameSetStats
from bonken_sim.report.page.format import ci_texts, ci_words, fmt_ci, pct_texts
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection, Drawings, Tables

TITLE = "4. Whole games"


def games_section(st: GameSetStats) -> BuiltSection:
    """The section, with its tables and drawings."""
    tabs: Tables = {}
    draw: Drawings = {}
    tabs["games_profiles"] = prof = T.profile_table(st)
    val = T.value_table(st)
    doubling_on = bool(st.runs[0].manifest["config"].get("doubling", True))
    if not doubling_on:  # profiles that differ only in doubling then play alike: nothing to say
        val = val[val["measures"] != "doubling"].reset_index(drop=True)
    tabs["games_values"] = val
    tabs["games_chooser_doubles"] = chd = T.chooser_doubles_table(st)
    tabs["games_choice_turns"] = turns = T.choice_turn_table(st)
    unit = "per profile (deal set = unit; mean over its seats in every seating)"
    draw["games_profiles"] = ("game_results", (prof, "95% CI over deal sets", unit))
    figures = [
        FigureItem(
            "games_profiles",
            "Win rate and mean total per profile in whole games",
            "Left: the share of games each profile finished first (a shared first place "
            "counts for each), the mean over deal sets with its 95% interval; dashed: 25%, "
            "one in four. Right: the mean settled total per game; a game's four totals "
            "sum to 0.",
            ["games_profiles"],
            meaning=_profiles_meaning(prof),
        )
    ]
    if len(val):
        draw["games_values"] = ("game_values", (val,))
        figures.append(
            FigureItem(
                "games_values",
                "What each skill is worth in whole games",
                "Each row: one profile minus another on the same deal sets, in win rate "
                "(left) and mean settled total per game (right), with 95% intervals over "
                "deal sets. A pair named by a skill differs only in it: basic − "
                "basic-randomchoice is the value of choosing contracts by the fitted policy "
                "rather than at random, against the other players at the table and within "
                "a game's quota (each negative contract once, troeven once per player); "
                "basic − basic-nodouble the value of doubling by the fitted thresholds "
                "rather than never. Both players sit at the same table, so part of a gap is "
                "what the weaker one's choices or missing doubles hand to the others.",
                ["games_values"],
                meaning=_values_meaning(val),
            )
        )
    fitted = chd[chd["chooser_choice"] == "fitted"]
    if not doubling_on:
        fitted = fitted.iloc[:0]
    if fitted["deals"].sum():
        draw["games_chooser_doubles"] = ("chooser_doubles", (chd,))
        figures.append(
            FigureItem(
                "games_chooser_doubles",
                "Doubling the chooser, where he chose the contract",
                "On the deals of the games whose chooser chose by the fitted policy, per "
                "contract: left, the mean of s_d − s_chooser over the three other players "
                "(what a double of the chooser gains if every one doubled him); right, the "
                "gain per double of the doubles of the chooser the players actually made "
                "(fitted thresholds). 95% intervals over deal sets. A deal run "
                "plays every contract on every hand; here the chooser picked it for his "
                "hand. games_chooser_doubles.csv also has the random choosers.",
                ["games_chooser_doubles"],
                meaning=_chooser_meaning(fitted),
            )
        )
    section = Section(
        TITLE,
        _intro(st) + ("" if doubling_on else " The games were played with doubling off."),
        figures,
        tables=_shown_tables(prof, val, turns),
        findings=game_set_findings(prof, val, fitted, turns),
        key=3,  # win rates; choice and doubling as whole games value them
    )
    return BuiltSection(section, tabs, draw)


def _intro(st: GameSetStats) -> str:
    seeds = sorted({r.seed for r in st.runs})
    return (
        f"{st.games:,} games in {len(st.runs)} game run{'s' if len(st.runs) > 1 else ''} "
        f"({st.deal_sets:,} deal sets, seed{'s' if len(seeds) > 1 else ''} "
        f"{', '.join(map(str, seeds))}), the profiles seated in {st.seatings} circular "
        f"order{'s' if st.seatings > 1 else ''} round the table. A deal set is game g of a "
        "seed: the same eleven deals in every run of that seed. Per deal set each profile "
        "gets the mean over the seats it held; means and differences are taken over deal "
        "sets (95% intervals), paired on the same cards."
        + (
            ""
            if st.seatings > 1
            else " With one seating the profiles always sit in the same order, which moves "
            "their totals: play the games in several seatings for an honest comparison."
        )
    )


def _shown_tables(
    prof: pd.DataFrame, val: pd.DataFrame, turns: pd.DataFrame
) -> list[tuple[str, pd.DataFrame]]:
    shown = [
        (
            "Win rate and mean settled total per game, per profile (95% CI over deal sets)",
            pd.DataFrame(
                {
                    "profile": unit_labels(prof),
                    "win rate": pct_texts(prof["win_rate"], prof["win_ci_low"],
                                          prof["win_ci_high"]),
                    "mean total": ci_texts(prof["mean_total"], prof["total_ci_low"],
                                           prof["total_ci_high"], 1),
                }
            ),
        )
    ]  # fmt: skip
    if len(val):
        shown.append(
            (
                "Profile against profile on the same deal sets (95% CI)",
                pd.DataFrame(
                    {
                        "measures": val["measures"],
                        "profile − versus": [
                            f"{a} − {b}" for a, b in zip(val["profile"], val["versus"], strict=True)
                        ],
                        "win rate (points of %)": ci_texts(100 * val["win_diff"],
                                                           100 * val["win_diff_ci_low"],
                                                           100 * val["win_diff_ci_high"], 1),
                        "points per game": ci_texts(val["total_diff"], val["total_diff_ci_low"],
                                                    val["total_diff_ci_high"], 1),
                    }
                ),
            )
        )  # fmt: skip
    if _both_kinds(turns):
        shown.append(
            (
                "The chooser's score per turn in games, minus the deal run's mean chooser "
                "score of the contract he chose (95% CI)",
                pd.DataFrame(
                    {
                        "chooser chose": turns["chooser_choice"],
                        "turns": [f"{n:,}" for n in turns["turns"]],
                        "relative score per turn": ci_texts(
                            turns["relative_mean"], turns["relative_ci_low"],
                            turns["relative_ci_high"], 2,
                        ),
                    }
                ),
            )
        )  # fmt: skip
    return shown


def _both_kinds(turns: pd.DataFrame) -> bool:
    """Whether choosers of both kinds (fitted and random) had turns scored."""
    return bool((turns["turns"].iloc[:2] > 1).all())


# ---------------------------------------------------------------------------------------
# Findings and meanings: sentences computed from the tables


def game_set_findings(
    prof: pd.DataFrame, val: pd.DataFrame, fitted: pd.DataFrame, turns: pd.DataFrame
) -> list[str]:
    """The games' key findings: win rates, then each pair that isolates one skill (the
    pair with ``basic`` when there is one), contract choice per chooser turn, then
    doubling the chooser."""
    out = [win_rates_sentence(prof)]
    for measure in ("contract choice", "doubling", "card play"):
        rows = val[val["measures"] == measure]
        if len(rows):
            with_basic = rows[(rows["profile"] == "basic") | (rows["versus"] == "basic")]
            out.append(value_sentence((with_basic if len(with_basic) else rows).iloc[0]))
    if _both_kinds(turns):
        out.append(_turn_sentence(turns))
    if fitted["deals"].sum():
        out.append(_chooser_finding(fitted))
    return out


def _turn_sentence(turns: pd.DataFrame) -> str:
    fit, rnd, diff = (turns.iloc[k] for k in range(3))
    return (
        f"Per chooser turn in games, the fitted choice scores "
        f"{fmt_ci(fit['relative_mean'], fit['relative_ci_low'], fit['relative_ci_high'])} "
        f"over the deal run's mean for the contract it picks and a random choice "
        f"{fmt_ci(rnd['relative_mean'], rnd['relative_ci_low'], rnd['relative_ci_high'])}:"
        f" choosing well is worth "
        f"{ci_words(diff['relative_mean'], diff['relative_ci_low'], diff['relative_ci_high'], 2)}"
        " points per turn within a game's quota."
    )


def _sign_counts(lo: pd.Series, hi: pd.Series) -> tuple[int, int]:
    """How many intervals lie wholly above 0 and wholly below 0."""
    return int((lo > 0).sum()), int((hi < 0).sum())


def _chooser_finding(fitted: pd.DataFrame) -> str:
    ok = fitted[np.isfinite(fitted["always_mean"])]
    pays, loses = _sign_counts(ok["always_ci_low"], ok["always_ci_high"])
    worst = ok.loc[ok["always_mean"].idxmin()]
    made = fitted[fitted["doubles"] > 0]
    made_pays, _ = _sign_counts(made["gain_ci_low"], made["gain_ci_high"])
    return (
        f"Where the chooser chose the contract for his hand, doubling him blindly loses in "
        f"{loses} of {len(ok)} contracts and pays in {pays} (worst: {worst['contract']}, "
        f"{ci_words(worst['always_mean'], worst['always_ci_low'], worst['always_ci_high'])}"
        f" per double); the doubles of him the fitted thresholds made gained in {made_pays} "
        f"of the {len(made)} contracts where any were made."
    )


def _profiles_meaning(prof: pd.DataFrame) -> str:
    best = prof.loc[prof["win_rate"].idxmax()]
    worst = prof.loc[prof["win_rate"].idxmin()]
    if len(prof) < 2:
        return f"{best['name']} finished first in {100 * best['win_rate']:.1f}% of the games."
    return (
        f"{best['name']} wins most often ({100 * best['win_rate']:.1f}% of games, "
        f"{fmt_ci(best['mean_total'], best['total_ci_low'], best['total_ci_high'], 1)} points "
        f"per game), {worst['name']} least ({100 * worst['win_rate']:.1f}%, "
        f"{fmt_ci(worst['mean_total'], worst['total_ci_low'], worst['total_ci_high'], 1)})."
    )


def _values_meaning(val: pd.DataFrame) -> str:
    named = val[val["measures"] != ""]
    if not len(named):
        top = val.loc[val["total_diff"].abs().idxmax()]
        return (
            f"The widest gap is {top['profile']} − {top['versus']}: "
            f"{top['total_diff']:+.1f} points per game."
        )
    top = named.loc[named["total_diff"].abs().idxmax()]
    clear = int(((named["total_diff_ci_low"] > 0) | (named["total_diff_ci_high"] < 0)).sum())
    return (
        f"Of the skills measured, {top['measures']} is worth the most "
        f"({top['total_diff']:+.1f} points per game); {clear} of the {len(named)} skill "
        f"differences have intervals that exclude 0."
    )


def _chooser_meaning(fitted: pd.DataFrame) -> str:
    ok = fitted[np.isfinite(fitted["always_mean"])]
    pays, loses = _sign_counts(ok["always_ci_low"], ok["always_ci_high"])
    total_doubles = int(fitted["doubles"].sum())
    rate = total_doubles / max(1, int(fitted["deals"].sum()))
    return (
        f"A chooser who picked his contract is a poor target: an unconditional double of him "
        f"loses in {loses} of {len(ok)} contracts and pays in {pays}, so the players doubled "
        f"him {rate:.3f} times per deal of his contract."
        if loses > pays
        else f"Doubling the chooser pays in {pays} of {len(ok)} contracts even though he "
        f"chose the contract; players doubled him {rate:.3f} times per deal of his contract."
    )
