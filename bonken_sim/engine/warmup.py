"""Compile every kernel into numba's on-disk cache, so later runs start warm."""

from __future__ import annotations

import time

import numpy as np


def warmup() -> float:
    """Compile (or load from cache) every kernel by calling it once; returns the seconds taken."""
    t0 = time.perf_counter()
    from bonken_sim._core import kernels as K
    from bonken_sim._core.ids import N_VARIANTS
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    table = standard_table()
    key = seed_key(0)
    variants = np.arange(N_VARIANTS, dtype=np.int64)
    strat = np.array([0, 1, 0, 1], dtype=np.int64)
    n = 2
    K.simulate_batch(
        key,
        0,
        0,
        variants,
        strat,
        table,
        np.zeros((n, 4), np.uint64),
        np.zeros((n, N_VARIANTS, 4), np.int16),
        np.zeros((n, N_VARIANTS, 4), np.int8),
        np.zeros((n, N_VARIANTS, 4), np.int8),
    )
    # Deals with an advanced seat run their own builds of the play loops.
    K.simulate_batch(
        key,
        0,
        0,
        variants,
        np.array([2, 1, 0, 2], dtype=np.int64),
        table,
        np.zeros((n, 4), np.uint64),
        np.zeros((n, N_VARIANTS, 4), np.int16),
        np.zeros((n, N_VARIANTS, 4), np.int8),
        np.zeros((n, N_VARIANTS, 4), np.int8),
    )
    hands = np.zeros(4, np.uint64)
    four = [np.zeros(4, np.int64) for _ in range(3)]
    trace = np.zeros(K.TRACE_LEN, np.int64)
    for v in (0, 6):
        n_tr = K.trace_deal(key, 0, 0, v, strat, table, hands, *four, trace)
        seats = np.zeros(n_tr, np.int64)
        results = np.zeros((13, 3), np.int64)
        K.replay(table[v], hands.copy(), 0, trace[:n_tr].copy(), four[0], four[1], seats, results)
    K.deal_hands(key, 0, hands)
    from bonken_sim.runs.deals import warm_kernels  # the run's feature and column kernels

    warm_kernels()
    from bonken_sim.analyses.advise import warm as warm_advise  # the conditional dealer of `advise`

    warm_advise()
    from bonken_sim.engine.games import play_games  # full games: choice, doubling, settlement

    play_games(2, 0, np.arange(4), ["basic", "random", "basic", "random"], threads=1)
    from bonken_sim._core.staked import staked_batch  # the ladder's stake-aware doubling rung

    staked_batch(
        key,
        np.zeros(1, np.int64),
        0,
        np.ones(1, np.int64),
        np.full(4, 2, np.int64),
        table,
        np.ones((1, 4, 4), np.int64),
        np.zeros((1, 4), np.int64),
    )
    from bonken_sim.bench.yardstick import baseline_playouts  # bench's yardstick

    baseline_playouts(key, 0, 1)
    return time.perf_counter() - t0
