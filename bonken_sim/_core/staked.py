"""Deals replayed under given doubling stakes (the ladder's stake-aware doubling rung)."""

import numpy as np

from ._jit import jit
from .deal import deal_into
from .playout import PLAY_DEALT, kernel_table, per_level, playout_scratch, tier_level
from .rng import deal_state


def _make_staked_batch(level):
    """``staked_batch`` built for the play builds of ``level``."""
    play_dealt = PLAY_DEALT[level]

    @jit(_link_late=True)  # the play code linked in as it is: _numba_link
    def staked_batch(key, deals, dealer, variants, strat, table, stakes, scores_out):
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

    return staked_batch


_BUILDS = per_level(_make_staked_batch)


def staked_batch(key, deals, dealer, variants, strat, table, stakes, scores_out):
    """Deal ``deals[i]`` of ``key`` played in variant ``variants[i]`` with the stake matrix
    ``stakes[i]`` (4×4: directions doubled per seat pair); raw scores into ``scores_out[i]``."""
    _BUILDS[tier_level(strat)](
        key, deals, dealer, variants, strat, kernel_table(table), stakes, scores_out
    )
