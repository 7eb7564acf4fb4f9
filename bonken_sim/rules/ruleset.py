"""The Ruleset: every rule a club may set differently from RULES.md, checked when it is made.

A :class:`Ruleset` holds heart leads, trump play, Domino's opening rank and aces, every point
value, the seven negatives (the beer card may take Domino's place) and the game options
(contract order, doubling). Card play reads it only through :meth:`Ruleset.to_table`, the
int64 table of ``bonken_sim._core.ruleset``; nothing in the play loops knows about presets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from bonken_sim._core.ruleset import STANDARD_POINTS, build_table
from bonken_sim.rules.describe import describe_lines
from bonken_sim.rules.options import (
    BEER_CARD,
    DOMINO_ACES,
    DOMINO_OPENS,
    GAME_COUNTS,
    HEART_LEADS,
    LATER_KEYS,
    MAX_POINTS,
    ORDERS,
    STANDARD_NEGATIVES,
    TRUMP_PLAYS,
    RulesError,
    check_negatives,
    point_keys,
)
from bonken_sim.rules.overrides import apply_overrides


@dataclass(frozen=True)
class Ruleset:
    """Every house rule bonken-sim knows; the defaults are RULES.md (preset ``standard``)."""

    name: str = "standard"
    heart_lead: str = "banned"
    trump_play: str = "optional"
    domino_open: int = 8
    domino_aces: str = "high"
    domino_ace_or_two: bool = False
    order: str = "free"
    doubling: bool = True
    chooser_doubles: bool = False
    points: tuple[tuple[str, int], ...] = field(default=tuple(STANDARD_POINTS.items()))
    negatives: tuple[str, ...] = STANDARD_NEGATIVES

    def __post_init__(self) -> None:
        check_options(self, where="ruleset")

    # -- values ---------------------------------------------------------------------------
    @property
    def point(self) -> dict[str, int]:
        """The point values, keyed ``contract.item`` (as in STANDARD_POINTS; the beer card's
        ``bierkaart.seven_of_diamonds`` in place of ``domino.last_card`` when it is played)."""
        return dict(self.points)

    @property
    def beer_card(self) -> bool:
        """The beer card (bierkaart) takes Domino's place (variant id 6)."""
        return BEER_CARD in self.negatives

    @cached_property
    def table(self) -> np.ndarray:
        """The (12, N_FIELDS) int64 table the kernels read (built once; do not modify)."""
        t = self.to_table()
        t.setflags(write=False)
        return t

    def to_table(self) -> np.ndarray:
        return build_table(
            points=self.point,
            heart_lead=HEART_LEADS[self.heart_lead],
            trump_play=TRUMP_PLAYS[self.trump_play],
            domino_open=self.domino_open - 2,  # rank index: the 8 is 6, the 7 is 5
            domino_aces=DOMINO_ACES[self.domino_aces],
            domino_needs=int(self.domino_ace_or_two),
            beer_card=self.beer_card,
            chooser_starts=int(self.chooser_doubles),
        )

    def game_total(self) -> int:
        """The sum of all raw scores of one game (RULES.md: 0)."""
        return sum(GAME_COUNTS[k] * v for k, v in self.points)

    @property
    def zero_sum(self) -> bool:
        return self.game_total() == 0

    def options(self) -> dict[str, Any]:
        """Everything but the name (two rulesets with equal options play identically)."""
        d = self.to_dict()
        del d["name"]
        return d

    @property
    def is_standard(self) -> bool:
        return self.options() == STANDARD.options()

    # -- records ----------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The resolved ruleset as JSON-able data (trace records, manifests, Parquet).
        ``negatives`` and ``chooser_doubles`` are there only when they are not RULES.md's
        (so standard records keep their first form)."""
        d = {
            "name": self.name,
            "heart_lead": self.heart_lead,
            "trump_play": self.trump_play,
            "domino_open": self.domino_open,
            "domino_aces": self.domino_aces,
            "domino_ace_or_two": self.domino_ace_or_two,
            "order": self.order,
            "doubling": self.doubling,
            "points": self.point,
        }
        if self.negatives != STANDARD_NEGATIVES:
            d["negatives"] = list(self.negatives)
        if self.chooser_doubles:
            d["chooser_doubles"] = True
        return d

    @classmethod
    def from_dict(cls, data: Any, where: str = "ruleset") -> Ruleset:
        """The inverse of :meth:`to_dict` (every key required, nothing unknown; the options
        added after the first records, ``LATER_KEYS``, default to RULES.md so that older
        traces and manifests still read)."""
        if not isinstance(data, dict):
            raise RulesError(f"{where}: expected a table of rules, got {data!r}")
        want = set(STANDARD.to_dict()) | {"negatives", "chooser_doubles"}
        unknown = sorted(set(data) - want)
        if unknown:
            raise RulesError(f"{where}: unknown key {unknown[0]!r}")
        missing = sorted(want - set(data) - set(LATER_KEYS))
        if missing:
            raise RulesError(f"{where}: missing key {missing[0]!r}")
        return apply_overrides(STANDARD, data, where, require_all_points=True)

    # -- words ------------------------------------------------------------------------------
    def describe(self, width: int = 100) -> list[str]:
        """The ruleset in words a player understands (lines at most ``width`` long)."""
        return describe_lines(self, STANDARD, width)


def check_options(r: Ruleset, where: str) -> None:
    """Every field of ``r`` is one a game can be played with; else a RulesError naming it."""

    def bad(key: str, value: Any, allowed: str) -> RulesError:
        return RulesError(f"{where}: {key} = {value!r} is not allowed (expected {allowed})")

    def word(key: str, words: Any) -> None:
        # a word of ``words``; a list, table or number is refused before it is looked up
        value = getattr(r, key)
        if not isinstance(value, str) or value not in words:
            raise bad(key, value, " or ".join(words))

    def true_or_false(key: str) -> None:
        value = getattr(r, key)
        if not isinstance(value, bool):
            raise bad(key, value, "true or false")

    if not isinstance(r.name, str) or not r.name.strip():
        raise bad("name", r.name, "a non-empty text")
    word("heart_lead", HEART_LEADS)
    word("trump_play", TRUMP_PLAYS)
    if type(r.domino_open) is not int or r.domino_open not in DOMINO_OPENS:
        raise bad("domino_open", r.domino_open, "8 or 7")
    word("domino_aces", DOMINO_ACES)
    true_or_false("domino_ace_or_two")
    true_or_false("chooser_doubles")
    word("order", ORDERS)
    true_or_false("doubling")
    check_negatives(r.negatives, where)
    if r.beer_card and r.domino_ace_or_two:
        raise bad("domino_ace_or_two", r.domino_ace_or_two, "false: this ruleset plays no domino")
    want = point_keys(r.negatives)
    if not isinstance(r.points, tuple) or not all(
        isinstance(p, tuple) and len(p) == 2 for p in r.points
    ):
        raise RulesError(f"{where}: points = {r.points!r} is not a table of point values")
    keys = [k for k, _ in r.points]
    if keys != list(want):
        raise RulesError(f"{where}: points must list {', '.join(want)} in that order")
    for key, v in r.points:
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad(f"points.{key}", v, "a whole number")
        if abs(v) > MAX_POINTS:
            raise bad(f"points.{key}", v, f"a value from -{MAX_POINTS} to {MAX_POINTS}")
        if key == "troeven.trick" and v < 0:
            raise bad(f"points.{key}", v, "0 or more: troeven rewards tricks")
        if key != "troeven.trick" and v > 0:
            raise bad(f"points.{key}", v, "0 or less: a negative contract's values are penalties")


STANDARD = Ruleset()
