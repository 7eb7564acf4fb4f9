"""What ``bonken-sim bench`` times, reached through the engine: the yardstick kernels
(``_core/yardstick.py``) and the batch kernel playing into arrays allocated before the clock
starts.

The bench measures the kernels themselves, so nothing here validates or copies: a caller
passes arrays of the kernels' types (``seed_key``, ``standard_table``, int64 variants and
strategy codes).
"""

from __future__ import annotations

import time

import numpy as np

from bonken_sim._core import kernels as K
from bonken_sim._core.ids import N_VARIANTS, STRATEGY_NAMES
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim._core.yardstick import TOY_BLOCKS, baseline_playouts, toy_playouts, tuned_playouts

__all__ = [
    "N_VARIANTS",
    "STRATEGY_NAMES",
    "TOY_BLOCKS",
    "DealBuffers",
    "baseline_playouts",
    "baseline_rate",
    "cpu_rate",
    "deal_buffers",
    "play_into",
    "seed_key",
    "standard_table",
    "toy_playouts",
    "tuned_playouts",
]

#: the batch kernel's outputs for n deals of nv variants: hands, scores, tricks, Domino order
DealBuffers = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def deal_buffers(n: int, nv: int) -> DealBuffers:
    """The output arrays of ``play_into`` for ``n`` deals in ``nv`` variants."""
    return (
        np.zeros((n, 4), np.uint64),
        np.zeros((n, nv, 4), np.int16),
        np.zeros((n, nv, 4), np.int8),
        np.zeros((n, nv, 4), np.int8),
    )


def play_into(
    key, start: int, variants: np.ndarray, strat: np.ndarray, table: np.ndarray, bufs: DealBuffers
) -> None:
    """Play deals ``start … start+n−1`` (n the buffers' length), dealer seat 0, in ``variants``
    with the seats' strategy codes ``strat``, into ``bufs`` (from ``deal_buffers``)."""
    K.simulate_batch(key, start, 0, variants, strat, table, *bufs)


def cpu_rate(kernel, key, start: int, deals: int) -> float:
    """Playouts per CPU-second of this thread of a yardstick ``kernel`` on deals ``start …
    start+deals−1`` (CPU time barely moves with other load on a shared machine)."""
    t0 = time.thread_time()
    kernel(key, start, deals)
    return deals / (time.thread_time() - t0)


def baseline_rate(deals: int, repeats: int, seed: int = 1) -> tuple[float, list[float]]:
    """Median playouts/s of the baseline kernel on this thread (wall clock, as the engine's
    single-thread rates in ``bench``), and the samples."""
    key = seed_key(seed)
    baseline_playouts(key, 0, 10)  # compile or load from the cache first
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        baseline_playouts(key, 1_000_000 + r * deals, deals)
        rates.append(deals / (time.perf_counter() - t0))
    return float(np.median(rates)), rates
