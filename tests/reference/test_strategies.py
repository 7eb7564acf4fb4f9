"""The reference's basic strategy makes the ENGINE.md-prescribed choice in hand-picked
situations; each expected card is worked out by hand in the comment above it."""

from __future__ import annotations

import pytest

from tests.reference import card_str, parse_card
from tests.reference.cards import SUIT_CHARS, hi, lo
from tests.reference.rules import legal_trick_cards
from tests.reference.strategies import (
    TrickView,
    basic_domino_choice,
    basic_trick_choice,
    domino_key,
    random_choice,
)


def cards(text: str) -> set[int]:
    return {parse_card(c) for c in text.split()}


def view(
    contract: str,
    seat: int,
    hand: str,
    trick: str = "",
    played: str = "",
    out: str | None = None,
    trump: str | None = None,
    voids: dict[int, str] | None = None,
) -> TrickView:
    """A TrickView.  ``trick`` lists the current trick's cards in play order, the first one
    led by the seat ``len(trick)`` places before ``seat``.  ``played`` adds earlier-trick
    cards; alternatively ``out`` gives OUT directly (PLAYED = everything else)."""
    h = cards(hand)
    trick_cards = [parse_card(c) for c in trick.split()]
    leader = (seat - len(trick_cards)) % 4
    trick_seq = [((leader + i) % 4, c) for i, c in enumerate(trick_cards)]
    if out is not None:
        played_set = set(range(52)) - h - cards(out)
    else:
        played_set = cards(played) | set(trick_cards)
    known_void = [set(), set(), set(), set()]
    for p, suits in (voids or {}).items():
        known_void[p] = {SUIT_CHARS.index(s) for s in suits}
    return TrickView(
        contract=contract,
        trump_suit=None if trump in (None, "NT") else SUIT_CHARS.index(trump),
        seat=seat,
        hand=h,
        legal=legal_trick_cards(h, trick_cards, contract),
        played=played_set,
        trick=trick_seq,
        known_void=known_void,
    )


def choose(v: TrickView) -> str:
    return card_str(basic_trick_choice(v))


# ---------------------------------------------------------------------------
# LO / HI
# ---------------------------------------------------------------------------
def test_lo_hi_tie_breaks():
    assert card_str(lo(cards("5C 3D 3S"))) == "3D"  # lowest rank, then lowest suit
    assert card_str(lo(cards("JS JC KD"))) == "JC"
    assert card_str(hi(cards("KC KS 5H"))) == "KS"  # highest rank, then highest suit
    assert card_str(hi(cards("AD 2S"))) == "AD"


# ---------------------------------------------------------------------------
# negative contracts: follow
# ---------------------------------------------------------------------------
def test_vrouwen_ducks_with_the_highest_penalty_duck():
    # KS winning; my spades QS 9S 3S are all ducks; the penalty duck QS goes first.
    assert choose(view("vrouwen", 2, "QS 9S 3S 2H 5D", trick="KS 4S")) == "QS"


def test_vrouwen_ducks_with_the_highest_duck():
    # 5S winning: the only duck is 3S.
    assert choose(view("vrouwen", 2, "QS 9S 3S 2H 5D", trick="5S 4S")) == "3S"


def test_herenboeren_prefers_the_king_duck_to_the_jack_duck():
    # AD winning; ducks KD QD JD 4D; penalty ducks KD, JD -> HI = KD.
    assert choose(view("herenboeren", 2, "KD QD JD 4D 5C", trick="AD 3D")) == "KD"


def test_forced_last_seat_takes_high_without_penalty_card():
    # 2S led, nothing ducks; last seat plays HI of the non-penalty cards: 9S, not QS.
    assert choose(view("vrouwen", 0, "QS 9S 3S", trick="2S 4D 5D")) == "9S"


def test_forced_early_seat_plays_low_non_penalty():
    # 2S led, second seat cannot duck: LO of the non-penalty cards.
    assert choose(view("vrouwen", 0, "QS 9S 3S", trick="2S")) == "3S"
    # only penalty cards in the suit: LO(L) = QS
    assert choose(view("vrouwen", 0, "QS 2H", trick="2S")) == "QS"


