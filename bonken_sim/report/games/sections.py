"""The sections of a game run's report: win rates and totals, per-contract contributions,
and the effect of doubling. Each section builder returns the section's text with the tables
it computed (written as CSV) and how to draw its figures.
"""

from __future__ import annotations

import pandas as pd

from bonken_sim.report.games import findings as F
from bonken_sim.report.games import stats as G
from bonken_sim.report.games.figures import unit_labels
from bonken_sim.report.page.format import ci_texts, pct_texts
from bonken_sim.report.page.render import FigureItem, Section
from bonken_sim.report.page.section_types import BuiltSection, Drawings, Tables, page_parts

GAME_GUIDE = (
    "A game is 11 deals: the dealer rotates, the chooser (across from the dealer) picks a "
    "contract, every negative contract is played once and troeven four times. Each seat's "
    "settled total is the sum of its settled scores (raw score plus what doubles moved); "
    "the four totals of a game sum to 0.",
    "A win is a first place; a shared first place counts as a win for each player sharing "
    "it (as bonken-sim tournament counts it), so win rates can add up to a little over 100%. "
    "Win rates carry Wilson 95% intervals over seat-games.",
    "Per profile, the game is the unit: a profile holding several seats gets each game's "
    "mean over its seats, since the seats of one game share the cards. Means carry normal "
    "95% intervals over games; differences between profiles, or between the run and its "
    "doubling-off twin, are paired on the same games.",
    "The first dealer of game g is seat g mod 4, so no seat is favoured by the deal order: "
    "differences between seats holding the same profile are noise.",
    "Every figure's numbers are in tables/*.csv beside this page.",
)


def game_sections(stats: G.GameStats) -> list[BuiltSection]:
    """The three sections, each with its tables and drawings."""
    results, shown_tables = _results(stats)
    con, h2h = results.tables["game_contracts"], results.tables["head_to_head"]
    built = [
        results,
        BuiltSection(_contracts(stats, con)),
        _doubling(stats, con, h2h, shown_tables),
    ]
    sections, _, tabs = page_parts(built)
    _add_findings(stats, sections, tabs)
    return built


def _add_findings(stats: G.GameStats, sections: list[Section], tabs: Tables) -> None:
    """The key findings (with the first section) and the line under each figure, from the
    tables of all three."""
    sections[0].findings = F.game_run_findings(stats, tabs["game_results"], tabs["head_to_head"])
    sections[0].key = len(sections[0].findings)  # a game run's page has no other findings
    con = tabs["game_contracts"]
    meanings = {
        "game_results": lambda: F.results_meaning(tabs["game_results"]),
        "game_contracts": lambda: F.contracts_meaning(con),
        "game_doubling": lambda: F.doubling_meaning(con),
        "doubling_effect": lambda: F.doubling_effect_meaning(tabs["doubling_effect"]),
    }
    for item in (f for s in sections for f in s.figures):
        item.meaning = meanings[item.name]()


def _ci_or_exact(mean: pd.Series, lo: pd.Series, hi: pd.Series) -> list[str]:
    """``+1.2 ± 0.3``, or the value alone where it is the same in every game (a profile
    holding all four seats: its mean over them is fixed by the rules), never ``± 0.0``."""
    exact = (hi - lo).to_numpy() < 1e-9  # sums of equal floats: exact up to rounding
    nan = float("nan")
    return ci_texts(mean, lo.where(~exact, nan), hi.where(~exact, nan), 1)


def _results(stats: G.GameStats) -> tuple[BuiltSection, list[tuple[str, pd.DataFrame]]]:
    """Section 1: win rate and mean total per profile and seat, and profile against
    profile; the section (with the tables and drawings of the first two) and its tables
    shown on the page."""
    res = G.results(stats)
    con = G.contracts(stats)
    h2h = G.head_to_head(stats)
    tabs: Tables = {"game_results": res, "game_contracts": con, "head_to_head": h2h}
    draw: Drawings = {
        "game_results": ("game_results", (res,)),
        "game_contracts": ("game_contracts", (con,)),
    }
    order = res.sort_values("group", kind="stable", key=lambda g: g != "profile")
    shown = pd.DataFrame(
        {
            "": unit_labels(order),
            "win rate (95% CI)": pct_texts(
                order["win_rate"], order["win_ci_low"], order["win_ci_high"]
            ),
            "sole first places": [f"{w:,}" for w in order["sole_wins"]],
            "mean total ± 95% CI": _ci_or_exact(
                order["mean_total"], order["total_ci_low"], order["total_ci_high"]
            ),
        }
    )
    tables1 = [("Win rate and mean settled total per game", shown)]
    if len(h2h):
        tables1.append(
            (
                "Profile against profile, paired on the same games (95% CI)",
                pd.DataFrame(
                    {
                        "profile − versus": [
                            f"{a} − {b}" for a, b in zip(h2h["profile"], h2h["versus"], strict=True)
                        ],
                        "win rate difference (points of %)": ci_texts(
                            100 * h2h["win_diff"],
                            100 * h2h["win_diff_ci_low"],
                            100 * h2h["win_diff_ci_high"],
                            1,
                        ),
                        "mean total difference (points)": ci_texts(
                            h2h["total_diff"],
                            h2h["total_diff_ci_low"],
                            h2h["total_diff_ci_high"],
                            1,
                        ),
                    }
                ),
            )
        )
    section = Section(
        "1. Win rates and totals",
        f"{stats.games:,} games. {stats.shared_first:,} of them "
        f"({100 * stats.shared_first / max(1, stats.games):.1f}%) had a shared first place.",
        [
            FigureItem(
                "game_results",
                "Win rate and mean total per profile and seat",
                "Left: the share of games in which the profile (top rows) or the seat "
                "(bottom rows, with the profile sitting there) finished first, with Wilson "
                "95% intervals; dashed: 25%, what four equal players would each get "
                "without ties. Right: the mean settled total per game with its 95% "
                "interval; a game's four totals sum to 0.",
                ["game_results"],
            )
        ],
        tables=tables1,
    )
    return BuiltSection(section, tabs, draw), tables1


