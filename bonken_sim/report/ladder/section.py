"""The section "How far from strong play" of a deal run's report (``--ladder``): per contract
variant, how much one expert gains over a basic or an advanced player in the same seat, and
what advanced gains over basic, from a strategy ladder measured by the engine (and, when the
ladder has them, whole games of each heuristic profile against the strongest); with its key
findings and a "what this means" line under its figure, every number computed from the
ladder."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from bonken_sim.report.ladder.games import (
    PROFILE_WORDS,
    distance_shown,
    game_findings,
    steps_shown,
)
from bonken_sim.report.ladder.read import RUNGS, TIERS, Ladder, distance_table
from bonken_sim.report.page.format import ci_words, fmt_ci
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection

TITLE = "How far from strong play"
NAME = "strong_play_gaps"
GAMES_NAME = "strong_play_games"  # the whole-game rungs' CSV


def ladder_section(
    ladder: Ladder, run: tuple[Sequence[str], str | None], number: int
) -> BuiltSection:
    """The section, numbered ``number``, with its table and figure's drawing; ``run``: the
    run's variants and its card-play tier (basic or advanced in every seat, else None)."""
    variants, tier = run
    t = distance_table(ladder, variants)
    figure = FigureItem(
        NAME,
        "How far each heuristic tier is from expert card play, per contract",
        "Each row a contract variant; each dot one hero among three players of a lower tier "
        "on the same deals, the hero in each seat in turn: its mean score per deal minus the "
        "seat average (every variant's deal total is fixed, so this is also its paired gain "
        "over a lower-tier player in the same seat), with its 95% interval over deals. Red: "
        "an expert among basic players, how far basic card play is from expert play; blue: an "
        "expert among advanced players, advanced's distance; grey: advanced among basic. The "
        "red distance is measured, not added up from the other two: a hero's gain depends on "
        "the three players it sits with.",
        [NAME],
        meaning=_meaning(t, tier or "advanced"),
    )
    tables = [("Paired gain per deal of the hero over the lower tier (95% CI)", _shown(t))]
    findings = ladder_findings(t, tier)
    csv = {NAME: t}
    g = ladder.games
    if g is not None:
        tables += [
            (f"Whole games: each heuristic profile against {g.strongest} (points per game, "
             "paired per deal set, and win rates, 95% CI)", distance_shown(g)),
            (f"Whole games: each step of the expert's game against {g.base} (points per game "
             "gained, and win rates, 95% CI)", steps_shown(g)),
        ]  # fmt: skip
        findings += game_findings(g)
        csv[GAMES_NAME] = g.table
    section = Section(
        f"{number}. {TITLE}",
        _intro(ladder, tier),
        [figure],
        tables=tables,
        findings=findings,
    )
    return BuiltSection(section, csv, {NAME: ("strong_play_gaps", (t, tier))})


def _intro(ladder: Ladder, tier: str | None) -> str:
    run = (
        f"This run's card play is {tier} in every seat."
        if tier
        else "This run's card play is not one heuristic tier in every seat; both are shown."
    )
    g = ladder.games
    games = (
        ""
        if g is None
        else f" Whole games: {g.games:,} per pair of profiles ({g.deal_sets:,} deal sets, each "
        "under the six seatings of two profiles), each heuristic profile against "
        f"{g.strongest}{_plays(g.strongest)}, and each search step of the expert's game "
        f"against {g.base}."
    )
    return (
        f"From the strategy ladder {ladder.path.name} (bonken-sim ladder, seed {ladder.seed}): "
        f"advanced among basic on {ladder.deals:,} deals, the {ladder.expert} tier "
        f"(determinized search, docs/STRATEGIES.md) among basic and among advanced on the first "
        f"{ladder.expert_deals:,} of them.{games} {run} Every cost, choice value and doubling "
        "figure above is measured with heuristic play; this section says how far that play is "
        f"from strong play, contract by contract{' and over whole games' if g else ''}."
    )


