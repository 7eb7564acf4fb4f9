"""The section "Under strong play" of a deal run's report (``--strong-deals``,
``--strong-games``): whether the report's three answers (what each contract costs each seat,
what choosing well is worth, when a double pays), measured with heuristic play, hold when
every seat plays strongly; every number computed from the runs.

- **cost**: the strong deal run beside the run on the same deals, per contract and seat,
  paired (``costs``); a cell *holds* when its 95% interval lies within ``TOLERANCE`` points per
  deal of no change, *differs* when the interval excludes 0 and the change exceeds it;
- **choice** and **doubling**: the strong game runs' pairs that differ in that skill alone
  beside the heuristic game runs' (``values``); a value *holds* when the difference of the two
  values has an interval that includes 0;
- **when a double pays**: the share of each kind of double that paid, in both game sets
  (``doubles``).
"""

from __future__ import annotations

import pandas as pd

from bonken_sim.report.games.game_set.stats import GameSetStats, aggregate_game_set
from bonken_sim.report.page.format import ci_texts, ci_words, fmt_ci, pct_ci, pct_texts
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection
from bonken_sim.report.strong_play import values as V
from bonken_sim.report.strong_play.costs import paired_costs
from bonken_sim.report.strong_play.doubles import double_kinds
from bonken_sim.report.strong_play.read import StrongRuns

TITLE = "Under strong play"
#: a change of a contract's cost per seat (points per deal) the findings call negligible:
#: about a tenth of the smallest contract's fair share
TOLERANCE = 1.0


def strong_section(
    strong: StrongRuns, run: tuple, heuristic: GameSetStats | None, number: int
) -> BuiltSection:
    """The section, numbered ``number``: ``run`` is the deal run (root, manifest) and
    ``heuristic`` the statistics of the games beside it (``--games``), if any."""
    tabs: dict[str, pd.DataFrame] = {}
    draw: dict[str, tuple] = {}
    figures, shown, findings = [], [], []
    st: GameSetStats | None = None  # the strong games' statistics
    if strong.deals is not None:
        t = paired_costs(run, strong.deals)
        tabs["strong_costs"] = t
        draw["strong_costs"] = ("strong_costs", (t, TOLERANCE))
        figures.append(FigureItem(
            "strong_costs",
            "What each contract costs each seat under strong play",
            "Each row a contract variant, each colour a seat: the strong run's mean raw score "
            "per deal minus the run's, on the same deals (paired), with its 95% interval over "
            f"deals. Grey band: ±{TOLERANCE:g} point per deal, a change this section calls "
            "negligible.",
            ["strong_costs"],
            meaning=_cost_meaning(t),
        ))  # fmt: skip
        shown.append(("Mean raw score per deal under strong play, and its change from the "
                      "run's play on the same deals (95% CI)", _cost_shown(t)))  # fmt: skip
        findings.append(cost_finding(t))
    if strong.games:
        st = aggregate_game_set(strong.games)
        v = V.value_table(heuristic, st)
        prof = V.win_by_profile(st)
        kinds = double_kinds(strong.games).assign(play="strong")
        if heuristic is not None:
            kinds = pd.concat([double_kinds(heuristic.runs).assign(play="heuristic"), kinds])
        tabs |= {"strong_values": v, "strong_profiles": prof, "strong_doubles": kinds}
        draw["strong_values"] = ("strong_values", (v,))
        figures.append(FigureItem(
            "strong_values",
            "What choosing well and doubling are worth, heuristic and strong",
            "Each row a pair of profiles that differ in one skill alone, on the same deal "
            "sets: points per game (left) and win rate (right) of the better minus the "
            "other, with 95% intervals over deal sets. Grey: the heuristic games beside this "
            "run; red: the strongest player (expert) against itself choosing at random "
            "(expert-randomchoice) or never doubling (expert-nodouble).",
            ["strong_values"],
            meaning=_values_meaning(v),
        ))  # fmt: skip
        shown += [
            ("Win rate and mean settled total per profile in the strong games (95% CI over "
             "deal sets)", _profiles_shown(prof)),
            ("What each skill is worth in whole games (95% CI over deal sets)", _values_shown(v)),
            ("How often each kind of double pays (95% CI over deal sets)", _kinds_shown(kinds)),
        ]  # fmt: skip
        findings += [value_finding(v, m) for m in V.MEASURES if (v["measures"] == m).any()]
        findings.append(doubles_finding(kinds))
    findings.append(precision_finding(tabs))
    section = Section(
        f"{number}. {TITLE}", _intro(strong, tabs, st), figures, tables=shown, findings=findings,
        key=len(findings) - 1,
    )  # fmt: skip
    return BuiltSection(section, tabs, draw)


