"""What a seat sees of a research position (``core.Position``), in the forms the adapters
give it: action names, the information-state string (perfect recall: everything the seat
was dealt and every public action, in order), the observation string and the observation
tensor (the seat's present view). None of them holds another seat's unplayed cards.

The tensor (float32, ``OBS_SIZE`` long) numbers seats relative to the observer (0 = the
observer, 1 = the seat after him, ...); its blocks, in order, are ``OBS_BLOCKS``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from bonken_sim.engine.deal_play import PASS
from bonken_sim.research.core import (
    CHOOSE,
    DOUBLE,
    KINDS,
    N_ACTIONS,
    NO_DOUBLE,
    QUESTIONS,
    Position,
    bits,
)
from bonken_sim.rules.doubling import pass_order
from bonken_sim.rules.names import N_VARIANTS, card_str

#: (name, size) of the observation tensor's blocks, in order
OBS_BLOCKS = (
    ("phase", len(KINDS)),  # deal, choose, double, play, over
    ("to_act", 4),  # the seat to act, relative
    ("dealer", 4),  # this deal's dealer, relative
    ("hand", 52),  # the observer's cards now
    ("laid", 4 * 52),  # the cards each seat laid this deal
    ("trick", 4 * 52),  # the current trick's cards by seat (trick contracts)
    ("contract", N_VARIANTS),  # this deal's variant
    ("doubles", 16),  # 4 x 4: row doubled column (relative seats)
    ("question", 4),  # the seat the pending doubling question is about
    ("open", N_VARIANTS),  # the variants still open in the game
    ("had_troeven", 4),  # the seats that have had their troeven
    ("deal", 1),  # the deal's index over 11
    ("totals", 4),  # the running totals over 100
)
OBS_SIZE = sum(size for _, size in OBS_BLOCKS)


def _offsets(blocks: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """Where each named block of a tensor starts: the sizes of the blocks before it."""
    starts, at = {}, 0
    for name, size in blocks:
        starts[name] = at
        at += size
    return starts


_AT = _offsets(OBS_BLOCKS)
#: a play code as text, and as ``seat:card``
_TEXT = [*(card_str(c) for c in range(52)), "pass"]
_SEAT_TEXT = [[f"{q}:{t}" for t in _TEXT] for q in range(4)]


def action_name(action: int, names: tuple[str, ...]) -> str:
    """An action id as text: a card (``QS``), ``pass``, a variant name, ``double`` or
    ``no double``."""
    if 0 <= action < 52:
        return card_str(action)
    if action == PASS:
        return "pass"
    if CHOOSE <= action < NO_DOUBLE:
        return names[action - CHOOSE]
    if action == NO_DOUBLE:
        return "no double"
    if action == DOUBLE:
        return "double"
    raise ValueError(f"action {action} is not a Bonken action (0-{N_ACTIONS - 1})")


def cards_text(mask: int) -> str:
    """Cards of a mask as text, ascending (``-`` for none)."""
    return " ".join([_TEXT[c] for c in bits(mask)]) or "-"


def _plays(plays: tuple[int, ...] | list[int], seats: tuple[int, ...] | list[int]) -> str:
    return " ".join([_SEAT_TEXT[q][c] for c, q in zip(plays, seats, strict=True)])


@functools.lru_cache(maxsize=8192)
def _past_line(k: int, entry: tuple[Any, ...], me: int, private: bool,
               names: tuple[str, ...], doubling: bool) -> str:  # fmt: skip
    """A finished deal's line of the information state (kept: asked at every decision)."""
    dealer, v, doubled, plays, seats, dealt, final = entry
    hand = f" hand {cards_text(dealt[me])};" if private else ""
    return (f"deal {k} dealer {dealer};{hand} {names[v]}; doubles "
            f"{_answers(dealer, doubled, QUESTIONS if doubling else 0)}; "
            f"plays {_plays(plays, seats)}; scores {' '.join(map(str, final))}")  # fmt: skip


