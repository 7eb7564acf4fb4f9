"""The core benchmark: deal-playouts per second per strategy and contract variant.

Timing never gates a test; this is what `bonken-sim bench` and `make bench` run. Numbers are
medians over repeats, on fresh deals, with the kernels already compiled (compile time is
measured apart, first thing, on whatever cache state the machine has).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from bonken_sim.engine.provenance import versions
from bonken_sim.engine.yardstick import (
    N_VARIANTS,
    STRATEGY_NAMES,
    deal_buffers,
    play_into,
    seed_key,
    standard_table,
)
from bonken_sim.errors import BadValue
from bonken_sim.files import CannotWrite, write_atomic
from bonken_sim.rules.names import VARIANTS

STRATEGIES = {name: tier for tier, name in enumerate(STRATEGY_NAMES)}  # name -> tier id
REFERENCE_STRATEGIES = ("random", "basic")  # the tiers tests/reference implements
#: playouts/s of the pure-Python reference (tests/reference, not installed with the package)
#: on deals 0 … deals−1 of a seed, every seat one tier: (seed, deals, tier id) -> rate;
#: benchmarks/bench_core.py passes one
ReferenceRate = Callable[[int, int, int], float]


def _timed_batch(key, start, n, variants, strat, table, threads: int) -> float:
    """Seconds to play deals [start, start+n) in ``variants`` on ``threads`` threads."""
    nv = len(variants)
    if threads == 1:
        one = deal_buffers(n, nv)
        t0 = time.perf_counter()
        play_into(key, start, variants, strat, table, one)
        return time.perf_counter() - t0
    share = -(-n // threads)
    parts = [(start + i * share, min(share, n - i * share)) for i in range(threads)]
    bufs = [deal_buffers(m, nv) for _, m in parts]
    with ThreadPoolExecutor(threads) as pool:
        t0 = time.perf_counter()
        futures = [
            pool.submit(play_into, key, s, variants, strat, table, b)
            for (s, _), b in zip(parts, bufs, strict=True)
        ]
        for f in futures:
            f.result()
        return time.perf_counter() - t0


def _median_rate(key, n, variants, strat, table, threads, repeats, offset) -> float:
    """Median playouts/s over ``repeats`` runs, each on fresh deals."""
    rates = []
    for r in range(repeats):
        secs = _timed_batch(key, offset + r * n, n, variants, strat, table, threads)
        rates.append(n * len(variants) / secs)
    return statistics.median(rates)


def run_bench(
    deals: int = 200_000,
    repeats: int = 5,
    threads: tuple[int, ...] = (1, 2),
    seed: int = 12345,
    reference_deals: int = 40,
    reference_rate: ReferenceRate | None = None,
    out_dir: Path | None = None,
    echo=print,
    strategies: tuple[str, ...] = tuple(STRATEGIES),
    solver: dict | None = None,
    jobs: dict[str, int] | None = None,
    job_repeats: int = 3,
) -> dict:
    """Measure and return a result document; also written as JSON to ``out_dir``.

    ``strategies``: which tiers to measure (names of ``STRATEGIES``), every seat the same.
    ``solver``: keyword arguments of ``bench.solver.run_solver_bench`` (its sample sizes and
    node budget; None: its defaults), timed after the tiers.
    ``reference_rate``: times the pure-Python reference on ``reference_deals`` deals, for the
    random and basic tiers' speed-up over it (None, or no deals: not measured).
    ``jobs``: whole commands to time against the toy kernel (``bench.jobs``: job name → deals
    or games), ``job_repeats`` times each, on the largest of ``threads``; last.
    """
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown or not strategies:
        raise BadValue(
            f"unknown strategy {unknown[0] if unknown else ''!r} "
            f"(expected some of: {', '.join(STRATEGIES)})"
        )
    chosen = {s: STRATEGIES[s] for s in STRATEGIES if s in strategies}
    if jobs:
        from bonken_sim.bench.jobs import check_jobs

        check_jobs(jobs, job_repeats)
    from bonken_sim.engine.warmup import warmup

    compile_s = warmup()
    table = standard_table()
    key = seed_key(seed)
    result: dict = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
        },
        "versions": versions(),
        "deals_per_repeat": deals,
        "repeats": repeats,
        "compile_or_cache_load_seconds": round(compile_s, 2),
        "strategies": {},
    }
    echo(
        f"kernels ready in {compile_s:.1f} s; {deals:,} fresh deals per repeat, median of {repeats}"
    )
    _tiers(result, chosen, key, table, deals, repeats, threads, echo)
    _yardstick(result, deals, repeats, echo, key, table, chosen)
    if reference_deals and reference_rate is not None:
        _reference(result, chosen, reference_rate, seed, reference_deals, echo)
    from bonken_sim.bench.solver import run_solver_bench

    result["solver"] = run_solver_bench(echo=echo, **(solver or {}))
    if jobs:
        from bonken_sim.bench.jobs import run_jobs

        result["jobs"] = run_jobs(jobs, job_repeats, max(threads), seed, echo)
    if out_dir is not None:
        _save(result, out_dir, echo)
    return result


def _tiers(result, chosen, key, table, deals, repeats, threads, echo) -> None:
    """Each tier's playouts per second: single thread per variant, then all twelve variants
    per deal on each thread count (into ``result["strategies"]``)."""
    all_v = np.arange(N_VARIANTS, dtype=np.int64)
    echo("")
    header = f"{'variant':14s}" + "".join(f"{s + ' /s':>14s}{'ns/card':>9s}" for s in chosen)
    echo("single thread, one variant per fresh deal (dealing included)")
    echo(header)
    per_variant: dict[str, dict[str, float]] = {s: {} for s in chosen}
    n_single = max(deals // 4, 1000)
    for v in VARIANTS:
        row = f"{v.name:14s}"
        for sname, sid in chosen.items():
            strat = np.full(4, sid, np.int64)
            rate = _median_rate(key, n_single, np.array([v.id]), strat, table, 1, repeats, 10**9)
            per_variant[sname][v.name] = rate
            row += f"{rate:14,.0f}{1e9 / rate / 52:9.1f}"
        echo(row)
    echo("")
    echo("all 12 variants per deal (as `bonken-sim run` plays them)")
    columns = ("threads", 8), ("playouts/s", 14), ("per core", 12), ("ns/card", 9), ("scaling", 9)
    echo(f"{'strategy':10s}" + "".join(f"{name:>{width}s}" for name, width in columns))
    for sname, sid in chosen.items():
        strat = np.full(4, sid, np.int64)
        doc = {
            "per_variant_single_thread": per_variant[sname],
            "mean_over_variants_single_thread": statistics.fmean(per_variant[sname].values()),
        }
        base = None
        for t in threads:
            rate = _median_rate(key, deals, all_v, strat, table, t, repeats, 2 * 10**9 + 10**8 * t)
            base = base or rate
            doc[f"all_variants_threads_{t}"] = rate
            echo(
                f"{sname:10s}{t:8d}{rate:14,.0f}{rate / t:12,.0f}{1e9 / (rate / t) / 52:9.1f}"
                f"{rate / base:9.2f}"
            )
        result["strategies"][sname] = doc


def _reference(result, chosen, reference_rate, seed, reference_deals, echo) -> None:
    """The random and basic tiers' speed-up over the pure-Python reference."""
    echo("")
    for sname, sid in chosen.items():
        if sname not in REFERENCE_STRATEGIES:
            continue
        ref = reference_rate(seed, reference_deals, sid)
        fast = result["strategies"][sname]["all_variants_threads_1"]
        result["strategies"][sname]["reference_playouts_per_s"] = ref
        result["strategies"][sname]["speedup_over_reference"] = fast / ref
        echo(
            f"{sname}: pure-Python reference {ref:,.0f} playouts/s -> numba single thread "
            f"is {fast / ref:,.0f}x faster"
        )