def _intro(strong: StrongRuns, tabs: dict[str, pd.DataFrame], st: GameSetStats | None) -> str:
    parts = ["Every figure above is measured with heuristic play. Here the same questions are "
             "asked of the strongest player (expert: card play by determinized search, "
             "contract choice and doubling by search; docs/STRATEGIES.md)."]  # fmt: skip
    if strong.deals is not None:
        root, manifest = strong.deals
        strategies = ", ".join(dict.fromkeys(manifest["config"].get("strategies", [])))
        n = int(tabs["strong_costs"]["deals"].iloc[0])
        parts.append(f"The strong deal run {root} plays the run's first {n:,} deals "
                     f"with {strategies} in every seat, so each cost is compared on the same "
                     "cards.")  # fmt: skip
    if st is not None:
        parts.append(f"{st.games:,} strong games in {len(st.runs)} game runs seat "
                     f"{', '.join(sorted(st.profiles))}.")  # fmt: skip
    return " ".join(parts)


# ---------------------------------------------------------------------------------------
# Findings: one sentence per question, then the precision


def _verdicts(t: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per cell: holds (interval within ±TOLERANCE), differs (interval excludes 0 and the
    change exceeds TOLERANCE)."""
    holds = (t["diff_ci_low"] >= -TOLERANCE) & (t["diff_ci_high"] <= TOLERANCE)
    excludes = (t["diff_ci_low"] > 0) | (t["diff_ci_high"] < 0)
    return holds, excludes & (t["diff_mean"].abs() > TOLERANCE)


def cost_finding(t: pd.DataFrame) -> str:
    holds, differs = _verdicts(t)
    # the largest change among the cells that differ, else the largest of all
    pool = t[differs] if differs.any() else t
    top = pool.loc[pool["diff_mean"].abs().idxmax()]
    seat = str(top["seat"]).replace("_", " ")
    best = _best_seats(t)
    n, k = len(t), int(holds.sum())
    if differs.any():
        verdict = f"changes under strong play in {int(differs.sum())} of {n} contract-seat cells"
    elif k == n:
        verdict = "holds under strong play"
    else:
        verdict = (
            "shows no change beyond the noise under strong play, though these deals pin only "
            f"{k} of the {n} contract-seat cells"
        )
    return (
        f"What each contract costs each seat {verdict}: {k} of {n} cells have their 95% "
        f"interval within ±{TOLERANCE:g} point per deal of the run's play; the "
        f"largest {'significant ' * bool(differs.any())}change is the {seat} in {top['variant']}, "
        f"{top['heuristic_mean']:+.1f} → {top['strong_mean']:+.1f} points per deal "
        f"({ci_words(top['diff_mean'], top['diff_ci_low'], top['diff_ci_high'])}). The seat "
        f"that fares best is the same in {best[0]} of {best[1]} contracts."
    )


def _best_seats(t: pd.DataFrame) -> tuple[int, int]:
    same = 0
    variants = list(dict.fromkeys(t["variant"]))
    for v in variants:
        rows = t[t["variant"] == v]
        same += rows.loc[rows["heuristic_mean"].idxmax(), "seat"] == rows.loc[
            rows["strong_mean"].idxmax(), "seat"]  # fmt: skip
    return int(same), len(variants)


def _cost_meaning(t: pd.DataFrame) -> str:
    up = t[t["diff_ci_low"] > 0]
    down = t[t["diff_ci_high"] < 0]
    return (
        f"Strong play raises a seat's mean score significantly in {len(up)} cells and lowers "
        f"it in {len(down)} of {len(t)}; the changes run from {t['diff_mean'].min():+.2f} to "
        f"{t['diff_mean'].max():+.2f} points per deal."
    )


WORDS = {"contract choice": "Choosing contracts well", "doubling": "Doubling"}


def value_finding(v: pd.DataFrame, measure: str) -> str:
    """Whether the game value of ``measure`` holds under strong play, in one sentence."""
    rows = v[v["measures"] == measure]
    strong = rows[rows["play"] == "strong"]
    heur = rows[rows["play"] == "heuristic"]
    if not len(strong):
        other = "expert-randomchoice" if measure == "contract choice" else "expert-nodouble"
        return f"{WORDS[measure]} has no strong-play pair in these games: seat expert and {other}."
    s = strong.iloc[0]
    worth = ci_words(s["total_diff"], s["total_diff_ci_low"], s["total_diff_ci_high"])
    said = (
        f"{WORDS[measure]} is worth {worth} points per game under strong play "
        f"({s['profile']} − {s['versus']})"
    )
    if not len(heur):
        return said + "; the report has no heuristic games to set it beside (--games)."
    h = heur.iloc[0]
    d, lo, hi = V.difference(s, h)
    said += (
        f" against {h['total_diff']:+.1f} with heuristic players ({h['profile']} − {h['versus']})"
    )
    if lo <= 0 <= hi:
        return said + f": the heuristic answer holds (difference {ci_words(d, lo, hi)})."
    more = "more" if d > 0 else "less"
    return (
        said + f": it does not hold; strong play makes it worth {abs(d):.1f} points per game "
        f"{more} ({ci_words(d, lo, hi)})."
    )


def doubles_finding(kinds: pd.DataFrame) -> str:
    parts = []
    for kind in kinds["kind"].unique():
        rows = kinds[kinds["kind"] == kind].set_index("play")
        if "strong" not in rows.index or not rows.loc["strong", "doubles"]:
            continue
        s = rows.loc["strong"]
        text = f"{kind} {pct_ci(s['paid_mean'], s['paid_ci_low'], s['paid_ci_high'])}"
        if "heuristic" in rows.index and rows.loc["heuristic", "doubles"]:
            text += f" (heuristic {100 * rows.loc['heuristic', 'paid_mean']:.1f}%)"
        parts.append(text)
    return ("Under strong play the share of doubles that pay: " + "; ".join(parts) + "."
            if parts else "Nobody doubled in the strong games.")  # fmt: skip


def precision_finding(tabs: dict[str, pd.DataFrame]) -> str:
    parts = []
    if "strong_costs" in tabs:
        t = tabs["strong_costs"]
        half = (t["diff_ci_high"] - t["diff_ci_low"]) / 2
        parts.append(f"{int(t['deals'].iloc[0]):,} deals (each cost change ±{half.min():.2f} "
                     f"to ±{half.max():.2f} points per deal)")  # fmt: skip
    if "strong_values" in tabs:
        v = tabs["strong_values"]
        s = v[v["play"] == "strong"]
        if len(s):
            half = (s["total_diff_ci_high"] - s["total_diff_ci_low"]) / 2
            sets = int(s["deal_sets"].max())
            parts.append(
                f"{sets:,} deal sets of strong games (each value ±{half.min():.1f} to "
                f"±{half.max():.1f} points per game)"
            )
    return ("These strong-play figures rest on " + " and ".join(parts) + "; docs/REPORT.md "
            "says how to make them as tight as the heuristic ones.")  # fmt: skip


def _values_meaning(v: pd.DataFrame) -> str:
    s = v[v["play"] == "strong"]
    if not len(s):
        return "The strong games have no pair that isolates choice or doubling."
    top = s.loc[s["total_diff"].abs().idxmax()]
    return (f"Under strong play {top['measures']} is worth the most: "
            f"{fmt_ci(top['total_diff'], top['total_diff_ci_low'], top['total_diff_ci_high'], 1)} "
            "points per game.")  # fmt: skip


# ---------------------------------------------------------------------------------------
# The tables shown in the page


def _cost_shown(t: pd.DataFrame) -> pd.DataFrame:
    out: dict[str, list[str]] = {"variant": list(dict.fromkeys(t["variant"]))}
    for seat in dict.fromkeys(t["seat"]):
        rows = t[t["seat"] == seat]
        out[seat.replace("_", " ")] = [
            f"{s:+.1f} ({fmt_ci(m, lo, hi, 1)})"
            for s, m, lo, hi in zip(rows["strong_mean"], rows["diff_mean"], rows["diff_ci_low"],
                                    rows["diff_ci_high"], strict=True)
        ]  # fmt: skip
    return pd.DataFrame(out)


def _profiles_shown(prof: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "profile": prof["name"],
        "win rate": pct_texts(prof["win_rate"], prof["win_ci_low"], prof["win_ci_high"]),
        "mean total": ci_texts(prof["mean_total"], prof["total_ci_low"], prof["total_ci_high"], 1),
    })  # fmt: skip


def _values_shown(v: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "skill": v["measures"],
        "play": v["play"],
        "pair": [f"{a} − {b}" for a, b in zip(v["profile"], v["versus"], strict=True)],
        "points per game": ci_texts(v["total_diff"], v["total_diff_ci_low"],
                                    v["total_diff_ci_high"], 1),
        "win rate (points of %)": ci_texts(100 * v["win_diff"], 100 * v["win_diff_ci_low"],
                                           100 * v["win_diff_ci_high"], 1),
    })  # fmt: skip


def _kinds_shown(k: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({
        "double": k["kind"],
        "play": k["play"],
        "doubles per deal": ci_texts(k["per_deal_mean"], k["per_deal_ci_low"],
                                     k["per_deal_ci_high"], 3, signed=False),
        "share that paid": pct_texts(k["paid_mean"], k["paid_ci_low"], k["paid_ci_high"]),
        "gain per double": ci_texts(k["gain_mean"], k["gain_ci_low"], k["gain_ci_high"], 1),
    })  # fmt: skip
