"""A yardstick for ``bonken-sim bench``: the plainest fast playout kernel anyone would write.

Speeds in playouts/s mean little across machines, so the benchmark also times this kernel on
the same machine in the same run and reports the engine as a multiple of it. It deals with the
engine's own Fisher–Yates shuffle and random streams, then plays one no-trump trick contract
with uniformly random legal cards (follow suit, the highest card of the led suit wins, the
winner leads) and counts tricks: no contract table, no scoring, no strategies, no trace.
Everything the engine adds on top (twelve contracts from a ruleset table, Domino, scores,
per-variant streams, strategies) is what the ratio measures.
"""

from __future__ import annotations

import time

import numpy as np

from ._core._jit import jit
from ._core.cards import SUIT_MASKS, U0, U1, kth_lowest, npop
from ._core.deal import deal_into
from ._core.rng import deal_state, fill_draws, play_state, scale_draw

NT_VARIANT = 11  # troeven_NT


@jit
def baseline_playouts(key, start, n):
    """Deal and play deals ``start … start+n−1``; returns the total tricks of seat 0 (so
    nothing is optimised away)."""
    deck = np.empty(52, np.int64)
    hands = np.empty(4, np.uint64)
    draws = np.empty(52, np.uint64)
    total = 0
    for i in range(n):
        ds = deal_state(key, start + i)
        deal_into(ds, deck, hands)
        # troeven_NT's play stream: the engine plays exactly this game in that variant, card
        # for card, which the tests check
        fill_draws(play_state(ds, NT_VARIANT), draws)
        nd = 0
        leader = 1  # dealer seat 0
        tricks0 = 0
        for _ in range(13):
            led = np.uint64(0)
            wcard = -1
            wseat = leader
            for pos in range(4):
                p = (leader + pos) & 3
                H = hands[p]
                if pos == 0:
                    L = H
                else:
                    L = H & led
                    if L == U0:
                        L = H
                c = kth_lowest(L, scale_draw(draws[nd], npop(L)))
                nd += 1
                hands[p] = H & ~(U1 << np.uint64(c))
                if pos == 0:
                    led = SUIT_MASKS[c // 13]
                    wcard = c
                elif c // 13 == wcard // 13 and c > wcard:
                    wcard = c
                    wseat = p
            tricks0 += 1 if wseat == 0 else 0
            leader = wseat
        total += tricks0
    return total


def baseline_rate(deals: int, repeats: int, seed: int = 1) -> tuple[float, list[float]]:
    """Median playouts/s of the baseline kernel on this thread (wall clock, as the engine's
    single-thread rates in ``bench``), and the samples."""
    from ._core.rng import seed_key

    key = seed_key(seed)
    baseline_playouts(key, 0, 10)  # compile or load from the cache first
    rates = []
    for r in range(repeats):
        t0 = time.perf_counter()
        baseline_playouts(key, 1_000_000 + r * deals, deals)
        rates.append(deals / (time.perf_counter() - t0))
    return float(np.median(rates)), rates


__all__ = ["baseline_playouts", "baseline_rate"]
