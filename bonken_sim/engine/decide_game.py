"""A game's decisions besides card play, from one seat's view: the chooser's contract
(``ChooseView``) and a seat's doubles (``DoubleView``), by the game kernel's own functions
(``_core/decide_game.py``), so a fitted profile decides exactly as in ``bonken-sim game``.

The options follow RULES.md §5-§6 and the ruleset: the chooser picks a negative still open
or, once per game, troeven with a trump option still open, and must call troeven on his last
turn without it; under a fixed order the deal's contract is set; a house rule may keep a
hand without an ace or a 2 from choosing or doubling Domino. The doubling pass goes D+3, D,
D+1, then the chooser, who may only double back (unless the ruleset lets him start).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np

from bonken_sim._core import decide_game as DG
from bonken_sim._core import game as G
from bonken_sim._core.game_search import POLICY_MASK
from bonken_sim._core.ids import ACES_AND_TWOS, N_NEGATIVE, N_VARIANTS
from bonken_sim._core.playout import kernel_table
from bonken_sim._core.ruleset import DOMINO, F_CHOOSER_STARTS, F_TOTAL
from bonken_sim._core.seat_value import value_tables
from bonken_sim.engine.games import ModelArrays, model_arrays, models_for_table
from bonken_sim.engine.views import (
    BadView,
    ChooseView,
    Decision,
    DoubleView,
    Weighed,
    full_hand,
    ruleset_of,
    seat_of,
    variant_of,
    view_stream,
)
from bonken_sim.models.choice import load_models
from bonken_sim.rules.doubling import pass_order
from bonken_sim.rules.names import variant_names
from bonken_sim.rules.rulesets import Ruleset


@functools.lru_cache(maxsize=16)
def _models(key: str) -> tuple[ModelArrays, np.ndarray, np.ndarray]:
    """The fitted models as the game kernel reads them under a ruleset (by its record):
    (model arrays, value tables, kernel table)."""
    rules = Ruleset.from_dict(json.loads(key))
    table = kernel_table(rules.table)
    ma = models_for_table(model_arrays(load_models()), table)
    return ma, value_tables(ma.coef), table


def _models_for(rules: Ruleset) -> tuple[ModelArrays, np.ndarray, np.ndarray]:
    return _models(json.dumps(rules.to_dict(), sort_keys=True))


def _open_masks(view: ChooseView, rules: Ruleset) -> tuple[int, int]:
    """(negatives still open, trump options still open) as the kernel's bit masks."""
    if isinstance(view.open, str) or not hasattr(view.open, "__iter__"):
        raise BadView(f"open must be a list of contract variants, got {view.open!r}")
    neg, trump = 0, 0
    for name in view.open:
        v = variant_of(name, rules).id
        if v < N_NEGATIVE:
            neg |= 1 << v
        else:
            trump |= 1 << (v - N_NEGATIVE)
    return neg, trump


def _deal_of(k: object) -> int:
    """A view's deal of the game, 0 to 10."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or not 0 <= k <= 10:
        raise BadView(f"deal must be 0 to 10 (the deal of the game), got {k!r}")
    return int(k)


def _choice_inputs(view: ChooseView):
    rules = ruleset_of(view.ruleset)
    dealer, me = seat_of(view.dealer, "dealer"), seat_of(view.seat, "seat")
    if me != (dealer + 2) & 3:
        raise BadView(f"seat {me} does not choose: the chooser sits across from the dealer")
    k = _deal_of(view.deal)
    if not isinstance(view.had_troeven, bool | np.bool_):
        raise BadView(f"had_troeven must be true or false, got {view.had_troeven!r}")
    hand = full_hand(view.hand)
    neg, trump = _open_masks(view, rules)
    return rules, k, hand, neg, trump


def legal_choose(view: ChooseView) -> tuple[str, ...]:
    """The variants the chooser of ``view`` may choose, in id order. ``BadView`` when
    nothing is open to him."""
    rules, k, hand, neg, trump = _choice_inputs(view)
    legal = choice_mask(rules, rules_table(rules), k, hand, (neg, trump, not view.had_troeven))
    names = variant_names(rules)
    options = tuple(names[u] for u in range(N_VARIANTS) if (legal >> u) & 1)
    if not options:
        raise BadView("no contract is open to the chooser (every one is played or not his)")
    return options


@functools.lru_cache(maxsize=16)
def _rules_table(key: str) -> np.ndarray:
    return kernel_table(Ruleset.from_dict(json.loads(key)).table)


def rules_table(rules: Ruleset) -> np.ndarray:
    """The ruleset's kernel table (one copy per ruleset)."""
    return _rules_table(json.dumps(rules.to_dict(), sort_keys=True))


