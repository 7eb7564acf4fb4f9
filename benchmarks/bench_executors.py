"""Executors benchmark: ``bonken-sim run`` throughput in-process and on worker processes.

Run ``python benchmarks/bench_executors.py [--deals 2e5] [--repeats 3] [--chunk-size 25k]``.
Measures the wall time of ``bonken_sim.run`` (play, encode, write the parts, manifest) for
the same run (basic strategies, all 12 variants) with

- ``threads-1``, ``threads-2``: the default in-process thread pool (1 and 2 threads);
- ``dask-1``, ``dask-2``: a Dask ``LocalCluster`` of 1 and 2 worker processes (1 thread each;
  the workers write the parts);
- ``process-2``: bonken-sim's own process pool of 2 workers.

Clusters and pools are started and warmed (one small run, so every worker has loaded the
kernels) before the timed repeats, which run round-robin over the modes so that a change in
machine load hits every mode alike; their start-up time is reported apart. Rates are deals
per second of wall time, medians over the repeats. Also the CPU seconds per 100,000 deals
spent by this process and all its descendants (forkserver, pool and Dask worker processes):
the work each mode adds on top of playing and writing, which other processes' load does not
change much, while wall times on a busy machine mean little. The JSON document (with the
load average before and after every repeat) goes to benchmarks/results/. Issue targets:
dask-2 at least 1.6x dask-1, and within 15% of threads-2.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import shutil
import statistics
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import psutil

from bonken_sim.runs.deals import make_config, run
from bonken_sim.runs.executors import make_spec, open_backend
from bonken_sim.runs.options import parse_count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", default="2e5")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--chunk-size", default="25k")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--modes", default="threads-1,threads-2,dask-1,dask-2,process-2", help="comma list"
    )
    args = ap.parse_args()
    deals = parse_count(args.deals, "--deals")
    chunk = parse_count(args.chunk_size, "--chunk-size")
    modes = args.modes.split(",")
    from distributed import Client, LocalCluster

    tmp = Path(tempfile.mkdtemp(prefix="bench-executors-"))
    executors: dict[str, object] = {}
    closers = []
    startup: dict[str, float] = {}
    try:
        for mode in modes:
            kind, n = mode.split("-")
            t0 = time.perf_counter()
            if kind == "dask":
                cluster = LocalCluster(
                    n_workers=int(n),
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=":0",
                    silence_logs=logging.ERROR,
                )
                client = Client(cluster)
                executors[mode] = client.get_executor(pure=False)
                closers += [client.close, cluster.close]
            elif kind == "process":
                backend = open_backend(make_spec("process", int(n)))
                executors[mode] = backend.executor
                closers.append(backend.close)
            else:
                executors[mode] = None
            # warm: every worker loads the kernels (a chunk per worker)
            _one(mode, executors[mode], int(n), 2000 * int(n), 2000, args.seed, tmp / "warm")
            startup[mode] = time.perf_counter() - t0
            print(f"{mode:10s} started and warm in {startup[mode]:.1f} s", flush=True)
        rates: dict[str, list[float]] = {m: [] for m in modes}
        cpu: dict[str, list[float]] = {m: [] for m in modes}
        loads: dict[str, list[list[float]]] = {m: [] for m in modes}
        for r in range(args.repeats):
            for mode in modes:
                n = int(mode.split("-")[1])
                before = os.getloadavg()[0]
                c0 = _cpu_seconds()
                wall = _one(mode, executors[mode], n, deals, chunk, args.seed, tmp / f"{mode}-{r}")
                cpu[mode].append((_cpu_seconds() - c0) * 1e5 / deals)
                rates[mode].append(deals / wall)
                loads[mode].append([round(before, 2), round(os.getloadavg()[0], 2)])
                print(
                    f"  repeat {r + 1}: {mode:10s} {deals / wall:10,.0f} deals/s "
                    f"({wall:.2f} s; {cpu[mode][-1]:.2f} CPU s per 1e5 deals; load {before:.2f})",
                    flush=True,
                )
    finally:
        for close in reversed(closers):
            try:
                close()
            except Exception:  # noqa: BLE001 - best effort at exit
                pass
        shutil.rmtree(tmp, ignore_errors=True)
    med = {m: statistics.median(v) for m, v in rates.items()}
    cpu_med = {m: statistics.median(v) for m, v in cpu.items()}
    print()
    for m in modes:
        print(
            f"{m:10s} median {med[m]:10,.0f} deals/s  ({', '.join(f'{x:,.0f}' for x in rates[m])})"
            f"; {cpu_med[m]:.2f} CPU s per 1e5 deals"
        )
    ratios = {}
    if "dask-1" in med and "dask-2" in med:
        ratios["dask2_over_dask1"] = med["dask-2"] / med["dask-1"]
    if "dask-2" in med and "threads-2" in med:
        ratios["dask2_over_threads2"] = med["dask-2"] / med["threads-2"]
    if "process-2" in med and "threads-2" in med:
        ratios["process2_over_threads2"] = med["process-2"] / med["threads-2"]
    if "threads-1" in med and "threads-2" in med:
        ratios["threads2_over_threads1"] = med["threads-2"] / med["threads-1"]
    for k, v in ratios.items():
        print(f"{k:24s} {v:.3f}")
    doc = {
        "benchmark": "executors",
        "deals": deals,
        "chunk_size": chunk,
        "repeats": args.repeats,
        "strategies": "basic",
        "contracts": "all",
        "machine": platform.machine(),
        "cpus": len(os.sched_getaffinity(0)),
        "python": platform.python_version(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "startup_seconds": startup,
        "rates": rates,
        "load_average_before_after": loads,
        "medians": med,
        "cpu_seconds_per_1e5_deals": cpu,
        "cpu_medians": cpu_med,
        "ratios": ratios,
        "targets": {"dask2_over_dask1": ">= 1.6", "dask2_over_threads2": ">= 0.85"},
    }
    out = Path(__file__).resolve().parent / "results"
    out.mkdir(exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = out / f"bench_executors_{stamp}.json"
    path.write_text(json.dumps(doc, indent=1))
    print(f"\nsaved {path}")


def _cpu_seconds() -> float:
    """User + system CPU seconds of this process and every live descendant."""
    me = psutil.Process()
    total = 0.0
    for p in [me, *me.children(recursive=True)]:
        try:
            t = p.cpu_times()
        except psutil.Error:
            continue
        total += t.user + t.system
    return total


def _one(mode: str, executor, n: int, deals: int, chunk: int, seed: int, out: Path) -> float:
    """One run; its wall seconds. The output is removed afterwards."""
    kind = mode.split("-")[0]
    cfg = make_config(
        deals=deals, seed=seed, chunk_size=chunk, out=out, threads=n if kind == "threads" else 1
    )
    t0 = time.perf_counter()
    run(cfg, executor=executor)
    wall = time.perf_counter() - t0
    shutil.rmtree(out)
    return wall


if __name__ == "__main__":
    main()
