"""What a house may set: the words of every ruleset option, the point keys, the negatives.

Each option's words map to the code the kernels read (``bonken_sim._core.ruleset``, the one
place the codes and RULES.md's point values are written). :class:`~.ruleset.Ruleset`
validates against these, and a rules file or ruleset record is read with them.
"""

from __future__ import annotations

from typing import Any

from bonken_sim._core.ruleset import (
    ACES_EITHER,
    ACES_HIGH,
    BEER_CARD_NAME,
    BEER_CARD_POINTS,
    HEART_LEAD_BANNED,
    HEART_LEAD_BROKEN,
    HEART_LEAD_FREE,
    STANDARD_POINTS,
    TRUMP_MUST,
    TRUMP_OPTIONAL,
    TRUMP_OVER,
)
from bonken_sim.errors import UserFixableError

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
BEER_CARD = BEER_CARD_NAME  # the contract in variant 6's slot that plays the beer card
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

# Option keys of a rules file or record (besides preset, name, negatives, points); '-' and
# '_' are the same.
OPTION_KEYS = (
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
LATER_KEYS = ("domino_aces", "domino_ace_or_two", "negatives", "chooser_doubles")


class RulesError(UserFixableError, ValueError):
    """A bad ruleset name, rules file or ruleset record; the message names the key."""


def point_keys(negatives: tuple[str, ...] = STANDARD_NEGATIVES) -> tuple[str, ...]:
    """The point keys of a ruleset playing ``negatives`` (and troeven), in table order."""
    return tuple(k for k in ALL_POINTS if k.split(".")[0] in (*negatives, "troeven"))


def in_game_order(names: tuple[str, ...]) -> tuple[str, ...]:
    """Known negative contracts sorted by variant id (the beer card in Domino's slot 6)."""
    order = {n: i for i, n in enumerate(NEGATIVE_CONTRACTS)}
    return tuple(sorted(names, key=lambda n: min(order[n], 6)))


def check_negatives(negatives: Any, where: str, shown: Any = None) -> None:
    """``negatives`` must make a game: RULES.md's seven negatives, Domino's slot filled by
    domino or the beer card, in variant-id order (a rules file's list is put in that order;
    ``shown`` is the list as the file gave it, for the message)."""

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
