"""Benchmark of `bonken-sim advise` against its target: 100,000 conditional deals × 12 contract
variants (1.2 million playouts) in at most 1 s, warm.

Measures, with the kernels compiled first and each repeat on fresh deals (another seed):
- the conditional deals alone (what the target counts), through advise's own chunked pool;
- the whole advice as `advise()` computes it: the conditional deals plus as many
  unconditional deals for the contract averages, and the statistics;
- the command end to end (`bonken-sim advise --json`: process start, imports, cache load).
Medians of ``--repeats`` for 1 and 2 threads. Run `python benchmarks/bench_advise.py`; the
JSON result goes to benchmarks/results/bench_advise_<UTC time>.json. Nothing here gates a
test: these machines are noisy and shared.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bonken_sim import __version__
from bonken_sim.analyses.advise import advise, make_config, play
from bonken_sim.engine.warmup import compile_part

HAND = "AS KS 7S 2H 3H 9D TD JD QC 4C 5C 6C 8C"
TARGET_SECONDS = 1.0
RESULTS = Path(__file__).resolve().parent / "results"


def _median_seconds(fn, repeats: int) -> tuple[float, list[float]]:
    samples = []
    for r in range(repeats):
        t0 = time.perf_counter()
        fn(r)
        samples.append(time.perf_counter() - t0)
    return statistics.median(samples), samples


def _cli_seconds(deals: int, threads: int, repeats: int) -> tuple[float, list[float]]:
    exe = Path(sys.executable).with_name("bonken-sim")
    cmd = [str(exe), "advise", "--hand", HAND, "--deals", str(deals), "--json"]
    cmd += ["--threads", str(threads)]

    def once(r: int) -> None:
        subprocess.run([*cmd, "--seed", str(5000 + r)], check=True, capture_output=True)

    return _median_seconds(once, repeats)


def main() -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    t0 = time.perf_counter()
    compile_part(("advise", "basic"))  # compiled or loaded: the timings are warm
    doc: dict[str, Any] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "load_average_at_start": list(os.getloadavg()),
        },
        "bonken_sim": __version__,
        "hand": HAND,
        "seat": "chooser",
        "strategies": "basic",
        "deals": args.deals,
        "variants": 12,
        "repeats": args.repeats,
        "target": f"{args.deals:,} conditional deals x 12 variants in <= {TARGET_SECONDS} s warm",
        "compile_or_cache_load_seconds": time.perf_counter() - t0,
        "threads": {},
    }
    playouts = args.deals * 12
    print(f"{args.deals:,} deals x 12 variants, basic, median of {args.repeats}; warm")
    print(
        f"{'threads':>7} {'conditional only':>18} {'playouts/s':>12} {'per CPU-s':>11} "
        f"{'advise()':>10} {'CLI':>8}"
    )
    for t in threads:

        def cfg(r: int, t: int = t):
            return make_config(HAND, deals=args.deals, seed=1000 * t + r, threads=t)

        cpu: list[float] = []  # thread CPU seconds: less sensitive to other load than wall

        def conditional_only(r: int, t: int = t, cpu: list[float] = cpu) -> None:
            cpu.append(play(cfg(r, t), reference=False).cpu_seconds["conditional"])

        cond, cond_s = _median_seconds(conditional_only, args.repeats)
        full, full_s = _median_seconds(lambda r: advise(cfg(r)), args.repeats)
        cli, cli_s = _cli_seconds(args.deals, t, args.repeats)
        doc["threads"][str(t)] = {
            "conditional_only_seconds": cond,
            "conditional_only_samples": cond_s,
            "conditional_playouts_per_second": playouts / cond,
            "conditional_cpu_seconds": statistics.median(cpu),
            "conditional_cpu_samples": cpu,
            "conditional_playouts_per_cpu_second": playouts / statistics.median(cpu),
            "advise_seconds": full,
            "advise_samples": full_s,
            "advise_playouts_per_second": 2 * playouts / full,
            "cli_seconds": cli,
            "cli_samples": cli_s,
            "target_met": cond <= TARGET_SECONDS,
        }
        per_cpu = playouts / statistics.median(cpu)
        print(
            f"{t:>7} {cond:>16.2f} s {playouts / cond:>12,.0f} {per_cpu:>11,.0f} "
            f"{full:>8.2f} s {cli:>6.2f} s"
        )
    met = any(v["target_met"] for v in doc["threads"].values())
    doc["target_met"] = met
    doc["load_average_at_end"] = list(os.getloadavg())
    print(f"target ({doc['target']}): {'met' if met else 'NOT met'}")
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"bench_advise_{datetime.now(UTC).strftime('%Y%m%dT%H%M%SZ')}.json"
    path.write_text(json.dumps(doc, indent=2))
    print(f"wrote {path}")
    return doc


if __name__ == "__main__":
    main()
