"""Whole deals, every contract and every seat in one go (``solve_deal``, what
``solve --contract all --seat all`` runs), against the plain search of the brute force.

The deals are dealt from small decks, small enough for the brute force: the sixteen court
cards (J, Q, K, A of every suit: every point card of herenboeren, vrouwen and hartenheer in
play, as at a deal's start) and the thirteen hearts with three more cards (every heart
still held: hearts unbroken, as at a deal's start). One table serves all the solves of a
deal, as in the command."""

from __future__ import annotations

import random

import pytest

from bonken_sim.engine.solve import solve_deal, trick_variants
from bonken_sim.rules.names import card_str, variant_name
from bonken_sim.rules.rulesets import preset
from tests.reference import solver as R
from tests.reference.rules import VARIANTS, Rules

COURTS = [13 * s + r for s in range(4) for r in range(9, 13)]  # J, Q, K, A
HEARTS = [13 * 2 + r for r in range(13)]


def _deal(rng: random.Random, deck: list[int]) -> list[set[int]]:
    cards = rng.sample(deck, len(deck))
    k = len(cards) // 4
    return [set(cards[i * k : (i + 1) * k]) for i in range(4)]


def _text(hands: list[set[int]]) -> str:
    return " / ".join(" ".join(card_str(c) for c in sorted(h)) for h in hands)


def _check_deal(hands: list[set[int]], leader: int, rs_name: str) -> None:
    rules = preset(rs_name)
    ref_rules = Rules.from_record(rules.to_dict())
    solved = solve_deal(_text(hands), leader, ruleset=rules, table_bits=14)
    assert [c.variant for c in solved] == list(trick_variants(rules))
    for c in solved:
        assert c.unsolved is None and [r.seat for r in c.results] == [0, 1, 2, 3]
        contract, trump = VARIANTS[c.variant.id]
        trump_suit = None if trump in (None, "NT") else "CDHS".index(trump)
        assert c.name == variant_name(c.variant, rules)
        for r in c.results:
            want, cards = R.solve(hands, contract, trump_suit, leader, r.seat, ref_rules)
            where = f"{rs_name} {c.name} {_text(hands)} leader {leader} seat {r.seat}"
            assert r.value == want, where
            assert r.cards == {card_str(x): v for x, v in cards.items()}, where


@pytest.mark.parametrize("rs_name", ["standard", "strict"])
def test_court_card_deals_match_the_plain_search(rs_name):
    rng = random.Random(f"court-deals-{rs_name}")
    for i in range(2):  # each deal: 44 brute-force solves (11 contracts, 4 seats)
        _check_deal(_deal(rng, COURTS), i % 4, rs_name)


@pytest.mark.parametrize("rs_name", ["standard", "strict"])
def test_unbroken_heart_deals_match_the_plain_search(rs_name):
    rng = random.Random(f"heart-deals-{rs_name}")
    others = rng.sample([c for c in range(52) if c not in HEARTS], 3)
    _check_deal(_deal(rng, HEARTS + others), 1, rs_name)
