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
    tabs["hand_features"] = hf = T.hand_features(stats)
    tabs["feature_importance"] = imp = T.feature_importance(stats)
    panels = _feature_panels(stats, imp)
    draw["expected_score"] = ("expected_score", (es, imp))
    draw["score_distribution"] = ("score_distribution", (tabs["score_distribution"],))
    draw["hand_features"] = ("hand_features", (hf, panels))
    contracts = list(stats.contracts)
    table = pd.DataFrame({"contract": contracts})
    for rel in REL_NAMES:
        d = es[es["relation"] == rel].set_index("variant").loc[contracts]
        table[REL_DISPLAY[rel]] = _ci_column(d)
    table["fair share"] = [f"{deal_total(v) / 4:+.2f}" for v in contracts]
    own = (
        f" The row troeven is troeven in the trump the chooser names ({stats.call_rule}): "
        "every seat's score on the deal in the variant the chooser would call."
        if stats.call_rule
        else ""
    )
    return Section(
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
    )


def _choice_value(stats: RunStats, tabs: Tables, draw: Drawings) -> Section:
    """Section 2: the chooser's score per contract, the best contract by hand, the choice
    rules against each other (valued as a game values them), trump and no-trump values."""
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
        figs2 += _choice_figures(rules, freq, picks, draw)
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
    return Section(
        "2. Contract-choice value",
        intro2,
        figs2,
        tables=tables2,
        note=""
        if "policy" in set(rules.get("rule", pd.Series(dtype=str)))
        else "The fitted choice policy is not part of this report.",
        findings=_choice_findings(stats, rules, tabs),
    )


# ---------------------------------------------------------------------------------------
# Sections 1 and 2: the figures of the choice comparison, and every sentence computed from
# the run (findings, headline, "what this means")


def _choice_figures(
    rules: pd.DataFrame, freq: pd.DataFrame, picks: pd.DataFrame, draw: Drawings
) -> list[FigureItem]:
    """The choice comparison's figures (they need pass 2: drawn only once it ran)."""
    draw["choice_value"] = ("choice_value", (rules, freq))
    draw["chooser_value"] = ("chooser_value", (picks,))
    quota = "hindsight_quota" in set(rules["rule"])
    return [
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


def _digits(lo: float, hi: float) -> int:
    """Decimals that keep a 95% interval from printing as a point: two significant digits
    of its half-width (1 to 4)."""
    import math

    half = (hi - lo) / 2
    if not math.isfinite(half) or half <= 0:
        return 1
    return int(min(4, max(1, math.ceil(-math.log10(half)) + 1)))


def _ci_words(mean: float, lo: float, hi: float, unit: str = "") -> str:
    """'+12.3 (95% CI 12.1 to 12.5)' with enough decimals that the interval never collapses."""
    k = _digits(lo, hi)
    return f"{mean:+.{k}f}{unit} (95% CI {lo:+.{k}f} to {hi:+.{k}f})"


def _ci_column(d: pd.DataFrame) -> list[str]:
    """A table column 'mean ± half-width', each with enough decimals to show its interval."""
    from bonken_sim.report.format import fmt_ci

    return [
        fmt_ci(m, lo, hi, max(2, _digits(lo, hi)))
        for m, lo, hi in zip(d["mean"], d["ci_low"], d["ci_high"], strict=True)
    ]


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
        f"Perfect hindsight{quota} gains {_ci_words(hv['mean'], hv['ci_low'], hv['ci_high'])} "
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


def _choice_findings(stats: RunStats, rules: pd.DataFrame, tabs: Tables) -> list[str]:
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
            )
        elif hv is not None:
            out.append(
                f"Perfect hindsight would gain {hv['mean']:+.1f} points per chooser turn over "
                f"a random choice ({hv['mean_per_game']:+.1f} per player and game of 11 deals)."
            )
    cv = tabs["chooser_value"].set_index("variant")
    fixed = [f"troeven_{s}" for s in "CDHS"]
    if stats.call_rule and all(f in cv.index for f in fixed):
        own, suit = cv.loc[T.OWN_TROEVEN, "mean"], cv.loc[fixed, "mean"].mean()
        out.append(
            f"Naming his own trump pays the chooser {own:+.1f} points per troeven deal, "
            f"{own - suit:+.1f} more than a trump suit named for him "
            f"({suit:+.1f}, the four suits averaged)."
        )
    hand = _best_meaning(tabs["best_contract"], by="hcp")
    if hand and len(T.choice_set(stats)) > 1:
        out.append(hand)
    return out


