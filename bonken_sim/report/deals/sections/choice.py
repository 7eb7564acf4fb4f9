"""Section 2 of a deal run's report: what choosing the contract is worth, valued as a game
values it (troeven as the chooser's own call, the troeven quota, random choice as a game's
mix); the best contract by hand, trump and no-trump values; with its findings and "what
this means" lines, every number computed from the run."""

from __future__ import annotations

import pandas as pd

from bonken_sim.report.deals.stats.histograms import OWN_TROEVEN, RunStats
from bonken_sim.report.deals.tables import choice as T
from bonken_sim.report.deals.tables.kit import HCP_BUCKETS, LONGEST_BUCKETS
from bonken_sim.report.page.format import ci_column, ci_words, extremes
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection, Drawings, Tables


def choice_section(stats: RunStats, has_games: bool = False) -> BuiltSection:
    """Section 2: the chooser's score per contract, the best contract by hand, the choice
    rules against each other (valued as a game values them), trump and no-trump values
    (``has_games``: the page also reports game runs, which measure choice in whole games)."""
    tabs: Tables = {}
    draw: Drawings = {}
    tabs["chooser_value"] = T.chooser_value(stats)
    tabs["best_contract"] = T.best_contract(stats)
    tabs["hand_grid"] = grid = T.hand_grid(stats)
    rules, freq = T.choice_value(stats)
    tabs["choice_value"], tabs["choice_frequency"] = rules, freq
    tabs["choice_picks"] = picks = T.choice_picks(stats)
    tabs["trump_value"] = T.trump_value(stats)
    tabs["trump_length"] = T.trump_length(stats)
    tabs["nt_vs_suit"] = T.nt_vs_suit(stats)
    draw["best_contract"] = ("best_contract", (tabs["best_contract"],))
    own = bool(stats.call_rule)
    figs2 = [
        FigureItem(
            "best_contract",
            "Best contract by hand bucket",
            "Each cell: the chooser's relative score (his score minus the contract's mean "
            "chooser score over the run) among hands in that bucket; blue = the contract "
            "goes better than on an average hand. The boxed, bold cell in each column is "
            "the best choice for hands in that bucket. Left by high-card points, right by "
            "the length of the longest suit. "
            + (
                "Troeven is the trump the chooser names, against its own mean (a game gives "
                "every player one troeven, so the fixed-suit rows are left out; they are in "
                "best_contract.csv). "
                if own
                else ""
            )
            + "Every cell's CI is in best_contract.csv.",
            ["best_contract"],
            meaning=_best_meaning(tabs["best_contract"]),
        )
    ]
    intro2 = (
        "What choosing is worth. The chooser's relative score of a contract is his score "
        "minus that contract's baseline: its mean chooser score over this run"
        + (
            "; for troeven in any trump, the mean of troeven in the trump he names, because "
            "a game gives every player one troeven in the trump of his choice, so calling it "
            "now only moves it from a later turn."
            if own
            else "."
        )
    )
    if not rules.empty:
        choice_figures, choice_drawings = _choice_figures(rules, freq, picks)
        figs2 += choice_figures
        draw.update(choice_drawings)
        intro2 += " " + _choice_headline(rules)
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
                meaning=_trump_meaning(tabs["trump_length"]),
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
                meaning=_nt_meaning(tabs["nt_vs_suit"]),
            )
        )
    tables2 = [("Best contract by high-card points and longest suit together", _grid_table(grid))]
    if not rules.empty:
        title = "The choice rules per chooser turn and per game (95% CI)"
        tables2.append((title, _rules_table(rules)))
    section = Section(
        "2. Contract-choice value",
        intro2,
        figs2,
        tables=tables2,
        note=""
        if "policy" in set(rules.get("rule", pd.Series(dtype=str)))
        else "The fitted choice policy is not part of this report.",
        findings=_choice_findings(stats, rules, tabs, has_games),
        key=2,  # what choosing well is worth, and the best contract by hand strength
    )
    return BuiltSection(section, tabs, draw)


