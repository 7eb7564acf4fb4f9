"""Hints at the person's turn and the review of his decisions, both from what the expert
weighs at that position (``decide(..., explain=True)``) from the person's own view: a hint
never sees a card he could not see.

- a card: every legal card's mean score for him at the deal's end over the expert's samples
  (``expert:K:0``, K = ``samples``), with the standard error the search gives;
- the choice: each open contract's mean score for him over the deals the expert profile's
  search samples (hands that fit his, played out by advanced seats), with its standard
  error, and the contract the expert profile would choose;
- a double: per seat he may double, the search's mean of his score minus that seat's (a
  double moves that difference to him) with its standard error, and the doubles the expert
  profile would say.

The review sets each of his decisions beside the expert's at the same position: the expected
cost of the difference is the expert's value of its own option minus that of his, with a 95%
interval where the search gives one.
"""

from __future__ import annotations

from typing import Any

from bonken_sim.engine.decide import decide
from bonken_sim.engine.games import DEALS_PER_GAME
from bonken_sim.engine.views import PlayView
from bonken_sim.serve.table_game import GameError, TableGame, decision_seed
from bonken_sim.serve.table_state import deal_public

Z95 = 1.96
DEFAULT_HINT_SAMPLES = 1000
#: hint and review draws apart from the computer seats' (decision_seed's step)
HINT_STEP = 100_000


def _interval(value: float, se: float | None) -> list[float] | None:
    if se is None:
        return None
    return [round(value - Z95 * se, 2), round(value + Z95 * se, 2)]


def card_values(g: TableGame, view: PlayView, k: int, samples: int) -> dict[str, Any]:
    """The expert's weighing of the person's ``view`` in deal ``k``: its card, the advanced
    tier's (the reference its standard errors are paired against) and per legal card
    (value, se)."""
    at = len(view.plays)
    seed = decision_seed(g.state.seed, g.deal_index(k), HINT_STEP + at)
    d = decide(view, f"expert:{samples}:0", seed, explain=True)
    reference = decide(view, "advanced").card
    values = {w.option: (w.value, w.se) for w in d.weighed}
    return {"card": d.card, "reference": reference, "legal": list(d.legal), "values": values}


def hint(g: TableGame, samples: int = DEFAULT_HINT_SAMPLES) -> dict[str, Any]:
    """What the expert weighs at the person's turn (``GameError`` when it is not his)."""
    kind, seat = g.turn()
    if seat != g.you or kind not in ("choose", "double", "play"):
        raise GameError("there is no decision of yours to hint at now")
    view = g.state.view()
    if kind == "play":
        assert isinstance(view, PlayView)
        cv = card_values(g, view, g.state.deal, samples)
        options = [
            {
                "option": card,
                "value": value,
                "se": se,
                "ci95": _interval(value, se),
                "paired": card != cv["reference"],
            }
            for card, (value, se) in cv["values"].items()
        ] or [  # a forced card: the expert plays it without a search
            {"option": card, "value": None, "se": None, "ci95": None, "paired": False}
            for card in cv["legal"]
        ]
        return {
            "kind": kind,
            "expert": cv["card"],
            "reference": cv["reference"],
            "samples": samples,
            "options": options,
            "forced": len(cv["legal"]) == 1,
        }
    d = decide(view, "expert", explain=True)
    options = [
        {
            "option": w.option if kind == "choose" else int(w.option),
            "value": w.value,
            "se": w.se,
            "ci95": _interval(w.value, w.se),
        }
        for w in d.weighed
    ]
    return {
        "kind": kind,
        "expert": d.contract if kind == "choose" else list(d.doubles),
        "options": options,
    }


def _review_play(g: TableGame, deal: dict[str, Any], mine: dict[str, Any], view, samples: int):
    cv = card_values(g, view, deal["k"], samples)
    if len(cv["legal"]) < 2 or not cv["values"]:
        return None  # a forced card: nothing was decided
    yours, best, ref = mine["chosen"], cv["card"], cv["reference"]
    v_yours, se_yours = cv["values"][yours]
    v_best, se_best = cv["values"][best]
    cost = round(v_best - v_yours, 4)
    se: float | None
    if yours == best:
        se = 0.0
    elif best == ref:
        se = se_yours  # paired with the reference on the same samples
    elif yours == ref:
        se = se_best
    else:
        # both paired with the reference only: sd(x - y) <= sd(x) + sd(y) bounds the pair's
        se = None if se_yours is None or se_best is None else se_yours + se_best
    trick = mine["at"] // 4 + 1 if not g.domino(deal) else None
    return {
        "kind": "play",
        "at": mine["at"],
        "trick": trick,
        "yours": yours,
        "expert": best,
        "cost": cost,
        "ci95": _interval(cost, se),
        "values": {c: v for c, (v, _) in cv["values"].items()},
    }


def _review_choice(mine: dict[str, Any], view):
    d = decide(view, "expert", explain=True)
    values = {w.option: w.value for w in d.weighed}
    yours = mine["chosen"]
    cost = round(values[str(d.contract)] - values[yours], 4) if values else 0.0
    return {
        "kind": "choose",
        "yours": yours,
        "expert": d.contract,
        "cost": cost,
        "ci95": None,
        "values": values,
    }


def _review_double(mine: dict[str, Any], view):
    d = decide(view, "expert", explain=True)
    est = {int(w.option): w.value for w in d.weighed}
    yours, expert = sorted(mine["chosen"]), sorted(d.doubles)
    cost = sum(est.get(t, 0.0) for t in expert) - sum(est.get(t, 0.0) for t in yours)
    return {
        "kind": "double",
        "yours": yours,
        "expert": expert,
        "cost": round(cost, 4),
        "ci95": None,
        "values": {str(t): v for t, v in est.items()},
    }


def review_deal(g: TableGame, k: int, samples: int = DEFAULT_HINT_SAMPLES) -> dict[str, Any]:
    """The person's decisions of finished deal ``k`` beside the expert's, the costliest
    first, and the deal itself with all four hands, trick by trick."""
    if not isinstance(k, int) or not 0 <= k < len(g.state.deals):
        raise GameError(f"deal {k} is not finished: there is nothing to review yet")
    deal = g.deal(k)
    items = []
    for mine, view in g.my_views(k):
        if mine["kind"] == "play":
            item = _review_play(g, deal, mine, view, samples)
        elif mine["kind"] == "choose":
            item = _review_choice(mine, view)
        else:
            item = _review_double(mine, view)
        if item is not None:
            item["deal"] = k
            items.append(item)
    items.sort(key=lambda it: -it["cost"])
    replay = deal_public(g, deal)
    return {
        "deal": k,
        "contract": deal["contract"],
        "samples": samples,
        "decisions": items,
        "cost": round(sum(it["cost"] for it in items), 4),
        "replay": replay,
    }


def review_game(g: TableGame, samples: int = DEFAULT_HINT_SAMPLES) -> dict[str, Any]:
    """Every finished deal's review, and all decisions of the game, the costliest first."""
    deals = [review_deal(g, k, samples) for k in range(len(g.state.deals))]
    items = sorted((it for r in deals for it in r["decisions"]), key=lambda it: -it["cost"])
    return {
        "deals": deals,
        "decisions": items,
        "cost": round(sum(r["cost"] for r in deals), 4),
        "finished": len(deals),
        "of": DEALS_PER_GAME,
    }
