"""The two strategy tiers of docs/ENGINE.md: ``random`` and ``basic``.

The basic strategy is written as one function per contract family taking a
``TrickView`` (what the seat to act may know in a trick contract) or, for Domino,
the hand and the legal cards.  Comments name the ENGINE.md rule each branch implements.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .cards import (
    ALL_CARDS,
    RANK_8,
    RANK_A,
    RANK_K,
    RANK_Q,
    cards_in_suit,
    hi,
    lo,
    rank_of,
    suit_of,
)
from .rng import Stream
from .rules import (
    BEER_CARD_CONTRACT,
    KING_OF_HEARTS,
    SEVEN_OF_DIAMONDS,
    STANDARD,
    Rules,
    TrickDeal,
    current_winner_index,
    penalty_points,
    penalty_set,
)

RANDOM = 0
BASIC = 1


# ---------------------------------------------------------------------------
# random
# ---------------------------------------------------------------------------
def random_choice(legal: set[int], stream: Stream) -> int:
    """Draw k = below(n) and play the k-th lowest legal card by card index."""
    ordered = sorted(legal)
    return ordered[stream.below(len(ordered))]


# ---------------------------------------------------------------------------
# What a seat sees in a trick contract
# ---------------------------------------------------------------------------
@dataclass
class TrickView:
    contract: str
    trump_suit: int | None  # None for every contract but troeven C/D/H/S
    seat: int
    hand: set[int]  # H
    legal: set[int]  # L
    played: set[int]  # PLAYED: earlier tricks and the current trick
    trick: list[tuple[int, int]]  # (seat, card) already on the current trick
    known_void: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    rules: Rules = STANDARD

    @classmethod
    def from_deal(cls, deal: TrickDeal) -> TrickView:
        seat = deal.to_act()
        return cls(
            contract=deal.contract,
            trump_suit=deal.trump_suit,
            seat=seat,
            hand=set(deal.hands[seat]),
            legal=deal.legal(seat),
            played=set(deal.played),
            trick=list(deal.trick),
            known_void=[set(v) for v in deal.known_void],
            rules=deal.rules,
        )

    # -- derived quantities of ENGINE.md "Quantities used by basic" ----------
    @property
    def pos(self) -> int:
        return len(self.trick)

    @cached_property
    def out(self) -> set[int]:
        """OUT = ALL & ~H & ~PLAYED (computed once; a view is not mutated after creation)."""
        return set(ALL_CARDS) - self.hand - self.played

    @property
    def led_suit(self) -> int:
        return suit_of(self.trick[0][1])

    def winner_card(self) -> int:
        cards = [c for _, c in self.trick]
        return cards[current_winner_index(cards, self.trump_suit)]

    @cached_property
    def out_ranks(self) -> list[list[int]]:
        """Ranks of the OUT cards, per suit."""
        ranks: list[list[int]] = [[], [], [], []]
        for o in self.out:
            ranks[suit_of(o)].append(rank_of(o))
        return ranks

    def n_above(self, c: int) -> int:
        """Number of OUT cards of c's suit above c."""
        return sum(1 for r in self.out_ranks[suit_of(c)] if r > rank_of(c))

    def n_below(self, c: int) -> int:
        """Number of OUT cards of c's suit below c."""
        return sum(1 for r in self.out_ranks[suit_of(c)] if r < rank_of(c))

    def master(self, c: int) -> bool:
        return self.n_above(c) == 0

    def later_seats(self) -> list[int]:
        return [(self.seat + k) % 4 for k in range(1, 4 - self.pos)]

    def other_seat_void(self, s: int) -> bool:
        return any(s in self.known_void[p] for p in range(4) if p != self.seat)

    def later_seat_void(self, s: int) -> bool:
        return any(s in self.known_void[p] for p in self.later_seats())


def basic_trick_choice(view: TrickView) -> int:
    """The basic strategy's card in any trick contract."""
    if view.contract == "troeven":
        return basic_troeven(view)
    if view.contract == "laatste_slag":
        return basic_laatste_slag(view)
    return basic_negative(view)


# ---------------------------------------------------------------------------
# basic: bukken, hartenjagen, herenboeren, vrouwen, hartenheer
# ---------------------------------------------------------------------------
def top_card(contract: str, c: int) -> int:
    """top(c): 1 for K♥ in hartenheer, any K in herenboeren, any Q in vrouwen, the 7♦ in
    bierkaart."""
    if contract == "hartenheer":
        return int(c == KING_OF_HEARTS)
    if contract == "herenboeren":
        return int(rank_of(c) == RANK_K)
    if contract == "vrouwen":
        return int(rank_of(c) == RANK_Q)
    if contract == BEER_CARD_CONTRACT:  # the 7♦: the beer card's only penalty card
        return int(c == SEVEN_OF_DIAMONDS)
    return 0


