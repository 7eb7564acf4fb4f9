"""The expert tier's strength against its time: card decisions per second per core, and the
paired gain of one expert among three advanced, for a grid of settings (K samples, E exact
tricks).

A *decision* is a card the expert seat plays with at least two legal cards (forced cards
cost nothing); they are counted on the benchmark's own deals with the pure-Python reference
(tests/reference). Strength is the ladder's card-play measure: the expert in each seat in
turn among three advanced on the same deals, its mean score minus the seat average, per
variant, with its standard error; ``z`` is the gain over its SE.

    python benchmarks/bench_expert.py --deals 300 --grid 4:0,8:0,16:0,32:0,16:2

Time is one thread's (``threads=1``), so decisions/s is per core. JSON goes to
benchmarks/results/expert.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bonken_sim.engine.play import play
from bonken_sim.engine.selfplay import self_play
from bonken_sim.models.choice import NAMES
from bonken_sim.rules.names import VARIANTS
from bonken_sim.rules.rule_table import standard_deal_totals

REPO = Path(__file__).resolve().parent.parent


def choices(p, seat: int) -> int:
    """The plays of seat ``seat`` in the playout ``p`` made with two or more legal cards, by
    the reference's rules."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from tests.reference.rules import (  # type: ignore[import-not-found]
        DominoDeal,
        Rules,
        TrickDeal,
        trump_suit_of,
    )

    hands = [{c for c in range(52) if h >> c & 1} for h in p.hands]
    rules = Rules.from_record(p.ruleset.to_dict())
    if p.is_domino:
        game = DominoDeal(hands=hands, dealer=p.dealer, rules=rules)
    else:
        trump = trump_suit_of(p.variant.trump)
        game = TrickDeal(p.contract_name, trump, hands, p.dealer, rules=rules)
    n = 0
    for c in p.plays:
        if c is None:
            game.pass_turn()
            continue
        n += game.to_act() == seat and len(game.legal(game.to_act())) > 1
        game.play(c)
    return n


def choices_per_deal(seed: int, deals: int, strategies: list[str], seat: int) -> float:
    """Mean decisions with a choice of seat ``seat`` per deal (all 12 variants together)."""
    n = 0
    for d in range(deals):
        for v in VARIANTS:
            n += choices(play(seed, d, v, ",".join(strategies), 0), seat)
    return n / deals


def measure(deals: int, seed: int, setting: str, count_deals: int) -> dict:
    totals = standard_deal_totals().astype(np.float64)
    gains = np.zeros((deals, len(NAMES)))
    seconds = 0.0
    decisions = 0.0
    for seat in range(4):
        strategies = ["advanced"] * 4
        strategies[seat] = setting
        t0 = time.perf_counter()
        sp = self_play(deals, seed, ",".join(strategies), threads=1)
        seconds += time.perf_counter() - t0
        gains += sp.scores[:, :, seat] - totals / 4.0
        decisions += deals * choices_per_deal(seed, count_deals, strategies, seat)
    gains /= 4.0
    mean = gains.mean(axis=0)
    se = gains.std(axis=0, ddof=1) / np.sqrt(deals)
    z = np.where(se > 0, mean / np.where(se > 0, se, 1), 0.0)
    return {
        "setting": setting,
        "deals": deals,
        "seconds": seconds,
        "decisions": decisions,
        "decisions_per_s": decisions / seconds,
        "mean_gain": float(gains.mean()),
        "variants": {
            name: {"gain": float(mean[v]), "se": float(se[v]), "z": float(z[v])}
            for v, name in enumerate(NAMES)
        },
        "above_4se": int((z > 4).sum()),
        "below_4se": int((z < -4).sum()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--deals", type=int, default=300, help="deals per setting and seat")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--grid", default="4:0,8:0,16:0,32:0,16:2", help="K:E settings")
    ap.add_argument("--count-deals", type=int, default=20, help="deals to count decisions on")
    args = ap.parse_args()
    self_play(2, args.seed, "expert:2:1,advanced,advanced,advanced", threads=1)  # compile
    rows = []
    print(f"{'K:E':>7s} {'dec/s/core':>11s} {'mean gain':>10s} {'>4SE':>5s} {'<-4SE':>6s}")
    for item in args.grid.split(","):
        r = measure(args.deals, args.seed, f"expert:{item}", args.count_deals)
        rows.append(r)
        print(
            f"{item:>7s} {r['decisions_per_s']:11.0f} {r['mean_gain']:10.3f} "
            f"{r['above_4se']:5d} {r['below_4se']:6d}",
            flush=True,
        )
        for name, e in r["variants"].items():
            print(f"        {name:14s} {e['gain']:+8.3f} ± {e['se']:.3f}  z {e['z']:+6.1f}")
    out = Path(__file__).resolve().parent / "results" / "expert.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps(rows, indent=1))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