# ---------------------------------------------------------------------------
# negative contracts: lead (L4 exit)
# ---------------------------------------------------------------------------
def test_bukken_exit_lead_keys():
    # Nothing played.  2C: na 11, nb 0 -> (True, 11); 5D: na 9, nb 3 -> (True, 6);
    # AS: na 0 -> (False, -12).  Lead 2C.
    assert choose(view("bukken", 0, "2C 9C 5D AS")) == "2C"
    # Equal keys (True, 12) for 2C and 2D: the lowest suit.
    assert choose(view("bukken", 0, "2C 2D")) == "2C"
    # AC: (False, -12); KD: na 1, nb 11 -> (True, -10): having a card above wins the key.
    assert choose(view("bukken", 0, "AC KD")) == "KD"
    # 3C and 3D: na 11, nb 1 each -> (True, 10), a tie: the lowest suit.
    assert choose(view("bukken", 0, "3C 3D")) == "3C"
    # 2D already played: 3D has nb 0 -> (True, 11) beats 3C's (True, 10).
    assert choose(view("bukken", 0, "3C 3D", played="2D")) == "3D"
    # AD already played: 3D has na 10 -> (True, 9), 3C keeps (True, 10).
    assert choose(view("bukken", 0, "3C 3D", played="AD")) == "3C"


def test_negative_lead_without_a_non_penalty_card():
    # Hartenjagen, hearts only: no suit qualifies, LO(L) = 5H.
    assert choose(view("hartenjagen", 0, "5H 9H")) == "5H"
    # Herenboeren, only kings and jacks: LO(L) = JD (rank J < K).
    assert choose(view("herenboeren", 0, "KC JD")) == "JD"
    assert choose(view("herenboeren", 0, "JD JC KS")) == "JC"


def test_hartenjagen_lead_respects_the_ban():
    # L = {KS} because of the ban; KS is the only candidate.
    assert choose(view("hartenjagen", 0, "2H KS")) == "KS"


# ---------------------------------------------------------------------------
# negative contracts: discard
# ---------------------------------------------------------------------------
def test_hartenheer_discards_the_king_of_hearts():
    assert choose(view("hartenheer", 1, "KH AS 2D", trick="5C")) == "KH"


def test_herenboeren_discards_a_king_first():
    assert choose(view("herenboeren", 1, "KS JD AC", trick="5H")) == "KS"


def test_bukken_discard_by_danger():
    # Void in clubs (4C led).  OUT: 11 diamonds, 11 spades, 11 hearts.
    # danger(D) = (AD: 11 - 0) + (3D: 1 - 10) = 2; danger(S) = (KS: 10 - 1) + (QS: 10 - 1) = 18;
    # danger(H) = (3H: 0 - 11) + (2H: 0 - 11) < 0.
    # AD = 12 + 3*2 + 10 (gap 12-1 > 5) = 28; KS = 11 + 3*18 = 65; QS = 64; hearts <= 1.
    assert choose(view("bukken", 1, "AD 3D KS QS 2H 3H", trick="4C")) == "KS"


def test_bukken_discard_singleton_bonus():
    # 9S is a singleton with spades out: 7 + 3*(7 - 5) + 20 = 33 > AD's 28.
    assert choose(view("bukken", 1, "AD 3D 9S 2H 3H", trick="4C")) == "9S"


def test_hartenjagen_discard():
    # QH: 50 (pp) + 15 (OUT hearts below it) + 10 (rank) + 0 (danger -4) + 10 (gap 10 > 5)
    # = 85; AS: 12 + 3*12 + 20 (singleton) = 68; 2H: 50; 3C: 1 + 20 = 21.
    assert choose(view("hartenjagen", 1, "QH 2H AS 3C", trick="5D")) == "QH"


# ---------------------------------------------------------------------------
# laatste_slag
# ---------------------------------------------------------------------------
def test_laatste_slag_sheds_high_early():
    # > 4 cards, leading: HI of the master cards.  With AD and AS played, KD and KS are
    # masters; HI breaks the rank tie towards the higher suit: KS.
    assert choose(view("laatste_slag", 0, "KD KS 5C 7H 2D", played="AD AS")) == "KS"
    # no master card: HI(L)
    assert choose(view("laatste_slag", 0, "KD 5C 7H 2D 3S")) == "KD"
    # follow: HI(L) even though it wins
    assert choose(view("laatste_slag", 0, "5C QC 2C 4H 5H", trick="9C")) == "QC"
    # void: HI(H)
    assert choose(view("laatste_slag", 0, "5C QC 2S 4H 5H", trick="9D")) == "QC"