def _choice_figures(
    rules: pd.DataFrame, freq: pd.DataFrame, picks: pd.DataFrame
) -> tuple[list[FigureItem], Drawings]:
    """The choice comparison's figures and how to draw them (they need the choice
    comparison: drawn only once it ran)."""
    draw: Drawings = {
        "choice_value": ("choice_value", (rules, freq)),
        "chooser_value": ("chooser_value", (picks,)),
    }
    quota = "hindsight_quota" in set(rules["rule"])
    figures = [
        FigureItem(
            "choice_value",
            "Choosing well against choosing at random, as a game counts it",
            "Left, blue: the chooser's mean relative score per turn under each rule: "
            "perfect hindsight (per deal, the contract that turns out best), the fitted "
            "policy if present, and random choice as a game mixes contracts (each negative "
            "1/11 of the turns, troeven 4/11 with a random trump option; its exact average "
            "on each deal). "
            + (
                "'quota' holds a rule to a game's troeven quota, 4 troeven in 11 deals: it "
                "calls troeven only when its value beats its best negative by more than a "
                "price set so that it calls troeven on 4 of 11 deals; 'free' may call it on "
                "any deal. "
                if quota
                else ""
            )
            + "Orange: paired differences on the same deals, with 95% CI. Right: how often "
            "each rule picks each contract (troeven: any trump), with a game's share "
            "(black |). choice_value.csv gives every pair, and each value per game "
            "(× 11/4 chooser turns a player has in a game of 11 deals).\n\n"
            "A game run (bonken-sim game with basic against basic-randomchoice) measures "
            "the same question in play: there the chooser sees which contracts are still "
            "open and how many turns he has left, and his total also carries doubling; "
            "the deal run's quota rule is the best use of 4 troeven turns in 11 with every "
            "negative always open, so it is an upper bound on what the game's choice gains.",
            ["choice_value", "choice_frequency"],
            meaning=_choice_meaning(rules),
        ),
        FigureItem(
            "chooser_value",
            "What a contract is worth when it is chosen",
            "For each contract (troeven: any trump), the chooser's mean relative score on "
            "the deals each rule picks it (bars, 95% CI; one colour per rule, named below), "
            "and the share of deals on which the rule picks it (label). A bar right of zero "
            "is a contract chosen on hands where it goes better than on average; contracts "
            "picked on fewer than 100 deals have no bar.",
            ["choice_picks"],
            meaning=_picks_meaning(picks),
        ),
    ]
    return figures, draw


def _row(rules: pd.DataFrame, rule: str, versus: str = "") -> pd.Series | None:
    hit = rules[(rules["rule"] == rule) & (rules["versus"] == versus)]
    return hit.iloc[0] if len(hit) else None


def _best_rules(rules: pd.DataFrame) -> tuple[str, str | None]:
    """(hindsight row, policy row) to quote: under the quota when there is one."""
    names = set(rules["rule"])
    hind = "hindsight_quota" if "hindsight_quota" in names else "hindsight"
    pol = next((p for p in ("policy_quota", "policy") if p in names), None)
    return hind, pol


def _choice_headline(rules: pd.DataFrame) -> str:
    hind, _ = _best_rules(rules)
    hv = _row(rules, hind, "random")
    if hv is None:
        return ""
    quota = " with troeven on 4 of 11 deals, as in a game," if hind.endswith("_quota") else ""
    return (
        f"Perfect hindsight{quota} gains {ci_words(hv['mean'], hv['ci_low'], hv['ci_high'])} "
        "points per chooser turn over a random choice: the most any choice rule could gain."
    )


def _choice_meaning(rules: pd.DataFrame) -> str:
    hind, pol = _best_rules(rules)
    hv = _row(rules, hind, "random")
    pv = _row(rules, pol, "random") if pol is not None else None
    if hv is None:
        return ""
    if pv is None or pol is None:
        return (
            f"Knowing every outcome, the chooser would gain {hv['mean']:+.1f} points per turn "
            f"over a random choice ({hv['mean_per_game']:+.1f} per player and game)."
        )
    free, held = _row(rules, "policy"), _row(rules, pol)
    text = (
        f"The fitted policy gains {pv['mean']:+.1f} points per turn over a random choice "
        f"({pv['mean_per_game']:+.1f} per player and game), {pv['mean'] / hv['mean']:.0%} "
        f"of the {hv['mean']:+.1f} perfect hindsight would"
    )
    if free is not None and held is not None and pol.endswith("_quota"):
        text += (
            f"; left free it would call troeven on {free['troeven_share']:.0%} of deals, "
            f"where a game allows {held['troeven_share']:.0%}"
        )
    return text + "."


#: why the choice value of a deal run is larger than the one measured in games
GAMES_CHOOSE_LESS = (
    "In whole games choosing is worth less (the games section measures it): there each "
    "negative can be chosen once only, and the players who choose first take contracts "
    "a later chooser would have wanted, while here every negative is open on every deal."
)


def _choice_findings(
    stats: RunStats, rules: pd.DataFrame, tabs: Tables, has_games: bool
) -> list[str]:
    out = []
    if not rules.empty:
        hind, pol = _best_rules(rules)
        hv = _row(rules, hind, "random")
        pv = _row(rules, pol, "random") if pol is not None else None
        if hv is not None and pv is not None and pol is not None:
            held = " held to 4 troeven in 11" if pol.endswith("_quota") else ""
            out.append(
                f"Choosing well is worth {pv['mean']:+.1f} points per chooser turn over a "
                f"random choice, {pv['mean_per_game']:+.1f} per player and game of 11 deals, "
                f"for the fitted policy{held}; perfect hindsight would gain "
                f"{hv['mean']:+.1f} per turn ({hv['mean_per_game']:+.1f} per game), so the "
                f"policy realises {pv['mean'] / hv['mean']:.0%} of it."
                + (f" {GAMES_CHOOSE_LESS}" if has_games else "")
            )
        elif hv is not None:
            out.append(
                f"Perfect hindsight would gain {hv['mean']:+.1f} points per chooser turn over "
                f"a random choice ({hv['mean_per_game']:+.1f} per player and game of 11 deals)."
            )
    hand = _best_meaning(tabs["best_contract"], by="hcp")
    if hand and len(T.choice_set(stats)) > 1:
        out.append(hand)
    cv = tabs["chooser_value"].set_index("variant")
    fixed = [f"troeven_{s}" for s in "CDHS"]
    if stats.call_rule and all(f in cv.index for f in fixed):
        own, suit = cv.loc[OWN_TROEVEN, "mean"], cv.loc[fixed, "mean"].mean()
        out.append(
            f"Naming his own trump pays the chooser {own:+.1f} points per troeven deal, "
            f"{own - suit:+.1f} more than a trump suit named for him "
            f"({suit:+.1f}, the four suits averaged)."
        )
    return out


