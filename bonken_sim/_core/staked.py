"""Deals replayed under given doubling stakes (the ladder's stake-aware doubling rung)."""

import numpy as np

from ._jit import jit
from .deal import deal_into
from .playout_advanced import play_staked
from .rng import deal_state, play_state


@jit
def staked_batch(key, deals, dealer, variants, strat, table, stakes, scores_out):
    """Deal ``deals[i]`` of ``key`` played in variant ``variants[i]`` with the stake matrix
    ``stakes[i]`` (4×4: directions doubled per seat pair); raw scores into ``scores_out[i]``."""
    deck = np.empty(52, np.int64)
    hands = np.empty(4, np.uint64)
    scores = np.empty(4, np.int64)
    tricks = np.empty(4, np.int64)
    order = np.empty(4, np.int64)
    no_trace = np.empty(0, np.int64)
    rnd = np.empty(52, np.uint64)
    for i in range(deals.shape[0]):
        ds = deal_state(key, deals[i])
        deal_into(ds, deck, hands)
        v = variants[i]
        play_staked(
            table[v],
            hands,
            dealer,
            strat,
            play_state(ds, v),
            rnd,
            scores,
            tricks,
            order,
            no_trace,
            stakes[i],
        )
        for p in range(4):
            scores_out[i, p] = scores[p]
