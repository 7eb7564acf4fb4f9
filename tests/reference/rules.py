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
    RANK_A,
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

# The beer card ("bierkaart", a published café house rule): a negative trick contract in
# which whoever takes the 7 of diamonds scores -50. A ruleset that lists it in "negatives"
# plays it in Domino's place (variant id 6); its records name the contract "bierkaart".
BEER_CARD_CONTRACT = "bierkaart"
SEVEN_OF_DIAMONDS = make_card(1, 5)
BEER_CARD_POINTS = {"bierkaart.seven_of_diamonds": -50}


# ---------------------------------------------------------------------------
# House rules (the README's ruleset record; defaults are RULES.md).
# ---------------------------------------------------------------------------
STANDARD_POINT_VALUES = {
    "bukken.trick": -5,
    "hartenjagen.heart": -5,
    "herenboeren.king": -20,
    "herenboeren.jack": -10,
    "vrouwen.queen": -30,
    "hartenheer.king_of_hearts": -50,
    "laatste_slag.last_trick": -50,
    "domino.last_card": -50,
    "troeven.trick": 10,
}


@dataclass(frozen=True)
class Rules:
    """The card-play options of a ruleset. ``heart_lead``: banned | broken | free;
    ``trump_play``: optional | must-trump | must-overtrump; ``domino_open``: 8 or 7 (the
    face value of the card that opens a row); ``domino_aces``: high | first-fixes;
    ``domino_ace_or_two``: Domino chosen and doubled only holding an ace or a 2 (a game
    rule: card play ignores it); ``points``: (key, value) pairs."""

    heart_lead: str = "banned"
    trump_play: str = "optional"
    domino_open: int = 8
    domino_aces: str = "high"
    domino_ace_or_two: bool = False
    points: tuple[tuple[str, int], ...] = tuple(STANDARD_POINT_VALUES.items())
    beer_card: bool = False  # the beer card takes Domino's place (variant id 6)

    @classmethod
    def from_record(cls, record: dict | None) -> Rules:
        """From a trace record's ``"ruleset"`` object (None: RULES.md)."""
        if record is None:
            return STANDARD
        negatives = record.get("negatives")
        beer = negatives is not None and BEER_CARD_CONTRACT in negatives
        if negatives is not None:
            slot6 = BEER_CARD_CONTRACT if beer else "domino"
            want = [name for name, _ in VARIANTS[:6]] + [slot6]
            if sorted(negatives) != sorted(want):
                raise ValueError(f"bad negatives {negatives!r}")
        pts = dict(STANDARD_POINT_VALUES)
        if beer:
            del pts["domino.last_card"]
            pts.update(BEER_CARD_POINTS)
        allowed = set(pts)
        pts.update(record.get("points", {}))
        if set(pts) != allowed:
            raise ValueError(f"unknown point values in {record!r}")
        rules = cls(
            heart_lead=record.get("heart_lead", "banned"),
            trump_play=record.get("trump_play", "optional"),
            domino_open=int(record.get("domino_open", 8)),
            domino_aces=record.get("domino_aces", "high"),
            domino_ace_or_two=record.get("domino_ace_or_two", False),
            points=tuple(sorted(pts.items())),
            beer_card=beer,
        )
        if rules.heart_lead not in ("banned", "broken", "free"):
            raise ValueError(f"bad heart_lead {rules.heart_lead!r}")
        if rules.trump_play not in ("optional", "must-trump", "must-overtrump"):
            raise ValueError(f"bad trump_play {rules.trump_play!r}")
        if rules.domino_open not in (7, 8):
            raise ValueError(f"bad domino_open {rules.domino_open!r}")
        if rules.domino_aces not in ("high", "first-fixes"):
            raise ValueError(f"bad domino_aces {rules.domino_aces!r}")
        if rules.domino_ace_or_two not in (True, False):
            raise ValueError(f"bad domino_ace_or_two {rules.domino_ace_or_two!r}")
        return rules

    def value(self, key: str) -> int:
        return dict(self.points)[key]

    @property
    def open_rank(self) -> int:
        """Rank index of the card that opens a Domino row (the 8 is rank index 6)."""
        return self.domino_open - 2


