"""Replay a trace in the golden-trace format, checking every step against RULES.md."""

from __future__ import annotations

from .cards import card_str, parse_card, sorted_strs
from .rules import (
    BEER_CARD_CONTRACT,
    VARIANTS,
    DominoDeal,
    IllegalPlay,
    Rules,
    TrickDeal,
    trump_suit_of,
)


def _parse_hands(record: dict) -> list[set[int]]:
    hands = record.get("hands")
    if not isinstance(hands, list) or len(hands) != 4:
        raise IllegalPlay("hands: need a list of 4 hands")
    seen: dict[int, int] = {}
    parsed: list[set[int]] = []
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list) or len(hand) != 13:
            n = len(hand) if isinstance(hand, list) else "no"
            raise IllegalPlay(f"hands: seat {seat} holds {n} cards, not 13")
        cards: set[int] = set()
        for text in hand:
            try:
                c = parse_card(text)
            except ValueError:
                raise IllegalPlay(f"hands: seat {seat} holds unknown card {text!r}") from None
            if c in seen:
                raise IllegalPlay(f"hands: {card_str(c)} dealt to seat {seen[c]} and seat {seat}")
            seen[c] = seat
            cards.add(c)
        parsed.append(cards)
    assert len(seen) == 52  # 4 x 13 distinct cards out of 52
    return parsed


def _parse_play(entry: object, where: str) -> int:
    if not isinstance(entry, str):
        raise IllegalPlay(f"{where} made a play that is not a card: {entry!r}")
    try:
        return parse_card(entry)
    except ValueError:
        raise IllegalPlay(f"{where} played unknown card {entry!r}") from None


def replay(record: dict) -> list[int]:
    """Replay ``record`` (keys dealer, contract, trump, hands, plays) and return raw scores.

    Raises IllegalPlay (a ValueError) at the first step that breaks the rules, or when the
    record itself is malformed (bad hands, unknown cards, too few or too many plays).
    A trace may end early only where RULES.md allows it (§2.5: every penalty card already
    in a completed trick; §4.5: three Domino players out); the scores are then the ones the
    played-out deal must have.
    """
    return replay_detail(record)["scores"]


def replay_detail(record: dict) -> dict:
    """Like ``replay`` but returns {"scores", "tricks", "out_order", "complete"}."""
    if not isinstance(record, dict):
        raise IllegalPlay("record is not a dict")
    dealer = record.get("dealer")
    if isinstance(dealer, bool) or dealer not in (0, 1, 2, 3):
        raise IllegalPlay(f"dealer must be 0..3, got {dealer!r}")
    contract, trump = record.get("contract"), record.get("trump")
    if (contract, trump) not in [*VARIANTS, (BEER_CARD_CONTRACT, None)]:
        raise IllegalPlay(f"unknown contract {contract!r} with trump {trump!r}")
    hands = _parse_hands(record)
    plays = record.get("plays")
    if not isinstance(plays, list):
        raise IllegalPlay("plays: need a list")
    try:
        rules = Rules.from_record(record.get("ruleset"))
    except (ValueError, TypeError, AttributeError) as exc:
        raise IllegalPlay(f"ruleset: {exc}") from None
    # the beer card is played in Domino's place: a ruleset plays one of the two, never both
    if (contract == BEER_CARD_CONTRACT and not rules.beer_card) or (
        contract == "domino" and rules.beer_card
    ):
        raise IllegalPlay(f"{contract} is not played under the record's ruleset")
    if contract == "domino":
        return _replay_domino(hands, dealer, plays, rules)
    return _replay_tricks(hands, dealer, str(contract), trump, plays, rules)


def _replay_tricks(
    hands: list[set[int]],
    dealer: int,
    contract: str,
    trump: str | None,
    plays: list,
    rules: Rules,
) -> dict:
    game = TrickDeal(
        contract=contract,
        trump_suit=trump_suit_of(trump),
        hands=hands,
        dealer=dealer,
        rules=rules,
    )
    for i, entry in enumerate(plays):
        if game.finished:
            raise IllegalPlay(f"play {i + 1}: {entry!r} after all 13 tricks were played")
        seat = game.to_act()
        where = f"trick {game.trick_number}: seat {seat}"
        legal = game.legal(seat)
        if entry == "pass":
            raise IllegalPlay(f"{where} passed; legal {sorted_strs(legal)}")
        card = _parse_play(entry, where)
        if card not in legal:
            on_table = [card_str(c) for c in game.trick_cards()]
            raise IllegalPlay(
                f"{where} played {card_str(card)} to {on_table}; legal {sorted_strs(legal)}"
            )
        game.play(card)
    if not game.can_stop_early():
        raise IllegalPlay(
            f"trace ends after {len(plays)} plays (trick {game.trick_number}) "
            f"while remaining cards can still change the {contract} scores"
        )
    return {
        "scores": game.scores(),
        "tricks": game.trick_counts(),
        "out_order": [],
        "complete": game.finished,
    }


def _replay_domino(hands: list[set[int]], dealer: int, plays: list, rules: Rules) -> dict:
    game = DominoDeal(hands=hands, dealer=dealer, rules=rules)
    for i, entry in enumerate(plays):
        if game.finished:
            raise IllegalPlay(f"play {i + 1}: {entry!r} after all 52 cards were laid")
        seat = game.to_act()
        legal = game.legal(seat)
        if entry == "pass":
            if legal:
                raise IllegalPlay(f"seat {seat} passed holding {sorted_strs(legal)}")
            game.pass_turn()
            continue
        card = _parse_play(entry, f"seat {seat}")
        if card not in legal:
            raise IllegalPlay(f"seat {seat} played {card_str(card)}; legal {sorted_strs(legal)}")
        game.play(card)
    if not game.can_stop_early():
        raise IllegalPlay(
            f"trace ends after {len(plays)} plays with {52 - game.laid} cards unlaid "
            f"and only {len(game.out_order)} players out"
        )
    return {
        "scores": game.scores(),
        "tricks": [0, 0, 0, 0],
        "out_order": list(game.out_order),
        "complete": game.finished,
    }


def to_record(result: dict, variant_id: int, dealer: int = 0) -> dict:
    """Turn a ``play_deal`` result into a golden-trace-format record."""
    contract, trump = VARIANTS[variant_id]
    return {
        "dealer": dealer,
        "contract": contract,
        "trump": trump,
        "hands": [[card_str(c) for c in sorted(h)] for h in result["hands"]],
        "plays": [p if p == "pass" else card_str(p) for p in result["plays"]],
    }
