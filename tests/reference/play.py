"""Play one deal in one contract variant with the given strategies (ENGINE.md "Play")."""

from __future__ import annotations

from .rng import deal_hands, play_stream
from .rules import STANDARD, VARIANTS, DominoDeal, Rules, TrickDeal, contract_of, trump_suit_of
from .strategies import (
    BASIC,
    RANDOM,
    TrickView,
    basic_domino_choice,
    basic_trick_choice,
    random_choice,
)


def play_deal(
    seed: int,
    deal: int,
    variant_id: int,
    strategies: tuple[int, int, int, int] = (BASIC, BASIC, BASIC, BASIC),
    dealer: int = 0,
    rules: Rules = STANDARD,
) -> dict:
    """Deal ``deal`` of run ``seed`` and play it out in contract variant ``variant_id``.

    ``strategies[p]`` is 0 (random) or 1 (basic) for seat p.  Returns a dict with
    ``hands`` (4 sorted lists of card ints, as dealt), ``plays`` (card ints, "pass" for a
    Domino pass), ``seats`` (who made each play), ``scores`` (4 raw scores), ``tricks``
    (tricks per seat; zeros for Domino) and ``out_order`` (Domino: seats in the order they
    went out; [] otherwise). ``rules``: the house rules (default RULES.md).
    """
    if not 0 <= variant_id < len(VARIANTS):
        raise ValueError(f"unknown variant id {variant_id}")
    if len(strategies) != 4 or any(s not in (RANDOM, BASIC) for s in strategies):
        raise ValueError(f"strategies must be four of 0 (random) / 1 (basic): {strategies!r}")
    if dealer not in (0, 1, 2, 3):
        raise ValueError(f"dealer must be 0..3, got {dealer!r}")
    contract, trump = contract_of(variant_id, rules)  # the beer card in Domino's slot
    hands = deal_hands(seed, deal)
    stream = play_stream(seed, deal, variant_id)
    plays: list[int | str] = []
    seats: list[int] = []

    if contract == "domino":
        domino = DominoDeal(hands=[set(h) for h in hands], dealer=dealer, rules=rules)
        while not domino.finished:
            seat = domino.to_act()
            legal = domino.legal(seat)
            if not legal:
                domino.pass_turn()  # a pass draws nothing
                plays.append("pass")
            else:
                if strategies[seat] == RANDOM:
                    card = random_choice(legal, stream)
                else:
                    card = basic_domino_choice(
                        domino.hands[seat], legal, rules.open_rank, domino.aces
                    )
                domino.play(card)
                plays.append(card)
            seats.append(seat)
        return {
            "hands": hands,
            "plays": plays,
            "seats": seats,
            "scores": domino.scores(),
            "tricks": [0, 0, 0, 0],
            "out_order": list(domino.out_order),
        }

    game = TrickDeal(
        contract=contract,
        trump_suit=trump_suit_of(trump),
        hands=[set(h) for h in hands],
        dealer=dealer,
        rules=rules,
    )
    while not game.finished:
        seat = game.to_act()
        if strategies[seat] == RANDOM:
            card = random_choice(game.legal(seat), stream)
        else:
            card = basic_trick_choice(TrickView.from_deal(game))
        game.play(card)
        plays.append(card)
        seats.append(seat)
    return {
        "hands": hands,
        "plays": plays,
        "seats": seats,
        "scores": game.scores(),
        "tricks": game.trick_counts(),
        "out_order": [],
    }
