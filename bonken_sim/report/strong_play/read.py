"""The strong-play runs beside a deal run's report (``bonken-sim report RUN --strong-deals
DIR --strong-games DIR``), read and checked against the run: a deal run of the strongest
card play on the run's first deals, and game runs of the strongest players.

The deal run must have the run's seed, dealer and rules and play some of its contract
variants on at most as many deals: its deal ``i`` then holds the same cards as the run's deal
``i``, so every cost is compared on the same deals (paired). The game runs must have the
rules of the run (``game_set.find_game_runs`` checks them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bonken_sim.errors import UserFixableError
from bonken_sim.report.deals.stats.run_reader import open_run, ruleset_name, run_layout
from bonken_sim.report.games.game_set.stats import GameRun, find_game_runs
from bonken_sim.rules.rulesets import RulesError
from bonken_sim.runs.storage import NotARun


class StrongPlayError(UserFixableError, ValueError):
    """A --strong-deals or --strong-games that cannot be set beside this run."""


@dataclass(frozen=True)
class StrongRuns:
    """The strong-play runs: ``deals`` (root, manifest) or None, and the game runs."""

    deals: tuple[Path, dict] | None
    games: list[GameRun]


def read_strong(
    deals: str | os.PathLike | None, games: Sequence[str | os.PathLike], run: tuple[Path, dict]
) -> StrongRuns | None:
    """The strong-play runs given (None when neither option is), checked against the run
    (its root and manifest)."""
    run_manifest = run[1]
    if deals is None and not games:
        return None
    strong_deals = None
    if deals is not None:
        root = Path(deals)
        try:
            manifest = open_run(root)
        except NotARun as exc:
            raise StrongPlayError(f"--strong-deals: {exc}") from None
        _check_same_deals((root, manifest), run)
        strong_deals = (root, manifest)
    try:
        game_runs = find_game_runs(games, run_manifest) if games else []
    except NotARun as exc:
        raise StrongPlayError(str(exc).replace("--games", "--strong-games")) from None
    return StrongRuns(strong_deals, game_runs)


def _check_same_deals(strong: tuple[Path, dict], run: tuple[Path, dict]) -> None:
    """Refuse a strong deal run whose deal ``i`` is not the run's deal ``i``, or which plays
    a contract or more deals than the run has."""
    (root, manifest), run_manifest = strong, run[1]
    mine, theirs = manifest.get("config", {}), run_manifest.get("config", {})
    where = f"--strong-deals {root}"
    if mine.get("seed") != theirs.get("seed"):
        raise StrongPlayError(
            f"{where} has seed {mine.get('seed')}, the run {theirs.get('seed')}: play the "
            "strong run on the run's seed, so that its deals are the run's first deals"
        )
    try:
        names = ruleset_name(manifest, where), ruleset_name(run_manifest, "the run")
    except RulesError as exc:
        raise StrongPlayError(str(exc)) from None
    if names[0] != names[1]:
        raise StrongPlayError(f"{where} was played under the {names[0]} rules, the run "
                              f"under the {names[1]} rules")  # fmt: skip
    layout, run_layout_ = run_layout(root, manifest), run_layout(*run)
    if layout.dealer != run_layout_.dealer:
        raise StrongPlayError(
            f"{where} has dealer seat {layout.dealer}, the run seat {run_layout_.dealer}"
        )
    missing = [v for v in layout.variants if v not in run_layout_.variants]
    if missing:
        raise StrongPlayError(f"{where} plays {', '.join(missing)}, which the run does not")
    n, have = deal_count(manifest), deal_count(run_manifest)
    if n > have:
        raise StrongPlayError(f"{where} has {n:,} deals, the run only {have:,}")


def deal_count(manifest: dict) -> int:
    return sum(int(p["deals"]) for p in manifest["parts"])
