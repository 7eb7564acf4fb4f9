"""``decide``: one card-play decision from one seat's view. Its card is the engine's own, at
every decision of traced deals (every variant, several rulesets, dealers and mixes of
tiers); a view that cannot arise is refused in one line; random is legal and reproducible."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import bonken_sim
from bonken_sim._core.expert import expert_workspace
from bonken_sim._core.ids import PASS, STRAT_ADVANCED, STRAT_BASIC
from bonken_sim._core.playout import play_staked
from bonken_sim._core.ruleset import standard_table
from bonken_sim.engine.decide import BadView, View, decide
from bonken_sim.engine.play import play, seats_of
from bonken_sim.errors import BadValue
from bonken_sim.rules.names import VARIANTS, card_str, mask_cards, variant_names
from bonken_sim.rules.rulesets import as_ruleset

DEALS = 200
# Each deal plays one of these (and the dealer turns with the deal): random seats too, since
# the advanced tier notes a discard as clean only from a seat that is not random.
MIXES = (
    "basic",
    "advanced",
    "advanced,basic,basic,advanced",
    "basic,random,advanced,random",
    "random,advanced,advanced,basic",
)
RULESETS = ("standard", "strict")


def _views(p):
    """(view, strategy, the card the engine played) at every decision of a non-random seat
    of the played deal ``p``, each view built from what that seat may know."""
    rules = p.ruleset
    name = variant_names(rules)[p.variant.id]
    randoms = tuple(q for q in range(4) if p.strategies[q].name.lower() == "random")
    hands = list(p.hands)
    plays: list[tuple[int, str]] = []
    for c, s in zip(p.plays, p.seats, strict=True):
        played = "pass" if c is None else card_str(c)
        tier = p.strategies[s].name.lower()
        if tier != "random":
            hand = [card_str(x) for x in mask_cards(hands[s])]
            view = View(name, p.dealer, s, hand, tuple(plays), rules, random_seats=randoms)
            yield view, tier, played
        if c is not None:
            hands[s] &= ~(1 << c)
        plays.append((s, played))


@pytest.mark.parametrize("ruleset", RULESETS)
def test_decide_plays_the_engines_card_at_every_decision(ruleset):
    rules = as_ruleset(ruleset)
    checked = 0
    for v in VARIANTS:
        for d in range(DEALS):
            p = play(seed=11, deal=d, variant=v, strategies=MIXES[d % len(MIXES)],
                     dealer=d % 4, ruleset=rules)  # fmt: skip
            for view, tier, played in _views(p):
                got = decide(view, tier)
                assert got.card == played, (ruleset, v.name, d, len(view.plays), view.seat)
                assert played == "pass" or played in got.legal
                checked += 1
    assert checked > len(VARIANTS) * DEALS * 40


def test_decide_the_beer_card():
    """Under bierkaart the 7 of diamonds is the one penalty card and a top card, so the
    advanced tier's clean seats matter there."""
    rules = as_ruleset("bierkaart")
    name = variant_names(rules)[6]
    for d in range(DEALS):
        p = play(seed=5, deal=d, variant=VARIANTS[6], strategies=MIXES[d % len(MIXES)],
                 dealer=d % 4, ruleset=rules)  # fmt: skip
        assert p.name == name
        for view, tier, played in _views(p):
            assert decide(view, tier).card == played


def _staked_deal(deal, v, strat, stake):
    """Deal ``deal`` of seed 4 played by the play loops under the doubles ``stake`` (no seat
    random): the hands and the plays as a Playout has them."""
    hands = np.array(bonken_sim.deal_hands(4, deal), np.uint64)
    dealt = [int(h) for h in hands]
    trace = np.zeros(256, np.int64)
    n = play_staked(standard_table()[v], hands, deal % 4, np.asarray(strat, np.int64),
                    np.uint64(0), np.zeros(52, np.uint64), np.zeros(4, np.int64),
                    np.zeros(4, np.int64), np.zeros(4, np.int64), trace, stake,
                    expert_workspace())  # fmt: skip
    return dealt, [None if c == PASS else int(c) for c in trace[:n]]


def test_decide_weighs_the_doubles_as_the_engine_does():
    """Under doubles the advanced tier discards and ruffs otherwise; decide, given the same
    stake, plays the loops' card still."""
    rng = np.random.default_rng(0)
    differs = 0
    for d in range(30):
        for v in VARIANTS:
            upper = np.triu(rng.integers(0, 3, (4, 4)), 1)
            stake = (upper + upper.T).astype(np.int64)
            adv, basic = STRAT_ADVANCED, STRAT_BASIC
            strat = (adv, basic, adv, adv) if d % 2 else (adv, adv, adv, adv)
            dealt, plays = _staked_deal(d, v.id, strat, stake)
            seats = seats_of(v, d % 4, dealt, plays)
            hands = list(dealt)
            past = [
                (q, "pass" if x is None else card_str(x)) for q, x in zip(seats, plays, strict=True)
            ]
            for i, (c, s) in enumerate(zip(plays, seats, strict=True)):
                view = View(v.name, d % 4, s, [card_str(x) for x in mask_cards(hands[s])],
                            past[:i], stake=stake.tolist())  # fmt: skip
                tier = "advanced" if strat[s] == adv else "basic"
                want = "pass" if c is None else card_str(c)
                assert decide(view, tier).card == want, (v.name, d, i)
                differs += decide(dataclasses.replace(view, stake=None), tier).card != want
                if c is not None:
                    hands[s] &= ~(1 << c)
    assert differs > 0  # the doubles changed some decisions


