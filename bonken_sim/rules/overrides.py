"""A table of rule overrides applied to a base ruleset: how rules files and records are read.

A rules file (``preset`` plus overrides) and a ruleset record (``Ruleset.to_dict``, every key
given) are both a table of options, ``negatives`` and ``points`` laid over a base ruleset;
:func:`apply_overrides` reads either, normalising the spellings a person may type
(``must_overtrump``, ``"7"``, ``Laatste-Slag``) and naming the bad key in every error.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from bonken_sim.rules.options import (
    ALL_POINTS,
    NEGATIVE_CONTRACTS,
    OPTION_KEYS,
    RulesError,
    check_negatives,
    in_game_order,
    point_keys,
)

if TYPE_CHECKING:  # pragma: no cover
    from bonken_sim.rules.ruleset import Ruleset


def norm_key(key: str) -> str:
    """A key as written in a file → its Python spelling ('-' and '_' are the same)."""
    return key.strip().replace("-", "_")


def _flatten_points(points: Any, where: str) -> dict[str, Any]:
    """``{contract: {item: value}}`` or ``{"contract.item": value}`` → flat keys."""
    if not isinstance(points, dict):
        raise RulesError(f"{where}: points must be a table, got {points!r}")
    flat: dict[str, Any] = {}
    for ckey, value in points.items():
        if isinstance(value, dict):
            for ikey, v in value.items():
                flat[f"{norm_key(ckey)}.{norm_key(ikey)}"] = v
        else:
            flat[".".join(norm_key(p) for p in str(ckey).split("."))] = value
    for key in flat:
        if key not in ALL_POINTS:
            raise RulesError(
                f"{where}: unknown key 'points.{key}' (expected one of: "
                + ", ".join(ALL_POINTS)
                + ")"
            )
    return flat


def _negatives(value: Any, where: str) -> tuple[str, ...]:
    """A rules file's or record's ``negatives`` list → names in game (variant-id) order."""
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        raise RulesError(
            f"{where}: negatives = {value!r} is not allowed (expected a list of the seven "
            'negative contracts, e.g. ["bukken", ..., "bierkaart"])'
        )
    names = tuple(n.strip().lower().replace("-", "_").replace(" ", "_") for n in value)
    # Every check but the order (a file may list them in any order); names that cannot be
    # sorted (unknown or repeated) are checked as given, which reports them.
    if all(n in NEGATIVE_CONTRACTS for n in names) and len(set(names)) == len(names):
        check_negatives(in_game_order(names), where, names)
    else:
        check_negatives(names, where)
    return in_game_order(names)


def _option_changes(data: dict[str, Any], where: str) -> dict[str, Any]:
    """The name, options and negatives of ``data`` as Ruleset fields (points are read later,
    once the contracts played are known)."""
    changes: dict[str, Any] = {}
    for key, value in data.items():
        k = norm_key(key)
        if k == "name":
            changes["name"] = value
        elif k in OPTION_KEYS:
            if k == "domino_open" and isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            if k in ("heart_lead", "trump_play", "domino_aces", "order") and isinstance(value, str):
                value = value.strip().lower().replace("_", "-")
            changes[k] = value
        elif k == "negatives":
            changes["negatives"] = _negatives(value, where)
        elif k != "points":
            allowed = ", ".join(("preset", "name", *OPTION_KEYS, "negatives", "points"))
            raise RulesError(f"{where}: unknown key {key!r} (expected one of: {allowed})")
    return changes


def apply_overrides(
    base: Ruleset, data: dict[str, Any], where: str, require_all_points: bool = False
) -> Ruleset:
    """``base`` with the options, negatives and points of ``data`` (``where`` starts every
    error message). ``require_all_points``: a record must give every point of its contracts.
    Point values not given keep the base's, or RULES.md's for a contract the base does not
    play (the beer card's when it replaces Domino)."""
    changes = _option_changes(data, where)
    negatives = changes.get("negatives", base.negatives)
    keys = point_keys(negatives)
    pts = {k: base.point.get(k, ALL_POINTS[k]) for k in keys}
    for key, value in data.items():
        if norm_key(key) != "points":
            continue
        flat = _flatten_points(value, where)
        for k in flat:
            if k not in keys:
                contract = k.split(".")[0]
                raise RulesError(
                    f"{where}: points.{k}: {contract} is not played under this ruleset "
                    f"(negatives: {', '.join(negatives)})"
                )
        if require_all_points and set(flat) != set(keys):
            missing = [k for k in keys if k not in flat]
            raise RulesError(f"{where}: missing key 'points.{missing[0]}'")
        pts.update(flat)
    if "points" in {norm_key(k) for k in data} or negatives != base.negatives:
        changes["points"] = tuple(pts.items())
    elif require_all_points:
        raise RulesError(f"{where}: missing key 'points'")
    try:
        return replace(base, **changes)
    except RulesError as exc:
        # the Ruleset's own checks say "ruleset:"; the reader knows the file or record
        raise RulesError(str(exc).replace("ruleset:", f"{where}:", 1)) from None