def exit_lead(view: TrickView, pen: frozenset[int]) -> int:
    """L4 exit: the `low` of the suit with the largest key (na > 0, na - nb); ties lowest suit."""
    best_key = None
    best_card = None
    for s in range(4):
        candidates = cards_in_suit(view.legal, s) - pen
        if not candidates:
            continue
        low = lo(candidates)
        na, nb = view.n_above(low), view.n_below(low)
        key = (na > 0, na - nb)
        if best_key is None or key > best_key:  # strict: an equal key keeps the lower suit
            best_key, best_card = key, low
    if best_card is None:
        return lo(view.legal)
    return best_card


def follow_negative(view: TrickView, pen: frozenset[int]) -> int:
    """Holding the led suit: duck as high as possible (penalty ducks first), else forced."""
    w = view.winner_card()
    ducks = {c for c in view.legal if suit_of(c) == suit_of(w) and rank_of(c) < rank_of(w)}
    if ducks:
        pen_ducks = ducks & pen
        return hi(pen_ducks) if pen_ducks else hi(ducks)
    non_pen = view.legal - pen
    pool = non_pen if non_pen else view.legal
    return hi(pool) if view.pos == 3 else lo(pool)


def danger(view: TrickView, s: int) -> int:
    """Sum of n_below - n_above over my cards of suit s from the top down, after skipping
    the first max(0, |H_s| - |OUT_s|) of them."""
    mine = sorted(cards_in_suit(view.hand, s), key=rank_of, reverse=True)
    n_out = len(cards_in_suit(view.out, s))
    skip = max(0, len(mine) - n_out)
    return sum(view.n_below(c) - view.n_above(c) for c in mine[skip:])


def discard_score(view: TrickView, c: int, pen: frozenset[int]) -> int:
    contract = view.contract
    s, r = suit_of(c), rank_of(c)
    mine = cards_in_suit(view.hand, s)
    out_s = cards_in_suit(view.out, s)
    score = 1000 * top_card(contract, c)
    score += 10 * penalty_points(contract, c, view.rules)
    if any(rank_of(o) < r for o in out_s & pen):
        score += 15
    score += r + 3 * max(0, danger(view, s))
    if len(mine) == 1 and out_s:
        score += 20
    if len(mine) >= 2 and c == hi(mine):
        second = sorted(mine, key=rank_of)[-2]
        if r - rank_of(second) > 5:
            score += 10
    return score


def discard_negative(view: TrickView, pen: frozenset[int]) -> int:
    """Void in the led suit: the card of H with the largest score (ties: highest index)."""
    return max(view.hand, key=lambda c: (discard_score(view, c, pen), c))


def basic_negative(view: TrickView) -> int:
    pen = penalty_set(view.contract, view.rules)
    if view.pos == 0:
        return exit_lead(view, pen)
    if cards_in_suit(view.hand, view.led_suit):
        return follow_negative(view, pen)
    return discard_negative(view, pen)


# ---------------------------------------------------------------------------
# basic: laatste_slag
# ---------------------------------------------------------------------------
def keep_score(view: TrickView, c: int) -> tuple[int, int, int]:
    return (view.n_above(c), len(cards_in_suit(view.out, suit_of(c))), -rank_of(c))


def basic_laatste_slag(view: TrickView) -> int:
    holds_led = view.pos > 0 and bool(cards_in_suit(view.hand, view.led_suit))
    if len(view.hand) > 4:  # tricks 1-9: shed high cards
        if view.pos == 0:
            masters = {c for c in view.legal if view.master(c)}
            return hi(masters) if masters else hi(view.legal)
        if holds_led:
            return hi(view.legal)
        return hi(view.hand)
    # 4 or fewer cards: keep the card least likely to win trick 13
    if view.pos == 0:
        return min(view.legal, key=lambda c: (keep_score(view, c), c))
    if holds_led:
        return follow_negative(view, frozenset())
    return min(view.hand, key=lambda c: (keep_score(view, c), c))


# ---------------------------------------------------------------------------
# basic: troeven
# ---------------------------------------------------------------------------
def beats(c: int, w: int, trump_suit: int | None) -> bool:
    """Would c, played now, beat the current winner w?"""
    c_trump = trump_suit is not None and suit_of(c) == trump_suit
    w_trump = trump_suit is not None and suit_of(w) == trump_suit
    if w_trump:
        return c_trump and rank_of(c) > rank_of(w)
    if c_trump:
        return True
    return suit_of(c) == suit_of(w) and rank_of(c) > rank_of(w)


