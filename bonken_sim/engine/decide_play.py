"""A card decision from a seat's view (``PlayView``): the position replayed from the public
plays in the core (``_core/decide.py``) and the tier's card there, for the expert with what
its search weighed."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence

import numpy as np

from bonken_sim._core import decide as D
from bonken_sim._core import verdicts as V
from bonken_sim._core.expert import expert_workspace
from bonken_sim._core.ids import PASS, STRAT_ADVANCED, STRAT_BASIC, STRAT_RANDOM, TIER_MASK
from bonken_sim._core.playout import kernel_table
from bonken_sim.engine.views import (
    BadView,
    Decision,
    PlayView,
    Weighed,
    hand_mask,
    play_stream,
    random_draw,
    ruleset_of,
    seat_of,
    variant_of,
    view_stream,
)
from bonken_sim.rules.names import card_str, mask_cards, parse_card

_MESSAGES = {
    V.NOT_A_CARD: "play {i} ({card}) is not a card of a trick contract",
    V.SEEN: "play {i} ({card}) is a card already played or in the hand",
    V.WRONG_SEAT: "play {i} ({card}) is not seat {seat}'s turn",
    V.NOT_LEGAL: "play {i}: seat {seat} may not play {card} there",
    V.BAD_PASS: "play {i}: seat {seat} passes but plays a card it could have played",
    V.DEAL_OVER: "the plays end the deal at play {i}: nothing is left to decide",
    V.NOT_TO_ACT: "after the plays it is not seat {me}'s turn",
    V.HAND_SIZE: "seat {me} holds {size} cards, but 13 less the {n_own} it played is {want}",
    V.NO_DEAL: "no deal of the unseen cards fits the suits and passes the plays show",
}

# An expert's search works in arrays allocated once per thread (a web server may ask from
# several threads at once).
_local = threading.local()


def _workspace():
    xw = getattr(_local, "xw", None)
    if xw is None:
        xw = _local.xw = expert_workspace()
    return xw


#: a play's card as the protocol and ``card_str`` write it (and ``"pass"``): its code, found
#: in one look-up, before the general parsing (the plays are read at every decision)
_CODES = {**{card_str(c): c for c in range(52)}, "pass": PASS}


def _plays(plays: Sequence[tuple[int, str]]) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(plays, str) or not isinstance(plays, Sequence):
        raise BadView(f"plays must be a list of (seat, card), got {plays!r}")
    seats, codes = [], []
    for i, item in enumerate(plays):
        if type(item) in (tuple, list) and len(item) == 2:
            who, card = item
            if type(who) is int and 0 <= who <= 3 and type(card) is str and card in _CODES:
                seats.append(who)
                codes.append(_CODES[card])
                continue
        if isinstance(item, str) or not isinstance(item, Sequence) or len(item) != 2:
            raise BadView(f"play {i} must be (seat, card), got {item!r}")
        who, card = item
        seats.append(seat_of(who, f"the seat of play {i}"))
        codes.append(PASS if str(card).strip().lower() == "pass" else parse_card(str(card)))
    return np.array(seats, np.int64), np.array(codes, np.int64)


def _stake(stake: Sequence[Sequence[int]] | None) -> np.ndarray:
    if stake is None:
        return np.zeros((4, 4), np.int64)
    if _plain_stake(stake):
        return np.array(stake, np.int64)
    try:
        arr = np.array(stake, dtype=np.int64)
    except (TypeError, ValueError, OverflowError):
        raise BadView(f"stake must be 4 x 4 integers, got {stake!r}") from None
    if arr.shape != (4, 4) or arr.min() < 0 or arr.max() > 2 or np.any(arr != arr.T):
        raise BadView("stake must be 4 x 4, symmetric, each entry 0, 1 or 2")
    if np.any(np.diag(arr) != 0):
        raise BadView("stake must be 0 between a seat and itself")
    return arr


def _plain_stake(stake: Sequence[Sequence[int]]) -> bool:
    """Is ``stake`` 4 x 4 plain integers 0-2, symmetric, 0 on the diagonal (a table's
    stake, checked without numpy; anything else goes through ``_stake``'s checks)?"""
    if type(stake) not in (list, tuple) or len(stake) != 4:
        return False
    if any(type(row) not in (list, tuple) or len(row) != 4 for row in stake):
        return False
    for p, row in enumerate(stake):
        if row[p] != 0:
            return False
        for q, x in enumerate(row):
            if type(x) is not int or not 0 <= x <= 2 or stake[q][p] != x:
                return False
    return True


def _code_str(code: int) -> str:
    return "pass" if code == PASS else card_str(code)


def _refused(verdict: int, index: int, codes: np.ndarray, seats: np.ndarray, me: int,
             hand: int) -> BadView:  # fmt: skip
    """The view's fault the core's verdict names, as a ``BadView``."""
    n_own = int(np.count_nonzero((seats == me) & (codes != PASS)))
    return BadView(
        _MESSAGES[verdict].format(
            i=index,
            card=_code_str(int(codes[index])) if index < len(codes) else "",
            seat=int(seats[index]) if index < len(seats) else -1,
            me=me,
            size=bin(hand).count("1"),
            n_own=n_own,
            want=13 - n_own,
        )
    )


def legal_play(view: PlayView) -> tuple[str, ...]:
    """The cards the seat of ``view`` may play, ``("pass",)`` where Domino leaves it none:
    the position replayed from the view as a decision replays it (``_core/decide.py``), the
    loops' legal set there, and no card chosen."""
    rules = ruleset_of(view.ruleset)
    variant = variant_of(view.contract, rules)
    dealer, me = seat_of(view.dealer, "dealer"), seat_of(view.seat, "seat")
    hand = hand_mask(view.hand)
    seats, codes = _plays(view.plays)
    verdict, index, legal, card = D.decide_card(
        kernel_table(rules.table[variant.id]), np.uint64(hand), dealer, me, codes, seats,
        STRAT_RANDOM, 0, _NO_STAKE, np.zeros(len(codes), np.uint64), np.zeros(4, np.uint64),
    )  # fmt: skip
    if verdict != V.OK:
        raise _refused(int(verdict), int(index), codes, seats, me, hand)
    if card == PASS:
        return ("pass",)
    return tuple(card_str(c) for c in mask_cards(int(legal)))


#: the stake of a view without doubles (the legal cards never read it)
_NO_STAKE = np.zeros((4, 4), np.int64)


def decide_play(view: PlayView, code: int, seed: int, explain: bool,
                stream: np.uint64 | None = None) -> Decision:  # fmt: skip
    """The card the strategy ``code`` (a kernel strategy code) plays in ``view``. Random
    and expert seats draw from ``seed`` and the view, or with ``stream`` (the game kernel's
    stream of the deal) exactly the draws the play loops make there: the expert's samples
    from the deal's play stream at the play's place, a random seat the stream's draw
    numbered by the random plays before it."""
    rules = ruleset_of(view.ruleset)
    variant = variant_of(view.contract, rules)
    dealer, me = seat_of(view.dealer, "dealer"), seat_of(view.seat, "seat")
    hand = hand_mask(view.hand)
    seats, codes = _plays(view.plays)
    random_bits = 0
    for q in view.random_seats:
        random_bits |= 1 << seat_of(q, "a random seat")
    stake = _stake(view.stake)
    row = kernel_table(rules.table[variant.id])
    later = np.zeros(len(codes), np.uint64)
    scratch = np.zeros(4, np.uint64)
    expert = (code & TIER_MASK) not in (STRAT_RANDOM, STRAT_BASIC, STRAT_ADVANCED)
    if expert:
        if stream is None:
            s_play = view_stream(seed, variant.id, dealer, me, hand, *codes, *seats)
        else:
            s_play = play_stream(stream, variant.id)
        xw = _workspace()
        verdict, index, legal, card, tie, k = D.decide_expert(
            row, np.uint64(hand), dealer, me, codes, seats, code, random_bits, stake, later,
            scratch, s_play, xw,
        )  # fmt: skip
    else:
        tier = code if code in (STRAT_BASIC, STRAT_ADVANCED) else STRAT_RANDOM
        verdict, index, legal, card = D.decide_card(
            row, np.uint64(hand), dealer, me, codes, seats, tier, random_bits, stake, later,
            scratch,
        )  # fmt: skip
    if verdict != V.OK:
        raise _refused(int(verdict), int(index), codes, seats, me, hand)
    legal_cards = mask_cards(int(legal))
    if card == PASS:
        return Decision("pass", ())
    if code == STRAT_RANDOM and stream is not None:
        # every card a random seat lays takes the next draw, a forced one too (the loops)
        k = sum(1 for q, c in zip(seats, codes, strict=True) if random_bits >> q & 1 and c != PASS)
        card = legal_cards[random_draw(play_stream(stream, variant.id), k, len(legal_cards))]
    elif code == STRAT_RANDOM:
        entropy = [int(seed), variant.id, dealer, me, hand, *map(int, codes), *map(int, seats)]
        rng = np.random.default_rng(np.random.SeedSequence(entropy))
        card = legal_cards[int(rng.integers(len(legal_cards)))]
    weighed: tuple[Weighed, ...] = ()
    if expert and explain and int(k) > 0:
        xw = _workspace()
        k_eff = float(xw.infer.k_eff[0])
        weighed = _expert_weighed(legal_cards, int(tie), int(k), xw.roll.sums, k_eff)
    return Decision(card_str(int(card)), tuple(card_str(c) for c in legal_cards), weighed=weighed)


def _expert_weighed(
    cards: list[int], tie: int, k: int, sums: np.ndarray, k_eff: float
) -> tuple[Weighed, ...]:
    """Each legal card's mean score over the samples the expert tried it on (``k`` in all),
    best first: the reference (advanced) card's own mean and standard error, every other
    card that mean plus its paired mean difference, with the difference's standard error
    (with inference, counted over the effective number of samples, ``k_eff`` of ``k``: a
    sample kept twice is not two; a card equivalent to one rolled out, the other card's
    figures, and one equivalent to the advanced card, its value with a zero error)."""
    base = sums[0, tie] / sums[2, tie]
    out = []
    for c in cards:
        total, squares, n = float(sums[0, c]), float(sums[1, c]), int(sums[2, c])
        mean = total / n
        var = (squares - total * mean) / (n - 1) if n > 1 else math.nan
        se = math.sqrt(max(var, 0.0) / (n * k_eff / k)) if n > 1 else None
        value = mean if c == tie else base + mean
        out.append(
            Weighed(card_str(c), round(float(value), 4), None if se is None else round(se, 4))
        )
    return tuple(sorted(out, key=lambda w: -w.value))
