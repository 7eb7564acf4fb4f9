"""The ruleset table the kernels read: one int64 row per contract variant.

All rule values (points, which contracts ban heart leads, the trump suit, Domino's opening
rank) come from this table, never from literals in the play loops, so house rules only need
a different table.
"""

import numpy as np

from .ids import (
    BEER_CARD,
    BEER_CARD_NAME,
    BUKKEN,
    DOMINO,
    HARTENHEER,
    HARTENJAGEN,
    HEARTS_SUIT,
    HERENBOEREN,
    KIND_DOMINO,
    KIND_NEGATIVE,
    KIND_TROEVEN,
    LAATSTE_SLAG,
    N_CARDS,
    N_VARIANTS,
    TROEVEN,
    TROEVEN_C,
    TROEVEN_NT,
    VROUWEN,
)

# Column layout of a row.
F_CONTRACT = 0  # contract id 0..7 (7 = troeven), chooses the strategy family
F_KIND = 1
F_TRUMP = 2  # trump suit 0..3, or -1 (none / no-trump)
F_TRICK_PTS = 3  # points per trick taken
F_LAST_PTS = 4  # points for winning the last trick
F_BAN_HEART_LEAD = 5  # heart-lead mode: HEART_LEAD_FREE, _BANNED or _BROKEN (below)
F_DOMINO_OPEN = 6  # rank index that opens a Domino row (6 = the 8, 5 = the 7)
F_DOMINO_LAST_PTS = 7  # points for laying the last card
F_PEN_MASK = 8  # cards that carry points (as int64 bits)
F_TOP_MASK = 9  # the contract's top penalty cards (discarded first)
F_TOTAL = 10  # the deal's score total, checked by the invariants
# The penalty cards again as at most two classes of equal value, so strategies can weigh a
# card without an array argument (arrays cost reference counting on every call).
F_PTS_A_MASK = 11
F_PTS_A = 12
F_PTS_B_MASK = 13
F_PTS_B = 14
F_CARD_PTS = 15  # N_CARDS columns: points per card taken
F_TRUMP_PLAY = F_CARD_PTS + N_CARDS  # trump-play mode: TRUMP_OPTIONAL, _MUST or _OVER (below)
F_DOMINO_ACES = F_TRUMP_PLAY + 1  # where aces go in Domino: ACES_HIGH or ACES_EITHER (below)
F_DOMINO_NEEDS = F_TRUMP_PLAY + 2  # 1: Domino may be chosen (and doubled) only holding an A or 2
F_CHOOSER_STARTS = F_TRUMP_PLAY + 3  # 1: the chooser may start doubles, not only double back
N_FIELDS = F_TRUMP_PLAY + 4

# Heart-lead modes (F_BAN_HEART_LEAD): a heart may be led always; only when the hand holds
# nothing else (RULES.md §2.3); or, in addition, once a heart has been played to an earlier
# trick ("broken").
HEART_LEAD_FREE, HEART_LEAD_BANNED, HEART_LEAD_BROKEN = 0, 1, 2
# Trump-play modes (F_TRUMP_PLAY, suit-trump rows only): ruffing optional (RULES.md §2.2);
# a seat void in the led suit must play a trump if it holds one; and, in addition, a trump
# played (ruffing, or following a trump lead) must beat the trick's highest trump if it can.
TRUMP_OPTIONAL, TRUMP_MUST, TRUMP_OVER = 0, 1, 2
# Domino's aces (F_DOMINO_ACES), which is also the play loop's running state: aces go above
# the king only (RULES.md §4.3); aces may go above the king or below the 2 until the first
# ace laid fixes the direction for all suits; and, once the first ace went below a 2, aces
# go below the 2 only. The table holds ACES_HIGH or ACES_EITHER.
ACES_HIGH, ACES_EITHER, ACES_LOW = 0, 1, 2

