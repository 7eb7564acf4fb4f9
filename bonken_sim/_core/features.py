"""Per-seat hand features and the column layout of a batch, for the Parquet writer.

Both kernels run inside the worker threads right after ``simulate_batch`` (they release the
GIL), so turning a batch into Arrow columns costs the writer no Python per row.
"""

import numpy as np

from ._jit import jit, popcnt

# Feature rows of the (N_FEATURES, n) int8 output: row ``f * 4 + seat`` for each per-seat
# feature f below, then one row: the seat holding the king of hearts.
SEAT_FEATURES = (
    "clubs",  # suit lengths
    "diamonds",
    "hearts",
    "spades",
    "voids",  # number of suits with no card
    "singletons",  # number of suits with exactly one card
    "aces",
    "kings",
    "queens",
    "jacks",
    "eights",
    "twos",
    "hcp",  # high-card points: A=4, K=3, Q=2, J=1
)
N_SEAT_FEATURES = len(SEAT_FEATURES)
KH_ROW = 4 * N_SEAT_FEATURES
N_FEATURES = KH_ROW + 1

_SUIT = np.uint64(0x1FFF)
_ACES = np.uint64(sum(1 << (13 * s + 12) for s in range(4)))
_KINGS = np.uint64(sum(1 << (13 * s + 11) for s in range(4)))
_QUEENS = np.uint64(sum(1 << (13 * s + 10) for s in range(4)))
_JACKS = np.uint64(sum(1 << (13 * s + 9) for s in range(4)))
_EIGHTS = np.uint64(sum(1 << (13 * s + 6) for s in range(4)))
_TWOS = np.uint64(sum(1 << (13 * s) for s in range(4)))
_KH = np.uint64(1 << (26 + 11))
_S13 = np.uint64(13)
_S26 = np.uint64(26)
_S39 = np.uint64(39)


@jit
def hand_features(hands, out):
    """hands (n, 4) uint64 → out (N_FEATURES, n) int8 (rows as ``SEAT_FEATURES``, then K♥)."""
    n = hands.shape[0]
    for i in range(n):
        kh = -1
        for p in range(4):
            h = hands[i, p]
            c = np.int64(popcnt(h & _SUIT))
            d = np.int64(popcnt((h >> _S13) & _SUIT))
            ht = np.int64(popcnt((h >> _S26) & _SUIT))
            s = np.int64(popcnt((h >> _S39) & _SUIT))
            voids = (c == 0) + (d == 0) + (ht == 0) + (s == 0)
            singles = (c == 1) + (d == 1) + (ht == 1) + (s == 1)
            a = np.int64(popcnt(h & _ACES))
            k = np.int64(popcnt(h & _KINGS))
            q = np.int64(popcnt(h & _QUEENS))
            j = np.int64(popcnt(h & _JACKS))
            out[0 * 4 + p, i] = c
            out[1 * 4 + p, i] = d
            out[2 * 4 + p, i] = ht
            out[3 * 4 + p, i] = s
            out[4 * 4 + p, i] = voids
            out[5 * 4 + p, i] = singles
            out[6 * 4 + p, i] = a
            out[7 * 4 + p, i] = k
            out[8 * 4 + p, i] = q
            out[9 * 4 + p, i] = j
            out[10 * 4 + p, i] = np.int64(popcnt(h & _EIGHTS))
            out[11 * 4 + p, i] = np.int64(popcnt(h & _TWOS))
            out[12 * 4 + p, i] = 4 * a + 3 * k + 2 * q + j
            if h & _KH:
                kh = p
        out[KH_ROW, i] = kh


@jit
def result_columns(scores, tricks, order, scores_out, tricks_out, order_out):
    """(n, nv, 4) batch outputs → (4, nv, n) arrays: seat-major, then variant, then deal.

    ``scores_out[p].ravel()`` is then the column ``score_p`` of a variant-major table.
    """
    n = scores.shape[0]
    nv = scores.shape[1]
    for p in range(4):
        for j in range(nv):
            for i in range(n):
                scores_out[p, j, i] = scores[i, j, p]
                tricks_out[p, j, i] = tricks[i, j, p]
                order_out[p, j, i] = order[i, j, p]