def _best_meaning(best: pd.DataFrame, by: str = "longest") -> str:
    """Which contract the map boxes at the extremes of one hand feature."""
    from bonken_sim.report.figure_kit import MIN_N

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
    from bonken_sim.report.figure_kit import MIN_N

    best = grid[grid["best"]].set_index(["hcp_bucket", "longest_bucket"])
    n = grid.drop_duplicates(["hcp_bucket", "longest_bucket"]).set_index(
        ["hcp_bucket", "longest_bucket"]
    )["n"]
    rows = []
    for h in T.HCP_BUCKETS:
        row = {"high-card points": h}
        for ln in T.LONGEST_BUCKETS:
            cnt = int(n.get((h, ln), 0))
            if cnt < MIN_N or (h, ln) not in best.index:
                row[f"longest {ln}"] = f"n = {cnt} (too few)"
            else:
                b = best.loc[(h, ln)]
                row[f"longest {ln}"] = f"{b['contract']} {b['mean_relative']:+.1f}"
        rows.append(row)
    return pd.DataFrame(rows)


def _rules_table(rules: pd.DataFrame) -> pd.DataFrame:
    from bonken_sim.report.figures_contracts import rule_words

    shown = rules[(rules["versus"] == "") | (rules["versus"] == "random")]
    return pd.DataFrame(
        {
            "rule": [
                rule_words(r) + (f" − {rule_words(v)}" if v else "")
                for r, v in zip(shown["rule"], shown["versus"], strict=True)
            ],
            "per chooser turn": _ci_column(shown),
            "per game": _ci_column(
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
    from bonken_sim.report.figure_kit import MIN_N

    for rule in ("policy_quota", "policy", "hindsight_quota", "hindsight"):
        d = picks[(picks["rule"] == rule) & (picks["n"] >= MIN_N)]
        if len(d) >= 2:
            hi, lo = d.loc[d["mean"].idxmax()], d.loc[d["mean"].idxmin()]
            from bonken_sim.report.figures_contracts import rule_words

            return (
                f"The rule '{rule_words(rule)}' gains most when it picks {hi['contract']} "
                f"({hi['mean']:+.1f} on {hi['share']:.0%} of deals) and least with "
                f"{lo['contract']} ({lo['mean']:+.1f} on {lo['share']:.0%})."
            )
    return ""


def _feature_panels(stats: RunStats, imp: pd.DataFrame) -> list[tuple[str, str]]:
    """(contract, feature) panels: each contract a chooser weighs against its most predictive
    hand feature, and against the runner-up too when that explains nearly as much (within a
    fifth): a near tie is not a ranking."""
    panels = []
    for k in T.choice_set(stats):
        name = stats.contracts[k]
        ranked = imp[(imp["variant"] == name) & (imp["rank"] >= 1)].sort_values("rank")
        first, second = ranked.iloc[0], ranked.iloc[1]
        panels.append((name, first["feature"]))
        if second["eta2"] >= 0.8 * first["eta2"]:
            panels.append((name, second["feature"]))
    return panels


def _top_features(imp: pd.DataFrame, k: int = 3) -> pd.DataFrame:
    from bonken_sim.report.figures_contracts import FEATURE_WORDS

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


def _cost_findings(
    stats: RunStats, es: pd.DataFrame, imp: pd.DataFrame, hf: pd.DataFrame
) -> list[str]:
    """Seat against hand, and the range of the seat edges, over the contracts a chooser
    weighs (the fixed-suit troeven rows are left to the tables)."""
    from bonken_sim.report.figure_kit import MIN_N
    from bonken_sim.report.figures_contracts import FEATURE_WORDS

    weighed = [stats.contracts[k] for k in T.choice_set(stats)]
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
    low = _low_cards_finding(hf, imp)
    if low:
        out.append(low)
    edge = es[es["variant"].isin(weighed)]
    edge = edge.assign(edge=edge["mean"] - edge["fair_share"])
    worst = edge.loc[edge["edge"].idxmin()]
    best = edge.loc[edge["edge"].idxmax()]
    out.append(
        f"A seat's edge over a fair share ranges from {worst['edge']:+.1f} points per deal "
        f"({REL_DISPLAY[worst['relation']]} in {worst['variant']}) to {best['edge']:+.1f} "
        f"({REL_DISPLAY[best['relation']]} in {best['variant']})."
    )
    return out


def _low_cards_finding(hf: pd.DataFrame, imp: pd.DataFrame) -> str:
    """Laatste slag, when the 2s held are its strongest feature: the run's means at the
    fewest and most 2s, and why."""
    from bonken_sim.report.figure_kit import MIN_N

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


def _trump_meaning(by_length: pd.DataFrame) -> str:
    from bonken_sim.report.figure_kit import MIN_N

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
