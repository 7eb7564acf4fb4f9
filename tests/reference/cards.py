"""Cards: encoding, text form, and the LO / HI helpers of ENGINE.md.

A card is an int ``c = 13*suit + rank`` with suits C=0, D=1, H=2, S=3 and
ranks 0='2' ... 8='T', 9='J', 10='Q', 11='K', 12='A' (RULES.md §1.3).
The reference works with plain Python collections of such ints.
"""

from __future__ import annotations

from collections.abc import Iterable

SUIT_CHARS = "CDHS"
RANK_CHARS = "23456789TJQKA"
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3

ALL_CARDS = tuple(range(52))

# A few named ranks (rank index, not face value).
RANK_8 = 6
RANK_J = 9
RANK_Q = 10
RANK_K = 11
RANK_A = 12


def make_card(suit: int, rank: int) -> int:
    return 13 * suit + rank


def suit_of(c: int) -> int:
    return c // 13


def rank_of(c: int) -> int:
    return c % 13


def card_str(c: int) -> str:
    """``card_str(36) == 'QH'``."""
    if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < 52:
        raise ValueError(f"not a card index: {c!r}")
    return RANK_CHARS[rank_of(c)] + SUIT_CHARS[suit_of(c)]


def parse_card(s: str) -> int:
    """Parse 'QS', 'TH', '10H', 'qs', '10h' into a card index; ValueError otherwise."""
    if not isinstance(s, str):
        raise ValueError(f"not a card: {s!r}")
    text = s.strip().upper()
    if len(text) == 3 and text.startswith("10"):
        text = "T" + text[2]
    if len(text) != 2 or text[0] not in RANK_CHARS or text[1] not in SUIT_CHARS:
        raise ValueError(f"not a card: {s!r}")
    return make_card(SUIT_CHARS.index(text[1]), RANK_CHARS.index(text[0]))


def cards_in_suit(cards: Iterable[int], suit: int) -> set[int]:
    """The cards of one suit (13*suit <= c < 13*suit + 13)."""
    low = 13 * suit
    return {c for c in cards if low <= c < low + 13}


def lo(cards: Iterable[int]) -> int:
    """LO: the card of lowest rank; ties (same rank, several suits) go to the lowest suit."""
    return min(cards, key=lambda c: (rank_of(c), suit_of(c)))


def hi(cards: Iterable[int]) -> int:
    """HI: the card of highest rank; ties go to the highest suit."""
    return max(cards, key=lambda c: (rank_of(c), suit_of(c)))


def sorted_strs(cards: Iterable[int]) -> list[str]:
    """Card strings sorted as strings (the order used in error messages)."""
    return sorted(card_str(c) for c in cards)