def choice_mask(rules: Ruleset, table: np.ndarray, k: int, hand: int,
                free: tuple[int, int, bool]) -> int:  # fmt: skip
    """The variants (bit v: variant v) the chooser of deal ``k`` holding ``hand`` may
    choose; ``free``: (negatives still open, trump options still open, may he still choose
    troeven). The game kernel's own option functions (``contract_options``,
    ``without_domino``, as ``choice_options`` calls them), run as plain Python."""
    neg, trump, may_trump_now = free
    turns_left = (10 - k) // 4 + 1  # his turns: this deal and every fourth (11 deals a game)
    mask, may_trump, must_trump = G.contract_options.py_func(
        rules.order == "fixed", k, neg, may_trump_now, turns_left
    )
    if G.domino_restricted(table) and not must_trump:
        mask = G.without_domino.py_func(mask, hand, may_trump, trump)
    legal = 0 if must_trump else mask
    if may_trump:
        legal |= trump << N_NEGATIVE
    return legal


def decide_choose(view: ChooseView, choice: int, seed: int, explain: bool,
                  stream: np.uint64 | None = None) -> Decision:  # fmt: skip
    """The chooser's contract under the choice policy ``choice`` (``game.CHOICE_*``): the
    fitted relative-value choice, the search (``game_search``, its samples drawn with
    ``seed`` and the view), else a uniform one (drawn with ``seed``); with ``stream`` (the
    game kernel's stream of the deal) the draws are those the game kernel makes there."""
    rules, k, hand, neg, trump = _choice_inputs(view)
    ma, vt, table = _models_for(rules)
    relv = np.zeros(N_VARIANTS)
    cvals = np.zeros(N_VARIANTS)
    ds = stream
    if ds is None:
        ds = view_stream(seed, 0xC400, view.dealer, k, hand, neg, trump, int(view.had_troeven))
    free = (neg, trump, not view.had_troeven)
    fixed, restricted = rules.order == "fixed", G.domino_restricted(table)
    fitted = choice == G.CHOICE_FITTED
    v, legal = DG.decide_choice(
        ds, k, np.uint64(hand), fitted, fixed, restricted, free, ma.mean, ma.tau, vt, relv,
        cvals,
    )  # fmt: skip
    searched = (choice & POLICY_MASK) == G.CHOICE_SEARCH
    stats = np.full((2, N_VARIANTS), np.nan)
    if searched and v >= 0:
        v = DG.decide_choice_search(
            table, ds, k, np.uint64(hand), int(view.dealer), (fixed, restricted), free,
            (ma.mean, ma.bonus, ma.tau), np.int64(choice), relv, stats,
        )  # fmt: skip
    names = variant_names(rules)
    options = tuple(names[u] for u in range(N_VARIANTS) if (legal >> u) & 1)
    if v < 0 or not options:
        raise BadView("no contract is open to the chooser (every one is played or not his)")
    weighed: tuple[Weighed, ...] = ()
    if explain and (fitted or searched):
        rel = [
            Weighed(names[u], round(float(relv[u]), 4),
                    None if np.isnan(stats[1, u]) else round(float(stats[1, u]), 4))
            for u in range(N_VARIANTS)
            if (legal >> u) & 1 and np.isfinite(relv[u])
        ]  # fmt: skip
        weighed = tuple(sorted(rel, key=lambda w: -w.value))
    return Decision(legal=options, contract=names[int(v)], kind="choose", weighed=weighed)