# The point values a ruleset can set, with RULES.md's values. Every contract's scoring is
# one of these values times a count: per trick, per card of a kind, for the last trick or
# for laying Domino's last card.
STANDARD_POINTS = {
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

# The beer card (ids.BEER_CARD) takes Domino's slot when a ruleset plays it: a negative trick
# contract in which whoever takes the 7 of diamonds scores -50 (a row of the negative trick
# engine, F_KIND = KIND_NEGATIVE).
BEER_CARD_POINTS = {f"{BEER_CARD_NAME}.seven_of_diamonds": -50}

SUIT_BITS = 0x1FFF


def _rank_mask(*ranks: int) -> int:
    return sum(1 << (13 * s + r) for s in range(4) for r in ranks)


def standard_table() -> np.ndarray:
    """The reference ruleset (RULES.md) as a (12, N_FIELDS) int64 table."""
    return build_table()


def build_table(
    points: dict[str, int] | None = None,
    heart_lead: int = HEART_LEAD_BANNED,
    trump_play: int = TRUMP_OPTIONAL,
    domino_open: int = 6,
    domino_aces: int = ACES_HIGH,
    domino_needs: int = 0,
    beer_card: bool = False,
    chooser_starts: int = 0,
) -> np.ndarray:
    """A ruleset as a (12, N_FIELDS) int64 table; the defaults are RULES.md.

    ``points`` overrides values of STANDARD_POINTS (keys as there); ``domino_open`` is the
    rank index (6 = the 8, 5 = the 7); ``domino_aces`` ACES_HIGH or ACES_EITHER;
    ``domino_needs`` 1: only a player holding an ace or a 2 may choose or double Domino
    (read by the game kernel); ``chooser_starts`` 1: the chooser may start doubles in the
    game kernel's doubling pass (RULES.md §5: he only doubles back); ``beer_card``: variant 6
    is the beer card instead of Domino
    (its value is ``points["bierkaart.seven_of_diamonds"]``). Values are checked by
    bonken_sim.house_rules.
    """
    pts = dict(STANDARD_POINTS) | BEER_CARD_POINTS
    for key, value in (points or {}).items():
        if key not in pts:
            raise ValueError(f"unknown point value {key!r}")
        pts[key] = int(value)
    t = np.zeros((N_VARIANTS, N_FIELDS), dtype=np.int64)
    t[:, F_TRUMP] = -1
    t[:, F_DOMINO_OPEN] = domino_open
    t[:, F_DOMINO_ACES] = domino_aces
    t[:, F_DOMINO_NEEDS] = domino_needs
    t[:, F_CHOOSER_STARTS] = chooser_starts
    for v in range(N_VARIANTS):
        t[v, F_CONTRACT] = min(v, TROEVEN)
        t[v, F_KIND] = KIND_NEGATIVE if v < DOMINO else KIND_DOMINO if v == DOMINO else KIND_TROEVEN

    def card_points(v: int, mask: int, pts: int) -> None:
        for c in range(N_CARDS):
            if mask >> c & 1:
                t[v, F_CARD_PTS + c] = pts

    t[BUKKEN, F_TRICK_PTS] = pts["bukken.trick"]
    hearts = SUIT_BITS << (13 * HEARTS_SUIT)
    card_points(HARTENJAGEN, hearts, pts["hartenjagen.heart"])
    t[HARTENJAGEN, F_BAN_HEART_LEAD] = heart_lead
    card_points(HERENBOEREN, _rank_mask(11), pts["herenboeren.king"])
    card_points(HERENBOEREN, _rank_mask(9), pts["herenboeren.jack"])
    t[HERENBOEREN, F_TOP_MASK] = _rank_mask(11)
    card_points(VROUWEN, _rank_mask(10), pts["vrouwen.queen"])
    t[VROUWEN, F_TOP_MASK] = _rank_mask(10)
    king_of_hearts = 1 << (13 * HEARTS_SUIT + 11)
    card_points(HARTENHEER, king_of_hearts, pts["hartenheer.king_of_hearts"])
    t[HARTENHEER, F_TOP_MASK] = king_of_hearts
    t[HARTENHEER, F_BAN_HEART_LEAD] = heart_lead
    t[LAATSTE_SLAG, F_LAST_PTS] = pts["laatste_slag.last_trick"]
    if beer_card:
        t[DOMINO, F_KIND] = KIND_NEGATIVE  # F_CONTRACT stays 6: no contract-specific tactics
        card_points(DOMINO, 1 << BEER_CARD, pts[f"{BEER_CARD_NAME}.seven_of_diamonds"])
        t[DOMINO, F_TOP_MASK] = 1 << BEER_CARD
    else:
        t[DOMINO, F_DOMINO_LAST_PTS] = pts["domino.last_card"]
    for v in range(TROEVEN_C, N_VARIANTS):
        t[v, F_TRICK_PTS] = pts["troeven.trick"]
        t[v, F_TRUMP] = v - TROEVEN_C if v != TROEVEN_NT else -1
        t[v, F_TRUMP_PLAY] = trump_play if v != TROEVEN_NT else TRUMP_OPTIONAL
    for v in range(N_VARIANTS):
        pen = 0
        for c in range(N_CARDS):
            if t[v, F_CARD_PTS + c] != 0:
                pen |= 1 << c
        t[v, F_PEN_MASK] = pen
        classes: dict[int, int] = {}
        for c in range(N_CARDS):
            value = int(t[v, F_CARD_PTS + c])
            if value:
                classes[value] = classes.get(value, 0) | 1 << c
        if len(classes) > 2:
            raise ValueError(f"variant {v}: more than two penalty card values")
        slots = ((F_PTS_A_MASK, F_PTS_A), (F_PTS_B_MASK, F_PTS_B))
        for (value, mask), (f_mask, f_pts) in zip(sorted(classes.items()), slots, strict=False):
            t[v, f_mask] = mask
            t[v, f_pts] = value
        t[v, F_TOTAL] = (
            13 * t[v, F_TRICK_PTS]
            + t[v, F_LAST_PTS]
            + t[v, F_DOMINO_LAST_PTS]
            + int(t[v, F_CARD_PTS : F_CARD_PTS + N_CARDS].sum())
        )
    return t
