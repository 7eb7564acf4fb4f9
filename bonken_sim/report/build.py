"""``bonken-sim report``: aggregate a run, draw the figures, write the report folder.

The folder is built under a hidden temporary name beside its destination and renamed into
place when complete, so a failed or interrupted report never leaves a half-written one; a
previous report in the same place is replaced whole.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bonken_sim import __version__
from bonken_sim.report import figures as F
from bonken_sim.report import games as G
from bonken_sim.report import tables as T
from bonken_sim.report.aggregate import (
    ChoiceRule,
    DoubleRule,
    RunStats,
    first_pass,
    open_run,
    second_pass,
)
from bonken_sim.report.pool import default_workers, pool_context  # noqa: F401 - default_workers: re-exported
from bonken_sim.report.render import FigureItem, Section, html_page, markdown_page
from bonken_sim.runs.storage import DEALS_DIR

REPORT_FORMAT = "bonken-sim-report"
MARKER = "report.json"
FORMATS = ("html", "md")
DEFAULT_DIR = "_report"  # '_' keeps it out of the run's Parquet datasets (readers skip it)
PNG_DPI = 110


#: how to draw a figure: a function of ``figures`` and its arguments (picklable)
FigureSpec = tuple[str, tuple]


class ReportError(ValueError):
    """A report that cannot be written where asked (bad --out, bad --format)."""


@dataclass
class ReportResult:
    out: Path
    files: list[str]
    deals: int
    seconds: float
    aggregate_seconds: float


def parse_formats(text: str | Sequence[str]) -> tuple[str, ...]:
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [i.strip().lower() for i in items if i.strip()]
    bad = [n for n in names if n not in FORMATS]
    if not names or bad:
        raise ReportError(
            f"--format must be a comma list of {', '.join(FORMATS)}, got {','.join(items)!r}"
        )
    return tuple(dict.fromkeys(names))


def check_out(run: Path, out: Path) -> None:
    """Refuse destinations that would overwrite the run's data, hide inside its datasets,
    or replace a folder that is not a previous report."""
    run_abs, out_abs = run.resolve(), out.resolve()
    if out_abs == run_abs:
        raise ReportError(f"--out {out} is the run directory itself; use {run / DEFAULT_DIR}")
    if out_abs.is_relative_to(run_abs):
        first = out_abs.relative_to(run_abs).parts[0]
        if first == DEALS_DIR or not first.startswith(("_", ".")):
            raise ReportError(
                f"--out {out}: inside the run directory only a name starting with '_' keeps "
                f"the report out of the run's Parquet data (default: {run / DEFAULT_DIR})"
            )
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} exists and is not a directory")
    ancestor = out.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        raise ReportError(f"cannot write the report to {out}: {ancestor} is not a directory")
    if out.is_dir() and any(out.iterdir()) and not is_report_dir(out):
        raise ReportError(
            f"--out {out} exists and is not a bonken-sim report; choose a new or empty directory"
        )


def is_report_dir(path: Path) -> bool:
    try:
        doc = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("format") == REPORT_FORMAT


# ---------------------------------------------------------------------------------------
# Content


def _fmt_ci(mean: float, lo: float, hi: float, digits: int = 2) -> str:
    if not np.isfinite(mean):
        return "–"
    if not np.isfinite(lo):
        return f"{mean:+.{digits}f}"
    return f"{mean:+.{digits}f} ± {(hi - lo) / 2:.{digits}f}"


def _meta(stats: RunStats, run: Path) -> list[tuple[str, str]]:
    m = stats.manifest
    cfg = m.get("config", {})
    versions = m.get("versions", {})
    strategies = cfg.get("strategies", [])
    strat = strategies[0] if len(set(strategies)) == 1 else ", ".join(strategies)
    variants = stats.variants
    return [
        ("run directory", str(run)),
        ("seed", str(cfg.get("seed"))),
        ("deals", f"{stats.deals:,}"),
        (
            "strategies (seats 0–3)",
            f"{strat}" + (" (all seats)" if len(set(strategies)) == 1 else ""),
        ),
        ("contract variants", f"{len(variants)}: {', '.join(variants)}"),
        (
            "dealer",
            f"seat {stats.dealer} (leader {(stats.dealer + 1) % 4}, chooser "
            f"{(stats.dealer + 2) % 4}, first doubler {(stats.dealer + 3) % 4})",
        ),
        (
            "parts",
            f"{len(m.get('parts', []))} of {cfg.get('chunk_size', '?'):,} deals"
            if isinstance(cfg.get("chunk_size"), int)
            else str(len(m.get("parts", []))),
        ),
        ("run written", str(m.get("completed") or m.get("updated") or "?")),
        *_rules_rows(cfg.get("ruleset")),
        ("versions of the run", ", ".join(f"{k} {v}" for k, v in versions.items())),
        ("report", f"bonken-sim {__version__}, {datetime.now(UTC).isoformat(timespec='seconds')}"),
    ]


def _rules_rows(record: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The run's rules, and what of the report still measures by RULES.md under house rules."""
    from bonken_sim.rules.names import BEER_CARD_NAME, plays_beer_card
    from bonken_sim.rules.rulesets import Ruleset

    if record is None:
        return [("rules", "RULES.md (standard)")]
    rules = Ruleset.from_dict(record, "run ruleset")
    if rules.is_standard:
        return [("rules", "RULES.md (standard)")]
    rows = [
        ("rules", f"house ruleset {rules.name} (bonken-sim rules {rules.name} describes it)"),
        (
            "note",
            "a contract's deal total and fair share, and the fitted choice and doubling "
            "policies, are those of RULES.md in this report",
        ),
    ]
    if plays_beer_card(rules):
        rows.append(
            (
                "beer card",
                f"{BEER_CARD_NAME} is played in Domino's slot and shown as domino in this "
                "report's tables and figures",
            )
        )
    return rows


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
    "tables); rates with Wilson 95% intervals. Points resting on fewer than 100 deals are "
    "left out of the line plots and heatmaps.",
    "The chooser's relative score of a contract is his score minus that contract's mean "
    "chooser score over the whole run: what choosing it on this hand gains over the "
    "contract's average, which is what matters when every contract must be played once "
    "in a game.",
    "Doubling: when player d doubles player t, d gains s_d − s_t from t (RULES.md §5), so "
    "a double pays for the doubler exactly when he scores more than his target.",
    "The numbers describe the strategies that played this run (see 'strategies' above), "
    "not perfect play. Every figure's numbers are in tables/*.csv beside this page.",
)


