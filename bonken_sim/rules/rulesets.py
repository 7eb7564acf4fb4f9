"""House rules: named rulesets (presets), rules files, and the table the kernels read.

A :class:`Ruleset` is every rule a club may set differently from RULES.md: heart leads,
trump play, Domino's opening rank, every point value, and the game options (contract order,
doubling). Card play reads it only through :meth:`Ruleset.to_table`, the int64 table of
``bonken_sim._core.ruleset``; nothing in the play loops knows about presets.

A rules file is TOML: a preset plus overrides, for example::

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

import textwrap
import tomllib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim._core.ruleset import (
    ACES_EITHER,
    ACES_HIGH,
    BEER_CARD_POINTS,
    HEART_LEAD_BANNED,
    HEART_LEAD_BROKEN,
    HEART_LEAD_FREE,
    STANDARD_POINTS,
    TRUMP_MUST,
    TRUMP_OPTIONAL,
    TRUMP_OVER,
    build_table,
)

HEART_LEADS = {"banned": HEART_LEAD_BANNED, "broken": HEART_LEAD_BROKEN, "free": HEART_LEAD_FREE}
TRUMP_PLAYS = {"optional": TRUMP_OPTIONAL, "must-trump": TRUMP_MUST, "must-overtrump": TRUMP_OVER}
DOMINO_OPENS = (8, 7)
DOMINO_ACES = {"high": ACES_HIGH, "first-fixes": ACES_EITHER}
ORDERS = ("free", "fixed")
POINT_KEYS = tuple(STANDARD_POINTS)  # the standard ruleset's point keys
# The negative contracts of RULES.md, in variant-id order; the beer card may take Domino's
# slot (variant id 6): a game is always 7 negatives and 4 troeven deals.
STANDARD_NEGATIVES = (
    "bukken",
    "hartenjagen",
    "herenboeren",
    "vrouwen",
    "hartenheer",
    "laatste_slag",
    "domino",
)
BEER_CARD = "bierkaart"
SLOT_6 = ("domino", BEER_CARD)  # the contracts that can fill variant id 6
NEGATIVE_CONTRACTS = (*STANDARD_NEGATIVES, BEER_CARD)
# Every point key a ruleset may set, the beer card's after Domino's (the slot they share).
ALL_POINTS = {
    k: v
    for key, value in STANDARD_POINTS.items()
    for k, v in ((key, value), *(BEER_CARD_POINTS.items() if key == "domino.last_card" else ()))
}
MAX_POINTS = 1000  # |any point value|: keeps every deal's scores well inside int16

# How many times each point value is scored in one game of RULES.md §6 (7 negatives, 4
# troeven deals): bukken 13 tricks, 13 hearts, 4 kings, 4 jacks, 4 queens, one K♥, one last
# trick, one last Domino card, and 4 × 13 troeven tricks.
GAME_COUNTS = {
    "bukken.trick": 13,
    "hartenjagen.heart": 13,
    "herenboeren.king": 4,
    "herenboeren.jack": 4,
    "vrouwen.queen": 4,
    "hartenheer.king_of_hearts": 1,
    "laatste_slag.last_trick": 1,
    "domino.last_card": 1,
    "bierkaart.seven_of_diamonds": 1,
    "troeven.trick": 4 * 13,
}

_POINT_WORDS = {
    "bukken.trick": "bukken: per trick taken",
    "hartenjagen.heart": "hartenjagen: per heart taken",
    "herenboeren.king": "herenboeren: per king taken",
    "herenboeren.jack": "herenboeren: per jack taken",
    "vrouwen.queen": "vrouwen: per queen taken",
    "hartenheer.king_of_hearts": "hartenheer: for taking the king of hearts",
    "laatste_slag.last_trick": "laatste slag: for winning the last trick",
    "domino.last_card": "domino: for laying the last card",
    "bierkaart.seven_of_diamonds": "bierkaart: for taking the 7 of diamonds",
    "troeven.trick": "troeven: per trick taken",
}
_HEART_WORDS = {
    "banned": "a heart may not be led while the leader holds another suit",
    "broken": "a heart may not be led while the leader holds another suit until a heart "
    'has been played to an earlier trick ("broken")',
    "free": "hearts may be led at any time",
}
_TRUMP_WORDS = {
    "optional": "a player who cannot follow suit may trump or discard, as he likes",
    "must-trump": "a player who cannot follow suit must play a trump if he holds one "
    "(any trump: under-trumping is allowed)",
    "must-overtrump": "a player who cannot follow suit must trump if he can, and with a "
    "trump higher than the trick's highest trump if he holds one; following a trump lead, "
    "he must also play higher than the highest trump on the trick if he can",
}


_ACE_WORDS = {
    "high": "an ace goes above the king only",
    "first-fixes": "the first ace laid fixes where aces go, for all suits: until then an ace "
    "may be laid once the king of its suit is on the table (above it) or once the 2 of its "
    "suit is (below it); when both are there it goes above the king. Once the first ace has "
    "gone above a king, aces go above the king only; once it has gone below a 2, aces go "
    "below the 2 only and a row then runs from the ace up to the king",
}


class RulesError(ValueError):
    """A bad ruleset name, rules file or ruleset record; the message names the key."""


def point_keys(negatives: tuple[str, ...] = STANDARD_NEGATIVES) -> tuple[str, ...]:
    """The point keys of a ruleset playing ``negatives`` (and troeven), in table order."""
    return tuple(k for k in ALL_POINTS if k.split(".")[0] in (*negatives, "troeven"))


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
        _check_options(self, where="ruleset")

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
        added after the first records, ``_LATER_KEYS``, default to RULES.md so that older
        traces and manifests still read)."""
        if not isinstance(data, dict):
            raise RulesError(f"{where}: expected a table of rules, got {data!r}")
        want = set(STANDARD.to_dict()) | {"negatives", "chooser_doubles"}
        unknown = sorted(set(data) - want)
        if unknown:
            raise RulesError(f"{where}: unknown key {unknown[0]!r}")
        missing = sorted(want - set(data) - set(_LATER_KEYS))
        if missing:
            raise RulesError(f"{where}: missing key {missing[0]!r}")
        return _build(STANDARD, data, where, require_all_points=True)

    # -- words ------------------------------------------------------------------------------
    def describe(self, width: int = 100) -> list[str]:
        """The ruleset in words a player understands (lines at most ``width`` long)."""
        out: list[str] = []
        for line in self._describe():
            indent = " " * (len(line) - len(line.lstrip()))
            out.extend(
                textwrap.wrap(line, width, subsequent_indent=indent + "  ", break_on_hyphens=False)
                or [""]
            )
        return out

    def _describe(self) -> list[str]:
        std = STANDARD
        mark = {True: "", False: "  (changed)"}
        pts = self.point
        lines = [f"ruleset {self.name}", ""]
        lines.append("Card play")
        lines.append(
            f"  heart leads ({self.heart_lead}), in hartenjagen and hartenheer: "
            f"{_HEART_WORDS[self.heart_lead]}{mark[self.heart_lead == std.heart_lead]}"
        )
        lines.append(
            f"  trump play ({self.trump_play}), in troeven with a trump suit: "
            f"{_TRUMP_WORDS[self.trump_play]}{mark[self.trump_play == std.trump_play]}"
        )
        if self.beer_card:
            lines.append(
                "  bierkaart (the beer card), in place of domino: played like the other "
                "negative trick contracts (follow suit if you can, no trumps, hearts may be "
                "led at any time); whoever takes the trick holding the 7 of diamonds pays "
                "for it  (changed)"
            )
        else:
            lines.append(
                f"  domino: rows open with the {self.domino_open}s and grow one rank at a time "
                f"up to the king and down to the 2{mark[self.domino_open == std.domino_open]}"
            )
            lines.append(
                f"  domino aces ({self.domino_aces}): {_ACE_WORDS[self.domino_aces]}"
                f"{mark[self.domino_aces == std.domino_aces]}"
            )
        lines.append("")
        lines.append("Scores")
        for key in point_keys(self.negatives):
            v = pts[key]
            same = v == STANDARD_POINTS.get(key)
            lines.append(f"  {_POINT_WORDS[key]:44s} {v:+5d}{mark[same]}")
        lines.append("")
        lines.append("Game")
        lines.append(
            "  contract order: "
            + (
                "free (the chooser picks any contract still open)"
                if self.order == "free"
                else "fixed (bukken, hartenjagen, herenboeren, vrouwen, hartenheer, "
                f"laatste slag, {self.negatives[6]}, then four troeven)"
            )
            + mark[self.order == std.order]
        )
        lines.append(
            f"  doubling: {'on' if self.doubling else 'off'}{mark[self.doubling == std.doubling]}"
        )
        lines.append(
            "  the chooser "
            + (
                "may start doubles, like the other players"
                if self.chooser_doubles
                else "only doubles back (players who doubled him)"
            )
            + mark[self.chooser_doubles == std.chooser_doubles]
        )
        if not self.beer_card:
            lines.append(
                "  choosing domino: "
                + (
                    "only a chooser holding an ace or a 2 may choose it, unless nothing else is "
                    "open to him (then he must); only a player holding an ace or a 2 may double "
                    "in it"
                    if self.domino_ace_or_two
                    else "free, like any other contract"
                )
                + mark[self.domino_ace_or_two == std.domino_ace_or_two]
            )
        total = self.game_total()
        if total == 0:
            lines.append("  a whole game sums to 0 (7 negatives and 4 troeven deals)")
        else:
            lines.append(
                f"  NOTE: a whole game does not sum to zero: it sums to {total:+d} "
                "(allowed, but scores are no longer a pure zero-sum comparison)"
            )
        return lines