def _said(view: DoubleView, dealer: int, me: int) -> int:
    """The doubles said before ``me`` as bits (4·doubler + target), checked: each by a seat
    before him in the pass, against another seat, once."""
    order = pass_order(dealer)
    before = order[: order.index(me)]
    chooser = (dealer + 2) & 3
    bits = 0
    if isinstance(view.doubles, str) or not hasattr(view.doubles, "__iter__"):
        raise BadView(f"doubles must be a list of (doubler, target), got {view.doubles!r}")
    for i, item in enumerate(view.doubles):
        if isinstance(item, str) or not hasattr(item, "__len__") or len(item) != 2:
            raise BadView(f"double {i} must be (doubler, target), got {item!r}")
        a = seat_of(item[0], f"the doubler of double {i}")
        b = seat_of(item[1], f"the target of double {i}")
        if a == b:
            raise BadView(f"double {i}: seat {a} cannot double itself")
        if a not in before:
            raise BadView(f"double {i}: seat {a} does not double before seat {me} in the pass")
        if a == chooser:
            raise BadView(f"double {i}: the chooser doubles last")
        if bits >> (4 * a + b) & 1:
            raise BadView(f"double {i}: seat {a} doubles seat {b} twice")
        bits |= 1 << (4 * a + b)
    return bits


def _double_inputs(view: DoubleView) -> tuple[Ruleset, int, int, int, int, int]:
    """A doubling view checked: (ruleset, dealer, seat, hand, variant id, doubles said)."""
    rules = ruleset_of(view.ruleset)
    if not rules.doubling:
        raise BadView("the ruleset plays without doubling: there is no doubling pass")
    dealer, me = seat_of(view.dealer, "dealer"), seat_of(view.seat, "seat")
    hand = full_hand(view.hand)
    v = variant_of(view.contract, rules).id
    return rules, dealer, me, hand, v, _said(view, dealer, me)


def legal_double(view: DoubleView) -> tuple[str, ...]:
    """The seats the doubler of ``view`` may double, as ``"0"``-``"3"``."""
    rules, dealer, me, hand, v, bits = _double_inputs(view)
    return tuple(str(t) for t in may_double(rules_table(rules), v, hand, bits, me, dealer))


def may_double(table: np.ndarray, v: int, hand: int, bits: int, me: int,
                dealer: int) -> list[int]:  # fmt: skip
    """The seats ``me`` may double: any other, the chooser only those who doubled him
    (unless the ruleset lets him start); none in Domino without an ace or a 2 where a
    house rule asks for one."""
    if G.domino_restricted(table) and v == DOMINO and hand & ACES_AND_TWOS == 0:
        return []
    chooser = (dealer + 2) & 3
    starts = me != chooser or table[0, F_CHOOSER_STARTS] != 0
    return [t for t in range(4) if t != me and (starts or bits >> (4 * t + me) & 1)]


def decide_double(view: DoubleView, policy: int, choice: int, explain: bool,
                  seed: int = 0, stream: np.uint64 | None = None) -> Decision:  # fmt: skip
    """The seats a seat doubles: the fitted thresholds (``policy`` fitted), the search
    (``policy`` search: ``game_search``, its samples drawn with ``seed`` and the view, or
    with ``stream``, the game kernel's stream of the deal, as the game kernel draws them),
    else none. ``choice``: the profile's choice policy (a fitted chooser weighs his hand as
    his choice did)."""
    rules, dealer, me, hand, v, bits = _double_inputs(view)
    ma, vt, table = _models_for(rules)
    may = may_double(table, v, hand, bits, me, dealer)
    legal = tuple(str(t) for t in may)
    kind = policy & POLICY_MASK
    if kind not in (G.DOUBLE_FITTED, G.DOUBLE_SEARCH) or not may:
        return Decision(legal=legal, kind="double")
    total = float(table[v, F_TOTAL])
    chooser_starts = bool(table[0, F_CHOOSER_STARTS] != 0)
    if kind == G.DOUBLE_SEARCH:
        return _double_searched(view, rules, table, ma, vt, (v, dealer, me, hand, bits),
                                chooser_starts, policy, (seed, stream), explain,
                                legal)  # fmt: skip
    models = (ma.mean, ma.bonus, ma.theta, vt, total, chooser_starts)
    fitted = choice == G.CHOICE_FITTED
    cvals = np.zeros(N_VARIANTS)
    ok, own = DG.decide_doubles(v, dealer, me, np.uint64(hand), bits, fitted, models, cvals)
    doubles = tuple(t for t in range(4) if (int(ok) >> t) & 1)
    weighed: tuple[Weighed, ...] = ()
    if explain:
        weighed = _double_weighed(ma, v, dealer, me, float(own), total, may)
    return Decision(legal=legal, doubles=doubles, kind="double", weighed=weighed)


