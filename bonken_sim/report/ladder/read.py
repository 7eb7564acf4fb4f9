"""A strategy ladder beside a deal run's report (``bonken-sim report RUN --ladder FILE``): the
ladder's JSON (``bonken-sim ladder --out FILE``) read and checked against the run, and its
card-play rungs as tables.

The report uses three rungs, each one hero of the higher tier among three of the lower on the
same deals (analyses/ladder.py): ``basic->advanced``, ``advanced->expert`` and
``basic->expert``. The last is measured, not summed from the other two: the hero's gain
depends on the three players it sits with, so gains against different lower tiers do not add
up. With ``bonken-sim ladder --games N`` it also holds whole-game rungs (``games``: each
heuristic profile against the strongest, the expert's search steps), read here too; a ladder
without them is shown without them. A ladder without both expert rungs, of another ruleset,
or not a ladder at all is refused with one line (:class:`LadderError`).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from bonken_sim.errors import UserFixableError
from bonken_sim.files import NotJson, json_document
from bonken_sim.report.deals.stats.run_reader import ruleset_name
from bonken_sim.report.ladder.games import GameRungs, GameRungsError, read_game_rungs
from bonken_sim.rules.rulesets import RulesError
from bonken_sim.runs.storage import VARIANT_NAMES

#: the rungs shown, (lower tier, hero tier); the hero "expert" may carry its settings
#: (``expert:K:E``) in the ladder's keys
RUNGS = (("basic", "advanced"), ("advanced", "expert"), ("basic", "expert"))
TIERS = ("basic", "advanced")  # the heuristic tiers whose distance from expert is shown


class LadderError(UserFixableError, ValueError):
    """A --ladder file that cannot be used for this run."""


@dataclass(frozen=True)
class Ladder:
    path: Path
    deals: int
    expert_deals: int
    seed: int
    expert: str  # the expert's strategy name in the ladder, settings included
    #: one row per (rung, variant): rung ("basic->advanced", ...), lower, hero, variant,
    #: mean, ci_low, ci_high, n
    gains: pd.DataFrame
    games: GameRungs | None = None  # the whole-game rungs (None: not measured)


def read_ladder(path: str | os.PathLike, run_manifest: dict) -> Ladder:
    """The ladder saved at ``path``, checked against the deal run of ``run_manifest``."""
    p = Path(path)
    doc = _load(p)
    where = f"--ladder {p}"
    card = doc.get("card_play")
    counts = (doc.get("deals"), doc.get("expert_deals", 0), doc.get("seed", 0))
    if not isinstance(card, dict) or not all(isinstance(c, int) for c in counts):
        raise LadderError(f"{where} is not a strategy ladder (bonken-sim ladder --out FILE)")
    theirs = doc.get("ruleset", "standard")  # ladders before the field played RULES.md
    ours = run_rules_name(run_manifest)
    if theirs != ours:
        raise LadderError(
            f"{where} was measured under the {theirs} rules, the run was played under the "
            f"{ours} rules"
        )
    experts = sorted({k.split("->", 1)[1] for k in card if _hero(k).startswith("expert")})
    if not experts:
        raise LadderError(
            f"{where} has no expert rung; measure one with bonken-sim ladder --expert-deals N"
        )
    expert = experts[0]
    rows = []
    for lower, hero in RUNGS:
        name = hero if hero != "expert" else expert
        key = f"{lower}->{name}"
        if key not in card:
            raise LadderError(
                f"{where} has no rung {lower}->{hero}; measure the ladder again with this "
                "version (bonken-sim ladder --expert-deals N)"
            )
        rows += _rung_rows(where, key, lower, hero, card[key])
    gains = pd.DataFrame(
        rows, columns=["rung", "lower", "hero", "variant", "mean", "ci_low", "ci_high", "n"]
    )
    deals, expert_deals, seed = (int(c) for c in counts)  # type: ignore[arg-type]
    games = None
    if "games" in doc:  # ladders measured without --games (or before it) have none
        try:
            games = read_game_rungs(doc["games"])
        except GameRungsError as exc:
            raise LadderError(f"{where}: {exc}") from None
    return Ladder(p, deals, expert_deals, seed, expert, gains, games)


def _load(p: Path) -> dict[str, Any]:
    if not p.exists():
        raise LadderError(f"--ladder {p} does not exist")
    if not p.is_file():
        raise LadderError(f"--ladder {p} is not a file")
    try:
        doc = json_document(p.read_bytes())
    except OSError as exc:
        raise LadderError(f"--ladder {p} cannot be read: {exc}") from None
    except NotJson as exc:
        raise LadderError(
            f"--ladder {p} is not JSON ({exc.why}; bonken-sim ladder --out FILE)"
        ) from None
    if not isinstance(doc, dict):
        raise LadderError(f"--ladder {p} is not a strategy ladder (bonken-sim ladder --out FILE)")
    return doc


def _hero(key: str) -> str:
    return key.split("->", 1)[1] if "->" in key else ""


def _rung_rows(where: str, key: str, lower: str, hero: str, per: Any) -> list[tuple]:
    """The rung's rows, one per variant, from its JSON intervals."""
    if not isinstance(per, dict) or set(per) != set(VARIANT_NAMES):
        raise LadderError(f"{where}: rung {key} does not hold the {len(VARIANT_NAMES)} variants")
    rows = []
    for variant in VARIANT_NAMES:
        iv = per[variant]
        try:
            lo, hi = (float(x) for x in iv["ci95"])
            mean, n = float(iv["mean"]), int(iv["n"])
        except (TypeError, KeyError, ValueError):
            raise LadderError(f"{where}: rung {key}, {variant} is not an interval") from None
        if not math.isfinite(mean) or n < 2:
            raise LadderError(f"{where}: rung {key}, {variant} has no interval (n = {n})")
        rows.append((f"{lower}->{hero}", lower, hero, variant, mean, lo, hi, n))
    return rows


def run_rules_name(manifest: dict) -> str:
    """The ruleset a deal run was played under, by name (``standard`` for RULES.md)."""
    try:
        return ruleset_name(manifest, "the run")
    except RulesError as exc:
        raise LadderError(str(exc)) from None


def run_tier(manifest: dict) -> str | None:
    """The heuristic tier of the run's card play when every seat played it, else None."""
    strategies = manifest.get("config", {}).get("strategies", [])
    tiers = {str(s).lower() for s in strategies}
    return tiers.pop() if len(tiers) == 1 and tiers <= set(TIERS) else None


def distance_table(ladder: Ladder, variants: Sequence[str] = VARIANT_NAMES) -> pd.DataFrame:
    """Per variant of ``variants`` (the run's), each rung's mean and 95% CI side by side:
    columns ``<lower>_<hero>_{mean,ci_low,ci_high}`` and the deals behind each."""
    out = pd.DataFrame({"variant": list(variants)})
    for lower, hero in RUNGS:
        rung = ladder.gains[ladder.gains["rung"] == f"{lower}->{hero}"].set_index("variant")
        for col in ("mean", "ci_low", "ci_high", "n"):
            name = f"{lower}_{hero}_" + ("deals" if col == "n" else col)
            out[name] = rung.loc[list(variants), col].to_numpy()
    return out
