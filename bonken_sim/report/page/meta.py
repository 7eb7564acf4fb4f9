"""The table at the top of a report's page: which run it is and how it was played."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bonken_sim.report.deals.stats.histograms import RunStats
from bonken_sim.report.games.game_set.stats import GameRun
from bonken_sim.report.games.stats import GameStats
from bonken_sim.version import __version__


def deal_run_meta(
    stats: RunStats, run: Path, game_runs: Sequence[GameRun] = ()
) -> list[tuple[str, str]]:
    """The rows about a deal run at the top of its report (and the game runs beside it)."""
    m = stats.manifest
    cfg = m.get("config", {})
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
        *_game_runs_rows(game_runs),
        _versions_row(m),
        _report_row(),
    ]


def _game_runs_rows(game_runs: Sequence[GameRun]) -> list[tuple[str, str]]:
    """One row per game run of the games section: where, how many games, who sat where."""
    return [
        (
            "game run" if len(game_runs) == 1 else f"game run {k + 1} of {len(game_runs)}",
            f"{r.root}: {r.manifest['config']['games']:,} games, seed {r.seed}, seats 0–3 "
            + ", ".join(r.players),
        )
        for k, r in enumerate(game_runs)
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


def game_run_meta(stats: GameStats, run: Path) -> list[tuple[str, str]]:
    """The rows about a game run at the top of its report."""
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
        _versions_row(m),
    ]
    if stats.compare is not None:
        other = "off" if stats.compare.doubling_in_main else "on"
        rows.append(("compared with", f"{stats.compare.other} (doubling {other})"))
    rows.append(_report_row())
    return rows


def _versions_row(manifest: Mapping[str, Any]) -> tuple[str, str]:
    versions = manifest.get("versions", {})
    return ("versions of the run", ", ".join(f"{k} {v}" for k, v in versions.items()))


def _report_row() -> tuple[str, str]:
    return (
        "report",
        f"bonken-sim {__version__}, {datetime.now(UTC).isoformat(timespec='seconds')}",
    )
