"""The bench's yardsticks: the plainest fast playout kernels anyone would write.

Speeds in playouts/s mean little across machines, so ``bonken-sim bench`` also times these
kernels on the same machine in the same run and reports the engine as a multiple of them
(through ``engine.yardstick``). ``baseline_playouts`` deals with the engine's own Fisher–Yates
shuffle and random streams, then plays one no-trump trick contract with uniformly random legal
cards (follow suit, the highest card of the led suit wins, the winner leads) and counts tricks:
no contract table, no scoring, no strategies, no trace. Everything the engine adds on top
(twelve contracts from a ruleset table, Domino, scores, per-variant streams, strategies) is
what the ratio measures. ``tuned_playouts`` plays the same game card for card without the
branches that mispredict.

``toy_playouts`` is the yardstick of whole commands (``bench.jobs``): the same dealing, then
every seat plays its lowest legal card, on all threads (``prange``); a run or game command
is timed against it on the same number of playouts.

All compile with LLVM's default options (``_stock_codegen``), not the engine's own
(``_numba_codegen.py``): they stand for the plain numba kernel the goals are set against.
"""

from __future__ import annotations

import numba
import numpy as np

from ._jit import jit
from .cards import SUIT_MASKS, U0, U1, kth_lowest, lowest, npop
from .deal import deal_into
from .ids import TROEVEN_NT
from .rng import deal_state, fill_draws, play_state, scale_draw

NT_VARIANT = TROEVEN_NT


@jit(_stock_codegen=True)
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


# Select-in-byte table: _SELECT_IN_BYTE[256 * k + b] is the position of the k-th (0-based) set
# bit of byte b.
_SELECT_IN_BYTE = np.zeros(8 * 256, np.uint8)
for _b in range(256):
    for _k, _i in enumerate(i for i in range(8) if _b >> i & 1):
        _SELECT_IN_BYTE[256 * _k + _b] = _i
_L8 = np.uint64(0x0101010101010101)
_H8 = np.uint64(0x8080808080808080)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_U4 = np.uint64(4)
_U8 = np.uint64(8)
_FF = np.uint64(0xFF)


@jit(inline="always")
def select_bit(x, k):
    """Index of the k-th (0-based) lowest set bit of x, without branches: byte counts, their
    running sums, the byte that holds bit k found by one compare per byte, then a table."""
    b = x - ((x >> U1) & _M1)
    b = (b & _M2) + ((b >> _U2) & _M2)
    b = (b + (b >> _U4)) & _M4
    upto = b * _L8  # byte j: set bits in bytes 0..j
    kk = np.uint64(k) * _L8
    byte = np.uint64(npop(((kk | _H8) - upto) & _H8))  # bytes whose running sum is <= k
    sh = byte << _U3
    before = ((upto << _U8) >> sh) & _FF
    return np.int64(sh) + np.int64(
        _SELECT_IN_BYTE[((np.uint64(k) - before) << _U8) + ((x >> sh) & _FF)]
    )


@jit(_stock_codegen=True)
def tuned_playouts(key, start, n):
    """``baseline_playouts`` tuned: the same deals, draws and game, card for card, with the
    k-th legal card found without branches and the trick's winner kept by selects (the
    branches of the plain kernel are mispredicted on most cards)."""
    deck = np.empty(52, np.int64)
    hands = np.empty(4, np.uint64)
    draws = np.empty(52, np.uint64)
    total = 0
    for i in range(n):
        ds = deal_state(key, start + i)
        deal_into(ds, deck, hands)
        fill_draws(play_state(ds, NT_VARIANT), draws)
        nd = 0
        leader = 1
        tricks0 = 0
        for _ in range(13):
            H = hands[leader]
            c = select_bit(H, scale_draw(draws[nd], npop(H)))
            nd += 1
            hands[leader] = H & ~(U1 << np.uint64(c))
            led = SUIT_MASKS[c // 13]
            wcard = c
            wseat = leader
            for pos in range(1, 4):
                p = (leader + pos) & 3
                H = hands[p]
                L = H & led
                L = L if L != U0 else H
                c = select_bit(L, scale_draw(draws[nd], npop(L)))
                nd += 1
                cb = U1 << np.uint64(c)
                hands[p] = H & ~cb
                better = ((cb & led) != U0) & (c > wcard)
                wcard = c if better else wcard
                wseat = p if better else wseat
            tricks0 += wseat == 0
            leader = wseat
        total += tricks0
    return total


@jit(_stock_codegen=True)
def _lowest_card_deals(key, start, n, deck, hands):
    """Deal deals ``start … start+n−1`` and play each as a no-trump trick game in which every
    seat plays its lowest legal card; seat 0's tricks summed."""
    total = 0
    for i in range(n):
        deal_into(deal_state(key, start + i), deck, hands)
        leader = 1
        for _ in range(13):
            H = hands[leader]
            c = lowest(H)
            hands[leader] = H & ~(U1 << np.uint64(c))
            led = SUIT_MASKS[c // 13]
            wcard = c
            wseat = leader
            for pos in range(1, 4):
                p = (leader + pos) & 3
                H = hands[p]
                L = H & led
                c = lowest(L if L != U0 else H)
                hands[p] = H & ~(U1 << np.uint64(c))
                if c // 13 == wcard // 13 and c > wcard:
                    wcard = c
                    wseat = p
            total += wseat == 0
            leader = wseat
    return total


# Blocks of deals the toy kernel's prange hands out: many per thread, so a thread slowed by
# other load does not leave the others waiting at the end.
TOY_BLOCKS = 256


@jit(parallel=True, _stock_codegen=True)
def toy_playouts(key, start, n):
    """The toy-heuristic playout kernel: deals ``start … start+n−1`` dealt with the engine's
    dealing, each played (52 cards) with the trivial lowest-legal-card policy, on numba's
    threads (``prange``; set their number with ``numba.set_num_threads``). The jobs of
    ``bonken-sim bench --jobs`` are measured against it on the same number of playouts."""
    blocks = min(TOY_BLOCKS, max(n, 1))
    size = -(-n // blocks)
    total = 0
    for b in numba.prange(blocks):
        deck = np.empty(52, np.int64)
        hands = np.empty(4, np.uint64)
        a = b * size
        total += _lowest_card_deals(key, start + a, max(0, min(size, n - a)), deck, hands)
    return total
