"""Hand-worked fixture deals, one or more per contract family.

Every deal is built so that the play is easy to follow by hand: most seats hold a single
suit (so they are void in everything else and just discard), and the few cards that move
the lead around are called out in the comments.  Each fixture is a dict in the golden-trace
record format (``dealer``, ``contract``, ``trump``, ``hands`` as card strings, ``plays``)
plus ``expected_tricks`` (tricks won per seat; zeros for Domino) and ``scores`` (raw),
both worked out by hand below, not computed by any engine.

Seats are 0..3 clockwise; the leader of trick 1 is dealer + 1 (RULES.md §1.2).  The plays
are written one trick per line, in play order (leader first, then clockwise); Domino plays
are written one round of turns per line.
"""

from __future__ import annotations


def _cards(text: str) -> list[str]:
    return text.split()


def _plays(*lines: str) -> list[str]:
    """Flatten trick lines such as "AC 2C 2H 2S" into one list of plays."""
    return [card for line in lines for card in line.split()]


CLUBS = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
DIAMONDS = "2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AD"
HEARTS = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
SPADES = "2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"


# ---------------------------------------------------------------------------
# bukken (-5 per trick).  Dealer 3, so seat 0 leads.
# Seats 0 and 1 share clubs and diamonds: seat 0 has the six top clubs and the seven low
# diamonds, seat 1 the seven low clubs and the six top diamonds.  Seat 2 holds all hearts,
# seat 3 all spades: they can never follow a club or diamond lead, so every trick is won by
# seat 0 or seat 1, whoever plays the higher card of the led suit.
#   Tricks 1-6: seat 0 cashes AC KC QC JC TC 9C; seat 1 must follow with 2C..7C: seat 0 wins.
#   Trick 7: seat 0 has only diamonds left and leads 2D; seat 1 follows 9D and wins.
#   Tricks 8-13: seat 1 leads 8C (seat 0 is now void in clubs and discards 3D) and then
#   TD JD QD KD AD, over seat 0's 4D..8D.  Seat 1 wins all of them.
# Tricks: seat 0 6, seat 1 7 -> scores -30, -35, 0, 0 (total -65).
# ---------------------------------------------------------------------------
BUKKEN = {
    "name": "bukken_split_clubs_diamonds",
    "dealer": 3,
    "contract": "bukken",
    "trump": None,
    "hands": [
        _cards("AC KC QC JC TC 9C 2D 3D 4D 5D 6D 7D 8D"),
        _cards("2C 3C 4C 5C 6C 7C 8C 9D TD JD QD KD AD"),
        _cards(HEARTS),
        _cards(SPADES),
    ],
    "plays": _plays(
        "AC 2C 2H 2S",  # 1: leader 0; AC wins -> 0
        "KC 3C 3H 3S",  # 2: -> 0
        "QC 4C 4H 4S",  # 3: -> 0
        "JC 5C 5H 5S",  # 4: -> 0
        "TC 6C 6H 6S",  # 5: -> 0
        "9C 7C 7H 7S",  # 6: -> 0
        "2D 9D 8H 8S",  # 7: leader 0 leads 2D; seat 1's 9D wins -> 1
        "8C 9H 9S 3D",  # 8: leader 1 (order 1,2,3,0); only club on the table -> 1
        "TD TH TS 4D",  # 9: -> 1
        "JD JH JS 5D",  # 10: -> 1
        "QD QH QS 6D",  # 11: -> 1
        "KD KH KS 7D",  # 12: -> 1
        "AD AH AS 8D",  # 13: -> 1
    ),
    "expected_tricks": [6, 7, 0, 0],
    "scores": [-30, -35, 0, 0],
}