def test_decide_is_the_package_roots():
    assert bonken_sim.decide is decide and bonken_sim.View is View


def test_decide_from_a_mapping_and_a_string_hand():
    view = {"contract": "domino", "dealer": 3, "seat": 0, "hand": "8C 9C 2D 3D 4D 5D 6D 7D "
            "9D TD JD QD KD"}  # fmt: skip
    assert decide(view).card == "8C"  # the only card that opens a row
    none = dict(view, hand="2D 3D 4D 5D 6D 7D 9D TD JD QD KD AD 2C")
    assert decide(none).card == "pass"


def test_random_is_legal_and_the_same_for_the_same_seed():
    p = play(seed=3, deal=1, variant="hartenjagen", strategies="basic", dealer=2)
    for view, _, _ in _views(p):
        legal = decide(view, "basic").legal
        a = decide(view, "random", seed=9)
        assert a.card in legal
        assert decide(view, "random", seed=9) == a
    first = next(iter(_views(p)))[0]  # the lead of a full hand: many legal cards
    assert len({decide(first, "random", seed=s).card for s in range(20)}) > 3


# A bukken deal with seat 0 leading (dealer 3): the view of seat 2 after these plays.
HEARTS_12 = "2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH"
TRICK_OF_HEARTS = [(0, "AH"), (1, "3H"), (2, "4H"), (3, "5H")]
PASS_THEN_8D = [(0, "pass"), (1, "8C"), (2, "9C"), (3, "7C"), (0, "8D")]


def _bukken(plays, seat=2, hand=HEARTS_12, contract="bukken"):
    return View(contract, dealer=3, seat=seat, hand=hand, plays=plays)


BAD_VIEWS = {
    "a card held and played": (
        _bukken([(0, "2C"), (1, "3C"), (2, "2H"), (3, "5C")]),
        "already played or in the hand",
    ),
    "a card played twice": (
        _bukken([(0, "2C"), (1, "2C")]),
        "already played or in the hand",
    ),
    "a play out of turn": (
        _bukken([(1, "2C")]),
        "is not seat 1's turn",
    ),
    "not this seat's turn": (
        _bukken([(0, "2C")], hand=HEARTS_12 + " AH"),
        "not seat 2's turn",
    ),
    "a revoke shown by a later play": (
        _bukken([(0, "2C"), (1, "2D"), (2, "3C"), (3, "4C"), (3, "5C"), (0, "6C"), (1, "7C")]),
        "play 1: seat 1 may not play 2D",
    ),
    "an earlier play the deciding seat could not make": (
        _bukken(
            [(0, "2C"), (1, "3C"), (2, "2D"), (3, "4C")],
            hand="5C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH",
        ),
        "play 2: seat 2 may not play 2D",
    ),
    "a heart led while heart leads are banned": (
        View("hartenjagen", 3, 0, "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC", TRICK_OF_HEARTS),
        "play 0: seat 0 may not play AH",
    ),
    "a pass in a trick contract": (
        _bukken([(0, "pass")]),
        "not a card of a trick contract",
    ),
    "a Domino card that does not fit": (
        View("domino", 3, 1, "2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS 8S", [(0, "2C")]),
        "seat 0 may not play 2C",
    ),
    "a Domino pass while able to play": (
        View("domino", 3, 1, "2S 3S 4S 5S 6S 7S 9S TS JS QS KS AS", PASS_THEN_8D),
        "play 0: seat 0 passes but plays a card it could have played",
    ),
    "a hand of the wrong size": (
        _bukken([(0, "2C"), (1, "3C")]),
        "holds 12 cards, but 13 less the 0 it played is 13",
    ),
    "an unknown contract": (_bukken([], contract="klaverjassen"), "klaverjassen"),
    "an unknown ruleset": (
        View("bukken", 3, 0, HEARTS_12 + " AH", (), ruleset="nope"),
        "nope",
    ),
    "a seat out of range": (View("bukken", 3, 4, HEARTS_12 + " AH"), "seat must be a seat 0-3"),
    "a play without its seat": (_bukken(["2C"]), "play 0 must be (seat, card)"),
    "a stake that is not 4 x 4": (
        View("bukken", 3, 0, HEARTS_12 + " AH", stake=[[0, 1], [1, 0]]),
        "stake must be 4 x 4",
    ),
}