def _check_options(r: Ruleset, where: str) -> None:
    def bad(key: str, value: Any, allowed: str) -> RulesError:
        return RulesError(f"{where}: {key} = {value!r} is not allowed (expected {allowed})")

    if not isinstance(r.name, str) or not r.name.strip():
        raise bad("name", r.name, "a non-empty text")
    if r.heart_lead not in HEART_LEADS:
        raise bad("heart_lead", r.heart_lead, " or ".join(HEART_LEADS))
    if r.trump_play not in TRUMP_PLAYS:
        raise bad("trump_play", r.trump_play, " or ".join(TRUMP_PLAYS))
    if isinstance(r.domino_open, bool) or r.domino_open not in DOMINO_OPENS:
        raise bad("domino_open", r.domino_open, "8 or 7")
    if r.domino_aces not in DOMINO_ACES:
        raise bad("domino_aces", r.domino_aces, " or ".join(DOMINO_ACES))
    if not isinstance(r.domino_ace_or_two, bool):
        raise bad("domino_ace_or_two", r.domino_ace_or_two, "true or false")
    if not isinstance(r.chooser_doubles, bool):
        raise bad("chooser_doubles", r.chooser_doubles, "true or false")
    if r.order not in ORDERS:
        raise bad("order", r.order, " or ".join(ORDERS))
    if not isinstance(r.doubling, bool):
        raise bad("doubling", r.doubling, "true or false")
    _check_negatives(r.negatives, where)
    if r.beer_card and r.domino_ace_or_two:
        raise bad("domino_ace_or_two", r.domino_ace_or_two, "false: this ruleset plays no domino")
    want = point_keys(r.negatives)
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