def test_laatste_slag_endgame_keep_score():
    # <= 4 cards.  OUT: KS 4S 5S 6S, 2H QH, TC JC 3C, 7D 8D 9D.
    # keep(AS) = (0, 4, -12); keep(2S) = (4, 4, 0); keep(3H) = (1, 2, -1); keep(9C) = (2, 3, -7).
    out = "KS 4S 5S 6S 2H QH TC JC 3C 7D 8D 9D"
    assert choose(view("laatste_slag", 0, "AS 2S 3H 9C", out=out)) == "AS"
    # discard (void in diamonds): the same smallest keep-score
    out2 = "KS 4S 5S 6S 2H QH TC JC 3C 7D 9D"
    assert choose(view("laatste_slag", 2, "AS 2S 3H 9C", trick="8D", out=out2)) == "AS"
    # follow: duck as the negative contracts do: TS winning, the duck 2S
    out3 = "KS 4S 5S 6S 2H QH JC 3C 7D 8D 9D"
    assert choose(view("laatste_slag", 2, "AS 2S 3H 9C", trick="TS", out=out3)) == "2S"


# ---------------------------------------------------------------------------
# troeven: lead
# ---------------------------------------------------------------------------
def test_troeven_draws_trumps():
    # 4 trumps with the master AH: lead it.
    assert choose(view("troeven", 0, "AH KH 3H 2H 5C 9D", trump="H")) == "AH"
    # 2 trumps vs 3 outstanding (2*2 >= 3): lead AH.
    assert (
        choose(view("troeven", 0, "AH 3H 5C", played="4H 5H 6H 7H 8H 9H TH JH", trump="H")) == "AH"
    )


def test_troeven_does_not_draw_with_few_trumps_or_no_master():
    # 3 trumps vs 10 out and < 4: no draw; no master elsewhere; longest side suits all
    # length 1 -> lowest suit: 5C.
    assert choose(view("troeven", 0, "AH KH 3H 5C 9D 2S", trump="H")) == "5C"
    # 4 trumps but AH is out: KH is not master.
    assert choose(view("troeven", 0, "KH QH JH TH 5C", trump="H")) == "5C"


def test_troeven_cashes_the_master_of_the_suit_with_most_out_cards():
    # Spades trump, trumps out.  AC (12 clubs out) and AD (10 diamonds out) are masters.
    assert choose(view("troeven", 0, "AC AD KD 2D 4S", trump="S")) == "AC"
    # Seat 1 is known void in clubs while trumps are out: only AD qualifies.
    assert choose(view("troeven", 0, "AC AD KD 2D 4S", trump="S", voids={1: "C"})) == "AD"


def test_troeven_low_lead_avoids_suits_others_are_void_in():
    assert choose(view("troeven", 0, "3C 4C 5C 2D 3D 4S", trump="S")) == "3C"  # longest: clubs
    assert choose(view("troeven", 0, "3C 4C 5C 2D 3D 4S", trump="S", voids={2: "C"})) == "2D"
    # only trumps, the top one not master: LO(H)
    assert choose(view("troeven", 0, "2S 5S", trump="S")) == "2S"


def test_troeven_nt_cashes_even_without_outstanding_cards():
    # NT: OUTT is empty, so every held suit whose top is master is a candidate.
    # AS (12 spades out) beats AD.
    assert choose(view("troeven", 0, "AD 2D AS", trump="NT")) == "AS"


# ---------------------------------------------------------------------------
# troeven: follow and void
# ---------------------------------------------------------------------------
def test_troeven_follow_last_seat():
    # 2H (trump) is winning a club trick: nothing of mine beats it; LO(L) = 3C.
    assert choose(view("troeven", 3, "AC 3C 5D", trick="9C QC 2H", trump="H")) == "3C"
    # QC winning: the cheapest winner KC.
    assert choose(view("troeven", 3, "AC KC 3C", trick="9C QC 4D", trump="H")) == "KC"


def test_troeven_follow_second_seat():
    # AC and KC both beat 9C and both are master (no OUT club above KC: AC is mine), and
    # they are safe (no later seat known void in clubs): the cheaper one, KC.
    assert choose(view("troeven", 1, "AC KC 3C", trick="9C", trump="H")) == "KC"
    assert choose(view("troeven", 1, "AC 3C", trick="9C", trump="H")) == "AC"
    # Seat 3 (a later seat) is known void in clubs while trumps are out: LO(L).
    assert choose(view("troeven", 1, "AC KC 3C", trick="9C", trump="H", voids={3: "C"})) == "3C"
    # ... unless no trump is out any more: then AC/KC are safe again.
    played_trumps = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    v = view("troeven", 1, "AC KC 3C", trick="9C", played=played_trumps, trump="H", voids={3: "C"})
    assert choose(v) == "KC"
    # The leader's void does not matter (it is not a later seat).
    assert choose(view("troeven", 1, "AC KC 3C", trick="9C", trump="H", voids={0: "C"})) == "KC"
    # KC beats 9C but is not master: LO(L).
    assert choose(view("troeven", 1, "KC 3C", trick="9C", trump="H")) == "3C"


