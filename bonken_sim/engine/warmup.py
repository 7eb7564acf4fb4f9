"""Compile every kernel into numba's on-disk cache, so later runs start warm.

A complete warmup leaves a marker in the cache folder, which is keyed on the core's sources:
``is_warm()`` is then true until the engine changes (or the cache is removed).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bonken_sim import _core
from bonken_sim._core._jit import cache_dir

STEPS = 8  # the kernel groups warmup compiles, for its progress


def _marker() -> Path:
    """The file a complete warmup leaves in the cache. numba caches a copy of the core per
    folder it is installed in (one per checkout), so the marker names the folder too."""
    core = str(Path(_core.__file__).resolve().parent)
    return cache_dir() / f"warmup-complete-{hashlib.sha1(core.encode()).hexdigest()[:16]}"


def is_warm() -> bool:
    """Whether a complete warmup has filled this engine's kernel cache."""
    return _marker().is_file()


def warmup(progress: Callable[[int, int], None] | None = None) -> float:
    """Compile (or load from cache) every kernel by calling it once; returns the seconds taken.
    ``progress(done, STEPS)`` is called before each group of kernels and at the end."""
    t0 = time.perf_counter()
    step = iter(range(STEPS + 1))

    def tick() -> None:
        if progress is not None:
            progress(next(step), STEPS)

    tick()
    from bonken_sim._core import kernels as K
    from bonken_sim._core.ids import N_VARIANTS
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    table = standard_table()
    key = seed_key(0)
    strat = np.array([0, 1, 0, 1], dtype=np.int64)
    # A run's deals with random and basic seats, then with an advanced seat and with an
    # expert seat (their own builds of the play loops), with the run's features and columns.
    from bonken_sim.engine.deals import play_deal_columns

    for tiers in ((0, 1, 0, 1), (2, 1, 0, 2), (3, 2, 1, 0)):
        play_deal_columns(0, 0, 2, 0, tuple(range(N_VARIANTS)), tiers, table)
        tick()
    hands = np.zeros(4, np.uint64)
    four = [np.zeros(4, np.int64) for _ in range(3)]
    trace = np.zeros(K.TRACE_LEN, np.int64)
    for v in (0, 6):
        n_tr = K.trace_deal(key, 0, 0, v, strat, table, hands, *four, trace)
        seats = np.zeros(n_tr, np.int64)
        results = np.zeros((13, 3), np.int64)
        K.replay(table[v], hands.copy(), 0, trace[:n_tr].copy(), four[0], four[1], seats, results)
    K.deal_hands(key, 0, hands)
    tick()
    # advise: the conditional dealer, its deals played, and the unconditional reference deals
    from bonken_sim.engine.conditional import deal_scores, warm_conditional_dealer

    one, seats = np.zeros(1, np.int64), np.ones(4, np.int64)
    deal_scores(0, 0, 1, 0, one, seats, table, hand=(1 << 13) - 1, seat=2)
    deal_scores(0, 0, 1, 0, one, seats, table)
    warm_conditional_dealer()
    tick()
    from bonken_sim.engine.games import play_games  # full games: choice, doubling, settlement

    play_games(2, 0, np.arange(4), ["basic", "random", "basic", "random"], threads=1)
    tick()
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

    tick()
    baseline_playouts(key, 0, 1)
    tick()
    with contextlib.suppress(OSError):  # an unwritable cache: numba cannot cache either
        _marker().touch()
    return time.perf_counter() - t0