def _sections(
    stats: RunStats, double_policies: Sequence[str]
) -> tuple[list[Section], dict[str, FigureSpec], dict[str, pd.DataFrame]]:
    """The sections, a draw function per figure and every table to write as CSV."""
    tabs: dict[str, pd.DataFrame] = {}
    draw: dict[str, FigureSpec] = {}
    sections: list[Section] = []

    # --- 1
    tabs["expected_score"] = es = T.expected_score(stats)
    tabs["score_distribution"] = T.score_distribution(stats)
    tabs["hand_features"] = T.hand_features(stats)
    draw["expected_score"] = ("expected_score", (tabs["expected_score"],))
    draw["score_distribution"] = ("score_distribution", (tabs["score_distribution"],))
    draw["hand_features"] = ("hand_features", (tabs["hand_features"], stats.variants))
    table = pd.DataFrame({"variant": stats.variants})
    for rel in F.REL_NAMES:
        d = es[es["relation"] == rel].set_index("variant").loc[list(stats.variants)]
        table[F.REL_DISPLAY[rel]] = [
            _fmt_ci(m, lo, hi)
            for m, lo, hi in zip(d["mean"], d["ci_low"], d["ci_high"], strict=True)
        ]
    table["fair share"] = [f"{T.deal_total(v) / 4:+.2f}" for v in stats.variants]
    sections.append(
        Section(
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
    )

    # --- 2
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
    sections.append(
        Section(
            "2. Contract-choice value",
            intro2,
            figs2,
            note=""
            if "policy" in set(rules.get("rule", pd.Series(dtype=str)))
            else "The fitted choice policy is not part of this report.",
        )
    )

    # --- 3
    tabs["doubling"] = T.doubling(stats)
    tabs["doubling_by_hcp"] = T.doubling_by_hcp(stats)
    tabs["doubling_groups_by_hcp"] = T.doubling_groups_by_hcp(stats)
    draw["doubling_mean"] = ("doubling_mean", (tabs["doubling"],))
    draw["doubling_win_rate"] = ("doubling_win_rate", (tabs["doubling"],))
    draw["doubling_by_hcp"] = ("doubling_by_hcp", (tabs["doubling_groups_by_hcp"],))
    figs3 = [
        FigureItem(
            "doubling_mean",
            "Mean gain of a double per contract and seat pair",
            "Each cell: the mean of s_doubler − s_target over all deals of a contract "
            "variant (columns) for one ordered pair of seats (rows: doubler → target), "
            "with its 95% CI half-width. That is what one double would have gained the "
            "doubler on average if he doubled on every deal; blue = it pays. The chooser "
            "may only double back a player who doubled him (RULES.md §5.3); his rows are "
            "at the bottom.",
            ["doubling"],
        ),
        FigureItem(
            "doubling_win_rate",
            "Probability that a double gains",
            "Each cell: the share of deals on which the doubler scores more than his "
            "target (the double gains), with the Wilson 95% CI half-width. Ties (often "
            "in the all-or-nothing contracts) count as not gaining; doubling.csv also "
            "gives the share of losses.",
            ["doubling"],
        ),
        FigureItem(
            "doubling_by_hcp",
            "When a double pays, by the doubler's strength",
            "Per contract, the doubler's mean gain per double (95% band) by his own "
            "high-card points, with the pairs pooled into doubles of the chooser (red), "
            "doubles between two non-choosers (blue) and the chooser's doubles back "
            "(green). Where a line is above zero, doubling with such a hand pays on "
            "average. doubling_by_hcp.csv has every pair separately, with P(gain).",
            ["doubling_groups_by_hcp", "doubling_by_hcp"],
        ),
    ]
    policy_tables: list[tuple[str, pd.DataFrame]] = []
    for name in double_policies:
        key = f"doubling_{name}"
        tabs[key] = T.doubling(stats, name)
        tabs[f"{key}_summary"] = summary = T.doubling_summary(stats, name)
        shown = pd.DataFrame(
            {
                "contract": summary["variant"],
                "doubles per deal": [f"{x:.3f}" for x in summary["per_deal"]],
                "gain per double (points)": [
                    _fmt_ci(m, lo, hi, 1)
                    for m, lo, hi in zip(
                        summary["mean"], summary["ci_low"], summary["ci_high"], strict=True
                    )
                ],
                "doubles that gain": [
                    "–"
                    if not np.isfinite(p)
                    else f"{100 * p:.0f}% ({100 * lo:.0f}–{100 * hi:.0f}%)"
                    for p, lo, hi in zip(
                        summary["p_positive"],
                        summary["p_ci_low"],
                        summary["p_ci_high"],
                        strict=True,
                    )
                ],
            }
        )
        policy_tables.append((f"The {name}'s doubles, on the contracts it chooses (95% CI)", shown))
        title = f"Doubling by the {name}: realised gain per double made (±95% CI)"
        draw[key] = ("doubling_mean", (tabs[key], title))
        figs3.append(
            FigureItem(
                key,
                f"Realised gain per double of the {name}",
                f"Each cell: the mean of s_doubler − s_target over the doubles the {name} "
                "actually made, with the 95% CI half-width. As in a game, it doubles only "
                "in the contract the choice policy picks on each deal, so contracts that are "
                "rarely chosen have few doubles and wide intervals; empty cells: no double. "
                "The CSVs also give doubles per deal and the share of doubles that gained.",
                [key, f"{key}_summary"],
            )
        )
    sections.append(
        Section(
            "3. Doubling profitability",
            "A double moves s_doubler − s_target points from the target to the doubler "
            "(twice if both double each other). These figures show, for every contract and "
            "ordered pair of seats, whether that difference tends to be positive.",
            figs3,
            tables=policy_tables,
            note=""
            if double_policies
            else "The fitted doubling policy is not part of this report.",
        )
    )
    return sections, draw, tabs


# ---------------------------------------------------------------------------------------
# Writing

# Figures that take longest to draw go first, so two workers finish together.
_DRAW_ORDER = (
    "hand_features",
    "score_distribution",
    "doubling_by_hcp",
    "doubling_win_rate",
    "doubling_mean",
    "best_contract",
)


def render_figure(spec: FigureSpec, base: str) -> bytes:
    """Draw one figure and write ``base``.png and ``base``.svg; the PNG bytes (runs in a
    worker process)."""
    func, args = spec
    with F.style():
        fig = getattr(F, func)(*args)
        buf = io.BytesIO()
        # zlib level 1: 40% less CPU than the default 6 for files about 5% larger
        fig.savefig(buf, format="png", dpi=PNG_DPI, pil_kwargs={"compress_level": 1})
        # the PNG pass ran the constrained layout; the SVG reuses its positions
        fig.set_layout_engine("none")
        fig.savefig(base + ".svg", format="svg")
    png = buf.getvalue()
    Path(base + ".png").write_bytes(png)
    return png


class _FigureQueue:
    """Figures to draw, most expensive first, shared by the pool and this process.

    A thread keeps exactly one figure per worker in the pool (a figure waiting in the
    executor's own queue could not be taken back), and this process takes the cheapest ones
    left from the other end, so neither side idles while the other has a backlog."""

    def __init__(self, pool: Executor, slots: int) -> None:
        self.pool, self.slots = pool, slots
        self.lock = threading.Lock()
        self.todo: list[tuple[str, FigureSpec, str]] = []
        self.running: dict[Future, str] = {}
        self.finished: dict[str, Future] = {}
        self.names: set[str] = set()
        self.closed = False
        self.thread = threading.Thread(target=self._feed, name="report-figures", daemon=True)
        self.thread.start()

    def add(self, jobs: list[tuple[str, FigureSpec, str]]) -> None:
        with self.lock:
            self.todo += jobs
            self.names.update(n for n, _, _ in jobs)
            self.todo.sort(key=lambda j: _DRAW_ORDER.index(j[0]) if j[0] in _DRAW_ORDER else 99)

    def take_cheapest(self) -> tuple[str, FigureSpec, str] | None:
        with self.lock:
            return self.todo.pop() if self.todo else None

    def _feed(self) -> None:
        try:
            self._loop()
        except Exception:  # noqa: BLE001 - the pool was shut down under us (a failed report)
            with self.lock:
                self.closed = True

    def abort(self) -> None:
        with self.lock:
            self.closed = True
            self.todo.clear()

    def _loop(self) -> None:
        while True:
            with self.lock:
                while len(self.running) < self.slots and self.todo and not self.closed:
                    name, spec, path = self.todo.pop(0)
                    self.running[self.pool.submit(render_figure, spec, path)] = name
                if self.closed and not self.running:
                    return
                busy = list(self.running)
            # the timeout: jobs added meanwhile are submitted within 50 ms
            done = wait(busy, timeout=0.05, return_when=FIRST_COMPLETED).done if busy else ()
            if not busy:
                time.sleep(0.02)
            with self.lock:
                for fut in done:
                    self.finished[self.running.pop(fut)] = fut

    def finish(self) -> dict[str, bytes]:
        """Wait for the pool's figures: name → PNG bytes (a worker's error is raised)."""
        with self.lock:
            self.closed = True  # nothing is left to submit: take_cheapest emptied todo
        self.thread.join()
        return {name: fut.result() for name, fut in self.finished.items()}


def write_report(
    run: str | os.PathLike,
    out: str | os.PathLike | None = None,
    formats: str | Sequence[str] = FORMATS,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    workers: int = 1,
    fitted: bool = False,
    compare_games: str | os.PathLike | None = None,
) -> ReportResult:
    """Write the report of run directory ``run`` into ``out`` (default ``run/_report``).

    ``choice_rules`` (name → rule) add rows to the choice comparison and ``double_rules``
    (name → rule) a realised-gain figure each; see ``aggregate.ChoiceRule``/``DoubleRule``.
    ``workers`` > 1: that many processes share the aggregation and the drawing (they are
    spawned, so a script calling this needs the ``if __name__ == "__main__":`` guard);
    ``default_workers()`` is what the command line uses. ``fitted``: add the fitted
    choice and doubling policies (``bonken_sim.models.choice``/``doubling``) as rules ``policy``.

    A game run (``bonken-sim game``) gets the game report instead (win rates, totals,
    per-contract contributions, doubling); the rules, ``workers`` and ``fitted`` do not apply
    to it. ``compare_games``: a second game run of the same games with the other doubling
    setting, for the effect of doubling on win rates (game runs only).
    """
    t0 = time.perf_counter()
    root = Path(run)
    fmts = parse_formats(formats)
    if G.manifest_format(root) == G.GAME_FORMAT:
        game_manifest = G.open_game_run(root)
        dest = Path(out) if out is not None else root / DEFAULT_DIR
        check_out(root, dest)
        return _write_games(root, dest, fmts, game_manifest, compare_games, t0)
    if compare_games is not None:
        open_run(root)  # a run that is not a run at all says so first
        raise ReportError(
            f"--compare-games needs a game run (bonken-sim game) as RUN_DIR; {root} is a deal run"
        )
    manifest = open_run(root)  # NotARun for a missing, foreign or incomplete run
    dest = Path(out) if out is not None else root / DEFAULT_DIR
    check_out(root, dest)
    workers = max(1, int(workers))
    if fitted:
        from bonken_sim.report.aggregate import run_layout
        from bonken_sim.report.policies import fitted_rules

        fit_choice, fit_double = fitted_rules(run_layout(root, manifest).dealer)
        choice_rules = {**fit_choice, **(choice_rules or {})}
        double_rules = {**fit_double, **(double_rules or {})}
    pool: Executor | None = None
    if workers > 1:
        pool = ProcessPoolExecutor(workers, mp_context=pool_context())
    try:
        return _write(root, dest, fmts, manifest, choice_rules, double_rules, pool, workers, t0)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _write(root, dest, fmts, manifest, choice_rules, double_rules, pool, workers, t0):
    tmp = _temp_dir(dest)
    cleanup: list = []  # the figure queue, stopped if the report fails
    try:
        stats, picks = first_pass(
            root, choice_rules, double_rules, manifest=manifest, executor=pool, workers=workers
        )
        (tmp / "figures").mkdir()
        (tmp / "tables").mkdir()
        dbl = list(double_rules or {})

        def base(name: str) -> str:
            return str(tmp / "figures" / name)

        def by_cost(names) -> list[str]:
            return sorted(names, key=lambda n: _DRAW_ORDER.index(n) if n in _DRAW_ORDER else 99)

        queue = _FigureQueue(pool, workers) if pool is not None else None
        cleanup.append(queue)
        if queue is not None:
            # every figure but the choice comparison is drawn while this process runs the
            # second pass (it reads one score column: cheaper than keeping workers busy)
            _, early, _ = _sections(stats, dbl)
            queue.add([(n, early[n], base(n)) for n in by_cost(early)])
        second_pass(stats, picks, list(choice_rules or {}))
        t_agg = time.perf_counter() - t0
        sections, draw, tabs = _sections(stats, dbl)
        items = {item.name: item for s in sections for item in s.figures}
        order = by_cost(items)
        pngs: dict[str, bytes] = {}
        if queue is not None:
            queue.add([(n, draw[n], base(n)) for n in order if n not in queue.names])
        files = _write_tables(tmp, tabs)
        if queue is not None:
            # this process draws too: the cheapest figures no worker has taken yet
            while (job := queue.take_cheapest()) is not None:
                name, spec, path = job
                pngs[name] = render_figure(spec, path)
            pngs.update(queue.finish())
        for name in order:
            if name not in pngs:
                pngs[name] = render_figure(draw[name], base(name))
            items[name].png = pngs[name]
            files += [f"figures/{name}.png", f"figures/{name}.svg"]
        seed = manifest["config"].get("seed")
        title = f"Bonken simulation report: {stats.deals:,} deals, seed {seed}"
        page = (title, _meta(stats, root), GUIDE, sections)
        head = {"run": str(root.resolve()), "deals": stats.deals, "seed": seed}
        seconds = _finish(tmp, dest, fmts, page, files, head, t0)
    except BaseException as exc:
        for queue in cleanup:
            if queue is not None:
                queue.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ReportError(f"cannot write the report to {dest}: {exc.strerror or exc}") from None
        raise
    return ReportResult(dest, sorted(files), stats.deals, seconds, t_agg)


def _temp_dir(dest: Path) -> Path:
    """The private folder beside ``dest`` that a report is built in. It is made first, so an
    unwritable destination fails now and not after the whole pass."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent))
    except OSError as exc:
        raise ReportError(f"cannot write the report to {dest}: {exc.strerror or exc}") from None


def _write_tables(tmp: Path, tabs: dict[str, pd.DataFrame]) -> list[str]:
    """Each table as ``tables/<name>.csv``; returns the files written."""
    files = []
    for name, frame in tabs.items():
        frame.to_csv(tmp / "tables" / f"{name}.csv", index=False, float_format="%.10g")
        files.append(f"tables/{name}.csv")
    return files


def _finish(tmp: Path, dest: Path, fmts, page: tuple, files: list[str], head: dict, t0) -> float:
    """Write the pages (``page``: title, meta, guide, sections) and the marker (``head``
    first, then what every report records), then put the folder in place; returns the
    seconds since ``t0``."""
    title, meta, guide, sections = page
    if "html" in fmts:
        (tmp / "report.html").write_text(html_page(title, meta, guide, sections), "utf-8")
        files.append("report.html")
    if "md" in fmts:
        (tmp / "report.md").write_text(markdown_page(title, meta, guide, sections), "utf-8")
        files.append("report.md")
    seconds = time.perf_counter() - t0
    doc = {
        "format": REPORT_FORMAT,
        "version": 1,
        **head,
        "bonken_sim": __version__,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "formats": list(fmts),
        "files": sorted(files),
        "seconds": round(seconds, 2),
    }
    (tmp / MARKER).write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    _swap_into_place(tmp, dest)
    return seconds


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename the finished folder to ``dest``; a previous report there is replaced."""
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; a report is meant to be shared
    if dest.exists():
        old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
        os.replace(dest, old)
        os.replace(tmp, dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, dest)


# ---------------------------------------------------------------------------------------
# Game runs


def _pct_ci(p: float, lo: float, hi: float) -> str:
    if not np.isfinite(p):
        return "–"
    return f"{100 * p:.1f}% ({100 * lo:.1f}–{100 * hi:.1f}%)"


def _game_meta(stats: G.GameStats, run: Path) -> list[tuple[str, str]]:
    m = stats.manifest
    cfg = m.get("config", {})
    ruleset = cfg.get("ruleset")
    rows = [
        ("run directory", str(run)),
        ("kind", "game run (bonken-sim game): whole games of 11 deals"),
        ("seed", str(cfg.get("seed"))),
        ("games", f"{stats.games:,}"),
        ("players (seats 0–3)", ", ".join(stats.players)),
        ("contract order", str(cfg.get("order", "free"))),
        ("doubling", "on" if cfg.get("doubling", True) else "off"),
        (
            "rules",
            "RULES.md (standard)"
            if ruleset is None
            else f"house ruleset {ruleset.get('name', '?')}",
        ),
        ("parts", f"{len(m.get('parts', []))} of {cfg.get('chunk_size', '?'):,} games"),
        ("versions of the run", ", ".join(f"{k} {v}" for k, v in m.get("versions", {}).items())),
    ]
    if stats.compare is not None:
        other = "off" if stats.compare.doubling_in_main else "on"
        rows.append(("compared with", f"{stats.compare.other} (doubling {other})"))
    rows.append(
        ("report", f"bonken-sim {__version__}, {datetime.now(UTC).isoformat(timespec='seconds')}")
    )
    return rows


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


def _game_sections(
    stats: G.GameStats,
) -> tuple[list[Section], dict[str, FigureSpec], dict[str, pd.DataFrame]]:
    tabs: dict[str, pd.DataFrame] = {}
    draw: dict[str, FigureSpec] = {}
    tabs["game_results"] = res = G.results(stats)
    tabs["game_contracts"] = con = G.contracts(stats)
    tabs["head_to_head"] = h2h = G.head_to_head(stats)
    draw["game_results"] = ("game_results", (res,))
    draw["game_contracts"] = ("game_contracts", (con,))
    order = res.sort_values("group", kind="stable", key=lambda g: g != "profile")
    shown = pd.DataFrame(
        {
            "": F._unit_labels(order),
            "win rate (95% CI)": [
                _pct_ci(*r)
                for r in zip(
                    order["win_rate"], order["win_ci_low"], order["win_ci_high"], strict=True
                )
            ],
            "sole first places": [f"{w:,}" for w in order["sole_wins"]],
            "mean total ± 95% CI": [
                _fmt_ci(*r, 1)
                for r in zip(
                    order["mean_total"], order["total_ci_low"], order["total_ci_high"], strict=True
                )
            ],
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
                        "win rate difference (points of %)": [
                            _fmt_ci(100 * m, 100 * lo, 100 * hi, 1)
                            for m, lo, hi in zip(
                                h2h["win_diff"],
                                h2h["win_diff_ci_low"],
                                h2h["win_diff_ci_high"],
                                strict=True,
                            )
                        ],  # fmt: skip
                        "mean total difference (points)": [
                            _fmt_ci(m, lo, hi, 1)
                            for m, lo, hi in zip(
                                h2h["total_diff"],
                                h2h["total_diff_ci_low"],
                                h2h["total_diff_ci_high"],
                                strict=True,
                            )
                        ],  # fmt: skip
                    }
                ),
            )
        )
    sections = [
        Section(
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
    ]
    profiles = list(stats.profiles)
    contrib = con[con["group"] == "profile"]
    shown2 = pd.DataFrame({"contract": list(G.CONTRACTS)})
    shown2["deals per game"] = [
        f"{x:g}" for x in contrib.drop_duplicates("contract")["deals_per_game"]
    ]
    for p in profiles:
        d = contrib[contrib["name"] == p].set_index("contract").loc[list(G.CONTRACTS)]
        shown2[p] = [
            _fmt_ci(*r, 1)
            for r in zip(d["final_mean"], d["final_ci_low"], d["final_ci_high"], strict=True)
        ]
    sections.append(
        Section(
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
    )
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
    sections.append(
        Section(
            "3. Effect of doubling on win rates",
            "A double of t by d moves s_d − s_t from t to d (both ways if they double each "
            "other). Here: what doubles moved per contract and profile, and how win rates "
            "change with doubling.",
            figs3,
            tables=tables3,
            note=" ".join(notes),
        )
    )
    return sections, draw, tabs


def _write_games(root, dest, fmts, manifest, compare, t0) -> ReportResult:
    tmp = _temp_dir(dest)
    try:
        stats = G.aggregate_games(root, manifest)
        if compare is not None:
            stats.compare = G.compare_doubling(stats, compare)
        t_agg = time.perf_counter() - t0
        (tmp / "figures").mkdir()
        (tmp / "tables").mkdir()
        sections, draw, tabs = _game_sections(stats)
        files = _write_tables(tmp, tabs)
        for section in sections:
            for item in section.figures:
                item.png = render_figure(draw[item.name], str(tmp / "figures" / item.name))
                files += [f"figures/{item.name}.png", f"figures/{item.name}.svg"]
        seed = manifest["config"].get("seed")
        title = f"Bonken game report: {stats.games:,} games, seed {seed}"
        page = (title, _game_meta(stats, root), GAME_GUIDE, sections)
        head = {
            "kind": "games",
            "run": str(root.resolve()),
            "compared_with": None if compare is None else str(Path(compare).resolve()),
            "games": stats.games,
            "seed": seed,
        }
        seconds = _finish(tmp, dest, fmts, page, files, head, t0)
    except BaseException as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ReportError(f"cannot write the report to {dest}: {exc.strerror or exc}") from None
        raise
    return ReportResult(dest, sorted(files), stats.games, seconds, t_agg)
