"""Conditional dealing: one seat's 13 cards are known, the other 39 are dealt at random.

This is what ``bonken-sim advise`` simulates: the hand in front of the player stays at his
seat and the unknown cards go uniformly at random to the other three. Deal ``i`` is a pure
function of (seed, hand, seat, i) through the counter-based streams of ``rng.py``, so any
thread count or chunking gives the same deals (docs/ENGINE.md, "Conditional deals").
"""

import numpy as np

from ._jit import jit
from .cards import U0, U1
from .playout import PLAY_DEALT, kernel_table, per_level, playout_scratch, tier_level
from .rng import GOLDEN, deal_state, mix64, scale_draw

# Separates the conditional streams from the unconditional ones of the same seed.
_COND_SALT = np.uint64(0xC0DE)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit
def conditional_key(key, hand, seat):
    """The stream key of the conditional deals of ``hand`` at ``seat`` under run key ``key``."""
    return mix64(key ^ mix64(hand ^ mix64(np.uint64(seat) + _COND_SALT)))


@jit
def unknown_cards(hand, rest):
    """The 39 cards not in ``hand``, in index order, into ``rest``."""
    n = 0
    for c in range(52):
        if (hand >> np.uint64(c)) & U1 == U0:
            rest[n] = c
            n += 1


@jit
def deal_conditional_into(s, hand, seat, rest, hands):
    """Fisher-Yates over the 39 unknown cards, driven by the stream with state ``s``.

    ``rest`` holds the unknown cards in index order on entry (it is shuffled in place).
    ``hands[seat] = hand``; seats ``seat+1, seat+2, seat+3`` get ``rest[0:13]``,
    ``rest[13:26]``, ``rest[26:39]`` after the shuffle.
    """
    x = U0
    for j in range(38, 0, -1):
        if j & 1 == 0:  # j = 38, 36, ...: a fresh output; its high half first, then its low half
            s = s + GOLDEN
            x = mix64(s)
            k = scale_draw(x >> _S32, j + 1)
        else:
            k = scale_draw(x & _LOW32, j + 1)
        tmp = rest[j]
        rest[j] = rest[k]
        rest[k] = tmp
    hands[seat] = hand
    for q in range(3):
        m = U0
        for i in range(13 * q, 13 * q + 13):
            m |= U1 << np.uint64(rest[i])
        hands[(seat + 1 + q) & 3] = m


@jit
def conditional_hands(key, hand, seat, deal_start, hands_out):
    """The four hands of conditional deals ``deal_start + i`` into ``hands_out`` (n, 4) uint64."""
    ckey = conditional_key(key, hand, seat)
    base = np.empty(39, np.int64)
    unknown_cards(hand, base)
    rest = np.empty(39, np.int64)
    dealt = np.empty(4, np.uint64)
    for i in range(hands_out.shape[0]):
        rest[:] = base
        deal_conditional_into(deal_state(ckey, deal_start + i), hand, seat, rest, dealt)
        for p in range(4):
            hands_out[i, p] = dealt[p]


def _make_conditional_batch(level):
    """``conditional_batch`` built for the play builds of ``level``."""
    play_dealt = PLAY_DEALT[level]

    @jit(_link_late=True)  # here and below: the play code linked in as it is (_numba_link)
    def conditional_batch(key, hand, seat, deal_start, dealer, variants, strat, table,
                          scores_out):  # fmt: skip
        base = np.empty(39, np.int64)
        unknown_cards(hand, base)
        rest = np.empty(39, np.int64)  # the unknown cards, shuffled
        dealt = np.empty(4, np.uint64)  # the deal's hands
        ckey = conditional_key(key, hand, seat)
        deal = (ckey, hand, seat, deal_start, dealer)
        conditional_rows(deal, variants, strat, table, scores_out, base, rest, dealt,
                         playout_scratch())  # fmt: skip

    @jit(_nrt=False, _link_late=True)  # allocates nothing: see _jit.jit
    def conditional_rows(deal, variants, strat, table, scores_out, base, rest, dealt, scratch):
        ckey, hand, seat, deal_start, dealer = deal
        scores = scratch[2]
        for i in range(scores_out.shape[0]):
            ds = deal_state(ckey, deal_start + i)
            for c in range(39):  # a slice copy would need the NRT this loop runs without
                rest[c] = base[c]
            deal_conditional_into(ds, hand, seat, rest, dealt)
            for j in range(variants.shape[0]):
                play_dealt(table, variants[j], dealt, ds, dealer, strat, scratch)
                for p in range(4):
                    scores_out[i, j, p] = scores[p]

    return conditional_batch


_BUILDS = per_level(_make_conditional_batch)


def conditional_batch(key, hand, seat, deal_start, dealer, variants, strat, table, scores_out):
    """Conditional deals ``deal_start + i``, each played in every variant of ``variants``.

    scores_out (n, nv, 4) int16: the raw score of every seat. The play stream of a deal in
    variant ``v`` is ``play_state(deal state, v)``, as for unconditional deals. No doubles:
    advise compares raw scores.
    """
    _BUILDS[tier_level(strat)](
        key, hand, seat, deal_start, dealer, variants, strat, kernel_table(table), scores_out
    )
