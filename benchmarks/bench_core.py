"""Core benchmark: playouts/s per core and ns per card for each strategy and contract variant,
then whole run and game commands against the toy playout kernel.

Run `make bench` or `python benchmarks/bench_core.py [--deals N] [--repeats R] [--jobs LIST]`;
JSON results go to benchmarks/results/.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bonken_sim.bench.bench import run_bench
from bonken_sim.bench.jobs import DEFAULT_SIZES, parse_jobs

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-deals", type=int, default=40)
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
        jobs=jobs,
        out_dir=Path(__file__).resolve().parent / "results",
    )
