"""Brute-force open-hand values of trick contracts, for checking the numba solver.

Plain minimax over every legal card, written from the rules (the reference's
``legal_trick_cards`` and ``current_winner_index``) and nothing of the engine: no pruning,
no equivalent cards, no ordering. Positions at a trick's beginning are memoised, which
changes nothing but the time (their value depends only on the hands and the leader).

The value for ``seat`` is what that seat can make sure of in the remaining tricks when the
other three play together against it; the last remaining trick is trick 13 (it carries the
last-trick points). Hearts count as broken when any heart is missing from the four hands
(the engine's convention for endings).
"""

from __future__ import annotations

import functools

from .cards import HEARTS, suit_of
from .rules import STANDARD, Rules, current_winner_index, legal_trick_cards, penalty_points


def trick_points(contract: str, cards: list[int], last: bool, rules: Rules) -> int:
    """What the winner of a trick of ``cards`` scores (trick 13 when ``last``)."""
    if contract == "bukken":
        return rules.value("bukken.trick")
    if contract == "troeven":
        return rules.value("troeven.trick")
    if contract == "laatste_slag":
        return rules.value("laatste_slag.last_trick") if last else 0
    return -sum(penalty_points(contract, c, rules) for c in cards)


def solve(
    hands: list[set[int]] | list[frozenset[int]],
    contract: str,
    trump_suit: int | None,
    leader: int,
    seat: int,
    rules: Rules = STANDARD,
) -> tuple[int, dict[int, int]]:
    """(value, {card: value after the leader plays it}) for ``seat``."""

    def legal(hand: frozenset[int], trick: list[int], broken: bool) -> set[int]:
        return legal_trick_cards(set(hand), trick, contract, rules, trump_suit, broken)

    @functools.cache
    def at_boundary(hs: tuple[frozenset[int], ...], lead: int) -> int:
        if not any(hs):
            return 0
        return max_or_min(lead, [in_trick(hs, lead, [c]) for c in sorted(legal_now(hs, lead))])

    def legal_now(hs: tuple[frozenset[int], ...], lead: int) -> set[int]:
        held = frozenset().union(*hs)
        broken = any(suit_of(c) == HEARTS and c not in held for c in range(52))
        return legal(hs[lead], [], broken)

    def max_or_min(mover: int, values: list[int]) -> int:
        return max(values) if mover == seat else min(values)

    def in_trick(hs: tuple[frozenset[int], ...], lead: int, trick: list[int]) -> int:
        mover = (lead + len(trick) - 1) % 4
        hs = tuple(h - {trick[-1]} if p == mover else h for p, h in enumerate(hs))
        if len(trick) == 4:
            winner = (lead + current_winner_index(trick, trump_suit)) % 4
            gain = 0
            if winner == seat:
                gain = trick_points(contract, trick, not any(hs), rules)
            return gain + at_boundary(hs, winner)
        nxt = (mover + 1) % 4
        options = legal(hs[nxt], trick, False)
        return max_or_min(nxt, [in_trick(hs, lead, [*trick, c]) for c in sorted(options)])

    start = tuple(frozenset(h) for h in hands)
    cards = {c: in_trick(start, leader, [c]) for c in sorted(legal_now(start, leader))}
    return max_or_min(leader, list(cards.values())), cards