def _plays(profile: str) -> str:
    return f" ({PROFILE_WORDS[profile]})" if profile in PROFILE_WORDS else ""


def _col(lower: str, hero: str) -> str:
    return f"{lower}_{hero}_"


def _shown(t: pd.DataFrame) -> pd.DataFrame:
    out = {"variant": t["variant"]}
    for lower, hero in RUNGS:
        c = _col(lower, hero)
        out[f"{hero} among {lower}"] = [
            fmt_ci(m, lo, hi, 2)
            for m, lo, hi in zip(t[c + "mean"], t[c + "ci_low"], t[c + "ci_high"], strict=True)
        ]
    return pd.DataFrame(out)


def _signs(t: pd.DataFrame, lower: str, hero: str) -> tuple[int, int]:
    """How many variants' intervals lie wholly above 0 and wholly below 0."""
    c = _col(lower, hero)
    return int((t[c + "ci_low"] > 0).sum()), int((t[c + "ci_high"] < 0).sum())


def _ci(row: pd.Series, c: str) -> str:
    return ci_words(row[c + "mean"], row[c + "ci_low"], row[c + "ci_high"], 2)


def tier_sentence(t: pd.DataFrame, tier: str, this_run: bool) -> str:
    """How far ``tier`` is from expert play: the variants where an expert gains significantly,
    and where it gains most and least."""
    c = _col(tier, "expert")
    above, below = _signs(t, tier, "expert")
    most = t.loc[t[c + "mean"].idxmax()]
    least = t.loc[t[c + "mean"].idxmin()]
    who = f"This run's card play ({tier})" if this_run else f"{tier.capitalize()} card play"
    worse = f", significantly less in {below}" if below else ", significantly less in none"
    return (
        f"{who} is furthest from expert play in {most['variant']}: one expert among three "
        f"{tier} players scores {_ci(most, c)} points per deal more than {_a(tier)} player in "
        f"the same seat; closest in {least['variant']}, {_ci(least, c)}. The expert scores "
        f"significantly more than {tier} in {above} of {len(t)} variants{worse}."
    )


def share_sentence(t: pd.DataFrame) -> str:
    """Against the same three basic players: what advanced gains as a share of what expert
    gains, over the variants where the expert gains significantly."""
    ba, be = _col("basic", "advanced"), _col("basic", "expert")
    ok = t[t[be + "ci_low"] > 0]
    if not len(ok):
        return (
            "Against three basic players the expert gains significantly in no variant, so "
            "what advanced gains cannot be set against it."
        )
    share = ok[ba + "mean"].sum() / ok[be + "mean"].sum()
    return (
        f"Against the same three basic players, advanced card play gains {share:.0%} of what "
        f"expert play gains (summed over the {len(ok)} variants where the expert gains "
        f"significantly): advanced closes that share of basic's distance from expert play."
    )


def ladder_findings(t: pd.DataFrame, tier: str | None) -> list[str]:
    """The section's key findings: the run's tier first (both tiers when the run played
    neither alone), then how much of basic's distance advanced closes."""
    tiers = [tier] if tier else list(TIERS)
    out = [tier_sentence(t, x, x == tier) for x in tiers]
    other = [x for x in TIERS if x not in tiers]
    for x in other:  # the other heuristic tier in one short sentence
        above, _ = _signs(t, x, "expert")
        out.append(
            f"{x.capitalize()} card play is significantly behind expert play in {above} of "
            f"{len(t)} variants."
        )
    out.append(share_sentence(t))
    return out


def _a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def _meaning(t: pd.DataFrame, tier: str) -> str:
    c = _col(tier, "expert")
    mean = t[c + "mean"]
    big = t.loc[mean.idxmax()]
    return (
        f"An expert in place of {_a(tier)} player gains between {mean.min():+.2f} and "
        f"{mean.max():+.2f} points per deal depending on the contract, most in "
        f"{big['variant']}: there {tier} card play leaves the most to a stronger player."
    )
