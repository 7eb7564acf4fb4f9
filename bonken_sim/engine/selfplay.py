"""In-memory self-play on all cores: every deal played in every contract variant.

For model fitting and comparisons that need whole arrays rather than a Parquet run. Deal
``start + i`` is a pure function of (seed, start + i), so the result does not depend on the
thread count.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from bonken_sim import processes
from bonken_sim._core import kernels as K
from bonken_sim._core.ids import N_VARIANTS
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import standard_table
from bonken_sim.engine.strategies import parse_strategies, strategy_array


@dataclass
class SelfPlay:
    hands: np.ndarray  # (n, 4) uint64
    scores: np.ndarray  # (n, 12, 4) int16, raw scores by variant id and seat
    seed: int
    strategies: str
    dealer: int
    start: int = 0  # the first deal's index


def self_play(
    deals: int,
    seed: int,
    strategies: str = "basic",
    threads: int | None = None,
    start: int = 0,
    dealer: int = 0,
) -> SelfPlay:
    """Play deals ``start … start + deals - 1`` of ``seed`` in every variant."""
    threads = threads or processes.usable_cores()
    strat = strategy_array(parse_strategies(strategies))
    variants = np.arange(N_VARIANTS, dtype=np.int64)
    table = standard_table()
    key = seed_key(seed)
    hands = np.zeros((deals, 4), np.uint64)
    scores = np.zeros((deals, N_VARIANTS, 4), np.int16)
    tricks = np.zeros((deals, N_VARIANTS, 4), np.int8)
    order = np.zeros((deals, N_VARIANTS, 4), np.int8)
    step = max(1, -(-deals // (4 * threads)))  # a few slices per thread evens out the load

    def work(lo: int) -> None:
        hi = min(deals, lo + step)
        K.simulate_batch(
            key,
            start + lo,
            dealer,
            variants,
            strat,
            table,
            hands[lo:hi],
            scores[lo:hi],
            tricks[lo:hi],
            order[lo:hi],
        )

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(work, range(0, deals, step)))
    return SelfPlay(hands, scores, seed, strategies, dealer, start)