def test_troeven_void_ruffs_cheaply():
    # No trump played; no later seat known void: the lowest trump 5H.
    assert choose(view("troeven", 2, "5H 9H 2D 7S 8S", trick="9C QC", trump="H")) == "5H"
    # Over-ruff 6H with the cheapest beating trump: 9H.
    assert choose(view("troeven", 2, "5H 9H 2D", trick="9C 6H", trump="H")) == "9H"


def test_troeven_void_with_a_later_seat_void():
    # Seat 3 may over-ruff: ruff only with a master trump, else discard.
    assert (
        choose(view("troeven", 2, "5H AH 2D 7S 8S", trick="9C QC", trump="H", voids={3: "C"}))
        == "AH"
    )
    # No master trump: discard LO of the shortest side suit whose top is not master: 2D.
    assert (
        choose(view("troeven", 2, "5H 9H 2D 7S 8S", trick="9C QC", trump="H", voids={3: "C"}))
        == "2D"
    )


def test_troeven_void_discards():
    # Last seat cannot beat 6H: discard from the shortest non-master suit.
    assert choose(view("troeven", 3, "5H 2D 4S 7S", trick="9C 6H KC", trump="H")) == "2D"
    # NT: spades headed by the master AS are kept; the diamonds (top KD, AD out) go: 3D.
    assert choose(view("troeven", 1, "AS 2S KD 3D 4D", trick="9C", trump="NT")) == "3D"
    # A trump that beats the trick and no later seat known void: ruff cheaply with 2H.
    assert choose(view("troeven", 1, "AS AD KD 2H", trick="9C", trump="H")) == "2H"


def test_troeven_void_all_side_tops_master():
    # Clubs led, trump H, a later seat void in clubs, no master trump: discard.  AS and AD
    # are masters: the shortest side suit of them all is spades -> AS.
    v = view("troeven", 1, "AS AD 3D 5H", trick="9C", trump="H", voids={2: "C"})
    assert choose(v) == "AS"


# ---------------------------------------------------------------------------
# domino
# ---------------------------------------------------------------------------
def test_domino_prefers_reach():
    # Empty rows; legal 8C, 8D, 8S.  8C: (1, 2, 2, 1); 8D: (1, 3, 1, 0); 8S: (0, 0, 0, 0).
    hand = cards("8C 9C TC 8D 5D 8S")
    legal = cards("8C 8D 8S")
    assert domino_key(hand, parse_card("8C")) == (1, 2, 2, 1)
    assert domino_key(hand, parse_card("8D")) == (1, 3, 1, 0)
    assert domino_key(hand, parse_card("8S")) == (0, 0, 0, 0)
    assert card_str(basic_domino_choice(hand, legal)) == "8D"


def test_domino_prefers_unlocking_cards():
    # Club row = {8C}: 9C unlocks nothing, 7C unlocks 3C (reach 4).
    hand = cards("9C 7C 3C 5S")
    assert card_str(basic_domino_choice(hand, cards("9C 7C"))) == "7C"


def test_domino_tie_breaks():
    # All keys equal: the lowest card index.
    assert card_str(basic_domino_choice(cards("8C 8D"), cards("8C 8D"))) == "8C"
    # Nothing unlocks; AD (an end card) has nogift 1, 9C has 0: AD despite its higher index.
    assert domino_key(cards("AD 9C"), parse_card("AD")) == (0, 0, 0, 1)
    assert card_str(basic_domino_choice(cards("AD 9C"), cards("AD 9C"))) == "AD"
    # Holding the next card up counts as no gift: TC with JC beyond.
    assert domino_key(cards("TC JC 6C 2D"), parse_card("TC")) == (1, 1, 1, 1)


# ---------------------------------------------------------------------------
# random
# ---------------------------------------------------------------------------
class _FixedStream:
    def __init__(self, k: int) -> None:
        self.k = k
        self.asked: list[int] = []

    def below(self, n: int) -> int:
        self.asked.append(n)
        return min(self.k, n - 1)


@pytest.mark.parametrize("k, expected", [(0, "5C"), (1, "2D"), (2, "QS")])
def test_random_plays_the_kth_lowest_by_card_index(k, expected):
    # card indexes: 5C = 3, 2D = 13, QS = 49 (not ordered by rank: 2D is the 2nd lowest)
    stream = _FixedStream(k)
    assert card_str(random_choice(cards("QS 2D 5C"), stream)) == expected
    assert stream.asked == [3]
