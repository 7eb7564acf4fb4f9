"""Counter-based randomness (splitmix64), exactly as docs/ENGINE.md specifies.

Every deal and every playout owns a stream keyed by (seed, deal index, variant), so results
never depend on threads, chunking or executors. A stream's state is a uint64 that
kernels carry in a local variable; each 64-bit output serves two 32-bit draws.
"""

import numpy as np

from ._jit import jit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_PLAY_SALT = np.uint64(0x5EED)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@jit
def mix64(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@jit
def run_key(seed):
    return mix64(np.uint64(seed) + GOLDEN)


@jit
def deal_state(key, deal):
    return mix64(key ^ mix64(np.uint64(deal) + np.uint64(1)))


@jit
def play_state(dstate, variant):
    return mix64(dstate ^ mix64(np.uint64(variant) + _PLAY_SALT))


@jit
def fill_draws(s, buf):
    """The stream's next ``len(buf)`` 32-bit draws, computed ahead of play.

    Each 64-bit output gives two draws (its high half, then its low half). Drawing ahead
    keeps the mixing function off the play loop's critical path; the k-th random decision
    uses ``buf[k]``, exactly the stream's k-th draw.
    """
    for j in range(0, buf.shape[0], 2):
        s = s + GOLDEN
        x = mix64(s)
        buf[j] = x >> _S32
        if j + 1 < buf.shape[0]:
            buf[j + 1] = x & _LOW32
    return s


@jit
def scale_draw(x, n):
    """Map a 32-bit draw to [0, n) (Lemire's multiply-shift; n <= 2**32)."""
    return np.int64((x * np.uint64(n)) >> _S32)


def seed_key(seed):
    """The run key of ``seed`` as a numpy uint64 (plain Python, for callers outside kernels).

    A jitted function returns uint64 to Python as a plain int, which numba would then type as
    int64 on the next call and overflow for keys >= 2**63; this keeps the type.
    """
    return np.uint64(run_key(np.uint64(seed)))
