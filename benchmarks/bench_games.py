"""Games benchmark: full 11-deal games per second (choice, doubling, play, settlement).

Run `python benchmarks/bench_games.py [--games N] [--repeats R]`. Fresh games every repeat,
warm kernels; medians over repeats for 1 and 2 threads and each profile; JSON results go to
benchmarks/results/. Issue target: >= 150,000 games/s on 2 threads with `basic` profiles
(>= 60,000 with `advanced`). Games per CPU-second (all threads) are reported beside the wall
rates: on a shared machine they move far less with other load.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bonken_sim.games import play_games


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    play_games(10, 0, np.arange(4), ["basic", "random", "basic", "random"], threads=1)  # warm
    rows = []
    for profile in ("basic", "advanced", "random"):
        for threads in (1, 2):
            rates, cpu_rates = [], []
            for r in range(args.repeats):
                t0, c0 = time.perf_counter(), time.process_time()
                play_games(
                    args.games, 1, np.zeros(4, np.int64), [profile], start=r * args.games,
                    threads=threads,
                )  # fmt: skip
                rates.append(args.games / (time.perf_counter() - t0))
                # CPU seconds of all threads: barely moved by other load on a shared machine
                cpu_rates.append(args.games / (time.process_time() - c0))
            med = statistics.median(rates)
            cpu = statistics.median(cpu_rates)
            rows.append({"profile": profile, "threads": threads, "games_per_s": med,
                         "playouts_per_s": med * 11, "rates": rates,
                         "games_per_cpu_s": cpu, "cpu_rates": cpu_rates})  # fmt: skip
            print(f"{profile:8s} {threads} thread(s): {med:10,.0f} games/s "
                  f"({med * 11:12,.0f} deal-playouts/s); "
                  f"{cpu:10,.0f} games per CPU-second")  # fmt: skip
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    doc = {"benchmark": "games", "games": args.games, "repeats": args.repeats,
           "machine": platform.machine(), "results": rows}  # fmt: skip
    (out / f"games-{stamp}.json").write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