def _best_meaning(best: pd.DataFrame, by: str = "longest") -> str:
    """Which contract the map boxes at the extremes of one hand feature."""
    from bonken_sim.report.page.figure_kit import MIN_N

    d = best[best["best"] & (best["feature"] == by) & (best["n"] >= MIN_N)]
    if len(d) < 2:
        return ""
    first, last = d.iloc[0], d.iloc[-1]
    what = "high-card points" if by == "hcp" else "cards in his longest suit"
    return (
        f"With {first['bucket']} {what} the chooser's best contract is {first['variant']} "
        f"({first['mean_relative']:+.1f} over its average), with {last['bucket']} it is "
        f"{last['variant']} ({last['mean_relative']:+.1f})."
    )


def _grid_table(grid: pd.DataFrame) -> pd.DataFrame:
    """hcp buckets × longest-suit buckets: the best contract and its relative score, or the
    number of deals where a cell has too few to say."""
    from bonken_sim.report.page.figure_kit import MIN_N

    best = grid[grid["best"]].set_index(["hcp_bucket", "longest_bucket"])
    n = grid.drop_duplicates(["hcp_bucket", "longest_bucket"]).set_index(
        ["hcp_bucket", "longest_bucket"]
    )["n"]
    rows = []
    for h in HCP_BUCKETS:
        row = {"high-card points": h}
        for ln in LONGEST_BUCKETS:
            cnt = int(n.get((h, ln), 0))
            if cnt < MIN_N or (h, ln) not in best.index:
                row[f"longest {ln}"] = f"n = {cnt} (too few)"
            else:
                b = best.loc[(h, ln)]
                row[f"longest {ln}"] = f"{b['contract']} {b['mean_relative']:+.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def _rules_table(rules: pd.DataFrame) -> pd.DataFrame:
    from bonken_sim.report.deals.figures.contracts import rule_words

    shown = rules[(rules["versus"] == "") | (rules["versus"] == "random")]
    return pd.DataFrame(
        {
            "rule": [
                rule_words(r) + (f" − {rule_words(v)}" if v else "")
                for r, v in zip(shown["rule"], shown["versus"], strict=True)
            ],
            "per chooser turn": ci_column(shown),
            "per game": ci_column(
                shown.rename(
                    columns={
                        "mean_per_game": "mean",
                        "ci_low_per_game": "ci_low",
                        "ci_high_per_game": "ci_high",
                        "mean": "m1",
                        "ci_low": "l1",
                        "ci_high": "h1",
                    }
                )
            ),
            "troeven share": [
                f"{x:.1%}" if x == x else "" for x in shown["troeven_share"].astype(float)
            ],
        }
    )


def _picks_meaning(picks: pd.DataFrame) -> str:
    from bonken_sim.report.page.figure_kit import MIN_N

    for rule in ("policy_quota", "policy", "hindsight_quota", "hindsight"):
        d = picks[(picks["rule"] == rule) & (picks["n"] >= MIN_N)]
        if len(d) >= 2:
            hi, lo = extremes(d, "mean")
            from bonken_sim.report.deals.figures.contracts import rule_words

            return (
                f"The rule '{rule_words(rule)}' gains most when it picks {hi['contract']} "
                f"({hi['mean']:+.1f} on {hi['share']:.0%} of deals) and least with "
                f"{lo['contract']} ({lo['mean']:+.1f} on {lo['share']:.0%})."
            )
    return ""


def _trump_meaning(by_length: pd.DataFrame) -> str:
    from bonken_sim.report.page.figure_kit import MIN_N

    d = by_length[(by_length["trump"] == "any") & (by_length["n"] >= MIN_N)].sort_values("length")
    if len(d) < 2:
        return ""
    a, b = d.iloc[0], d.iloc[-1]
    slope = (b["mean"] - a["mean"]) / (b["length"] - a["length"])
    return (
        f"Each extra card in the trump suit is worth about {slope:+.1f} points to the "
        f"chooser: {a['mean']:+.1f} with {a['length']} trumps, {b['mean']:+.1f} with "
        f"{b['length']}."
    )


def _nt_meaning(nt: pd.DataFrame) -> str:
    row = nt[nt["by"] == "all"]
    if row.empty:
        return ""
    r = row.iloc[0]
    return (
        f"Over all hands no-trump scores {r['mean']:+.1f} points against naming the longest "
        f"suit, and beats it on {r['p_nt_better']:.0%} of deals."
    )