# ---------------------------------------------------------------------------
# hartenjagen (-5 per heart taken; no heart lead while holding another suit).
# Dealer 0, so seat 1 leads.  Seat 1: 2C and the hearts 2..K.  Seat 0: the other clubs and
# 2D.  Seat 2: the other diamonds and 2S.  Seat 3: the other spades and AH.
#   Trick 1: seat 1 holds a non-heart, so it MUST lead 2C (the heart-lead ban).  Seats 2
#     and 3 are void in clubs: seat 2 discards AD, seat 3 dumps AH.  Seat 0 follows 3C and
#     wins: 1 heart (AH) for seat 0.
#   Trick 2: seat 0 leads 2D; seat 1 (void) discards 2H; seat 2 follows 3D and wins;
#     seat 3 discards 3S.  1 heart (2H) for seat 2.
#   Trick 3: seat 2 leads 2S; seat 3 follows 4S and wins; seats 0 and 1 are void (4C, 3H).
#     1 heart (3H) for seat 3.
#   Tricks 4-13: seat 3 leads 5S..AS; nobody else has a spade; seat 1 discards 4H..KH, one
#     heart per trick: 10 hearts for seat 3.
# Hearts taken: seat 0 1, seat 1 0, seat 2 1, seat 3 11 -> -5, 0, -5, -55 (total -65).
# ---------------------------------------------------------------------------
HARTENJAGEN = {
    "name": "hartenjagen_lead_ban",
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
        "2C AD AH 3C",  # 1: leader 1, order 1,2,3,0: seat 1 2C (forced by the ban), seat 2 AD,
        #                   seat 3 AH, seat 0 3C -> 0 takes AH
        "2D 2H 3D 3S",  # 2: leader 0, order 0,1,2,3: 3D beats 2D -> 2 takes 2H
        "2S 4S 4C 3H",  # 3: leader 2, order 2,3,0,1: 4S beats 2S -> 3 takes 3H
        "5S 5C 4H 4D",  # 4: leader 3, order 3,0,1,2 -> 3 takes 4H
        "6S 6C 5H 5D",  # 5: -> 3 (5H)
        "7S 7C 6H 6D",  # 6: -> 3 (6H)
        "8S 8C 7H 7D",  # 7: -> 3 (7H)
        "9S 9C 8H 8D",  # 8: -> 3 (8H)
        "TS TC 9H 9D",  # 9: -> 3 (9H)
        "JS JC TH TD",  # 10: -> 3 (TH)
        "QS QC JH JD",  # 11: -> 3 (JH)
        "KS KC QH QD",  # 12: -> 3 (QH)
        "AS AC KH KD",  # 13: -> 3 (KH)
    ),
    "expected_tricks": [1, 0, 1, 11],
    "scores": [-5, 0, -5, -55],
}

# ---------------------------------------------------------------------------
# herenboeren (-20 per king, -10 per jack taken).  The bukken layout again (dealer 3, seat
# 0 wins tricks 1-6 with its top clubs, seat 1 wins tricks 7-13), but the discards of seats
# 2 and 3 are chosen so that kings and jacks land on both winners:
#   seat 0 takes KH (t1), KC and JH (t2), JC (t4)            -> -20-20-10-10 = -60
#   seat 1 takes KS (t7), JS (t8), JD (t10), KD (t12)        -> -20-10-10-20 = -60
# Scores -60, -60, 0, 0 (total -120).
# ---------------------------------------------------------------------------
HERENBOEREN = {
    "name": "herenboeren_split",
    "dealer": 3,
    "contract": "herenboeren",
    "trump": None,
    "hands": [
        _cards("AC KC QC JC TC 9C 2D 3D 4D 5D 6D 7D 8D"),
        _cards("2C 3C 4C 5C 6C 7C 8C 9D TD JD QD KD AD"),
        _cards(HEARTS),
        _cards(SPADES),
    ],
    "plays": _plays(
        "AC 2C KH 2S",  # 1: leader 0 -> 0 takes KH
        "KC 3C JH 3S",  # 2: -> 0 takes KC, JH
        "QC 4C 2H 4S",  # 3: -> 0
        "JC 5C 3H 5S",  # 4: -> 0 takes JC
        "TC 6C 4H 6S",  # 5: -> 0
        "9C 7C 5H 7S",  # 6: -> 0
        "2D 9D 6H KS",  # 7: leader 0; 9D wins -> 1 takes KS
        "8C 7H JS 3D",  # 8: leader 1, order 1,2,3,0 -> 1 takes JS
        "TD 8H 8S 4D",  # 9: -> 1
        "JD 9H 9S 5D",  # 10: -> 1 takes JD
        "QD TH TS 6D",  # 11: -> 1
        "KD QH QS 7D",  # 12: -> 1 takes KD
        "AD AH AS 8D",  # 13: -> 1
    ),
    "expected_tricks": [6, 7, 0, 0],
    "scores": [-60, -60, 0, 0],
}

