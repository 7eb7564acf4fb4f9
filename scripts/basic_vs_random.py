"""How much better is one `basic` seat among three `random` ones, per contract variant?

Rotates the basic seat over the four seats (same number of deals each) and prints the basic
seat's mean score minus the seat average (the deal total / 4), with its standard error and
z-score. Usage: python scripts/basic_vs_random.py [--deals 50000] [--seed 99]
"""

from __future__ import annotations

import argparse

import numpy as np

from bonken_sim import VARIANTS
from bonken_sim._core.ruleset import F_TOTAL, standard_table
from tests.harness import play_batch


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=99)
    args = ap.parse_args()
    table = standard_table()
    diffs = []
    for seat in range(4):
        strategies = ["random"] * 4
        strategies[seat] = "basic"
        b = play_batch(args.seed + seat, args.deals // 4, ",".join(strategies))
        diffs.append(b.scores[:, :, seat].astype(np.float64) - table[:, F_TOTAL] / 4.0)
    d = np.concatenate(diffs)
    mean, se = d.mean(axis=0), d.std(axis=0, ddof=1) / np.sqrt(len(d))
    print(f"basic seat minus seat average, {len(d):,} deals, basic rotated over the seats")
    print(f"{'variant':14s}{'mean':>9s}{'s.e.':>7s}{'z':>8s}")
    for v, m, s in zip(VARIANTS, mean, se, strict=True):
        print(f"{v.name:14s}{m:+9.2f}{s:7.2f}{m / s:8.1f}")


if __name__ == "__main__":
    main()
