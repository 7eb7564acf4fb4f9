"""Hand-worked fixture deals where a house-rule option changes the outcome.

Same style as tests/fixtures_hand.py: most seats hold a single suit, the plays are written
one trick per line (one Domino round per line), and tricks and scores are worked out by hand
in the comments. Each fixture carries the ruleset it is played under (``rules``: options
that differ from RULES.md) and ``illegal_under``: rulesets under which the same plays break
the rules, with the trick (or Domino turn) and seat of the first broken play.
"""

from __future__ import annotations

from tests.core.fixtures_hand import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    HERENBOEREN,
    SPADES,
    VROUWEN,
    _cards,
    _plays,
)

# ---------------------------------------------------------------------------
# hartenjagen, heart_lead = "free".  Dealer 0, so seat 1 leads.
# Seat 1: 2C and hearts 2..K.  Seat 0: clubs 3..A and 2D.  Seat 2: diamonds 3..A and 2S.
# Seat 3: spades 3..A and AH (the hands of fixtures_hand.HARTENJAGEN).
#   Trick 1: seat 1 leads 2H although it holds 2C (free leads).  Seat 2 is void (2S),
#     seat 3 must follow with its only heart AH and wins; seat 0 discards 2D.
#     Seat 3 takes 2H and AH.
#   Tricks 2-13: seat 3 leads 3S..AS; nobody else has a spade; seat 1 discards 2C, then
#     3H..KH: 11 more hearts for seat 3.
# Hearts: seat 3 all 13 -> 0, 0, 0, -65.  Banned or broken: trick 1 is illegal (seat 1 holds
# a club and no heart has been played).
# ---------------------------------------------------------------------------
HEARTS_FREE = {
    "name": "hartenjagen_free_heart_lead",
    "rules": {"heart_lead": "free"},
    "illegal_under": {"banned": "trick 1: seat 1", "broken": "trick 1: seat 1"},
    "dealer": 0,
    "contract": "hartenjagen",
    "trump": None,
    "hands": [
        _cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2D"),
        _cards("2C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"),
        _cards("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD 2S"),
        _cards("3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS AH"),
    ],
    "plays": _plays(
        "2H 2S AH 2D",  # 1: leader 1, order 1,2,3,0 -> 3 takes 2H AH
        "3S 3C 2C 3D",  # 2: leader 3, order 3,0,1,2 -> 3
        "4S 4C 3H 4D",  # 3: -> 3 (3H)
        "5S 5C 4H 5D",  # 4
        "6S 6C 5H 6D",  # 5
        "7S 7C 6H 7D",  # 6
        "8S 8C 7H 8D",  # 7
        "9S 9C 8H 9D",  # 8
        "TS TC 9H TD",  # 9
        "JS JC TH JD",  # 10
        "QS QC JH QD",  # 11
        "KS KC QH KD",  # 12
        "AS AC KH AD",  # 13 -> 3 (KH)
    ),
    "expected_tricks": [0, 0, 0, 13],
    "scores": [0, 0, 0, -65],
}

# ---------------------------------------------------------------------------
# hartenjagen, heart_lead = "broken".  Dealer 0, so seat 1 leads.
# Seat 1: AC, 2D and hearts 2..Q.  Seat 0: clubs 2..K and KH.  Seat 2: diamonds 3..A and AH.
# Seat 3: all spades.
#   Trick 1: seat 1 must lead a non-heart: AC.  Seat 2 (void) discards AH: hearts are broken.
#     Seat 3 discards 2S, seat 0 follows 2C.  AC wins: seat 1 takes AH.
#   Trick 2: seat 1 leads 2H while still holding 2D (allowed: a heart was played to an
#     earlier trick).  Seats 2 and 3 discard 3D 3S; seat 0 must follow with KH and wins:
#     seat 0 takes 2H and KH.
#   Tricks 3-13: seat 0 leads 3C..KC; nobody else has a club; seat 1 discards 2D, then
#     3H..QH: 10 more hearts for seat 0.
# Hearts: seat 0 12, seat 1 1 -> -60, -5, 0, 0.  Banned: trick 2 is illegal.
# ---------------------------------------------------------------------------
HEARTS_BROKEN = {
    "name": "hartenjagen_hearts_broken",
    "rules": {"heart_lead": "broken"},
    "illegal_under": {"banned": "trick 2: seat 1"},
    "dealer": 0,
    "contract": "hartenjagen",
    "trump": None,
    "hands": [
        _cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC KH"),
        _cards("AC 2D 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH"),
        _cards("3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD AH"),
        _cards(SPADES),
    ],
    "plays": _plays(
        "AC AH 2S 2C",  # 1: leader 1, order 1,2,3,0 -> 1 takes AH (hearts broken)
        "2H 3D 3S KH",  # 2: leader 1 leads a heart holding 2D -> 0 takes 2H KH
        "3C 2D 4D 4S",  # 3: leader 0, order 0,1,2,3 -> 0
        "4C 3H 5D 5S",  # 4: -> 0 (3H)
        "5C 4H 6D 6S",  # 5
        "6C 5H 7D 7S",  # 6
        "7C 6H 8D 8S",  # 7
        "8C 7H 9D 9S",  # 8
        "9C 8H TD TS",  # 9
        "TC 9H JD JS",  # 10
        "JC TH QD QS",  # 11
        "QC JH KD KS",  # 12
        "KC QH AD AS",  # 13 -> 0 (QH)
    ),
    "expected_tricks": [12, 1, 0, 0],
    "scores": [-60, -5, 0, 0],
}