STANDARD = Rules(points=tuple(sorted(STANDARD_POINT_VALUES.items())))


def contract_of(variant_id: int, rules: Rules = STANDARD) -> tuple[str, str | None]:
    """The (contract, trump) played as variant ``variant_id`` under ``rules``."""
    if variant_id == 6 and rules.beer_card:
        return BEER_CARD_CONTRACT, None
    return VARIANTS[variant_id]


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
def penalty_points(contract: str, c: int, rules: Rules = STANDARD) -> int:
    """Points (a positive number) a card costs its taker; 0 for cards that cost nothing."""
    if contract == "hartenjagen":
        return -rules.value("hartenjagen.heart") if suit_of(c) == HEARTS else 0
    if contract == "herenboeren":
        if rank_of(c) == RANK_K:
            return -rules.value("herenboeren.king")
        if rank_of(c) == RANK_J:
            return -rules.value("herenboeren.jack")
        return 0
    if contract == "vrouwen":
        return -rules.value("vrouwen.queen") if rank_of(c) == RANK_Q else 0
    if contract == "hartenheer":
        return -rules.value("hartenheer.king_of_hearts") if c == KING_OF_HEARTS else 0
    if contract == BEER_CARD_CONTRACT:
        return -rules.value("bierkaart.seven_of_diamonds") if c == SEVEN_OF_DIAMONDS else 0
    return 0  # bukken, laatste_slag, troeven, domino: no penalty cards


@functools.cache
def penalty_set(contract: str, rules: Rules = STANDARD) -> frozenset[int]:
    """PEN: the cards that cost points in ``contract`` (empty for bukken, laatste_slag, ...)."""
    return frozenset(c for c in range(52) if penalty_points(contract, c, rules) != 0)


# ---------------------------------------------------------------------------
# Trick play
# ---------------------------------------------------------------------------
def legal_trick_cards(
    hand: set[int],
    trick_cards: list[int],
    contract: str,
    rules: Rules = STANDARD,
    trump_suit: int | None = None,
    hearts_broken: bool = False,
) -> set[int]:
    """Legal cards for a seat holding ``hand`` when ``trick_cards`` lie on the current trick.

    ``hearts_broken``: a heart was played to an earlier trick (heart_lead "broken").
    """
    if not trick_cards:
        if contract in HEART_LEAD_BAN and (
            rules.heart_lead == "banned" or (rules.heart_lead == "broken" and not hearts_broken)
        ):
            non_hearts = {c for c in hand if suit_of(c) != HEARTS}
            if non_hearts:
                return non_hearts
        return set(hand)
    led = suit_of(trick_cards[0])
    follow = {c for c in hand if suit_of(c) == led}
    if trump_suit is None or rules.trump_play == "optional":
        return follow if follow else set(hand)
    trumps_on_trick = [rank_of(c) for c in trick_cards if suit_of(c) == trump_suit]
    top = max(trumps_on_trick, default=-1)
    if follow:
        if led == trump_suit and rules.trump_play == "must-overtrump":
            higher = {c for c in follow if rank_of(c) > top}
            return higher if higher else follow
        return follow
    my_trumps = {c for c in hand if suit_of(c) == trump_suit}
    if not my_trumps:
        return set(hand)
    if rules.trump_play == "must-overtrump":
        higher = {c for c in my_trumps if rank_of(c) > top}
        if higher:
            return higher
    return my_trumps


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
    rules: Rules = STANDARD

    def __post_init__(self) -> None:
        self.leader = (self.dealer + 1) % 4

    @property
    def hearts_broken(self) -> bool:
        """A heart has been played to a completed trick."""
        return any(suit_of(c) == HEARTS for _, t, _ in self.completed for _, c in t)

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
        return legal_trick_cards(
            self.hands[seat],
            self.trick_cards(),
            self.contract,
            self.rules,
            self.trump_suit,
            self.hearts_broken,
        )

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
        pen = penalty_set(self.contract, self.rules)
        if not pen:
            return False
        taken = set().union(*map(set, self.taken))
        return pen <= taken

    def scores(self) -> list[int]:
        """Raw scores; valid once ``can_stop_early()`` (in particular after trick 13)."""
        assert self.can_stop_early()
        c = self.contract
        if c == "bukken":
            return [self.rules.value("bukken.trick") * n for n in self.trick_counts()]
        if c == "troeven":
            return [self.rules.value("troeven.trick") * n for n in self.trick_counts()]
        if c == "laatste_slag":
            last_winner = self.completed[12][2]
            pts = self.rules.value("laatste_slag.last_trick")
            return [pts if p == last_winner else 0 for p in range(4)]
        return [
            -sum(penalty_points(c, card, self.rules) for card in self.taken[p]) for p in range(4)
        ]


