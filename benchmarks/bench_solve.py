"""Speed of the exact solver (``bonken-sim solve``): per contract, the time and nodes of one
(position, contract, seat) solve, on one core.

    .venv/bin/python benchmarks/bench_solve.py --cards 5 --positions 200
    .venv/bin/python benchmarks/bench_solve.py --cards 13 --positions 3 --max-nodes 2e8

Positions are endings of real deals (seed 1): each seat keeps ``--cards`` random cards of
its hand; the leader is seat 1 and the value is for seat 1 (``solve_value``, the entry
point other kernels call). Times are wall-clock and depend on the machine's load; node
counts do not.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np

from bonken_sim._core import solver as S
from bonken_sim._core.ruleset import standard_table
from bonken_sim.engine.play import deal_hands
from bonken_sim.rules.names import VARIANT_NAMES


def _ending(deal: int, cards: int) -> np.ndarray:
    rng = random.Random(deal)
    masks = deal_hands(1, deal)
    kept = [rng.sample([c for c in range(52) if m >> c & 1], cards) for m in masks]
    return np.array([sum(1 << c for c in h) for h in kept], dtype=np.uint64)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cards", type=int, default=5, help="cards a seat (1-13)")
    ap.add_argument("--positions", type=int, default=200, help="positions per contract")
    ap.add_argument("--table-bits", type=int, default=20)
    ap.add_argument("--max-nodes", type=float, default=50e6, help="give up a position after")
    ap.add_argument("--contracts", default="", help="comma-separated names (default: all)")
    args = ap.parse_args()
    table = standard_table()
    tt = S.new_table(args.table_bits)
    tt.fill(0)
    ctx = np.zeros(S.N_CTX, np.int64)
    si, su = S.new_stack()
    S.solve_value(_ending(0, 1), 1, 1, table[0], tt, ctx, si, su, 1)  # load the kernel
    print(f"{args.cards} cards a seat, {args.positions} positions per contract, one core")
    print(
        f"{'contract':14s} {'median ms':>10s} {'p90 ms':>8s} {'max ms':>8s} "
        f"{'median nodes':>13s} {'max nodes':>12s} {'all nodes':>13s} {'gave up':>7s}"
    )
    wanted = set(filter(None, args.contracts.split(",")))
    for vid, name in enumerate(VARIANT_NAMES):
        if vid == 6 or (wanted and name not in wanted):
            continue  # domino: not a trick contract
        times, nodes, gave_up = [], [], 0
        for d in range(args.positions):
            h = _ending(d, args.cards)
            t0 = time.perf_counter()
            S.solve_value(h, 1, 1, table[vid], tt, ctx, si, su, int(args.max_nodes))
            times.append(1e3 * (time.perf_counter() - t0))
            nodes.append(int(ctx[S.C_NODES]))
            gave_up += int(ctx[S.C_ABORTED])
        times.sort()
        p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
        print(
            f"{name:14s} {statistics.median(times):10.3f} {p90:8.3f} {max(times):8.3f} "
            f"{int(statistics.median(nodes)):13,d} {max(nodes):12,d} {sum(nodes):13,d} "
            f"{gave_up:7d}",
            flush=True,
        )


if __name__ == "__main__":
    main()