def _check_negatives(negatives: Any, where: str, shown: Any = None) -> None:
    """``negatives`` must make a game: RULES.md's seven negatives, Domino's slot filled by
    domino or the beer card, in variant-id order (a rules file's list is put in that order)."""

    def cannot(why: str) -> RulesError:
        listed = list(negatives if shown is None else shown)
        return RulesError(f"{where}: negatives = {listed!r} cannot make a game: {why}")

    if not isinstance(negatives, tuple) or not all(isinstance(n, str) for n in negatives):
        raise RulesError(f"{where}: negatives = {negatives!r} is not a list of contract names")
    for n in negatives:
        if n not in NEGATIVE_CONTRACTS:
            raise cannot(
                f"unknown contract {n!r} (expected names from: {', '.join(NEGATIVE_CONTRACTS)})"
            )
    for n in negatives:
        if negatives.count(n) > 1:
            raise cannot(f"{n!r} is listed twice (every contract is played once a game)")
    if len(negatives) != len(STANDARD_NEGATIVES):
        raise cannot(
            f"a game is 7 negative contracts and 4 troeven deals (11 deals), "
            f"got {len(negatives)} negatives"
        )
    slot = [n for n in negatives if n in SLOT_6]
    if len(slot) != 1:
        raise cannot("domino and bierkaart share one place in the game: list one of them")
    missing = [n for n in STANDARD_NEGATIVES[:6] if n not in negatives]
    if missing:
        raise cannot(f"{missing[0]!r} is missing (only domino's place can be given away)")
    if negatives != (*STANDARD_NEGATIVES[:6], slot[0]):
        raise RulesError(f"{where}: negatives must list {', '.join(negatives)} in game order")


STANDARD = Ruleset()


def _doubled() -> tuple[tuple[str, int], ...]:
    return tuple((k, 2 * v) for k, v in STANDARD_POINTS.items())


