"""The rules of RULES.md as two small state machines: trick play and Domino.

Both ``play.play_deal`` (strategies choose) and ``replay.replay`` (a trace chooses)
drive the same classes, so legality and scoring exist in exactly one place.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from .cards import (
    HEARTS,
    RANK_8,
    RANK_J,
    RANK_K,
    RANK_Q,
    SUIT_CHARS,
    make_card,
    rank_of,
    suit_of,
)

# ---------------------------------------------------------------------------
# Contract variants (ENGINE.md table), in id order.
# ---------------------------------------------------------------------------
VARIANTS: list[tuple[str, str | None]] = [
    ("bukken", None),
    ("hartenjagen", None),
    ("herenboeren", None),
    ("vrouwen", None),
    ("hartenheer", None),
    ("laatste_slag", None),
    ("domino", None),
    ("troeven", "C"),
    ("troeven", "D"),
    ("troeven", "H"),
    ("troeven", "S"),
    ("troeven", "NT"),
]

HEART_LEAD_BAN = ("hartenjagen", "hartenheer")

KING_OF_HEARTS = make_card(HEARTS, RANK_K)


class IllegalPlay(ValueError):
    """A trace breaks the rules (or is malformed); the message says where and why."""


def variant_id(contract: str, trump: str | None) -> int:
    try:
        return VARIANTS.index((contract, trump))
    except ValueError:
        raise ValueError(f"unknown contract variant {contract!r} / trump {trump!r}") from None


def trump_suit_of(trump: str | None) -> int | None:
    """'C'/'D'/'H'/'S' -> suit index; None or 'NT' -> None (no trump suit)."""
    if trump is None or trump == "NT":
        return None
    return SUIT_CHARS.index(trump)


# ---------------------------------------------------------------------------
# Penalty cards and card points (used by scoring and by the basic strategy).
# ---------------------------------------------------------------------------
def penalty_points(contract: str, c: int) -> int:
    """Points (a positive number) a card costs its taker; 0 for cards that cost nothing."""
    if contract == "hartenjagen":
        return 5 if suit_of(c) == HEARTS else 0
    if contract == "herenboeren":
        return {RANK_K: 20, RANK_J: 10}.get(rank_of(c), 0)
    if contract == "vrouwen":
        return 30 if rank_of(c) == RANK_Q else 0
    if contract == "hartenheer":
        return 50 if c == KING_OF_HEARTS else 0
    return 0  # bukken, laatste_slag, troeven, domino: no penalty cards


@functools.cache
def penalty_set(contract: str) -> frozenset[int]:
    """PEN: the cards that cost points in ``contract`` (empty for bukken, laatste_slag, ...)."""
    return frozenset(c for c in range(52) if penalty_points(contract, c) > 0)


# ---------------------------------------------------------------------------
# Trick play
# ---------------------------------------------------------------------------
def legal_trick_cards(hand: set[int], trick_cards: list[int], contract: str) -> set[int]:
    """Legal cards for a seat holding ``hand`` when ``trick_cards`` lie on the current trick."""
    if not trick_cards:
        if contract in HEART_LEAD_BAN:
            non_hearts = {c for c in hand if suit_of(c) != HEARTS}
            if non_hearts:
                return non_hearts
        return set(hand)
    led = suit_of(trick_cards[0])
    follow = {c for c in hand if suit_of(c) == led}
    return follow if follow else set(hand)


def current_winner_index(trick_cards: list[int], trump_suit: int | None) -> int:
    """Index into ``trick_cards`` of the card now winning: the highest trump if any was
    played, else the highest card of the led suit."""
    led = suit_of(trick_cards[0])
    best = 0
    for i, c in enumerate(trick_cards):
        b = trick_cards[best]
        c_trump = trump_suit is not None and suit_of(c) == trump_suit
        b_trump = trump_suit is not None and suit_of(b) == trump_suit
        if c_trump and not b_trump:
            best = i
        elif c_trump == b_trump and suit_of(c) == suit_of(b) and rank_of(c) > rank_of(b):
            best = i
        # a card of neither the led suit nor trumps never wins
    assert suit_of(trick_cards[best]) in (led, trump_suit)
    return best


@dataclass
class TrickDeal:
    """State of one deal of a trick contract."""

    contract: str
    trump_suit: int | None
    hands: list[set[int]]
    dealer: int
    leader: int = field(init=False)
    trick: list[tuple[int, int]] = field(default_factory=list)  # (seat, card) of the current trick
    completed: list[tuple[int, list[tuple[int, int]], int]] = field(default_factory=list)
    # completed tricks: (leader, [(seat, card)...], winner)
    played: set[int] = field(default_factory=set)  # every card played so far (incl. current trick)
    taken: list[list[int]] = field(default_factory=lambda: [[], [], [], []])
    known_void: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])

    def __post_init__(self) -> None:
        self.leader = (self.dealer + 1) % 4

    # -- queries ---------------------------------------------------------
    @property
    def trick_number(self) -> int:
        """1-based number of the trick being played."""
        return len(self.completed) + 1

    @property
    def finished(self) -> bool:
        return len(self.completed) == 13

    def to_act(self) -> int:
        return (self.leader + len(self.trick)) % 4

    def trick_cards(self) -> list[int]:
        return [c for _, c in self.trick]

    def legal(self, seat: int | None = None) -> set[int]:
        seat = self.to_act() if seat is None else seat
        return legal_trick_cards(self.hands[seat], self.trick_cards(), self.contract)

    def trick_counts(self) -> list[int]:
        counts = [0, 0, 0, 0]
        for _, _, winner in self.completed:
            counts[winner] += 1
        return counts

    # -- moves -----------------------------------------------------------
    def play(self, card: int) -> None:
        """Play ``card`` for the seat to act (the caller has checked legality)."""
        seat = self.to_act()
        assert card in self.legal(seat), "illegal card reached TrickDeal.play"
        if self.trick and suit_of(card) != suit_of(self.trick[0][1]):
            self.known_void[seat].add(suit_of(self.trick[0][1]))
        self.hands[seat].discard(card)
        self.played.add(card)
        self.trick.append((seat, card))
        if len(self.trick) == 4:
            cards = self.trick_cards()
            winner = self.trick[current_winner_index(cards, self.trump_suit)][0]
            self.taken[winner].extend(cards)
            self.completed.append((self.leader, self.trick, winner))
            self.leader = winner
            self.trick = []

    # -- scoring -----------------------------------------------------------
    def can_stop_early(self) -> bool:
        """RULES.md §2.5: no remaining card can change any score.

        True when every penalty card of the contract lies in a completed trick.  Contracts
        in which every trick (bukken, troeven) or the last trick (laatste_slag) scores have
        no penalty cards and may stop only after trick 13.
        """
        if self.finished:
            return True
        pen = penalty_set(self.contract)
        if not pen:
            return False
        taken = set().union(*map(set, self.taken))
        return pen <= taken

    def scores(self) -> list[int]:
        """Raw scores; valid once ``can_stop_early()`` (in particular after trick 13)."""
        assert self.can_stop_early()
        c = self.contract
        if c == "bukken":
            return [-5 * n for n in self.trick_counts()]
        if c == "troeven":
            return [10 * n for n in self.trick_counts()]
        if c == "laatste_slag":
            last_winner = self.completed[12][2]
            return [-50 if p == last_winner else 0 for p in range(4)]
        return [-sum(penalty_points(c, card) for card in self.taken[p]) for p in range(4)]


# ---------------------------------------------------------------------------
# Domino
# ---------------------------------------------------------------------------
def domino_fits(rows: list[tuple[int, int] | None], c: int) -> bool:
    """Can card ``c`` be laid on the rows?  rows[s] is (lowest rank, highest rank) or None."""
    row = rows[suit_of(c)]
    r = rank_of(c)
    if row is None:
        return r == RANK_8
    low, high = row
    return r == high + 1 or r == low - 1


@dataclass
class DominoDeal:
    """State of one Domino deal."""

    hands: list[set[int]]
    dealer: int
    rows: list[tuple[int, int] | None] = field(default_factory=lambda: [None, None, None, None])
    turn: int = field(init=False)  # the seat whose turn it is, before skipping empty hands
    laid: int = 0
    out_order: list[int] = field(default_factory=list)
    played: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.turn = (self.dealer + 1) % 4

    @property
    def finished(self) -> bool:
        return self.laid == 52

    def to_act(self) -> int:
        """The next seat in turn order that still holds cards."""
        assert not self.finished
        seat = self.turn
        while not self.hands[seat]:
            seat = (seat + 1) % 4
        return seat

    def legal(self, seat: int | None = None) -> set[int]:
        seat = self.to_act() if seat is None else seat
        return {c for c in self.hands[seat] if domino_fits(self.rows, c)}

    def play(self, card: int) -> None:
        seat = self.to_act()
        assert card in self.legal(seat), "illegal card reached DominoDeal.play"
        s, r = suit_of(card), rank_of(card)
        row = self.rows[s]
        self.rows[s] = (r, r) if row is None else (min(row[0], r), max(row[1], r))
        self.hands[seat].discard(card)
        self.played.add(card)
        self.laid += 1
        if not self.hands[seat]:
            self.out_order.append(seat)
        self.turn = (seat + 1) % 4

    def pass_turn(self) -> None:
        seat = self.to_act()
        assert not self.legal(seat), "pass while able reached DominoDeal.pass_turn"
        self.turn = (seat + 1) % 4

    def can_stop_early(self) -> bool:
        """RULES.md §4.5: an engine may stop once three players are out."""
        return len(self.out_order) >= 3

    def scores(self) -> list[int]:
        """-50 for the seat that lays (or, stopped early, would lay) the last card."""
        assert self.can_stop_early()
        last = next(p for p in range(4) if p not in self.out_order[:3])
        return [-50 if p == last else 0 for p in range(4)]


# Total of the four raw scores of one deal, per contract (RULES.md §3).
DEAL_TOTAL = {
    "bukken": -65,
    "hartenjagen": -65,
    "herenboeren": -120,
    "vrouwen": -120,
    "hartenheer": -50,
    "laatste_slag": -50,
    "domino": -50,
    "troeven": 130,
}