# ---------------------------------------------------------------------------
# troeven, trump hearts, one deal under the three trump-play rules.  Dealer 3, seat 0 leads.
# Seat 0: all clubs.  Seat 1: 5H and diamonds 2..K.  Seat 2: all spades.
# Seat 3: AD and the hearts 2 3 4 6 7 8 9 T J Q K A.
# Seat 0 leads clubs; nobody else holds one.
# ---------------------------------------------------------------------------
_TROEVEN_HANDS = [
    _cards(CLUBS),
    _cards("5H 2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD"),
    _cards(SPADES),
    _cards("AD 2H 3H 4H 6H 7H 8H 9H TH JH QH KH AH"),
]

# Ruffing optional: trick 1: seats 1, 2, 3 discard (2D 2S AD; seat 1 keeps its trump): seat 0
#   wins with 2C.  Trick 2: seat 3 holds only hearts now and ruffs 3C with 2H.
#   Trick 3: seat 3 leads AH; seat 1 must follow with 5H; seat 3 wins.
#   Tricks 4-13: seat 3 leads its other hearts; nobody can follow or trump: seat 3 wins.
# Tricks 1, 0, 0, 12 -> 10, 0, 0, 120.  Must trump: trick 1 is illegal (seat 1 discards 2D
# holding the trump 5H).
TRUMP_OPTIONAL = {
    "name": "troeven_H_seat1_keeps_its_trump",
    "rules": {"trump_play": "optional"},
    "illegal_under": {"must-trump": "trick 1: seat 1", "must-overtrump": "trick 1: seat 1"},
    "dealer": 3,
    "contract": "troeven",
    "trump": "H",
    "hands": _TROEVEN_HANDS,
    "plays": _plays(
        "2C 2D 2S AD",  # 1: order 0,1,2,3 -> 0
        "3C 3D 3S 2H",  # 2: seat 3 ruffs -> 3
        "AH 4C 5H 4S",  # 3: leader 3, order 3,0,1,2 -> 3
        "3H 5C 4D 5S",  # 4
        "4H 6C 5D 6S",  # 5
        "6H 7C 6D 7S",  # 6
        "7H 8C 7D 8S",  # 7
        "8H 9C 8D 9S",  # 8
        "9H TC 9D TS",  # 9
        "TH JC TD JS",  # 10
        "JH QC JD QS",  # 11
        "QH KC QD KS",  # 12
        "KH AC KD AS",  # 13 -> 3
    ),
    "expected_tricks": [1, 0, 0, 12],
    "scores": [10, 0, 0, 120],
}

# Must trump: trick 1: seat 1 must ruff (5H); seat 2 has no trump and discards 2S; seat 3
# must trump too and under-trumps with 2H (allowed: any trump).  5H wins -> seat 1.
#   Trick 2: seat 1 leads 2D; seat 2 discards 3S; seat 3 follows AD and wins; seat 0 3C.
#   Tricks 3-13: seat 3 leads its hearts 3 4 6 7 8 9 T J Q K A; nobody else has a heart
#     (or, for seats 0 and 2, any trump): seat 3 wins all eleven.
# Tricks 0, 1, 0, 12 -> 0, 10, 0, 120.  Must over-trump: trick 1 is illegal (seat 3 could
# beat 5H).
TRUMP_MUST = {
    "name": "troeven_H_must_trump_under",
    "rules": {"trump_play": "must-trump"},
    "illegal_under": {"must-overtrump": "trick 1: seat 3"},
    "dealer": 3,
    "contract": "troeven",
    "trump": "H",
    "hands": _TROEVEN_HANDS,
    "plays": _plays(
        "2C 5H 2S 2H",  # 1: order 0,1,2,3 -> 1 (5H)
        "2D 3S AD 3C",  # 2: leader 1, order 1,2,3,0 -> 3 (AD)
        "3H 4C 3D 4S",  # 3: leader 3, order 3,0,1,2 -> 3
        "4H 5C 4D 5S",  # 4
        "6H 6C 5D 6S",  # 5
        "7H 7C 6D 7S",  # 6
        "8H 8C 7D 8S",  # 7
        "9H 9C 8D 9S",  # 8
        "TH TC 9D TS",  # 9
        "JH JC TD JS",  # 10
        "QH QC JD QS",  # 11
        "KH KC QD KS",  # 12
        "AH AC KD AS",  # 13 -> 3
    ),
    "expected_tricks": [0, 1, 0, 12],
    "scores": [0, 10, 0, 120],
}