def _chooser_model(view: DoubleView, rules: Ruleset, table: np.ndarray, ma: ModelArrays,
                   vt: Any, v: int) -> tuple:  # fmt: skip
    """What a search knows of the chooser's choice (``game_search.search_doubles``): the
    deal and the contracts open before it when the view gives them, else nothing."""
    fixed, restricted = rules.order == "fixed", G.domino_restricted(table)
    models = (ma.mean, ma.tau, vt)
    if view.deal is None or view.open is None:
        return (False, 0, (0, 0, False), fixed, restricted, models)
    k = _deal_of(view.deal)
    neg, trump = _open_masks(view, rules)  # type: ignore[arg-type]
    if not ((neg | trump << N_NEGATIVE) >> v) & 1:
        raise BadView(f"open must hold the chosen contract {view.contract!r}")
    free = (neg, trump, not bool(view.chooser_had_troeven))
    return (True, k, free, fixed, restricted, models)


def _double_searched(view: DoubleView, rules: Ruleset, table: np.ndarray, ma: ModelArrays,
                     vt: Any, spot: tuple, chooser_starts: bool, policy: int,
                     draws: tuple[int, np.uint64 | None], explain: bool,
                     legal: tuple[str, ...]) -> Decision:  # fmt: skip
    """``decide_double`` by search: ``game_search.search_doubles`` from the view; ``draws``:
    (seed, the game kernel's stream of the deal or None)."""
    v, dealer, me, hand, bits = spot
    model = _chooser_model(view, rules, table, ma, vt, v)
    seed, ds = draws
    if ds is None:
        ds = view_stream(seed, 0xD0B1E, dealer, me, hand, v, bits, model[1], *model[2])
    est, se = np.zeros(4), np.zeros(4)
    ok = DG.decide_doubles_search(
        table, ds, v, me, dealer, np.uint64(hand), bits, (ma.theta, chooser_starts), model,
        np.int64(policy), est, se,
    )  # fmt: skip
    doubles = tuple(t for t in range(4) if (int(ok) >> t) & 1)
    weighed: tuple[Weighed, ...] = ()
    if explain:
        out = [Weighed(str(t), round(float(est[t]), 4), round(float(se[t]), 4))
               for t in range(4) if np.isfinite(est[t])]  # fmt: skip
        weighed = tuple(sorted(out, key=lambda w: -w.value))
    return Decision(legal=legal, doubles=doubles, kind="double", weighed=weighed)


def _double_weighed(ma: ModelArrays, v: int, dealer: int, me: int, own: float, total: float,
                    may: list[int]) -> tuple[Weighed, ...]:  # fmt: skip
    """Per seat ``me`` may double, its estimate of its own score minus that seat's (the
    estimate the thresholds are compared with, ``game.doubling_step``)."""
    chooser = (dealer + 2) & 3
    chooser_est = float(ma.mean[v, 2] + ma.bonus[v])
    other = (total - own) / 3.0 if me == chooser else (total - own - chooser_est) / 2.0
    out = [Weighed(str(t), round(own - (chooser_est if t == chooser else other), 4)) for t in may]
    return tuple(sorted(out, key=lambda w: -w.value))
