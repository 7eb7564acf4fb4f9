"""The named rulesets (``--ruleset NAME``): RULES.md and the house rules clubs play most.

``PRESETS`` is the one list of names: help texts, ``bonken-sim rules`` and the rules-file
``preset`` key all read it.
"""

from __future__ import annotations

from bonken_sim.rules.options import (
    ALL_POINTS,
    BEER_CARD,
    STANDARD_NEGATIVES,
    RulesError,
    point_keys,
)
from bonken_sim.rules.ruleset import STANDARD, Ruleset

_BEER_NEGATIVES = (*STANDARD_NEGATIVES[:6], BEER_CARD)

PRESETS: dict[str, Ruleset] = {
    "standard": STANDARD,
    "fixed-order": Ruleset(name="fixed-order", order="fixed"),
    "double-points": Ruleset(
        name="double-points", points=tuple((k, 2 * v) for k, v in STANDARD.points)
    ),
    "bierkaart": Ruleset(
        name="bierkaart",
        negatives=_BEER_NEGATIVES,
        points=tuple((k, ALL_POINTS[k]) for k in point_keys(_BEER_NEGATIVES)),
    ),
    "strict": Ruleset(
        name="strict", heart_lead="broken", trump_play="must-overtrump", domino_open=7
    ),
}
PRESET_SUMMARIES = {
    "standard": "RULES.md: the rules the seed texts describe",
    "fixed-order": "the seed's simpler variant: the seven negatives in order, then four troeven",
    "double-points": "every point value doubled (the scoring of club rulesets that play "
    "doubled values)",
    "strict": "tighter card play from other trick games: hearts led only once broken, "
    "must over-trump, Domino rows open with the 7s",
    "bierkaart": "a café variant: the beer card, a trick contract in place of Domino in "
    "which whoever takes the 7 of diamonds scores -50",
}
PRESET_NAMES = tuple(PRESETS)
# The --ruleset option's help, with every preset's name.
RULESET_HELP = f"A named ruleset (house rules): {', '.join(PRESET_NAMES)}."


def preset(name: str) -> Ruleset:
    """The preset called ``name`` (any case; '_' for '-'), else a RulesError listing them."""
    key = name.strip().lower().replace("_", "-")
    if key not in PRESETS:
        raise RulesError(f"unknown ruleset {name!r} (expected one of: {', '.join(PRESETS)})")
    return PRESETS[key]