# Must over-trump: trick 1: seat 1 ruffs 5H, seat 3 must beat it and plays 6H -> seat 3.
#   Trick 2: seat 3 leads AD; seat 0 discards 3C, seat 1 follows 2D, seat 2 discards 3S.
#   Tricks 3-13: seat 3 leads hearts 2 3 4 7 8 9 T J Q K A and wins them all.
# Tricks 0, 0, 0, 13 -> 0, 0, 0, 130 (legal under every trump-play rule).
TRUMP_OVER = {
    "name": "troeven_H_must_overtrump",
    "rules": {"trump_play": "must-overtrump"},
    "illegal_under": {},
    "dealer": 3,
    "contract": "troeven",
    "trump": "H",
    "hands": _TROEVEN_HANDS,
    "plays": _plays(
        "2C 5H 2S 6H",  # 1: order 0,1,2,3 -> 3 (6H over 5H)
        "AD 3C 2D 3S",  # 2: leader 3, order 3,0,1,2 -> 3
        "2H 4C 3D 4S",  # 3
        "3H 5C 4D 5S",  # 4
        "4H 6C 5D 6S",  # 5
        "7H 7C 6D 7S",  # 6
        "8H 8C 7D 8S",  # 7
        "9H 9C 8D 9S",  # 8
        "TH TC 9D TS",  # 9
        "JH JC TD JS",  # 10
        "QH QC JD QS",  # 11
        "KH KC QD KS",  # 12
        "AH AC KD AS",  # 13 -> 3
    ),
    "expected_tricks": [0, 0, 0, 13],
    "scores": [0, 0, 0, 130],
}

# ---------------------------------------------------------------------------
# domino, domino_open = 7.  Dealer 3, so seat 0 lays first; seat k holds suit k.
# Every seat can always extend its own row, so nobody passes: round 1 opens the four rows
# with the 7s, rounds 2-8 grow them up 8..A, rounds 9-13 down 6..2.  Seat 3 lays the last
# card (2S): 0, 0, 0, -50.  With rows opening at the 8 the first card, 7C, is illegal.
# ---------------------------------------------------------------------------
DOMINO_SEVEN = {
    "name": "domino_opens_with_sevens",
    "rules": {"domino_open": 7},
    "illegal_under": {"8": "turn 1"},
    "dealer": 3,
    "contract": "domino",
    "trump": None,
    "hands": [_cards(CLUBS), _cards(DIAMONDS), _cards(HEARTS), _cards(SPADES)],
    "plays": _plays(
        "7C 7D 7H 7S",
        *(f"{r}C {r}D {r}H {r}S" for r in "89TJQKA"),
        *(f"{r}C {r}D {r}H {r}S" for r in "65432"),
    ),
    "expected_tricks": [0, 0, 0, 0],
    "scores": [0, 0, 0, -50],
}