def _answers(dealer: int, doubled: int, asked: int) -> str:
    """The doubling questions answered so far: ``3>1x`` seat 3 doubled seat 1, ``3>2-`` not."""
    if not asked and doubled:  # one contract under given doubles
        return " ".join(f"{b >> 2}>{b & 3}x" for b in bits(doubled))
    order = pass_order(dealer)
    out = []
    for j in range(asked):
        seat = order[j // 3]
        target = (seat + 1 + j % 3) & 3
        out.append(f"{seat}>{target}{'x' if (doubled >> (4 * seat + target)) & 1 else '-'}")
    return " ".join(out) or "-"


def _pending(pos: Position) -> str:
    kind = pos.kind()
    if kind == "double":
        seat, target = pos.question()
        return f"seat {seat}: double seat {target}?"
    if kind in ("choose", "play"):
        return f"seat {pos.seat()} to {kind}"
    return "game over" if kind == "over" else "dealing"


def information_state(pos: Position, me: int, private: bool = True) -> str:
    """The seat's perfect-recall information state: what it was dealt (``private``), every
    public action in order (choices, doubling answers, plays and passes with seats), the
    settled scores, and the pending question."""
    names = pos.setup.names
    lines = [f"seat {me}"]
    for k, entry in enumerate(pos.past):
        lines.append(_past_line(k, entry, me, private, names, pos.setup.doubling))
    if pos.k < pos.setup.deals:
        mine = pos.dealt[me]
        hand = f" hand {cards_text(mine)};" if private else ""
        line = f"deal {pos.k} dealer {pos.dealer};{hand}"
        if len(pos.cards) == 52 and pos.contract >= 0:
            asked = pos.q if pos.setup.doubling else 0
            line += f" {names[pos.contract]}; doubles {_answers(pos.dealer, pos.doubled, asked)};"
            line += f" plays {_plays(pos.plays, pos.seats)}"
        lines.append(line)
    lines.append(f"totals {' '.join(map(str, pos.totals))}; {_pending(pos)}")
    return "\n".join(lines)


def observation_string(pos: Position, me: int, private: bool = True) -> str:
    """The seat's present view: its hand, the deal so far, the open variants, the totals."""
    names = pos.setup.names
    parts = [f"seat {me}", f"deal {pos.k} of {pos.setup.deals}"]
    if pos.k < pos.setup.deals:
        parts.append(f"dealer {pos.dealer}")
        if private:
            parts.append(f"hand {cards_text(pos.hand(me))}")
        if len(pos.cards) == 52 and pos.contract >= 0:
            asked = pos.q if pos.setup.doubling else 0
            parts.append(
                f"{names[pos.contract]}; doubles {_answers(pos.dealer, pos.doubled, asked)}"
            )
            parts.append("laid " + " ".join(f"{q}:{cards_text(pos.played[q])}" for q in range(4)))
            start = _trick_start(pos)
            parts.append(f"trick {_plays(pos.plays[start:], pos.seats[start:])}")
    parts.append("open " + (" ".join(names[v] for v in bits(pos.open)) or "-"))
    parts.append(f"totals {' '.join(map(str, pos.totals))}")
    parts.append(_pending(pos))
    return "; ".join(parts)


def _trick_start(pos: Position) -> int:
    """Where the current trick's plays start (Domino has no tricks: at the end)."""
    n = len(pos.plays)
    if pos.contract >= 0 and pos.setup.dominoes[pos.contract]:
        return n
    return n - n % 4


class CardRows:
    """The cards each seat holds and has laid this deal as 0/1 rows (float32, 4 x 52 each),
    kept up to date one card at a time by a caller that steps one position (the PettingZoo
    environment): ``observation_tensor`` then copies rows instead of gathering bits."""

    def __init__(self) -> None:
        self.held = np.zeros((4, 52), np.float32)
        self.laid = np.zeros((4, 52), np.float32)

    def deal(self, dealt: list[int]) -> None:
        """A new deal: the hands as dealt, nothing laid."""
        self.laid.fill(0.0)
        masks = np.array(dealt, np.uint64).view(np.uint8)
        self.held[:] = np.unpackbits(masks, bitorder="little").reshape(4, 64)[:, :52]

    def play(self, seat: int, code: int) -> None:
        """``seat`` played ``code`` (a card, or a pass: nothing moves)."""
        if code < 52:
            self.held[seat, code] = 0.0
            self.laid[seat, code] = 1.0


def observation_tensor(pos: Position, me: int, out: np.ndarray, private: bool = True,
                       rows: CardRows | None = None) -> None:  # fmt: skip
    """The seat's present view as ``OBS_BLOCKS`` into ``out`` (float32, ``OBS_SIZE``).

    Every entry but two blocks is 0 or 1: the set ones are gathered as indices and written
    in one assignment (numpy's per-element and per-block writes cost more than the rest);
    with ``rows`` (in step with ``pos``) the hand and the laid cards are copied from them."""
    rel = _REL[me]  # seat -> relative seat
    kind, seat = pos.now
    ones = [_PHASE + KINDS.index(kind)]
    if seat >= 0:
        ones.append(_TO_ACT + rel[seat])
    out.fill(0.0)
    if kind != "over":
        ones.append(_DEALER + rel[pos.dealer])
        if rows is not None:
            if private:
                out[_HAND:_LAID] = rows.held[me]
            out[_LAID:_TRICK] = rows.laid[_ABS[me]].reshape(-1)
        else:
            if private:
                ones += [_HAND + c for c in bits(pos.hand(me))]
            for q in range(4):
                base = _LAID + 52 * rel[q]
                ones += [base + c for c in bits(pos.played[q])]
        start = _trick_start(pos)
        for c, q in zip(pos.plays[start:], pos.seats[start:], strict=True):
            ones.append(_TRICK + 52 * rel[q] + c)
        if pos.contract >= 0:
            ones.append(_CONTRACT + pos.contract)
        for b in bits(pos.doubled):
            ones.append(_DOUBLES + 4 * rel[b >> 2] + rel[b & 3])
        if kind == "double":
            ones.append(_QUESTION + rel[pos.question()[1]])
    ones += [_OPEN + v for v in bits(pos.open)]
    ones += [_HAD + rel[q] for q in bits(pos.had)]
    out[ones] = 1.0
    out[_DEAL] = pos.k / 11.0
    totals = pos.totals
    out[_TOTALS : _TOTALS + 4] = [totals[(me + r) & 3] / 100.0 for r in range(4)]


_REL = [[(q - me) & 3 for q in range(4)] for me in range(4)]
_ABS = [[(me + r) & 3 for r in range(4)] for me in range(4)]  # relative seat -> seat
_PHASE, _TO_ACT, _DEALER, _HAND = _AT["phase"], _AT["to_act"], _AT["dealer"], _AT["hand"]
_LAID = _AT["laid"]
_TRICK, _CONTRACT, _DOUBLES = _AT["trick"], _AT["contract"], _AT["doubles"]
_QUESTION, _OPEN, _HAD = _AT["question"], _AT["open"], _AT["had_troeven"]
_DEAL, _TOTALS = _AT["deal"], _AT["totals"]


#: (name, size) of one deal's block of the information-state tensor, in order
DEAL_BLOCKS = (
    ("begun", 1),  # 1 once the deal's first card is dealt
    ("dealer", 4),  # relative
    ("dealt", 52),  # the observer's cards as dealt (so far, while dealing)
    ("contract", N_VARIANTS),
    ("asked", QUESTIONS),  # the doubling questions answered, in pass order
    ("doubled", QUESTIONS),  # which of them were answered "double"
    ("played_by", 4 * 52),  # the seat (relative) that laid each card
    ("when", 52),  # each card's place in the deal's plays, passes counted: (i + 1) / 208
    ("settled", 4),  # the deal's settled scores / 100, by relative seat, once over
)
DEAL_SIZE = sum(size for _, size in DEAL_BLOCKS)
#: the blocks before the deals: the pending decision and the totals
INFO_HEAD = (("phase", len(KINDS)), ("to_act", 4), ("question", 4), ("totals", 4))
INFO_HEAD_SIZE = sum(size for _, size in INFO_HEAD)
_D = _offsets(DEAL_BLOCKS)


def information_state_size(deals: int) -> int:
    """The information-state tensor's length for a game of ``deals`` deals."""
    return INFO_HEAD_SIZE + DEAL_SIZE * deals


def information_state_tensor(pos: Position, me: int, out: np.ndarray,
                             private: bool = True) -> None:  # fmt: skip
    """The seat's perfect-recall information state as a tensor (float32,
    ``information_state_size(deals)``): the pending decision and the totals, then one
    ``DEAL_BLOCKS`` block per deal of the game. Every public action is in it, losslessly:
    the choice, every doubling answer, and every card with its seat and its place among the
    deal's plays (a place no card holds is a Domino pass, whose seat the turn order gives)."""
    rel = _REL[me]
    out.fill(0.0)
    kind, seat = pos.now
    out[KINDS.index(kind)] = 1.0
    if seat >= 0:
        out[5 + rel[seat]] = 1.0
    if kind == "double":
        out[9 + rel[pos.question()[1]]] = 1.0
    out[13:17] = [pos.totals[(me + r) & 3] / 100.0 for r in range(4)]
    doubling = pos.setup.doubling
    for k, entry in enumerate(pos.past):
        dealer, v, doubled, plays, seats, dealt, final = entry
        block = out[INFO_HEAD_SIZE + DEAL_SIZE * k : INFO_HEAD_SIZE + DEAL_SIZE * (k + 1)]
        _deal_block(block, rel, dealer, dealt[me] if private else 0, v, doubled,
                    QUESTIONS if doubling else 0, plays, seats, final)  # fmt: skip
    if kind != "over" and pos.cards:
        k = pos.k
        block = out[INFO_HEAD_SIZE + DEAL_SIZE * k : INFO_HEAD_SIZE + DEAL_SIZE * (k + 1)]
        asked = pos.q if doubling and pos.contract >= 0 and len(pos.cards) == 52 else 0
        _deal_block(block, rel, pos.dealer, pos.dealt[me] if private else 0, pos.contract,
                    pos.doubled, asked, pos.plays, pos.seats, None)  # fmt: skip


def _deal_block(block: np.ndarray, rel: list[int], dealer: int, dealt: int, v: int,
                doubled: int, asked: int, plays: Any, seats: Any,
                final: Any) -> None:  # fmt: skip
    block[_D["begun"]] = 1.0
    block[_D["dealer"] + rel[dealer]] = 1.0
    block[[_D["dealt"] + c for c in bits(dealt)]] = 1.0
    if v < 0:
        return
    block[_D["contract"] + v] = 1.0
    order = pass_order(dealer)
    for j in range(asked):
        asker = order[j // 3]
        block[_D["asked"] + j] = 1.0
        if (doubled >> (4 * asker + ((asker + 1 + j % 3) & 3))) & 1:
            block[_D["doubled"] + j] = 1.0
    for i, (c, q) in enumerate(zip(plays, seats, strict=True)):
        if c != PASS:
            block[_D["played_by"] + 52 * rel[q] + c] = 1.0
            block[_D["when"] + c] = (i + 1) / 208.0
    if final is not None:
        me = rel.index(0)
        block[_D["settled"] : _D["settled"] + 4] = [final[(me + r) & 3] / 100.0 for r in range(4)]
