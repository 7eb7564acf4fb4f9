"""One deal's card play on bitmasks, for callers that step a deal one play at a time and
copy their state often (the research adapters, ``bonken_sim.research``): the seat to act
and its legal cards after a list of play codes, the raw scores once the deal is over, and
deals of the cards a seat has not seen that fit everything it saw.

Every answer comes from the core's own rules: the replay kernel (``_core/replay.py``, the
legal set and the scores the play loops use), Domino's lay step (``_core/domino.py``) and
the expert's sampler of consistent deals (``_core/determinize.py``). A play code is a card
id 0-51 or ``PASS`` (52, a Domino pass), as in a trace.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from bonken_sim._core import replay as K
from bonken_sim._core.determinize import sample_hands
from bonken_sim._core.domino import domino_lay, domino_opening
from bonken_sim._core.ids import KIND_DOMINO
from bonken_sim._core.ids import PASS as PASS_CODE
from bonken_sim._core.ruleset import F_DOMINO_ACES, F_DOMINO_OPEN, F_KIND, F_TOTAL

PASS = PASS_CODE
#: plays a deal can hold: 52 cards and Domino's passes (at most three between two cards laid)
MAX_PLAYS = 52 * 4
#: draws of the sampler before a deal that fits is given up for the true one
MAX_DRAWS = 256
_SUIT = [np.uint64(0x1FFF << (13 * s)) for s in range(4)]


class EngineDisagrees(RuntimeError):
    """The replay kernel refuses plays a caller applied as legal: a bug in the caller."""


class Scratch:
    """The replay kernel's arrays, allocated once (the kernel writes into them)."""

    def __init__(self) -> None:
        self.scores = np.zeros(4, np.int64)
        self.tricks = np.zeros(4, np.int64)
        self.seats = np.full(MAX_PLAYS, -1, np.int64)
        self.results = np.zeros((0, K.N_RESULT_FIELDS), np.int64)


_SCRATCH = Scratch()


def walk(row: np.ndarray, dealt: Sequence[int], dealer: int, plays: Sequence[int],
         scratch: Scratch = _SCRATCH) -> tuple[int, int, tuple[int, ...] | None]:  # fmt: skip
    """(the seat to act, its legal cards as a mask (0: it must pass), None) after ``plays``
    of the deal dealt ``dealt`` (four card masks) with dealer ``dealer``; once the deal is
    over (every card laid, or Domino's last seat left holding cards): (-1, 0, the raw scores).
    ``row`` is the ruleset table's read-only row of the variant played."""
    codes = np.array(plays, np.int64)
    n = codes.shape[0]
    verdict, index, seat, mask = K.replay(row, np.array(dealt, np.uint64), dealer, codes,
                                          scratch.scores, scratch.tricks, scratch.seats[:n],
                                          scratch.results)  # fmt: skip
    if verdict == K.TOO_FEW or (verdict == K.OK and seat >= 0):
        return int(seat), int(mask), None
    if verdict == K.OK:
        return -1, 0, tuple(int(x) for x in scratch.scores)
    raise EngineDisagrees(f"play {index} of the deal broke a rule (replay verdict {verdict})")


def seats_of(row: np.ndarray, dealt: Sequence[int], dealer: int, plays: Sequence[int],
             scratch: Scratch = _SCRATCH) -> list[int]:  # fmt: skip
    """The seat that made each play of ``plays`` (legal plays, as ``walk`` accepts)."""
    walk(row, dealt, dealer, plays, scratch)
    return [int(x) for x in scratch.seats[: len(plays)]]


def unseen_exclusions(row: np.ndarray, dealt: Sequence[int], dealer: int,
                      plays: Sequence[int], seats: Sequence[int]) -> list[int]:  # fmt: skip
    """Per seat, the cards the plays show it does not hold now: the suits it did not follow
    in a trick contract, the cards that were playable when it passed in Domino. (The rest of
    what a play shows, e.g. the heart-lead ban's, is checked by the replay of a sample.)"""
    excl = [0, 0, 0, 0]
    if int(row[F_KIND]) == KIND_DOMINO:
        open_rank, aces = int(row[F_DOMINO_OPEN]), int(row[F_DOMINO_ACES])
        playable = domino_opening(open_rank)
        hands = np.array(dealt, np.uint64)
        for c, q in zip(plays, seats, strict=True):
            if c == PASS:
                excl[q] |= int(playable)
                continue
            hands[q] &= ~np.uint64(1 << c)
            playable, aces = domino_lay(playable, np.int64(c), open_rank, aces, hands)
        return excl
    for i, (c, q) in enumerate(zip(plays, seats, strict=True)):
        led = plays[i - i % 4] // 13
        if c // 13 != led:
            excl[q] |= 0x1FFF << (13 * led)
    return excl


def resample_deal(row: np.ndarray, dealt: Sequence[int], dealer: int, plays: Sequence[int],
                  me: int, stream: int, fits: Callable[[list[int]], bool] | None = None,
                  scratch: Scratch = _SCRATCH,
                  seats: Sequence[int] | None = None) -> list[int]:  # fmt: skip
    """A deal as seat ``me`` may believe it was dealt after seeing ``plays``: its own hand,
    every play made by the same seat, the others' unplayed cards dealt anew (the core's
    sampler, from ``stream``), kept when the replay kernel finds every play legal again with
    the same seats and ``fits`` (the caller's further checks, e.g. the choice and doubles)
    accepts it. After ``MAX_DRAWS`` draws that do not fit, ``dealt``.

    ``dealt`` is the true deal, or, with the plays' ``seats`` given (a seat's view), any
    deal with each seat's played cards and hand sizes: only its sizes and its union of the
    unseen cards are read then, and a result equal to it may not fit the plays."""
    if seats is None:
        seats = seats_of(row, dealt, dealer, plays, scratch)
    played = [0, 0, 0, 0]
    for c, q in zip(plays, seats, strict=True):
        if c != PASS:
            played[q] |= 1 << c
    now = np.array([d & ~p for d, p in zip(dealt, played, strict=True)], np.uint64)
    excl = np.array(unseen_exclusions(row, dealt, dealer, plays, seats), np.uint64)
    out = np.zeros(4, np.uint64)
    s = np.uint64(stream & (2**64 - 1))
    for _ in range(MAX_DRAWS):
        s = np.uint64(sample_hands(now, me, excl, s, out))
        deal = [int(out[q]) | played[q] for q in range(4)]
        if _replays(row, deal, dealer, plays, seats, scratch) and (fits is None or fits(deal)):
            return deal
    return list(dealt)


def _replays(
    row: np.ndarray,
    deal: list[int],
    dealer: int,
    plays: Sequence[int],
    seats: Sequence[int],
    scratch: Scratch,
) -> bool:
    """Does the replay kernel accept ``plays`` from ``deal`` with the same seats?"""
    try:
        walk(row, deal, dealer, plays, scratch)
    except EngineDisagrees:
        return False
    return all(int(a) == b for a, b in zip(scratch.seats[: len(plays)], seats, strict=True))


def is_domino(row: np.ndarray) -> bool:
    """Is the variant of ``row`` played as Domino (no tricks; passes)?"""
    return int(row[F_KIND]) == KIND_DOMINO


def score_bound(table: np.ndarray) -> int:
    """The largest raw score of one seat in one deal, in absolute value, over the variants
    of a ruleset table: a seat may take every point of a deal, never more."""
    return int(np.abs(table[:, F_TOTAL]).max())