@pytest.mark.parametrize("case", BAD_VIEWS)
def test_a_view_that_cannot_arise_is_refused_in_one_line(case):
    view, message = BAD_VIEWS[case]
    with pytest.raises(BadValue) as err:
        decide(view)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_the_wrong_hand_size_is_counted_with_the_seats_own_plays():
    view = _bukken([(0, "2C"), (1, "3C"), (2, "4C"), (3, "5C")], seat=0,
                   hand="6C 7C 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH")  # fmt: skip
    with pytest.raises(BadView, match="holds 13 cards, but 13 less the 1 it played is 12"):
        decide(view)


def test_a_finished_deal_has_nothing_to_decide():
    p = play(seed=1, deal=0, variant="bukken", strategies="basic", dealer=3)
    plays = [(s, card_str(c)) for s, c in zip(p.seats, p.plays, strict=True) if c is not None]
    with pytest.raises(BadView, match="nothing is left to decide"):
        decide(View("bukken", 3, 0, [], plays))


@pytest.mark.parametrize("strategy", ["clever", "expert:0", "expert:x"])
def test_a_strategy_decide_does_not_play_is_refused(strategy):
    with pytest.raises(BadValue, match="strategy|expert"):
        decide(View("bukken", 3, 0, HEARTS_12 + " AH"), strategy)


# --- the expert tier from a view ------------------------------------------------------------


def _expert_views(deals: int):
    """Views of the decisions with a choice in traced advanced deals of every variant."""
    for deal in range(deals):
        for v in VARIANTS:
            p = play(seed=5, deal=deal, variant=v.name, strategies="advanced", dealer=deal % 4)
            for view, _tier, _card in _views(p):
                legal = decide(view, "basic").legal
                if len(legal) > 1 and len(view.plays) % 7 == 3:
                    yield view, legal


@pytest.mark.parametrize("expert", ["expert:6", "expert:6:0:3", "expert:6:0:1:100"])
def test_expert_decides_legal_cards_and_explains_them(expert):
    checked = 0
    for view, legal in _expert_views(2):
        d = decide(view, expert, seed=3, explain=True)
        assert d.card in legal and d.legal == legal
        assert {w.option for w in d.weighed} == set(legal)
        values = [w.value for w in d.weighed]
        assert values == sorted(values, reverse=True)
        # it leaves the advanced card only for one it weighed better
        adv = decide(view, "advanced").card
        if d.card != adv:
            by_card = {w.option: w.value for w in d.weighed}
            assert by_card[d.card] > by_card[adv]
        assert decide(view, expert, seed=3, explain=True) == d
        checked += 1
    assert checked > 20


def test_the_stand_in_deal_keeps_every_seats_count_and_exclusions():
    """The deal an expert's search holds in place of the hands it never sees: found
    whenever one exists, each seat with its count and none of the cards it showed it
    lacks; none where none fits."""
    from bonken_sim._core.decide import consistent_hands

    rng = np.random.default_rng(0)
    for _ in range(300):
        deck = rng.permutation(52)
        me = int(rng.integers(4))
        sizes = np.array([int(x) for x in rng.integers(0, 14, 4)], np.int64)
        sizes[me] = 0
        unseen = deck[: int(sizes.sum())]
        # a true deal, then exclusions it satisfies: every seat lacks some suits it lacks
        truth = np.zeros(4, np.uint64)
        at = 0
        for q in range(4):
            for c in unseen[at : at + sizes[q]]:
                truth[q] |= np.uint64(1 << int(c))
            at += sizes[q]
        excl = np.zeros(4, np.uint64)
        for q in range(4):
            for s in range(4):
                suit = np.uint64(((1 << 13) - 1) << (13 * s))
                if truth[q] & suit == 0 and rng.random() < 0.7:
                    excl[q] |= suit
        union = np.uint64(sum(1 << int(c) for c in unseen))
        out = np.zeros(4, np.uint64)
        assert consistent_hands(union, me, sizes, excl, out)
        got = 0
        for q in range(4):
            if q == me:
                continue
            assert bin(int(out[q])).count("1") == sizes[q]
            assert out[q] & excl[q] == 0
            got |= int(out[q])
        assert got == int(union)
    # no deal fits: the two seats to hold the unseen cards may hold only clubs, and one of
    # the four is a spade
    unseen = np.uint64(0b111 | 1 << 39)
    others = np.uint64(2**52 - 1) & ~np.uint64((1 << 13) - 1)
    excl = np.array([0, others, others, 0], np.uint64)
    sizes = np.array([0, 2, 2, 0], np.int64)
    assert not consistent_hands(unseen, 0, sizes, excl, np.zeros(4, np.uint64))
