"""Core benchmark: playouts/s per core and ns per card for each strategy and contract variant,
then whole run and game commands against the toy playout kernel.

Run `make bench` or `python benchmarks/bench_core.py [--deals N] [--repeats R] [--jobs LIST]`;
JSON results go to benchmarks/results/. Beside what `bonken-sim bench` measures, this script
times the pure-Python reference of tests/reference on the same deals (random and basic: the
reference has no advanced tier), which only a checkout of the repository has.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from bonken_sim.bench.bench import run_bench
from bonken_sim.bench.jobs import DEFAULT_SIZES, parse_jobs
from bonken_sim.rules.names import VARIANTS

REPO = Path(__file__).resolve().parents[1]


def reference_rate(seed: int, deals: int, strategy: int) -> float:
    """Playouts/s of the pure-Python reference on deals 0 … deals−1 of ``seed``, every variant,
    every seat the tier ``strategy``."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))  # run as a script: tests/ is beside this folder
    from tests import reference as ref

    t0 = time.perf_counter()
    n = 0
    for d in range(deals):
        for v in VARIANTS:
            ref.play_deal(seed, d, v.id, (strategy,) * 4, 0)
            n += 1
    return n / (time.perf_counter() - t0)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-deals", type=int, default=40, help="0 skips the reference")
    ap.add_argument(
        "--jobs",
        default=",".join(f"{k}={v}" for k, v in DEFAULT_SIZES.items()),
        help="run=DEALS,game=GAMES against the toy kernel, or none (see bonken-sim bench)",
    )
    args = ap.parse_args()
    try:
        jobs = parse_jobs(args.jobs)
    except ValueError as exc:
        ap.error(str(exc))
    run_bench(
        deals=args.deals,
        repeats=args.repeats,
        reference_deals=args.reference_deals,
        reference_rate=reference_rate,
        jobs=jobs,
        out_dir=Path(__file__).resolve().parent / "results",
    )
