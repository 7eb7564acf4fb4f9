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

from bonken_sim.engine.deal_play import PASS, is_domino
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
_AT = {}
_i = 0
for _name, _size in OBS_BLOCKS:
    _AT[_name] = _i
    _i += _size
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
    if pos.contract >= 0 and is_domino(pos.setup.rows[pos.contract]):
        return n
    return n - n % 4


def observation_tensor(pos: Position, me: int, out: np.ndarray, private: bool = True) -> None:
    """The seat's present view as ``OBS_BLOCKS`` into ``out`` (float32, ``OBS_SIZE``)."""
    out[:] = 0.0
    rel = [(q - me) & 3 for q in range(4)]  # seat -> relative seat
    kind = pos.kind()
    out[_AT["phase"] + KINDS.index(kind)] = 1.0
    seat = pos.seat()
    if seat >= 0:
        out[_AT["to_act"] + rel[seat]] = 1.0
    if kind == "over":
        _scalars(pos, rel, out)
        return
    out[_AT["dealer"] + rel[pos.dealer]] = 1.0
    masks = np.zeros(9, np.uint64)
    if private:
        masks[0] = pos.hand(me)
    for q in range(4):
        masks[1 + rel[q]] = pos.played[q]
    start = _trick_start(pos)
    for c, q in zip(pos.plays[start:], pos.seats[start:], strict=True):
        masks[5 + rel[q]] |= np.uint64(1 << c)
    bits = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(9, 64)[:, :52]
    out[_AT["hand"] : _AT["trick"] + 4 * 52] = bits.reshape(-1)
    if pos.contract >= 0:
        out[_AT["contract"] + pos.contract] = 1.0
    doubled = pos.doubled
    while doubled:
        b = (doubled & -doubled).bit_length() - 1
        doubled &= doubled - 1
        out[_AT["doubles"] + 4 * rel[b >> 2] + rel[b & 3]] = 1.0
    if kind == "double":
        out[_AT["question"] + rel[pos.question()[1]]] = 1.0
    _scalars(pos, rel, out)


def _scalars(pos: Position, rel: list[int], out: np.ndarray) -> None:
    for v in bits(pos.open):
        out[_AT["open"] + v] = 1.0
    for q in range(4):
        if (pos.had >> q) & 1:
            out[_AT["had_troeven"] + rel[q]] = 1.0
        out[_AT["totals"] + rel[q]] = pos.totals[q] / 100.0
    out[_AT["deal"]] = pos.k / 11.0