PRESETS: dict[str, Ruleset] = {
    "standard": STANDARD,
    "fixed-order": Ruleset(name="fixed-order", order="fixed"),
    "double-points": Ruleset(name="double-points", points=_doubled()),
    "bierkaart": Ruleset(
        name="bierkaart",
        negatives=(*STANDARD_NEGATIVES[:6], BEER_CARD),
        points=tuple((k, ALL_POINTS[k]) for k in point_keys((*STANDARD_NEGATIVES[:6], BEER_CARD))),
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


def preset(name: str) -> Ruleset:
    key = name.strip().lower().replace("_", "-")
    if key not in PRESETS:
        raise RulesError(f"unknown ruleset {name!r} (expected one of: {', '.join(PRESETS)})")
    return PRESETS[key]


# Option keys of a rules file (besides preset, name, points); '-' and '_' are the same.
_OPTION_KEYS = (
    "heart_lead",
    "trump_play",
    "domino_open",
    "domino_aces",
    "domino_ace_or_two",
    "order",
    "doubling",
    "chooser_doubles",
)
# Record keys added after the first ruleset records (from_dict fills them in as RULES.md;
# ``negatives`` and ``chooser_doubles`` are recorded only when they differ from RULES.md).
_LATER_KEYS = ("domino_aces", "domino_ace_or_two", "negatives", "chooser_doubles")


def _norm(key: str) -> str:
    return key.strip().replace("-", "_")


def _flatten_points(points: Any, where: str) -> dict[str, Any]:
    """``{contract: {item: value}}`` or ``{"contract.item": value}`` → flat keys."""
    if not isinstance(points, dict):
        raise RulesError(f"{where}: points must be a table, got {points!r}")
    flat: dict[str, Any] = {}
    for ckey, value in points.items():
        if isinstance(value, dict):
            for ikey, v in value.items():
                flat[f"{_norm(ckey)}.{_norm(ikey)}"] = v
        else:
            flat[".".join(_norm(p) for p in str(ckey).split("."))] = value
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
    _check_negatives_list(names, where)
    order = {n: i for i, n in enumerate(NEGATIVE_CONTRACTS)}
    return tuple(sorted(names, key=lambda n: min(order[n], 6)))


def _check_negatives_list(names: tuple[str, ...], where: str) -> None:
    """Every check of _check_negatives but the order (a file may list them in any order)."""
    order = {n: i for i, n in enumerate(NEGATIVE_CONTRACTS)}
    if all(n in order for n in names) and len(set(names)) == len(names):
        _check_negatives(tuple(sorted(names, key=lambda n: min(order[n], 6))), where, names)
    else:
        _check_negatives(names, where)


def _build(
    base: Ruleset, data: dict[str, Any], where: str, require_all_points: bool = False
) -> Ruleset:
    changes: dict[str, Any] = {}
    for key, value in data.items():
        k = _norm(key)
        if k == "name":
            changes["name"] = value
        elif k in _OPTION_KEYS:
            if k == "domino_open" and isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            if k in ("heart_lead", "trump_play", "domino_aces", "order") and isinstance(value, str):
                value = value.strip().lower().replace("_", "-")
            changes[k] = value
        elif k == "negatives":
            changes["negatives"] = _negatives(value, where)
        elif k == "points":
            continue  # below, once the contracts played are known
        else:
            allowed = ", ".join(("preset", "name", *_OPTION_KEYS, "negatives", "points"))
            raise RulesError(f"{where}: unknown key {key!r} (expected one of: {allowed})")
    negatives = changes.get("negatives", base.negatives)
    keys = point_keys(negatives)
    pts = {k: base.point.get(k, ALL_POINTS[k]) for k in keys}
    for key, value in data.items():
        if _norm(key) != "points":
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
    if "points" in {_norm(k) for k in data} or negatives != base.negatives:
        changes["points"] = tuple(pts.items())
    elif require_all_points:
        raise RulesError(f"{where}: missing key 'points'")
    try:
        return replace(base, **changes)
    except RulesError as exc:
        raise RulesError(str(exc).replace("ruleset:", f"{where}:", 1)) from None


def load_rules_file(path: str | Path) -> Ruleset:
    """A TOML rules file: ``preset`` (default standard) plus overrides, top level or in a
    ``[rules]`` table. Errors name the file and the key."""
    p = Path(path)
    where = f"rules file {p}"
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise RulesError(f"cannot read rules file {p}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RulesError(f"{where}: not valid TOML: {exc}") from None
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
    if "name" not in {_norm(k) for k in data}:
        data["name"] = p.stem if len(data) else base.name
    return _build(base, data, where)


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
