"""Batch entry points: one call plays many deals and writes into caller-allocated arrays
(and, for the engine, the replay kernel)."""

import numpy as np

from ._jit import jit
from .deal import deal_into
from .expert import expert_workspace
from .ids import PASS, TRACE_LEN
from .playout import PLAY_DEALT, PLAY_STAKED, kernel_table, per_level, playout_scratch, tier_level
from .replay import replay
from .rng import deal_state, play_state

# The replay kernel is the engine's too (``engine.play.replay``; its verdicts: ``verdicts``).
__all__ = [
    "PASS",
    "TRACE_LEN",
    "deal_hands",
    "replay",
    "simulate_batch",
    "trace_deal",
]


@jit
def deal_hands(key, deal, hands):
    deck = np.empty(52, np.int64)
    deal_into(deal_state(key, deal), deck, hands)


def _make_batch_kernels(level):
    """``simulate_batch`` and ``trace_deal`` built for the play builds of ``level``."""
    play_dealt = PLAY_DEALT[level]
    play_staked = PLAY_STAKED[level]

    @jit(_link_late=True)  # here and below: the play code linked in as it is (_numba_link)
    def simulate_batch(key, deal_start, dealer, variants, strat, table, hands_out, scores_out,
                       tricks_out, order_out):  # fmt: skip
        outs = (hands_out, scores_out, tricks_out, order_out)
        deck = np.empty(52, np.int64)
        dealt = np.empty(4, np.uint64)  # the deal's hands
        simulate_rows(key, deal_start, dealer, variants, strat, table, outs, deck, dealt,
                      playout_scratch())  # fmt: skip

    @jit(_nrt=False, _link_late=True)  # allocates nothing: see _jit.jit
    def simulate_rows(key, deal_start, dealer, variants, strat, table, outs, deck, dealt, scratch):
        hands_out, scores_out, tricks_out, order_out = outs
        _hands, _rnd, scores, tricks, order, _no_trace, _stake, _xw = scratch
        n = hands_out.shape[0]
        nv = variants.shape[0]
        for i in range(n):
            ds = deal_state(key, deal_start + i)
            deal_into(ds, deck, dealt)
            for p in range(4):
                hands_out[i, p] = dealt[p]
            for j in range(nv):
                play_dealt(table, variants[j], dealt, ds, dealer, strat, scratch)
                for p in range(4):
                    scores_out[i, j, p] = scores[p]
                    tricks_out[i, j, p] = tricks[p]
                    order_out[i, j, p] = order[p]

    @jit(_link_late=True)
    def trace_deal(key, deal, dealer, v, strat, table, hands_out, scores, tricks, order, trace):
        ds = deal_state(key, deal)
        deck = np.empty(52, np.int64)
        deal_into(ds, deck, hands_out)
        hands = hands_out.copy()
        rnd = np.empty(52, np.uint64)
        stake = np.zeros((4, 4), np.int64)
        s = play_state(ds, v)
        xw = expert_workspace()
        return play_staked(table[v], hands, dealer, strat, s, rnd, scores, tricks, order, trace,
                           stake, xw)  # fmt: skip

    return simulate_batch, trace_deal


_BUILDS = per_level(_make_batch_kernels)  # [level] = (simulate_batch, trace_deal)


def simulate_batch(
    key, deal_start, dealer, variants, strat, table, hands_out, scores_out, tricks_out, order_out
):
    """Deals ``deal_start + i`` for every row ``i`` of the outputs, each played in every variant.

    hands_out (n, 4) uint64; scores_out (n, nv, 4) int16; tricks_out / order_out (n, nv, 4) int8.

    The compiled wrapper that allocates the scratch is one more compile of every play loop
    (numba generates each compiled function with the code of all it calls), but calling the
    loop from Python instead measured about 6% fewer playouts per CPU-second on all twelve
    variants (basic seats, five alternated runs), so the wrapper stays.
    """
    _BUILDS[tier_level(strat)][0](
        key, deal_start, dealer, variants, strat, kernel_table(table), hands_out, scores_out,
        tricks_out, order_out,
    )  # fmt: skip


def trace_deal(key, deal, dealer, v, strat, table, hands_out, scores, tricks, order, trace):
    """Play one deal of one variant recording every card (and Domino pass) in ``trace``."""
    return _BUILDS[tier_level(strat)][1](
        key, deal, dealer, v, strat, kernel_table(table), hands_out, scores, tricks, order, trace
    )
