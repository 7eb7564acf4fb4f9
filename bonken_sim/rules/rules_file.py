"""A TOML rules file (``--rules FILE``): a preset plus overrides.

For example::

    preset = "standard"
    name = "our club"
    heart_lead = "broken"
    trump_play = "must-overtrump"
    domino_open = 7
    domino_aces = "first-fixes"
    domino_ace_or_two = true

    [points]
    vrouwen.queen = -25
    troeven.trick = 15

``negatives`` lists the seven negative contracts of a game; the beer card (``bierkaart``:
whoever takes the 7♦ scores -50) may take Domino's place::

    preset = "standard"
    negatives = ["bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer",
                 "laatste_slag", "bierkaart"]
"""

from __future__ import annotations

from pathlib import Path

from bonken_sim.files import NotToml, read_small_file, toml_document
from bonken_sim.rules.options import RulesError
from bonken_sim.rules.overrides import apply_overrides, norm_key
from bonken_sim.rules.presets import preset
from bonken_sim.rules.ruleset import Ruleset


def load_rules_file(path: str | Path) -> Ruleset:
    """A TOML rules file: ``preset`` (default standard) plus overrides, top level or in a
    ``[rules]`` table. Errors name the file and the key."""
    p = Path(path)
    where = f"rules file {p}"
    try:
        raw = read_small_file(p)
    except OSError as exc:
        raise RulesError(f"cannot read rules file {p}: {exc.strerror or exc}") from None
    try:
        data = toml_document(raw)
    except NotToml as exc:
        raise RulesError(f"{where}: {exc}") from None
    if set(data) == {"rules"} and isinstance(data["rules"], dict):
        data = data["rules"]
    data = dict(data)
    base_name = data.pop("preset", "standard")
    if not isinstance(base_name, str):
        raise RulesError(f"{where}: preset = {base_name!r} is not a ruleset name")
    try:
        base = preset(base_name)
    except RulesError as exc:
        raise RulesError(f"{where}: preset: {exc}") from None
    # an unnamed file is named after itself, unless it changes nothing (then it is its preset)
    if "name" not in {norm_key(k) for k in data}:
        data["name"] = p.stem if len(data) else base.name
    return apply_overrides(base, data, where)