# ---------------------------------------------------------------------------
# domino, domino_aces = "first-fixes" against "high" (RULES.md): the same cards, two outcomes.
# Dealer 3, so seat 0 lays first.  Seat 0: 2C..QC, AD, AH.  Seat 1: 2D..KD and KC.
# Seat 2: 2H..KH and AC.  Seat 3: all spades.  Nobody but seat 0 ever has to pass: seat 1
# lays 8D 7D .. 2D (rounds 1-7), then 9D .. KD (8-12) and KC (13, on QC); seat 2 lays 8H 7H ..
# 2H (1-7), 9H .. QH (8-11), KH (12); seat 3 lays 8S .. KS (1-6), 7S .. 2S (7-12), AS (13).
#
# first-fixes: seat 0 lays 8C .. QC (rounds 1-5), 7C 6C (6-7), and in round 8 AD below 2D
#   (laid in round 7): the first ace, so from now on aces go below the 2 in every suit.  Then
#   5C 4C 3C 2C (9-12) and AH below 2H (13).  Seat 2 lays AC below 2C (laid in round 12) in
#   round 13, and seat 3 AS below 2S.  Everyone lays one card a round: seat 3 lays the last
#   card: 0, 0, 0, -50.  Under high, AD in round 8 is illegal (no KD on the table).
ACES_FIRST_FIXES = {
    "name": "domino_first_ace_goes_low",
    "rules": {"domino_aces": "first-fixes"},
    "illegal_under": {"high": "turn 29"},
    "dealer": 3,
    "contract": "domino",
    "trump": None,
    "hands": [
        _cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC AD AH"),
        _cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD KC"),
        _cards("2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AC"),
        _cards(SPADES),
    ],
    "plays": _plays(
        "8C 8D 8H 8S",
        "9C 7D 7H 9S",
        "TC 6D 6H TS",
        "JC 5D 5H JS",
        "QC 4D 4H QS",
        "7C 3D 3H KS",
        "6C 2D 2H 7S",
        "AD 9D 9H 6S",  # round 8: AD below 2D fixes aces low
        "5C TD TH 5S",
        "4C JD JH 4S",
        "3C QD QH 3S",
        "2C KD KH 2S",
        "AH KC AC AS",  # round 13: every ace below its 2; seat 3 lays the last card
    ),
    "expected_tricks": [0, 0, 0, 0],
    "scores": [0, 0, 0, -50],
}

# high (RULES.md), the same hands and the same plays by seats 1-3: seat 0 lays 8C .. QC
#   (rounds 1-5) and 7C .. 2C (6-11).  Round 12: seat 0 holds AD and AH, but KD and KH are
#   laid only later this round: it passes.  Round 13: AD (on KD); seat 1 KC, seat 2 AC (on
#   KC), seat 3 AS (on KS): seats 1, 2, 3 are out.  Round 14: seat 0 lays AH, the last card:
#   -50, 0, 0, 0.  Under first-fixes the pass in round 12 is illegal (AD fits below 2D).
ACES_HIGH_ONLY = {
    **ACES_FIRST_FIXES,
    "name": "domino_aces_high_seat0_passes",
    "rules": {"domino_aces": "high"},
    "illegal_under": {"first-fixes": "turn 45"},
    "plays": _plays(
        "8C 8D 8H 8S",
        "9C 7D 7H 9S",
        "TC 6D 6H TS",
        "JC 5D 5H JS",
        "QC 4D 4H QS",
        "7C 3D 3H KS",
        "6C 2D 2H 7S",
        "5C 9D 9H 6S",
        "4C TD TH 5S",
        "3C JD JH 4S",
        "2C QD QH 3S",
        "pass KD KH 2S",  # round 12: neither KD nor KH is on the table yet
        "AD KC AC AS",
        "AH",  # round 14: seat 0 alone lays the last card
    ),
    "scores": [-50, 0, 0, 0],
}

# ---------------------------------------------------------------------------
# Point overrides: the plays of fixtures_hand.HERENBOEREN and VROUWEN, other values.
# herenboeren with K = -10, J = -40: seat 0 takes KH KC JH JC, seat 1 KS JS JD KD
#   -> -100, -100, 0, 0 (RULES.md: -60, -60).
# vrouwen with Q = -25: seat 0 takes QS QC QD, seat 1 QH -> -75, -25, 0, 0.
# ---------------------------------------------------------------------------
HERENBOEREN_POINTS = {
    **HERENBOEREN,
    "name": "herenboeren_jacks_dearer",
    "rules": {"points": {"herenboeren.king": -10, "herenboeren.jack": -40}},
    "illegal_under": {},
    "scores": [-100, -100, 0, 0],
}
VROUWEN_POINTS = {
    **VROUWEN,
    "name": "vrouwen_cheaper_queens",
    "rules": {"points": {"vrouwen.queen": -25}},
    "illegal_under": {},
    "scores": [-75, -25, 0, 0],
}

OPTION_FIXTURES = [
    HEARTS_FREE,
    HEARTS_BROKEN,
    TRUMP_OPTIONAL,
    TRUMP_MUST,
    TRUMP_OVER,
    DOMINO_SEVEN,
    ACES_FIRST_FIXES,
    ACES_HIGH_ONLY,
    HERENBOEREN_POINTS,
    VROUWEN_POINTS,
]