# ---------------------------------------------------------------------------
# vrouwen (-30 per queen taken).  Dealer 3, so seat 0 leads.
# Seat 0: clubs 2..K and AD; seat 1: diamonds 2..K and AC; seat 2 hearts; seat 3 spades.
#   Trick 1: seat 0 leads 2C; seat 1's only club is AC: it wins, and takes QH (seat 2's
#     discard).
#   Trick 2: seat 1 leads 2D; seat 0's only diamond is AD: it wins, and takes QS.
#   Tricks 3-13: seat 0 leads 3C..KC; seat 1 is void in clubs now and discards 3D..KD;
#     seat 0 wins all eleven, taking its own QC (t12) and seat 1's QD (t12).
# Queens: seat 0 QS QC QD = -90, seat 1 QH = -30 (total -120).  Tricks: 12 and 1.
# ---------------------------------------------------------------------------
VROUWEN = {
    "name": "vrouwen_swapped_aces",
    "dealer": 3,
    "contract": "vrouwen",
    "trump": None,
    "hands": [
        _cards("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AD"),
        _cards("2D 3D 4D 5D 6D 7D 8D 9D TD JD QD KD AC"),
        _cards(HEARTS),
        _cards(SPADES),
    ],
    "plays": _plays(
        "2C AC QH 2S",  # 1: leader 0, order 0,1,2,3 -> 1 takes QH
        "2D 2H QS AD",  # 2: leader 1, order 1,2,3,0 -> 0 takes QS
        "3C 3D 3H 3S",  # 3: leader 0 -> 0
        "4C 4D 4H 4S",  # 4
        "5C 5D 5H 5S",  # 5
        "6C 6D 6H 6S",  # 6
        "7C 7D 7H 7S",  # 7
        "8C 8D 8H 8S",  # 8
        "9C 9D 9H 9S",  # 9
        "TC TD TH TS",  # 10
        "JC JD JH JS",  # 11
        "QC QD KH KS",  # 12: -> 0 takes QC and QD
        "KC KD AH AS",  # 13: -> 0
    ),
    "expected_tricks": [12, 1, 0, 0],
    "scores": [-90, -30, 0, 0],
}

# ---------------------------------------------------------------------------
# hartenheer (-50 for taking KH; no heart lead while holding another suit).
# Dealer 1, so seat 2 leads.  Seat 2: AS and the hearts 2..Q and A.  Seat 3: spades 2..K
# and KH.  Seat 0 all clubs, seat 1 all diamonds.
#   Trick 1: seat 2 must lead its only non-heart, AS; seat 3 follows 2S: seat 2 wins.
#   Trick 2: seat 2 now holds only hearts and leads 2H; seat 3's only heart is KH, which it
#     must play: KH beats 2H, so seat 3 takes its own KH (-50).
#   Tricks 3-13: seat 3 leads 3S..KS; nobody else has a spade; seat 3 wins them all.
# Tricks: seat 2 1, seat 3 12.  Scores 0, 0, 0, -50.
# ---------------------------------------------------------------------------
HARTENHEER = {
    "name": "hartenheer_forced_king",
    "dealer": 1,
    "contract": "hartenheer",
    "trump": None,
    "hands": [
        _cards(CLUBS),
        _cards(DIAMONDS),
        _cards("AS 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH AH"),
        _cards("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS KH"),
    ],
    "plays": _plays(
        "AS 2S 2C 2D",  # 1: leader 2, order 2,3,0,1 -> 2
        "2H KH 3C 3D",  # 2: leader 2 -> 3 takes KH
        "3S 4C 4D 3H",  # 3: leader 3, order 3,0,1,2 -> 3
        "4S 5C 5D 4H",  # 4
        "5S 6C 6D 5H",  # 5
        "6S 7C 7D 6H",  # 6
        "7S 8C 8D 7H",  # 7
        "8S 9C 9D 8H",  # 8
        "9S TC TD 9H",  # 9
        "TS JC JD TH",  # 10
        "JS QC QD JH",  # 11
        "QS KC KD QH",  # 12
        "KS AC AD AH",  # 13: AH is a discard on a spade trick -> 3
    ),
    "expected_tricks": [0, 0, 1, 12],
    "scores": [0, 0, 0, -50],
}

