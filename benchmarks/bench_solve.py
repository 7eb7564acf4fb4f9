"""Speed of the exact solver (``bonken-sim solve``): per trick contract, the median, p90 and
max time and the nodes of one (position, contract, seat) value on one core, for endings of
``--cards`` cards a seat and for full 13-card deals. ``bonken-sim bench`` runs the same
with small samples.

    .venv/bin/python benchmarks/bench_solve.py --endings 200 --deals 0
    .venv/bin/python benchmarks/bench_solve.py --endings 0 --deals 8 --max-nodes 2e8

Positions are the engine's deals of ``--seed`` (bonken_sim/bench/solver.py says how); times
are wall-clock and depend on the machine's load, node counts do not. The JSON result goes
to benchmarks/results/.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

from bonken_sim.bench.solver import TRICK_VARIANTS, run_solver_bench


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--endings", type=int, default=200, help="endings per contract")
    ap.add_argument("--cards", type=int, default=5, help="cards a seat in the endings (1-12)")
    ap.add_argument("--deals", type=int, default=3, help="full deals per contract")
    ap.add_argument("--max-nodes", type=float, default=5e7, help="give up a position after")
    ap.add_argument("--table-bits", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--contracts", default="", help="comma-separated variant names (all)")
    args = ap.parse_args()
    wanted = set(filter(None, args.contracts.split(",")))
    variants = tuple(v for v in TRICK_VARIANTS if not wanted or v.name in wanted)
    if not variants or not 1 <= args.cards <= 12:
        ap.error("--contracts must name trick variants and --cards must be 1 to 12")
    doc = run_solver_bench(
        endings=args.endings,
        deals=args.deals,
        cards=args.cards,
        max_nodes=int(args.max_nodes),
        table_bits=args.table_bits,
        seed=args.seed,
        variants=variants,
    )
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"bench_solve_{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(doc, indent=2))
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