def _save(result: dict, out_dir: Path, echo) -> None:
    """The result as JSON in ``out_dir`` (its path into ``result["path"]``)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # made unwritable or full since the command checked it
        raise CannotWrite(out_dir, exc.strerror or str(exc)) from None
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = out_dir / f"bench_core_{stamp}.json"
    # whole or not at all: a bench stopped or failing mid-write leaves no truncated JSON
    write_atomic(path, [json.dumps(result, indent=2)])
    result["path"] = str(path)
    echo(f"\nwrote {path}")


# The speed goals were set where "a minimal tuned random-playout kernel reaches about
# 2.1 million/s per core": as multiples of such a kernel, random >= 1.5/2.1, basic >= 1.2/2.1,
# advanced >= 0.6/2.1.
TARGET_RATIOS = {"random": 1.5 / 2.1, "basic": 1.2 / 2.1, "advanced": 0.6 / 2.1}


def _yardstick(
    result: dict, deals: int, repeats: int, echo, key, table, strategies: dict[str, int]
) -> None:
    """Each tier's single-thread rate (all twelve variants) as a multiple of a minimal playout
    kernel, which compares across machines: the plain kernel of _core/yardstick.py and its tuned
    twin (the same game, card for card, with the branches that mispredict taken out); the
    faster of the two is the yardstick.

    The tiers and the kernels are timed in turns, repeat by repeat, in CPU seconds of this
    thread: a ratio so taken barely moves with other load on the machine (wall-clock rates on
    a shared machine swing by a third)."""
    from bonken_sim.engine.yardstick import baseline_playouts, cpu_rate, tuned_playouts

    kernels = {"plain": baseline_playouts, "tuned": tuned_playouts}
    for kern in kernels.values():
        kern(key, 0, 10)  # compiled or loaded before any timing
    all_v = np.arange(N_VARIANTS, dtype=np.int64)
    cpu: dict[str, list[float]] = {k: [] for k in [*kernels, *strategies]}
    for r in range(repeats):
        start = 3 * 10**9 + r * deals
        for name, kern in kernels.items():
            cpu[name].append(cpu_rate(kern, key, start, deals))
        for sname, sid in strategies.items():
            bufs = deal_buffers(deals, N_VARIANTS)
            strat = np.full(4, sid, np.int64)
            t0 = time.thread_time()
            play_into(key, start, all_v, strat, table, bufs)
            cpu[sname].append(N_VARIANTS * deals / (time.thread_time() - t0))
    med = {k: statistics.median(v) for k, v in cpu.items()}
    base = max(med["plain"], med["tuned"])
    doc: dict = {
        "playouts_per_cpu_s": base,
        "plain_per_cpu_s": med["plain"],
        "tuned_per_cpu_s": med["tuned"],
        "samples": {k: cpu[k] for k in kernels},
        "tiers_per_cpu_s": {s: med[s] for s in strategies},
        "ratios": {},
        "targets": {s: TARGET_RATIOS[s] for s in strategies if s in TARGET_RATIOS},
    }
    echo("")
    echo("yardstick: a minimal random-playout kernel (_core/yardstick.py), plain and tuned, timed")
    echo("in turns with each tier, single thread, CPU seconds of this thread, medians")
    for name in kernels:
        echo(f"{name:10s}{med[name]:14,.0f} playouts/CPU-s{1e9 / med[name] / 52:9.1f} ns/card")
    for sname in strategies:
        ratio = med[sname] / base
        doc["ratios"][sname] = ratio
        target = TARGET_RATIOS.get(sname)
        note = f"   (goal: >= {target:.2f}x)" if target else ""
        echo(f"{sname:10s}{med[sname]:14,.0f} playouts/CPU-s = {ratio:.2f}x the yardstick{note}")
    result["baseline"] = doc
