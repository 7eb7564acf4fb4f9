"""One decision at a time from one seat's view: ``decide(view, strategy)`` gives the card,
the contract or the doubles a profile would choose there. For basic and advanced it is
exactly what the engine's own loops choose in that position: card play replays the view's
public plays into the play loops' state (``_core/decide.py``), choice and doubling call the
game kernel's functions (``_core/decide_game.py``, here through ``decide_game``).

A view holds only what the seat may know. ``PlayView``: the contract variant, the ruleset,
the dealer, the seat, its current hand and every play so far as (seat, card or ``"pass"``),
and the doubles in force (``stake``, read by the advanced and expert tiers). The loops note
a seat shown to hold no penalty card only for seats that are not random, so a view names
the random seats (``random_seats``) where there are any. ``ChooseView`` and ``DoubleView``
(``decide_game``) hold the chooser's and the doubler's.

The ``expert`` tier searches from the view: it samples the other hands from what the seat
knows (the unseen cards, each seat's count, the voids and Domino passes shown), with a
stream keyed by ``seed`` and the view, never from the real hands.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bonken_sim.engine.decide_game import decide_choose, decide_double
from bonken_sim.engine.decide_play import decide_play
from bonken_sim.engine.games import PROFILES, canonical_name
from bonken_sim.engine.legal import check, legal
from bonken_sim.engine.strategies import parse_strategies
from bonken_sim.engine.views import (
    BadView,
    ChooseView,
    Decision,
    DoubleView,
    PlayView,
    View,
    Weighed,
    as_view,
    check_seed,
    check_stream,
)
from bonken_sim.errors import BadValue

__all__ = [
    "BadView",
    "ChooseView",
    "Decision",
    "DoubleView",
    "PlayView",
    "SeatPolicy",
    "View",
    "Weighed",
    "decide",
    "check",
    "legal",
    "legal_contracts",
    "legal_doubles",
    "seat_policy",
]


@dataclass(frozen=True)
class SeatPolicy:
    """A strategy as ``decide`` plays it: the card tier's kernel code, the choice and the
    doubling policy (``_core/game.py``'s ids)."""

    name: str
    card: int
    choice: int
    doubling: int


def seat_policy(strategy: str) -> SeatPolicy:
    """A profile (``engine.games.PROFILES``: random, basic, advanced, expert, …) or an
    expert with its own settings (``expert:K:E``, choosing and doubling as ``expert``)."""
    text = str(strategy).strip()
    name = canonical_name(text)
    if name in PROFILES:
        p = PROFILES[name]
        return SeatPolicy(name, int(p.card), p.choice, p.doubling)
    if name.startswith("expert:"):
        card = parse_strategies([text])[0]
        base = PROFILES["expert"]
        return SeatPolicy(name, int(card), base.choice, base.doubling)
    raise BadValue(
        f"unknown strategy {strategy!r} (expected a profile: {', '.join(PROFILES)}; or expert:K:E)"
    )


def decide(
    view: PlayView | ChooseView | DoubleView | Mapping[str, Any],
    strategy: str = "basic",
    seed: int = 0,
    explain: bool = False,
    *,
    stream: int | None = None,
) -> Decision:
    """What ``strategy`` (a profile, or ``expert:K:E``) decides in ``view``: the card for a
    ``PlayView``, the contract for a ``ChooseView``, the doubles for a ``DoubleView`` (a
    mapping with ``"kind"`` works too). For basic and advanced exactly the engine's decision
    in that position; random and expert draw from ``seed`` and the view, so the same view,
    strategy and seed give the same answer. ``explain``: the decision also carries what the
    tier weighed (``Decision.weighed``). ``stream``: instead of ``seed``, the game kernel's
    stream of the deal the view is in (``views.deal_stream``: deal ``11·g + k`` of a game
    run's seed), from which every draw is the one ``bonken-sim game`` makes at that
    decision (random draws, the expert's samples, the searches' samples). Raises
    ``BadView`` (a ``BadValue``) for a view that cannot arise under the rules.

    >>> clubs = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    >>> decide(PlayView("hartenjagen", dealer=3, seat=0, hand=clubs)).card
    '2C'
    """
    policy = seat_policy(strategy)
    seed = check_seed(seed)
    ds = None if stream is None else check_stream(stream)
    v = as_view(view)
    if isinstance(v, ChooseView):
        return decide_choose(v, policy.choice, seed, explain, ds)
    if isinstance(v, DoubleView):
        return decide_double(v, policy.doubling, policy.choice, explain, seed, ds)
    return decide_play(v, policy.card, seed, explain, ds)


def legal_contracts(view: ChooseView | Mapping[str, Any]) -> tuple[str, ...]:
    """The variants the chooser of ``view`` may choose (RULES.md §6 and the ruleset)."""
    return legal(view)


def legal_doubles(view: DoubleView | Mapping[str, Any]) -> tuple[int, ...]:
    """The seats the doubler of ``view`` may double (RULES.md §5 and the ruleset)."""
    return tuple(int(t) for t in legal(view))
