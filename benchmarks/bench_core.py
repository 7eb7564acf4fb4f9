"""Core benchmark: playouts/s per core and ns per card for each strategy and contract variant.

Run `make bench` or `python benchmarks/bench_core.py [--deals N] [--repeats R]`; JSON results
go to benchmarks/results/.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bonken_sim.bench.bench import run_bench

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--reference-deals", type=int, default=40)
    args = ap.parse_args()
    run_bench(
        deals=args.deals,
        repeats=args.repeats,
        reference_deals=args.reference_deals,
        out_dir=Path(__file__).resolve().parent / "results",
    )
