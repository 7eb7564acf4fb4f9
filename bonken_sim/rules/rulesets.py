"""House rules, the front door: a Ruleset by name, by rules file or by record.

The pieces live in their own modules, and every name stays importable from here:

* :mod:`~bonken_sim.rules.options`: the words of each option, point keys, the negatives;
* :mod:`~bonken_sim.rules.ruleset`: the :class:`Ruleset` type, its checks and kernel table;
* :mod:`~bonken_sim.rules.presets`: the named rulesets (``--ruleset NAME``);
* :mod:`~bonken_sim.rules.rules_file`: TOML rules files (``--rules FILE``);
* :mod:`~bonken_sim.rules.overrides`: reading a table of overrides (files and records);
* :mod:`~bonken_sim.rules.describe`: the ruleset in words (``bonken-sim rules``).
"""

from __future__ import annotations

from pathlib import Path

from bonken_sim.rules.options import (
    ALL_POINTS,
    BEER_CARD,
    DOMINO_ACES,
    DOMINO_OPENS,
    GAME_COUNTS,
    HEART_LEADS,
    MAX_POINTS,
    NEGATIVE_CONTRACTS,
    ORDERS,
    POINT_KEYS,
    SLOT_6,
    STANDARD_NEGATIVES,
    TRUMP_PLAYS,
    RulesError,
    point_keys,
)
from bonken_sim.rules.presets import PRESET_NAMES, PRESET_SUMMARIES, PRESETS, RULESET_HELP, preset
from bonken_sim.rules.rules_file import load_rules_file
from bonken_sim.rules.ruleset import STANDARD, Ruleset

__all__ = [
    "ALL_POINTS",
    "BEER_CARD",
    "DOMINO_ACES",
    "DOMINO_OPENS",
    "GAME_COUNTS",
    "HEART_LEADS",
    "MAX_POINTS",
    "NEGATIVE_CONTRACTS",
    "ORDERS",
    "POINT_KEYS",
    "PRESETS",
    "PRESET_NAMES",
    "PRESET_SUMMARIES",
    "RULESET_HELP",
    "SLOT_6",
    "STANDARD",
    "STANDARD_NEGATIVES",
    "TRUMP_PLAYS",
    "RulesError",
    "Ruleset",
    "as_ruleset",
    "load_rules_file",
    "point_keys",
    "preset",
    "resolve",
]


def resolve(ruleset: str | None = None, rules_file: str | Path | None = None) -> Ruleset:
    """``--ruleset NAME`` / ``--rules FILE`` (at most one) → a Ruleset (default standard)."""
    if ruleset is not None and rules_file is not None:
        raise RulesError("give --ruleset or --rules, not both (a rules file names its preset)")
    if rules_file is not None:
        return load_rules_file(rules_file)
    if ruleset is not None:
        return preset(ruleset)
    return STANDARD


def as_ruleset(value: Ruleset | str | dict | None) -> Ruleset:
    """A Ruleset from a Ruleset, a preset name, a ruleset record (dict) or None (standard)."""
    if value is None:
        return STANDARD
    if isinstance(value, Ruleset):
        return value
    if isinstance(value, str):
        return preset(value)
    if isinstance(value, dict):
        return Ruleset.from_dict(value)
    raise RulesError(f"not a ruleset: {value!r}")
