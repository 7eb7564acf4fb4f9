"""``bonken-sim advise``: which contract to choose and whom to double, for one known hand.

Conditional Monte Carlo: the player's 13 cards stay at his seat, the other 39 are dealt at
random (``engine/conditional.py``), and every contract variant that can still be chosen is
played on the same deals with the chosen strategies. A contract is judged by its value
relative to its own average for the same seat (STRATEGIES.md §4: every contract is played
once per game, so choosing c now gains ``EV_c(hand) − μ_c``). ``μ_c`` is measured on the fly
on as many unconditional deals: deals ``0 … N−1`` of the seed exactly as ``bonken-sim run``
deals and plays them, a stream independent of the conditional one, so the relative value
is a difference of two independent means.

Doubling target t pays ``s_me − s_t`` per unit (RULES.md §5); its mean and the probability
that it is positive come from the same conditional deals. The simulated targets do not react
to being doubled (no redoubles, no stake-aware play).

The request is read in ``config.py``, the deals are played and summed in ``simulation.py``
(streamed: exact integer sums per chunk, so neither memory nor the result depends on
``deals``, the thread count or the chunk size), averages from a finished run are read in
``reference.py``; this module turns the sums into the advice document and ``text.py``
prints it.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from bonken_sim.analyses.advise.config import DEALER, ROLE_OF, AdviseConfig
from bonken_sim.analyses.advise.reference import reference_sums
from bonken_sim.analyses.advise.simulation import CHUNK_DEALS, Played, play
from bonken_sim.engine.provenance import versions
from bonken_sim.engine.strategies import strategy_names
from bonken_sim.models.choice import load_models, relative_values
from bonken_sim.rules.names import (
    VARIANTS,
    Contract,
    Variant,
    card_str,
    contract_name,
    hand_str,
    mask_cards,
    variant_name,
)
from bonken_sim.stats import Estimate, diff_ci, mean_ci, wilson_ci

__all__ = ["DOUBLING_ORDER", "advise", "policy_choice"]

DOUBLING_ORDER = (3, 0, 1, 2)  # RULES.md §5: D+3, D, D+1, then the chooser


def _verdict(e: Estimate) -> str:
    """Does doubling pay? Only when the whole 95% interval of the mean gain is on one side."""
    if e.lo > 0:
        return "pays"
    if e.hi < 0:
        return "loses"
    return "unclear"


def _variant_doc(v: Variant, j: int, cfg: AdviseConfig, played: Played) -> dict[str, Any]:
    me, c, r = cfg.seat, played.cond, played.ref
    expected = mean_ci(c.n, c.s1[j, me], c.s2[j, me])
    average = mean_ci(r.n, r.s1[j, me], r.s2[j, me])
    relative = diff_ci(expected, c.n, average, r.n)
    doubling = []
    for t in DOUBLING_ORDER:
        if t == me:
            continue
        gain = mean_ci(c.n, c.d1[j, t], c.d2[j, t])
        ahead = wilson_ci(int(c.wins[j, t]), c.n)
        behind = wilson_ci(int(c.losses[j, t]), c.n)
        doubling.append(
            {
                "target_seat": t,
                "target_role": ROLE_OF[t],
                **gain.to_dict(),
                "p_profit": ahead.mean,
                "p_profit_ci95": [ahead.lo, ahead.hi],
                "p_loss": behind.mean,
                "p_loss_ci95": [behind.lo, behind.hi],
                "verdict": _verdict(gain),
            }
        )
    return {
        "variant": variant_name(v, cfg.ruleset),
        "contract": contract_name(v, cfg.ruleset),
        "trump": v.trump,
        "expected": expected.to_dict(),
        "average": average.to_dict(),
        "relative": {
            "mean": relative.mean,
            "se": relative.sd,
            "ci95": [relative.lo, relative.hi],
        },
        "doubling": doubling,
    }


def policy_choice(cfg: AdviseConfig, ranked: list[dict[str, Any]]) -> dict[str, Any]:
    """The contract the choice policy (STRATEGIES.md §4, ``choice.choose``) takes, applied to
    the simulated relative values.

    Without ``--turns-left`` the best relative value wins. With it, a chooser who still has
    his troeven calls it when its best option beats the best negative by more than τ_k (the
    fitted threshold for k turns left), and must call it on his last turn (RULES.md §6).
    """
    negatives = [r for r in ranked if r["contract"] != Contract.TROEVEN.label]
    troevens = [r for r in ranked if r["contract"] == Contract.TROEVEN.label]
    k = cfg.turns_left
    if k is None or not troevens:
        return {"variant": ranked[0]["variant"], "rule": "the best value relative to its average"}
    if k == 1 or not negatives:
        return {
            "variant": troevens[0]["variant"],
            "rule": "your last turn with troeven still to call: the best troeven"
            if k == 1
            else "only troeven is available",
        }
    tau = load_models().tau(k)
    gap = troevens[0]["relative"]["mean"] - negatives[0]["relative"]["mean"]
    call = gap > tau
    return {
        "variant": (troevens if call else negatives)[0]["variant"],
        "rule": (
            f"{k} turns left: troeven is called when its best option beats the best negative "
            f"by more than tau_{k} = {tau:.2f} points; here by {gap:+.2f}"
        ),
        "tau": tau,
        "troeven_gap": gap,
    }


def _summary_line(cfg: AdviseConfig, ranked: list[dict[str, Any]], pick: str) -> str:
    best = next(r for r in ranked if r["variant"] == pick)
    rel = best["relative"]
    half = (rel["ci95"][1] - rel["ci95"][0]) / 2
    if cfg.role == "chooser":
        head = f"choose {best['variant']}"
    else:
        head = f"you would like {best['variant']} chosen"
    return (
        f"{head}: your score {best['expected']['mean']:+.2f}, {rel['mean']:+.2f} ± {half:.2f} "
        "relative to its average"
    )


def _model_values(cfg: AdviseConfig) -> dict[str, float]:
    """The fitted choice model's relative value of the hand per variant (what the
    ``game`` profiles decide on), for comparison with the simulation."""
    names = [v.name for v in cfg.variants]
    hands = np.array([cfg.hand], np.uint64)
    rel = relative_values(load_models(), hands, cfg.seat, names)[0]
    return {n: float(x) for n, x in zip(names, rel, strict=True)}


def _play_both(
    cfg: AdviseConfig, chunk: int, progress: Callable[[int, int], None] | None
) -> tuple[Played, str]:
    """The played deals and what the contract averages are: simulated on the seed's
    unconditional deals, or read from ``cfg.reference_run``."""
    if cfg.reference_run is None:
        played = play(cfg, chunk=chunk, progress=progress)
        return played, (
            f"the seat's mean over deals 0..{cfg.deals - 1} of the seed, unconditional, "
            "as bonken-sim run deals and plays them (dealer seat 0)"
        )
    t0 = time.perf_counter()
    ref = reference_sums(cfg)
    ref_seconds = time.perf_counter() - t0
    played = play(cfg, chunk=chunk, reference=False, progress=progress)
    played.ref = ref
    played.cpu_seconds["reference_read"] = ref_seconds
    return played, (
        f"the seat's mean over the {ref.n:,} deals of run {cfg.reference_run} "
        "(dealer seat 0, same strategies, ruleset and engine)"
    )


def advise(
    cfg: AdviseConfig,
    chunk: int = CHUNK_DEALS,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Simulate and return the advice as one JSON-ready document (see the README).

    ``progress(done, total)`` is called as the conditional deals are played."""
    played, reference = _play_both(cfg, chunk, progress)
    rows = [_variant_doc(v, j, cfg, played) for j, v in enumerate(cfg.variants)]
    model = _model_values(cfg) if cfg.ruleset.is_standard else {}
    for row in rows:
        row["model_relative"] = model.get(row["variant"])
    ranked = sorted(rows, key=lambda r: -r["relative"]["mean"])
    for i, row in enumerate(ranked, 1):
        row["rank"] = i
    negatives = [r for r in ranked if r["contract"] != Contract.TROEVEN.label]
    troevens = [r for r in ranked if r["contract"] == Contract.TROEVEN.label]
    chosen = {v.id for v in cfg.variants}
    policy = policy_choice(cfg, ranked)
    return {
        "command": "advise",
        "version": versions()["bonken_sim"],
        "versions": versions(),
        "seed": cfg.seed,
        "seed_drawn": cfg.seed_drawn,
        "deals": cfg.deals,
        "seat": cfg.role,
        "seat_index": cfg.seat,
        "dealer": DEALER,
        "hand": [card_str(c) for c in mask_cards(cfg.hand)],
        "hand_text": hand_str(cfg.hand),
        "strategies": strategy_names(cfg.strategies).split(","),
        "ruleset": cfg.ruleset.to_dict(),
        "threads": cfg.threads,
        "trump_used": cfg.trump_used,
        "turns_left": cfg.turns_left,
        "available": [variant_name(v, cfg.ruleset) for v in cfg.variants],
        "not_available": [variant_name(v, cfg.ruleset) for v in VARIANTS if v.id not in chosen],
        "reference": reference,
        "reference_run": cfg.reference_run,
        "recommendation": _summary_line(cfg, ranked, policy["variant"]),
        "policy": policy,
        "ranking": [r["variant"] for r in ranked],
        "best": policy["variant"],
        "best_negative": negatives[0]["variant"] if negatives else None,
        "best_troeven": troevens[0]["variant"] if troevens else None,
        "variants": ranked,
        "seconds": {
            "wall": played.wall_seconds,
            "conditional_cpu": played.cpu_seconds["conditional"],
            "reference_cpu": played.cpu_seconds["reference"],
            **(
                {"reference_read": played.cpu_seconds["reference_read"]}
                if "reference_read" in played.cpu_seconds
                else {}
            ),
        },
    }
