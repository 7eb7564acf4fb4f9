"""The simulation of ``bonken-sim advise``: both streams of deals played and summed.

The conditional deals keep the player's 13 cards at his seat and deal the other 39 at
random; the reference deals are deals ``0 … N−1`` of the seed exactly as ``bonken-sim run``
deals and plays them (the contracts' averages). Each chunk of deals is reduced to exact
integer sums (:class:`Sums`), so memory does not grow with ``deals`` and the result does not
depend on the thread count or chunk size.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from bonken_sim.analyses.advise.config import DEALER, AdviseConfig
from bonken_sim.engine.conditional import deal_scores
from bonken_sim.engine.strategies import strategy_array
from bonken_sim.rules.rulesets import STANDARD, Ruleset

CHUNK_DEALS = 4096  # small enough that two threads stay balanced and Ctrl-C is quick


def played_scores(
    variants: np.ndarray,
    strategies: np.ndarray,
    seed: int,
    start: int,
    n: int,
    ruleset: Ruleset = STANDARD,
    hand: int | None = None,
    seat: int = 0,
) -> np.ndarray:
    """Raw scores (n, len(variants), 4) of deals ``start … start+n−1`` of the seed, dealer
    seat 0: with ``hand``, the conditional deals in which ``seat`` holds it; without, the
    unconditional deals, those of ``bonken-sim run --seed S`` (the reference stream)."""
    return deal_scores(
        seed, start, n, DEALER, variants, strategies, ruleset.table, hand=hand, seat=seat
    )


@dataclass
class Sums:
    """Exact integer sums over deals: per (variant, seat) the score's Σs and Σs²; per
    (variant, target) the doubling difference ``d = s_me − s_t``'s Σd, Σd², #(d > 0) and
    #(d < 0)."""

    n: int
    s1: np.ndarray
    s2: np.ndarray
    d1: np.ndarray
    d2: np.ndarray
    wins: np.ndarray
    losses: np.ndarray

    @classmethod
    def zeros(cls, nv: int) -> Sums:
        z = lambda: np.zeros((nv, 4), np.int64)  # noqa: E731
        return cls(0, z(), z(), z(), z(), z(), z())

    @classmethod
    def of(cls, scores: np.ndarray, me: int) -> Sums:
        s = scores.astype(np.int64)
        d = s[:, :, me : me + 1] - s
        return cls(
            s.shape[0],
            s.sum(0),
            (s * s).sum(0),
            d.sum(0),
            (d * d).sum(0),
            (d > 0).sum(0).astype(np.int64),
            (d < 0).sum(0).astype(np.int64),
        )

    def add(self, other: Sums) -> None:
        self.n += other.n
        for name in ("s1", "s2", "d1", "d2", "wins", "losses"):
            getattr(self, name).__iadd__(getattr(other, name))


def _chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    for start in range(0, n, size):
        yield start, min(size, n - start)


@dataclass
class Played:
    """The summed results of both streams and the time they took."""

    cond: Sums
    ref: Sums
    wall_seconds: float
    cpu_seconds: dict[str, float] = field(default_factory=dict)


def play(
    cfg: AdviseConfig,
    chunk: int = CHUNK_DEALS,
    reference: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Played:
    """Play the conditional and the reference deals on ``cfg.threads`` threads.

    The two streams' chunks are made as they are needed and interleaved in one pool, at most
    two per thread in flight (memory stays bounded whatever ``cfg.deals`` is, and Ctrl-C
    cancels what has not started). ``reference=False`` plays the conditional deals only (the
    benchmark times them apart). ``progress(done, total)`` hears of every conditional chunk.
    """
    variants = np.array([v.id for v in cfg.variants], np.int64)
    strat = strategy_array(cfg.strategies)
    nv = len(variants)
    me = cfg.seat
    cpu = {"conditional": 0.0, "reference": 0.0}

    rules = cfg.ruleset

    def task(which: str, start: int, n: int) -> tuple[str, Sums, float]:
        c0 = time.thread_time()
        hand = cfg.hand if which == "conditional" else None
        scores = played_scores(variants, strat, cfg.seed, start, n, rules, hand, me)
        return which, Sums.of(scores, me), time.thread_time() - c0

    def tasks() -> Iterator[tuple[str, int, int]]:
        for start, n in _chunks(cfg.deals, chunk):
            yield "conditional", start, n
            if reference:
                yield "reference", start, n

    totals = {"conditional": Sums.zeros(nv), "reference": Sums.zeros(nv)}
    _load_kernels(strat, reference, rules)
    t0 = time.perf_counter()
    pool = ThreadPoolExecutor(cfg.threads, thread_name_prefix="bonken-advise")
    try:
        pending: list[Future[tuple[str, Sums, float]]] = []
        queue = tasks()
        for which, start, n in queue:
            pending.append(pool.submit(task, which, start, n))
            if len(pending) >= 2 * cfg.threads:
                break
        while pending:
            which, sums, seconds = pending.pop(0).result()
            totals[which].add(sums)
            cpu[which] += seconds
            if progress is not None and which == "conditional":
                progress(totals[which].n, cfg.deals)
            nxt = next(queue, None)
            if nxt is not None:
                pending.append(pool.submit(task, *nxt))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return Played(
        totals["conditional"], totals["reference"], time.perf_counter() - t0, cpu_seconds=cpu
    )


def _load_kernels(strat: np.ndarray, reference: bool, rules: Ruleset = STANDARD) -> None:
    """Compile or load the kernels of these seats on this thread, before the pool calls
    them from several (with other seats it loaded builds of another level)."""
    variants = np.zeros(1, np.int64)
    played_scores(variants, strat, 0, 0, 1, rules, hand=(1 << 13) - 1, seat=2)
    if reference:
        played_scores(variants, strat, 0, 0, 1, rules)
