"""Two card-play settings head to head: each one hero among three ``advanced`` players, in
each seat in turn on the same deals, and per variant the second hero's mean score minus the
first's, paired per deal, with its standard error and z; and the seconds each hero's deals
took (both on the same threads, one after the other). For a fair time ratio,
``--alternate R`` also times each hero on ``--time-deals`` deals on one thread, the two
alternated R times (medians).

This is ``bonken-sim ladder --infer-deals``'s measure for any two settings, e.g. the plain
expert against an inferring one with fewer samples:

    python benchmarks/bench_expert_pair.py --deals 4000 --seed 11 expert expert:20:0:2

JSON goes to benchmarks/results/expert_pair.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

import numpy as np

from bonken_sim.analyses.ladder import hero_gains
from bonken_sim.models.choice import NAMES


def alternated_times(args) -> list[list[float]]:
    """Each hero's seconds on ``--time-deals`` deals, one thread, the two alternated
    ``--alternate`` times (each round on deals of its own seed); prints the medians' ratio."""
    times: list[list[float]] = [[], []]
    for r in range(args.alternate):
        order = [0, 1] if r % 2 == 0 else [1, 0]
        for h in order:
            name = (args.first, args.second)[h]
            times[h].append(hero_gains(args.time_deals, args.seed + 1 + r, "advanced", name, 1)[1])
    a, b = statistics.median(times[0]), statistics.median(times[1])
    print(f"one thread, {args.time_deals} deals, alternated {args.alternate}x: medians "
          f"{a:.2f} s and {b:.2f} s, ratio {b / a:.3f}")  # fmt: skip
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("first", help="the first hero's strategy, e.g. expert")
    ap.add_argument("second", help="the second hero's strategy, e.g. expert:20:0:2")
    ap.add_argument("--deals", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--alternate", type=int, default=0, help="one-thread timing rounds (0: none)")
    ap.add_argument("--time-deals", type=int, default=200)
    args = ap.parse_args()
    a, t_a = hero_gains(args.deals, args.seed, "advanced", args.first, args.threads)
    b, t_b = hero_gains(args.deals, args.seed, "advanced", args.second, args.threads)
    d = b - a
    print(f"{args.first}: {t_a:.1f} s  {args.second}: {t_b:.1f} s  ratio {t_b / t_a:.2f}")
    rows = {}
    for v, name in enumerate(NAMES):
        mean = float(d[:, v].mean())
        se = float(d[:, v].std(ddof=1) / np.sqrt(args.deals))
        z = mean / se if se > 0 else 0.0
        rows[name] = {"gain": mean, "se": se, "z": z}
        print(f"{name:14s} {mean:+.3f} ± {se:.3f}  z {z:+.1f}")
    total = d.sum(axis=1)
    se_total = float(total.std(ddof=1) / np.sqrt(args.deals))
    print(f"{'all 12 summed':14s} {total.mean():+.3f} ± {se_total:.3f}")
    timing = alternated_times(args) if args.alternate > 0 else None
    out = Path(__file__).resolve().parent / "results" / "expert_pair.json"
    out.parent.mkdir(exist_ok=True)
    doc = {
        "first": args.first,
        "second": args.second,
        "deals": args.deals,
        "seed": args.seed,
        "seconds": [t_a, t_b],
        "variants": rows,
        "sum": {"gain": float(total.mean()), "se": se_total},
        "alternated_seconds": timing,
    }
    out.write_text(json.dumps(doc, indent=1))
    print(f"saved {out}")


if __name__ == "__main__":
    main()
