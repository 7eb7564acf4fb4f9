"""Playout rate in CPU seconds of this process, for before/after comparisons of the core.

``bonken-sim bench`` times wall clock, which on a shared 2-core machine swings by ±30% with
other sessions' load; the CPU time of a single-threaded kernel call swings by about 2%. To
compare two versions of the core, run this script alternately from two source trees (e.g.
``git archive <commit> | tar -x -C /tmp/before``), so load drift hits both alike::

    for i in 1 2 3 4 5 6; do
      for t in before after; do
        (cd /tmp/$t && python /path/to/bench_cpu_ab.py >> /tmp/$t.jsonl)
      done
    done

Each run prints one JSON line: playouts per CPU second (median of 7 repeats) of each variant
family alone (the five negative contracts, laatste slag, Domino, the five troeven variants)
and of all 12 variants per deal, every seat random, basic or advanced, standard rules. The
tiers to measure may be named as arguments (``bench_cpu_ab.py basic``); by default all three.
To measure another tree than the installed one, point ``PYTHONPATH`` at it. The ids are
literals, not ``bonken_sim._core.ids``: the script must run on trees from before it.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np

from bonken_sim._core import kernels as K
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table

REPEATS = 7
TIERS = {"random": 0, "basic": 1, "advanced": 2}
# (name, variant ids, deals per repeat): each set about a quarter to half a second of play
VARIANT_SETS = (
    ("negative", [0, 1, 2, 3, 4], 40_000),
    ("laatste", [5], 150_000),
    ("domino", [6], 100_000),
    ("troeven", [7, 8, 9, 10, 11], 40_000),
    ("all12", list(range(12)), 20_000),
)


def _alloc(n: int, nv: int):
    return (
        np.empty((n, 4), np.uint64),
        np.empty((n, nv, 4), np.int16),
        np.empty((n, nv, 4), np.int8),
        np.empty((n, nv, 4), np.int8),
    )


def main(tiers: list[str]) -> None:
    unknown = [t for t in tiers if t not in TIERS]
    if unknown:
        print(f"unknown tier {unknown[0]!r}: choose from {', '.join(TIERS)}", file=sys.stderr)
        sys.exit(2)
    table = standard_table()
    key = seed_key(12345)
    out = {}
    for name, variants, n in VARIANT_SETS:
        v = np.array(variants, np.int64)
        for sname in tiers or list(TIERS):
            s = TIERS[sname]
            strat = np.full(4, s, np.int64)
            bufs = _alloc(n, len(v))
            K.simulate_batch(key, 0, 0, v, strat, table, *_alloc(100, len(v)))  # compile/load
            rates = []
            for r in range(REPEATS):
                t0 = time.process_time()
                K.simulate_batch(key, 10**6 + r * n, 0, v, strat, table, *bufs)
                rates.append(n * len(v) / (time.process_time() - t0))
            out[f"{sname}-{name}"] = statistics.median(rates)
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1:])
