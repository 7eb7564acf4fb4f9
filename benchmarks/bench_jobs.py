"""Whole commands against the toy playout kernel: `bonken-sim run --deals N` (12 playouts a
deal) and `bonken-sim game --games N` (11 a game), each end to end in a fresh process, timed
in turns with the toy kernel (the engine's dealing, lowest legal card, prange) on the same
playouts and threads; wall and CPU medians and their ratios. `run-random=N` adds `run` with
every seat random: the floor under `run` (the rules, scores and Parquet with no strategy).

`python benchmarks/bench_jobs.py [--jobs run=1e6,game=1e6] [--repeats 3] [--threads 2]`;
the JSON result goes to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from bonken_sim.bench.jobs import FULL_SIZES, parse_jobs, run_jobs

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", default=",".join(f"{k}={v}" for k, v in FULL_SIZES.items()))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=12345)
    args = ap.parse_args()
    try:
        sizes = parse_jobs(args.jobs)
        if args.threads is not None and args.threads < 1:
            raise ValueError(f"--threads must be at least 1, got {args.threads}")
        doc = run_jobs(sizes, args.repeats, args.threads, args.seed)
    except (ValueError, RuntimeError) as exc:
        print(f"bench_jobs.py: error: {exc}", file=sys.stderr)
        sys.exit(2)
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    path = out / f"bench_jobs_{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(doc, indent=2))
    print(f"\nwrote {path}")
