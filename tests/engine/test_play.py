"""The engine's Python face (bonken_sim.engine.play): trick results, seats and trick winners
come from the core, and agree with the pure-Python reference (tests/reference)."""

from __future__ import annotations

import pytest

from bonken_sim.engine.play import play, seats_of, trick_winner
from bonken_sim.rules.names import VARIANTS, Variant
from bonken_sim.rules.rulesets import PRESETS, Ruleset
from tests.reference.rules import (
    Rules,
    TrickDeal,
    contract_of,
    penalty_points,
    trump_suit_of,
)

DEALS = 200
CHANGED_POINTS = {"troeven.trick": 7, "laatste_slag.last_trick": -35, "herenboeren.jack": -15}
POINTS = tuple((k, CHANGED_POINTS.get(k, v)) for k, v in PRESETS["standard"].points)
RULESETS = {
    "standard": PRESETS["standard"],
    "strict": PRESETS["strict"],
    "bierkaart": PRESETS["bierkaart"],
    "points": Ruleset(name="t", points=POINTS),
}
TRICK_CASES = [
    (name, v)
    for name, rules in RULESETS.items()
    for v in VARIANTS
    if v.id != 6 or rules.beer_card  # variant 6 is a trick contract only as the beer card
]


def reference_points(contract: str, cards: list[int], last: bool, rules: Rules) -> int:
    """What the winner of a trick scores by the reference's scoring rules."""
    pts = -sum(penalty_points(contract, c, rules) for c in cards)
    if contract in ("bukken", "troeven"):
        pts += rules.value(f"{contract}.trick")
    if contract == "laatste_slag" and last:
        pts += rules.value("laatste_slag.last_trick")
    return pts


@pytest.mark.parametrize("name, variant", TRICK_CASES, ids=[f"{n}-{v}" for n, v in TRICK_CASES])
def test_trick_results_match_the_reference(name: str, variant: Variant) -> None:
    ruleset = RULESETS[name]
    ref_rules = Rules.from_record(ruleset.to_dict())
    contract, trump = contract_of(variant.id, ref_rules)
    for d in range(DEALS):
        strategies = ("basic", "random", "advanced")[d % 3]
        p = play(seed=3, deal=d, variant=variant, strategies=strategies, dealer=d % 4,
                 ruleset=ruleset)  # fmt: skip
        game = TrickDeal(
            contract=contract,
            trump_suit=trump_suit_of(trump),
            hands=[{c for c in range(52) if h >> c & 1} for h in p.hands],
            dealer=p.dealer,
            rules=ref_rules,
        )
        for c in p.plays:
            assert c is not None
            game.play(c)
        results = p.trick_results()
        assert len(results) == len(game.completed) == 13
        per_seat = [0, 0, 0, 0]
        for t, (r, (leader, trick, winner)) in enumerate(zip(results, game.completed, strict=True)):
            assert r.leader == leader == r.seats[0]
            assert list(zip(r.seats, r.cards, strict=True)) == trick
            assert r.winner == winner
            assert r.points == reference_points(contract, r.cards, t == 12, ref_rules)
            per_seat[r.winner] += r.points
        assert per_seat == p.scores == game.scores()


def test_domino_has_no_trick_results() -> None:
    p = play(seed=1, deal=0, variant="domino", strategies="basic")
    assert p.trick_results() == []


def test_seats_of_matches_the_seats_played() -> None:
    for v in VARIANTS:
        p = play(seed=5, deal=2, variant=v, strategies="random", dealer=3)
        assert seats_of(p.variant, p.dealer, p.hands, p.plays) == p.seats
        if not p.is_domino:
            assert [r.leader for r in p.trick_results()] == p.seats[::4]


@pytest.mark.parametrize(
    "trick, trump, winner",
    [
        ([0, 12, 5, 1], None, 1),  # 2C A C 7C 3C: the ace of the led suit
        ([0, 12, 5, 1], "NT", 1),
        ([0, 13, 5, 1], "D", 1),  # a diamond ruffs a club lead
        ([0, 13, 51, 26], "S", 2),  # the only spade, the A of spades
        ([13, 14, 0, 25], "C", 2),  # a club ruffs the diamond lead
        ([26, 27, 39, 28], "H", 3),  # highest heart; spade is off-suit
    ],
)
def test_trick_winner(trick: list[int], trump: str | None, winner: int) -> None:
    assert trick_winner(trick, trump) == winner