# ---------------------------------------------------------------------------
# Domino
# ---------------------------------------------------------------------------
def domino_fits(
    rows: list[tuple[int, int] | None], c: int, open_rank: int = RANK_8, aces: str = "high"
) -> bool:
    """Can card ``c`` be laid on the rows?  rows[s] is (lowest rank, highest rank) or None
    (an ace laid below the 2 counts as rank -1); an empty row opens with rank ``open_rank``
    (the 8, or the 7 under domino_open = 7). ``aces``: where an ace may go now: "high"
    (above the K), "low" (below the 2) or "either" (domino_aces = first-fixes, before the
    first ace)."""
    row = rows[suit_of(c)]
    r = rank_of(c)
    if row is None:
        return r == open_rank
    low, high = row
    if r == RANK_A:
        return (aces != "low" and high == RANK_K) or (aces != "high" and low == 0)
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
    rules: Rules = STANDARD
    aces: str = field(init=False)  # where an ace may go now: high, low or either

    def __post_init__(self) -> None:
        self.turn = (self.dealer + 1) % 4
        self.aces = "either" if self.rules.domino_aces == "first-fixes" else "high"

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
        return {
            c
            for c in self.hands[seat]
            if domino_fits(self.rows, c, self.rules.open_rank, self.aces)
        }

    def play(self, card: int) -> None:
        seat = self.to_act()
        assert card in self.legal(seat), "illegal card reached DominoDeal.play"
        s, r = suit_of(card), rank_of(card)
        row = self.rows[s]
        if r == RANK_A:
            assert row is not None
            if self.aces == "either":  # the first ace: above the K if it is there, and for good
                self.aces = "high" if row[1] == RANK_K else "low"
            self.rows[s] = (row[0], r) if self.aces == "high" else (-1, row[1])
        else:
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
        pts = self.rules.value("domino.last_card")
        return [pts if p == last else 0 for p in range(4)]


def deal_total(contract: str, rules: Rules = STANDARD) -> int:
    """Total of the four raw scores of one deal under ``rules``."""
    v = rules.value
    if contract == BEER_CARD_CONTRACT:
        return v("bierkaart.seven_of_diamonds")
    return {
        "bukken": 13 * v("bukken.trick"),
        "hartenjagen": 13 * v("hartenjagen.heart"),
        "herenboeren": 4 * v("herenboeren.king") + 4 * v("herenboeren.jack"),
        "vrouwen": 4 * v("vrouwen.queen"),
        "hartenheer": v("hartenheer.king_of_hearts"),
        "laatste_slag": v("laatste_slag.last_trick"),
        "domino": v("domino.last_card"),
        "troeven": 13 * v("troeven.trick"),
    }[contract]


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