def basic_troeven(view: TrickView) -> int:
    t = view.trump_suit
    out = view.out
    trumps_out = cards_in_suit(out, t) if t is not None else set()  # OUTT
    my_trumps = cards_in_suit(view.hand, t) if t is not None else set()  # myT
    side_suits = [s for s in range(4) if s != t]
    held_side = [s for s in side_suits if cards_in_suit(view.hand, s)]

    if view.pos == 0:
        # 1. draw trumps
        if my_trumps and trumps_out:
            m = hi(my_trumps)
            if view.master(m) and (2 * len(my_trumps) >= len(trumps_out) or len(my_trumps) >= 4):
                return m
        # 2. cash masters
        best = None  # (n_out_s, suit, card)
        for s in held_side:
            m = hi(cards_in_suit(view.hand, s))
            out_s = cards_in_suit(out, s)
            if view.master(m) and (not trumps_out or (out_s and not view.other_seat_void(s))):
                if best is None or len(out_s) > best[0]:
                    best = (len(out_s), s, m)
        if best is not None:
            return best[2]
        # 3. low from the longest side suit
        if held_side:
            preferred = [s for s in held_side if not trumps_out or not view.other_seat_void(s)]
            pool = preferred if preferred else held_side
            s = max(pool, key=lambda s: (len(cards_in_suit(view.hand, s)), -s))
            return lo(cards_in_suit(view.hand, s))
        # 4. only trumps
        return lo(view.hand)

    led = view.led_suit
    w = view.winner_card()
    if cards_in_suit(view.hand, led):  # follow
        winners = {c for c in view.legal if beats(c, w, t)}  # B
        if view.pos == 3:
            return lo(winners) if winners else lo(view.legal)
        safe = led == t or not trumps_out or not view.later_seat_void(led)
        sure = {c for c in winners if view.master(c) and safe}  # U
        return lo(sure) if sure else lo(view.legal)

    # void in the led suit. ENGINE.md: L = H unless a trump-play house rule restricts it;
    # the rules below then see only the legal cards (the hand "as if" it held only L).
    hand = view.legal
    my_trumps = cards_in_suit(hand, t) if t is not None else set()
    held_side = [s for s in side_suits if cards_in_suit(hand, s)]
    if t is not None:
        played_trumps = [c for _, c in view.trick if suit_of(c) == t]
        if played_trumps:
            top = max(rank_of(c) for c in played_trumps)
            ruffs = {c for c in my_trumps if rank_of(c) > top}  # W
        else:
            ruffs = set(my_trumps)
        if ruffs and (view.pos == 3 or not view.later_seat_void(led)):
            return lo(ruffs)
        master_ruffs = {c for c in ruffs if view.master(c)}
        if master_ruffs:
            return lo(master_ruffs)
    if held_side:
        no_master = [s for s in held_side if not view.master(hi(cards_in_suit(hand, s)))]
        pool = no_master if no_master else held_side
        s = min(pool, key=lambda s: (len(cards_in_suit(hand, s)), s))
        return lo(cards_in_suit(hand, s))
    return lo(hand)


# ---------------------------------------------------------------------------
# basic: domino
# ---------------------------------------------------------------------------
def domino_key(
    hand: set[int], c: int, open_rank: int = RANK_8, aces: str = "high"
) -> tuple[int, int, int, int]:
    """(unlock, reach, count, nogift) of a legal card c; rows open at rank ``open_rank``.

    A suit is a line of places: an ace below the 2 at 0, the 2..K at 1..12, an ace above the
    K at 13. ``aces`` (high, low or either: where an ace may go now) gives my ace its places:
    13, 0, or both while undecided, so that it lies beyond both ends (STRATEGIES.md §3.7's
    variant hook). The ace being scored ends a side wherever it goes.
    """
    s, r = suit_of(c), rank_of(c)
    o = open_rank + 1
    lo_end = 1 if aces == "high" else 0  # the last place of each side
    hi_end = 12 if aces == "low" else 13

    def places(rank: int) -> set[int]:
        if rank != RANK_A:
            return {rank + 1}
        return {13} if aces == "high" else {0} if aces == "low" else {0, 13}

    others = {x: places(rank_of(x)) for x in cards_in_suit(hand, s) if x != c}  # M
    taken = set().union(*others.values())
    p = r + 1 if r != RANK_A else (0 if aces == "low" else 13)
    if p == o:
        beyond = set(others)
        reach = max((abs(x - o) for x in taken), default=0)
        nogift = int((o - 1) in taken or (o + 1) in taken)
    elif p > o:
        beyond = {x for x, pl in others.items() if max(pl) > p}
        reach = max((x for x in taken if x > p), default=p) - p
        nogift = int(p == hi_end or (p + 1) in taken)
    else:
        beyond = {x for x, pl in others.items() if min(pl) < p}
        reach = p - min((x for x in taken if x < p), default=p)
        nogift = int(p == lo_end or (p - 1) in taken)
    return (int(bool(beyond)), reach, len(beyond), nogift)


def basic_domino_choice(
    hand: set[int], legal: set[int], open_rank: int = RANK_8, aces: str = "high"
) -> int:
    """The legal card with the largest key (ties: the lowest card index)."""
    return max(legal, key=lambda c: (domino_key(hand, c, open_rank, aces), -c))


__all__ = [
    "BASIC",
    "RANDOM",
    "TrickView",
    "basic_domino_choice",
    "basic_trick_choice",
    "domino_key",
    "random_choice",
]
