"""Deals replayed under given doubling stakes (the ladder's stake-aware doubling rung)."""

import numpy as np

from ._jit import jit
from .deal import deal_into
from .playout import play_dealt, playout_scratch
from .rng import deal_state


@jit
def staked_batch(key, deals, dealer, variants, strat, table, stakes, scores_out):
    """Deal ``deals[i]`` of ``key`` played in variant ``variants[i]`` with the stake matrix
    ``stakes[i]`` (4×4: directions doubled per seat pair); raw scores into ``scores_out[i]``."""
    deck = np.empty(52, np.int64)
    dealt = np.empty(4, np.uint64)
    scratch = playout_scratch()
    scores, stake = scratch[2], scratch[6]
    for i in range(deals.shape[0]):
        ds = deal_state(key, deals[i])
        deal_into(ds, deck, dealt)
        stake[:, :] = stakes[i]
        play_dealt(table, variants[i], dealt, ds, dealer, strat, scratch)
        for p in range(4):
            scores_out[i, p] = scores[p]