# ---------------------------------------------------------------------------
# laatste_slag (-50 for winning trick 13).  Dealer 3, so seat 0 leads.
# Seat 0: clubs 3..A and 2S.  Seat 3: spades 3..A and 2C.  Seat 1 diamonds, seat 2 hearts.
#   Tricks 1-12: seat 0 leads 3C..AC.  Seat 3 must follow the first club with 2C and is void
#     afterwards (discards 3S..KS); seat 0 wins all twelve.
#   Trick 13: seat 0's last card is 2S; seat 3's last card, AS, beats it.
# Tricks: seat 0 12, seat 3 1.  Scores 0, 0, 0, -50.
# ---------------------------------------------------------------------------
LAATSTE_SLAG = {
    "name": "laatste_slag_last_spade",
    "dealer": 3,
    "contract": "laatste_slag",
    "trump": None,
    "hands": [
        _cards("3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S"),
        _cards(DIAMONDS),
        _cards(HEARTS),
        _cards("2C 3S 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ],
    "plays": _plays(
        "3C 2D 2H 2C",  # 1: leader 0, order 0,1,2,3; 3C beats 2C -> 0
        "4C 3D 3H 3S",  # 2
        "5C 4D 4H 4S",  # 3
        "6C 5D 5H 5S",  # 4
        "7C 6D 6H 6S",  # 5
        "8C 7D 7H 7S",  # 6
        "9C 8D 8H 8S",  # 7
        "TC 9D 9H 9S",  # 8
        "JC TD TH TS",  # 9
        "QC JD JH JS",  # 10
        "KC QD QH QS",  # 11
        "AC KD KH KS",  # 12 -> 0
        "2S AD AH AS",  # 13: spade led; AS wins -> 3
    ),
    "expected_tricks": [12, 0, 0, 1],
    "scores": [0, 0, 0, -50],
}

# ---------------------------------------------------------------------------
# domino (-50 for laying the last card).  Dealer 0, so seat 1 starts; turns 1, 2, 3, 0.
# Seat 0 all clubs, seat 2 all hearts.  Seat 1: diamonds except 8D, plus 8S.  Seat 3:
# spades except 8S, plus 8D.  Each seat builds its own row: up from the 8 to the ace, then
# down from 7 to 2.
#   Round 1: seat 1 opens spades with 8S, seat 2 opens hearts, seat 3 plays 9S on 8S (it
#     may, and keeps 8D back), seat 0 opens clubs.
#   Rounds 2-12: seat 1 holds only diamonds and the diamond row is not open: it must PASS.
#     Seats 2, 3, 0 each lay their next card (seat 3 finishes spades: TS..AS, then 7S..2S).
#   Round 13: seat 1 passes once more; seat 2 lays 2H and is out (1st); seat 3 lays 8D and
#     is out (2nd); seat 0 lays 2C and is out (3rd).
#   Rounds 14-25: only seat 1 holds cards; it lays 9D..AD, 7D..2D and lays the last card.
# Out order 2, 3, 0, 1.  Scores 0, -50, 0, 0.  64 entries: 52 cards and 12 passes.
# ---------------------------------------------------------------------------
DOMINO = {
    "name": "domino_held_eight",
    "dealer": 0,
    "contract": "domino",
    "trump": None,
    "hands": [
        _cards(CLUBS),
        _cards("2D 3D 4D 5D 6D 7D 9D TD JD QD KD AD 8S"),
        _cards(HEARTS),
        _cards("2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS 8D"),
    ],
    "plays": _plays(
        "8S 8H 9S 8C",  # round 1: seats 1, 2, 3, 0
        "pass 9H TS 9C",  # round 2: seat 1 cannot lay a diamond yet
        "pass TH JS TC",  # 3
        "pass JH QS JC",  # 4
        "pass QH KS QC",  # 5
        "pass KH AS KC",  # 6
        "pass AH 7S AC",  # 7: seat 3 has reached AS and turns down to 7S
        "pass 7H 6S 7C",  # 8
        "pass 6H 5S 6C",  # 9
        "pass 5H 4S 5C",  # 10
        "pass 4H 3S 4C",  # 11
        "pass 3H 2S 3C",  # 12
        "pass 2H 8D 2C",  # 13: seats 2, 3, 0 go out in this order
        "9D TD JD QD KD AD",  # seat 1 alone: up from 8D ...
        "7D 6D 5D 4D 3D 2D",  # ... then down; 2D is the last card of the deck
    ),
    "expected_tricks": [0, 0, 0, 0],
    "expected_out_order": [2, 3, 0, 1],
    "scores": [0, -50, 0, 0],
}

# ---------------------------------------------------------------------------
# troeven, trump hearts (+10 per trick).  Dealer 0, so seat 1 leads.
# Seat 0 all clubs, seat 1 all diamonds.  Seat 2: hearts 2..7, spades 2..7 and AS.
# Seat 3: hearts 8..A and spades 8..K.
#   Trick 1: seat 1 leads AD; seats 2 and 3 are void and choose to DISCARD (2S, 8S) rather
#     than ruff: seat 1 wins with AD (no trump played).
#   Trick 2: seat 1 leads KD; seat 2 ruffs with 2H, seat 3 over-ruffs with 8H: seat 3 wins.
#   Trick 3: seat 3 leads 9S; seat 2 follows with AS and wins (seats 0, 1 discard).
#   Trick 4: seat 2 leads 3S; seat 3 follows TS and wins.
#   Tricks 5-13: seat 3 leads JS QS KS (seat 2 follows 4S 5S 6S) and then its trumps
#     9H..AH; seat 2 follows 3H..7H and, void in trumps at trick 13, discards 7S; seat 3
#     wins everything.
# Tricks: seat 1 1, seat 2 1, seat 3 11 -> 0, 10, 10, 110 (total 130).
# ---------------------------------------------------------------------------
TROEVEN_HEARTS = {
    "name": "troeven_hearts_ruff_and_overruff",
    "dealer": 0,
    "contract": "troeven",
    "trump": "H",
    "hands": [
        _cards(CLUBS),
        _cards(DIAMONDS),
        _cards("2H 3H 4H 5H 6H 7H 2S 3S 4S 5S 6S 7S AS"),
        _cards("8H 9H TH JH QH KH AH 8S 9S TS JS QS KS"),
    ],
    "plays": _plays(
        "AD 2S 8S 2C",  # 1: leader 1, order 1,2,3,0; discards only -> 1
        "KD 2H 8H 3C",  # 2: ruff 2H, over-ruff 8H -> 3
        "9S 4C QD AS",  # 3: leader 3, order 3,0,1,2; AS beats 9S -> 2
        "3S TS 5C JD",  # 4: leader 2, order 2,3,0,1; TS beats 3S -> 3
        "JS 6C TD 4S",  # 5: leader 3, order 3,0,1,2 -> 3
        "QS 7C 9D 5S",  # 6 -> 3
        "KS 8C 8D 6S",  # 7 -> 3
        "9H 9C 7D 3H",  # 8: trumps led; seat 2 must follow hearts -> 3
        "TH TC 6D 4H",  # 9 -> 3
        "JH JC 5D 5H",  # 10 -> 3
        "QH QC 4D 6H",  # 11 -> 3
        "KH KC 3D 7H",  # 12 -> 3
        "AH AC 2D 7S",  # 13: seat 2 void in hearts, discards -> 3
    ),
    "expected_tricks": [0, 1, 1, 11],
    "scores": [0, 10, 10, 110],
}

# ---------------------------------------------------------------------------
# troeven, no trump (+10 per trick).  Dealer 2, so seat 3 leads.
# Seat 3: 2C 3C and spades 4..A.  Seat 0: clubs 4..A and 2S 3S.  Seat 1 all diamonds,
# seat 2 all hearts.
#   Trick 1: seat 3 leads 2C; seat 0 follows 4C; seats 1 and 2 discard AD and AH, which
#     win nothing without trumps: seat 0 wins with 4C.
#   Trick 2: seat 0 leads 2S; seat 3 follows 4S and wins (KD, KH are discards).
#   Trick 3: seat 3 leads 3C; seat 0's 5C wins.
#   Trick 4: seat 0 leads 3S; seat 3's 5S wins.
#   Tricks 5-13: seat 3 leads 6S..AS; seat 0 is void in spades and discards its clubs
#     6C..AC (in NT a discarded club does not win); seat 3 wins all nine.
# Tricks: seat 0 2, seat 3 11 -> 20, 0, 0, 110 (total 130).
# ---------------------------------------------------------------------------
TROEVEN_NT = {
    "name": "troeven_nt_discarded_aces",
    "dealer": 2,
    "contract": "troeven",
    "trump": "NT",
    "hands": [
        _cards("4C 5C 6C 7C 8C 9C TC JC QC KC AC 2S 3S"),
        _cards(DIAMONDS),
        _cards(HEARTS),
        _cards("2C 3C 4S 5S 6S 7S 8S 9S TS JS QS KS AS"),
    ],
    "plays": _plays(
        "2C 4C AD AH",  # 1: leader 3, order 3,0,1,2 -> 0
        "2S KD KH 4S",  # 2: leader 0, order 0,1,2,3 -> 3
        "3C 5C QD QH",  # 3: leader 3 -> 0
        "3S JD JH 5S",  # 4: leader 0 -> 3
        "6S 6C TD TH",  # 5: leader 3 -> 3
        "7S 7C 9D 9H",  # 6
        "8S 8C 8D 8H",  # 7
        "9S 9C 7D 7H",  # 8
        "TS TC 6D 6H",  # 9
        "JS JC 5D 5H",  # 10
        "QS QC 4D 4H",  # 11
        "KS KC 3D 3H",  # 12
        "AS AC 2D 2H",  # 13 -> 3
    ),
    "expected_tricks": [2, 0, 0, 11],
    "scores": [20, 0, 0, 110],
}

FIXTURES: list[dict] = [
    BUKKEN,
    HARTENJAGEN,
    HERENBOEREN,
    VROUWEN,
    HARTENHEER,
    LAATSTE_SLAG,
    DOMINO,
    TROEVEN_HEARTS,
    TROEVEN_NT,
]
