"""What a seat may answer at its turn, from its view alone: ``legal(view)`` and ``check(view,
answer)``, the one test of an answer that the game state, the table manager, the checker and
``decide`` share.

The options come from the engine's own rule functions, no decision is run for them: the
cards from the position the view's plays replay to in the core (``_core/decide.py``, the
play loops' legal set), the contracts from the game kernel's option functions, the doubles
from the doubling pass's rule (``decide_game``). An answer is:

- a card play: a card (``"QS"``) or ``"pass"``, legal only where Domino leaves the seat no
  card to lay (``legal`` is then ``("pass",)``);
- a choice: a variant name;
- doubles: the seats doubled, each once (integers 0-3, none for no double).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bonken_sim.engine.decide_game import legal_choose, legal_double
from bonken_sim.engine.decide_play import legal_play
from bonken_sim.engine.views import ChooseView, DoubleView, PlayView, as_view

PASS = "pass"


def legal(view: PlayView | ChooseView | DoubleView | Mapping[str, Any]) -> tuple[str, ...]:
    """The legal answers in ``view``: cards (or ``("pass",)``), variants, or the seats the
    doubler may double as ``"0"``-``"3"``. ``BadView`` for a view that cannot arise."""
    v = as_view(view)
    if isinstance(v, ChooseView):
        return legal_choose(v)
    if isinstance(v, DoubleView):
        return legal_double(v)
    return legal_play(v)


def check(view: PlayView | ChooseView | DoubleView | Mapping[str, Any],
          answer: Any) -> str | None:  # fmt: skip
    """Why ``answer`` is not legal in ``view``; None when it is."""
    v = as_view(view)
    return refusal(v.kind, answer, legal(v))


def refusal(kind: str, answer: Any, options: Sequence[str]) -> str | None:
    """Why ``answer`` to a ``kind`` request (play, choose, double) is not among ``options``
    (``legal``'s); None when it is legal."""
    if kind == "play":
        if tuple(options) == (PASS,):
            return None if answer == PASS else f"{answer} played where only a pass is legal"
        if answer in options:
            return None
        if answer == PASS:
            return f"a pass where cards are playable ({' '.join(options)})"
        return f"{answer} is not legal there (legal: {' '.join(options)})"
    if kind == "choose":
        if answer in options:
            return None
        return f"{answer} may not be chosen (legal: {', '.join(options)})"
    seats = _seats(answer)
    if seats is None:
        return f"doubles must be a list of seats, got {answer!r}"
    twice = sorted({q for q in seats if seats.count(q) > 1})
    if twice:
        return f"doubles seat {', '.join(map(str, twice))} twice"
    may = {int(q) for q in options}
    bad = [q for q in seats if q not in may]
    if not bad:
        return None
    allowed = ", ".join(str(q) for q in sorted(may)) or "none"
    return f"may not double seat {', '.join(map(str, bad))} (may double: {allowed})"


def _seats(answer: Any) -> list[int] | None:
    """The seats of a doubling answer, None when it is not a list of seats."""
    if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
        return None
    seats = list(answer)
    if not all(isinstance(q, int) and not isinstance(q, bool) for q in seats):
        return None
    return seats