def _contracts(stats: G.GameStats, con: pd.DataFrame) -> Section:
    """Section 2: each contract's settled points per game, per profile and seat, from the
    contracts table (made, and drawn, with section 1)."""
    profiles = list(stats.profiles)
    contrib = con[con["group"] == "profile"]
    shown2 = pd.DataFrame({"contract": list(G.CONTRACTS)})
    shown2["deals per game"] = [
        f"{x:g}" for x in contrib.drop_duplicates("contract")["deals_per_game"]
    ]
    for p in profiles:
        d = contrib[contrib["name"] == p].set_index("contract").loc[list(G.CONTRACTS)]
        shown2[p] = _ci_or_exact(d["final_mean"], d["final_ci_low"], d["final_ci_high"])
    return Section(
        "2. Per-contract contributions",
        "Each contract's settled points per game, per profile and per seat: they add up "
        "to the mean totals above. game_contracts.csv also has the raw part, what "
        "doubling moved, and the settled score per deal of each contract.",
        [
            FigureItem(
                "game_contracts",
                "Where the totals come from",
                "Per contract (rows), the settled points per game of each profile (left) "
                "and seat (right) minus a fair share (the contract's settled points per "
                "game averaged over the four seats, e.g. −16.25 for bukken, +130 for "
                "troeven's four deals), with 95% intervals. Right of zero: the profile "
                "gains on that contract against an equal split.",
                ["game_contracts"],
            )
        ],
        tables=[("Settled points per game ± 95% CI, per profile", shown2)],
    )


def _doubling(
    stats: G.GameStats,
    con: pd.DataFrame,
    h2h: pd.DataFrame,
    tables1: list[tuple[str, pd.DataFrame]],
) -> BuiltSection:
    """Section 3: what doubles moved, profiles that differ only in doubling, and the
    doubling on/off comparison when there is one (``con``, ``h2h``: the contracts and
    head-to-head tables of section 1; ``tables1``: its tables shown)."""
    tabs: Tables = {}
    draw: Drawings = {}
    figs3: list[FigureItem] = []
    tables3: list[tuple[str, pd.DataFrame]] = []
    notes: list[str] = []
    doubling_on = bool(stats.manifest["config"].get("doubling", True))
    if doubling_on:
        draw["game_doubling"] = ("game_doubling", (con,))
        figs3.append(
            FigureItem(
                "game_doubling",
                "What doubling moved, per contract",
                "Per contract, the settled minus the raw points per game (what doubles "
                "moved to or from the profile or seat), with 95% intervals. Profiles that "
                "double take points from those who do not; over the four seats these sum to "
                "0.",
                ["game_contracts"],
            )
        )
    pairs = h2h[h2h["only_doubling_differs"]]
    if len(pairs) and len(tables1) > 1:
        tables3.append(
            (
                "Profiles that differ only in doubling, paired on the same games (95% CI)",
                tables1[1][1][h2h["only_doubling_differs"].to_numpy()],
            )
        )
    if stats.compare is not None:
        tabs["doubling_effect"] = eff = G.doubling_effect(stats)
        draw["doubling_effect"] = ("doubling_effect", (eff,))
        figs3.append(
            FigureItem(
                "doubling_effect",
                "Win rates with doubling on and off",
                "The same games (same seed, players, order and rules) played with doubling "
                "on and off: card play and contract choice do not look at doubling, so the "
                "raw scores are the same and only the settlement differs. Left: win rates "
                "(Wilson 95% CI). Middle and right: the change in win rate (percentage "
                "points) and in mean total, paired per game, with 95% intervals. "
                f"Doubling changed who finished first in "
                f"{100 * stats.compare.winner_changed / max(1, stats.compare.games):.1f}% "
                "of the games.",
                ["doubling_effect"],
            )
        )
    else:
        notes.append(
            "For the effect of doubling on win rates, play the same games with --doubling "
            "off (same --seed, --games, --players, --order, rules) and pass that run as "
            "--compare-games DIR."
        )
    if not doubling_on and stats.compare is None:
        notes.insert(0, "This run was played with doubling off.")
    section = Section(
        "3. Effect of doubling on win rates",
        "A double of t by d moves s_d − s_t from t to d (both ways if they double each "
        "other). Here: what doubles moved per contract and profile, and how win rates "
        "change with doubling.",
        figs3,
        tables=tables3,
        note=" ".join(notes),
    )
    return BuiltSection(section, tabs, draw)
