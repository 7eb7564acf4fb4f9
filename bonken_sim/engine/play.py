"""Single deals: play one deal of one variant, export it as a trace record, replay a record.

A trace record is one JSON object (see the README): deal, dealer, contract, trump, the four
hands, every play in order (``"pass"`` for a Domino pass) and the raw scores.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bonken_sim._core import kernels as K
from bonken_sim._core import verdicts as V
from bonken_sim._core.ids import PASS
from bonken_sim._core.replay import N_RESULT_FIELDS, R_LEADER, R_POINTS, R_WINNER
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import F_KIND, KIND_DOMINO
from bonken_sim._core.trick import beats
from bonken_sim.engine.strategies import (
    SeatStrategy,
    is_expert,
    parse_strategies,
    strategy_array,
)
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.processes import interruptible
from bonken_sim.rules.names import (
    Variant,
    card_str,
    contract_name,
    make_variant,
    mask_cards,
    parse_card,
    parse_variant,
    variant_name,
)
from bonken_sim.rules.rulesets import STANDARD, RulesError, Ruleset, as_ruleset

MAX_SEED = 2**64 - 1
#: the largest deal index of a seed (the kernels take it as an int64)
MAX_DEAL = 2**63 - 1


class IllegalPlay(UserFixableError, ValueError):
    """A trace that breaks the rules; the message names the first broken step."""


def check_seed(seed: int) -> int:
    if not isinstance(seed, int | np.integer) or not 0 <= int(seed) <= MAX_SEED:
        raise BadValue(f"seed must be an integer from 0 to 2**64-1, got {seed!r}")
    return int(seed)


def check_deal(deal: int) -> int:
    if not isinstance(deal, int | np.integer) or not 0 <= int(deal) <= MAX_DEAL:
        raise BadValue(f"deal index must be an integer from 0 to 2**63-1, got {deal!r}")
    return int(deal)


def check_dealer(dealer: int) -> int:
    if dealer not in (0, 1, 2, 3):
        raise BadValue(f"dealer must be a seat 0-3, got {dealer!r}")
    return int(dealer)


def deal_hands(seed: int, deal: int) -> list[int]:
    """The four hands (bitmasks) of deal ``deal`` of ``seed``."""
    hands = np.zeros(4, np.uint64)
    K.deal_hands(seed_key(check_seed(seed)), check_deal(deal), hands)
    return [int(h) for h in hands]


@dataclass(frozen=True)
class TrickResult:
    """One trick as the engine played and scored it."""

    leader: int  # the seat that led
    seats: tuple[int, ...]  # the four seats in playing order
    cards: tuple[int, ...]  # their cards, in the same order
    winner: int  # the seat that took the trick
    points: int  # what the winner scored for it (the last trick's points included)


@dataclass
class Playout:
    """One deal of one variant, played: who played what, tricks and scores."""

    seed: int
    deal: int
    dealer: int
    variant: Variant
    strategies: tuple[SeatStrategy, ...]
    hands: list[int]
    plays: list[int | None]  # card index, or None for a Domino pass
    seats: list[int]
    scores: list[int]
    tricks: list[int]
    out_order: list[int] = field(default_factory=list)  # Domino: seats in the order out
    ruleset: Ruleset = STANDARD

    @property
    def is_domino(self) -> bool:
        """Played as Domino (variant 6 under a ruleset whose slot 6 is Domino)."""
        return is_domino(self.variant, self.ruleset)

    @property
    def name(self) -> str:
        """The variant's name under the ruleset (``bierkaart`` where it takes Domino's place)."""
        return variant_name(self.variant, self.ruleset)

    @property
    def contract_name(self) -> str:
        return contract_name(self.variant, self.ruleset)

    def trick_results(self) -> list[TrickResult]:
        """Every trick of a trick contract (none for Domino): its seats and cards, who took
        it and what it scored, from the engine's own replay of the plays."""
        if self.is_domino:
            return []
        walk = _walk(self.variant, self.dealer, self.hands, self.plays, self.ruleset)
        return [
            TrickResult(
                leader=int(walk.results[t, R_LEADER]),
                seats=tuple(self.seats[4 * t : 4 * t + 4]),
                cards=tuple(int(c) for c in self.plays[4 * t : 4 * t + 4] if c is not None),
                winner=int(walk.results[t, R_WINNER]),
                points=int(walk.results[t, R_POINTS]),
            )
            for t in range(len(self.plays) // 4)
        ]

    def record(self) -> dict:
        """The trace record (the exact ``bonken-sim trace`` JSON object)."""
        return {
            "deal": self.deal,
            "dealer": self.dealer,
            "contract": self.contract_name,
            "trump": self.variant.trump,
            "hands": [[card_str(c) for c in mask_cards(h)] for h in self.hands],
            "plays": [card_str(c) if c is not None else "pass" for c in self.plays],
            "scores": list(self.scores),
            "ruleset": self.ruleset.to_dict(),
        }


def trick_winner(trick: Sequence[int | None], trump: str | None) -> int:
    """Index in ``trick`` (cards in playing order) of the card that wins it (the core's
    ``trick.beats`` decides)."""
    trump_suit = "CDHS".index(trump) if trump in ("C", "D", "H", "S") else -1
    win = 0
    for i in range(1, len(trick)):
        a, b = trick[i], trick[win]
        assert a is not None and b is not None
        if beats(a, b, trump_suit):
            win = i
    return win


def is_domino(variant: Variant, ruleset: Ruleset = STANDARD) -> bool:
    """Is ``variant`` played as Domino under ``ruleset`` (not so the beer card in its slot)?"""
    return bool(ruleset.table[variant.id, F_KIND] == KIND_DOMINO)


@dataclass
class _Walk:
    """The replay kernel's verdict on a record and what it found on the way."""

    verdict: int
    index: int  # the offending entry (or the number of entries read)
    seat: int  # the seat to act at ``index`` (-1 once the deal is over)
    legal: int  # that seat's legal cards there (a mask)
    scores: np.ndarray
    seats: np.ndarray  # who made each play
    results: np.ndarray  # (13, 3): each trick's leader, winner and points (trick contracts)


def _walk(
    variant: Variant,
    dealer: int,
    hands: Sequence[int],
    plays: Sequence[int | None],
    ruleset: Ruleset = STANDARD,
) -> _Walk:
    """Replay ``plays`` (card indices, None or PASS for a pass) in the engine's kernel."""
    codes = np.array([PASS if c is None else c for c in plays], dtype=np.int64)
    scores = np.zeros(4, np.int64)
    seats = np.full(len(codes), -1, np.int64)
    results = np.zeros((13, N_RESULT_FIELDS), np.int64)
    verdict, index, seat, legal = K.replay(
        ruleset.table[variant.id],
        np.array(hands, dtype=np.uint64),
        dealer,
        codes,
        scores,
        np.zeros(4, np.int64),
        seats,
        results,
    )
    return _Walk(int(verdict), int(index), int(seat), int(legal), scores, seats, results)


def seats_of(
    variant: Variant,
    dealer: int,
    hands: list[int],
    plays: list[int | None],
    ruleset: Ruleset = STANDARD,
) -> list[int]:
    """Which seat made each play of a legal record (follows from the rules; the engine's
    replay walks it)."""
    return [int(p) for p in _walk(variant, dealer, hands, plays, ruleset).seats]


def play(
    seed: int,
    deal: int,
    variant: Variant | str,
    strategies: str | Sequence[str | int | SeatStrategy] = "basic",
    dealer: int = 0,
    trump: str | None = None,
    ruleset: Ruleset | str | dict | None = None,
) -> Playout:
    """Play deal ``deal`` of ``seed`` in one contract variant under ``ruleset`` (a Ruleset,
    a preset name or a ruleset record; default: RULES.md).

    >>> p = play(seed=1, deal=0, variant="troeven_H", strategies="basic")
    >>> sum(p.scores), sum(p.tricks)
    (130, 13)
    """
    rules = as_ruleset(ruleset)
    if isinstance(variant, str):
        variant = (
            make_variant(variant, trump, ruleset=rules)
            if trump is not None
            else parse_variant(variant, ruleset=rules)
        )
    seed, deal, dealer = check_seed(seed), check_deal(deal), check_dealer(dealer)
    strats = parse_strategies(strategies)
    hands = np.zeros(4, np.uint64)
    scores = np.zeros(4, np.int64)
    tricks = np.zeros(4, np.int64)
    order = np.zeros(4, np.int64)
    trace = np.zeros(K.TRACE_LEN, np.int64)
    args = (seed_key(seed), deal, dealer, variant.id, strategy_array(strats), rules.table)
    outs = (hands, scores, tricks, order, trace)
    if any(is_expert(s) for s in strats):
        # An expert seat's search can run for hours (many samples, each solved to the end),
        # and Ctrl-C must stop it. Other deals take microseconds: a thread each would cost
        # more than the deal (`trace` plays millions).
        n = interruptible(K.trace_deal, *args, *outs)
    else:
        n = K.trace_deal(*args, *outs)
    hand_list = [int(h) for h in hands]
    plays: list[int | None] = [None if c == PASS else int(c) for c in trace[:n]]
    out_order = []
    if is_domino(variant, rules):
        out_order = [p for _, p in sorted((int(order[p]), p) for p in range(4) if order[p] >= 0)]
        out_order += [p for p in range(4) if order[p] < 0]
    return Playout(
        seed=seed,
        deal=deal,
        dealer=dealer,
        variant=variant,
        strategies=strats,
        hands=hand_list,
        plays=plays,
        seats=seats_of(variant, dealer, hand_list, plays, rules),
        scores=[int(x) for x in scores],
        tricks=[int(x) for x in tricks],
        out_order=out_order,
        ruleset=rules,
    )


_VERDICTS = {
    V.NOT_IN_HAND: "does not hold",
    V.NOT_LEGAL: "may not play",
    V.BAD_PASS: "passed while able to play",
    V.TOO_MANY: "plays continue after the deal is over",
    V.TOO_FEW: "the plays stop before the deal is decided",
}


def _record_variant(record: dict, ruleset: Ruleset = STANDARD) -> Variant:
    try:
        return make_variant(str(record["contract"]), record.get("trump"), ruleset=ruleset)
    except KeyError as exc:
        raise IllegalPlay(f"record has no {exc.args[0]!r}") from None
    except ValueError as exc:
        raise IllegalPlay(str(exc)) from None


def record_ruleset(record: dict) -> Ruleset:
    """The ruleset a trace record was played under (RULES.md when it names none)."""
    data = record.get("ruleset")
    if data is None:
        return STANDARD
    try:
        return _ruleset_of(json.dumps(data, sort_keys=True))
    except RulesError as exc:
        raise IllegalPlay(str(exc)) from None


@functools.lru_cache(maxsize=64)
def _ruleset_of(key: str) -> Ruleset:
    """One Ruleset (and one table) per distinct ruleset record of a trace file."""
    return Ruleset.from_dict(json.loads(key), where="record ruleset")


def replay(record: dict) -> list[int]:
    """Replay a trace record card by card under the rules it records (its ``"ruleset"``,
    else RULES.md); return the raw scores.

    Raises IllegalPlay naming the first broken rule.
    """
    rules = record_ruleset(record)
    variant = _record_variant(record, rules)
    dealer = record.get("dealer")
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer <= 3:
        raise IllegalPlay(f"dealer must be a seat 0-3, got {dealer!r}")
    try:
        hand_cards = [[parse_card(c) for c in h] for h in record["hands"]]
        raw_plays = record["plays"]
        plays = [K.PASS if p == "pass" else parse_card(p) for p in raw_plays]
    except (KeyError, TypeError, ValueError) as exc:
        raise IllegalPlay(f"malformed record: {exc}") from None
    if len(hand_cards) != 4 or any(len(h) != 13 for h in hand_cards):
        raise IllegalPlay("hands must be four hands of 13 cards")
    masks = [sum(1 << c for c in h) for h in hand_cards]
    if (
        sum(bin(m).count("1") for m in masks) != 52
        or (masks[0] | masks[1] | masks[2] | masks[3]) != 2**52 - 1
    ):
        raise IllegalPlay("the hands do not partition the deck")
    walk = _walk(variant, dealer, masks, plays, rules)
    if walk.verdict != V.OK:
        where = _describe_step(variant, walk.index, rules)
        what = _VERDICTS[walk.verdict]
        if walk.verdict in (V.NOT_IN_HAND, V.NOT_LEGAL, V.BAD_PASS):
            legal_txt = sorted(card_str(c) for c in mask_cards(walk.legal))
            card = raw_plays[walk.index]
            if walk.verdict == V.BAD_PASS:
                raise IllegalPlay(f"{where}: seat {walk.seat} {what}; legal {legal_txt}")
            raise IllegalPlay(f"{where}: seat {walk.seat} {what} {card}; legal {legal_txt}")
        raise IllegalPlay(f"{where}: {what}")
    return [int(x) for x in walk.scores]


def _describe_step(variant: Variant, i: int, ruleset: Ruleset = STANDARD) -> str:
    if is_domino(variant, ruleset):
        return f"turn {i + 1}"
    return f"trick {i // 4 + 1}"
