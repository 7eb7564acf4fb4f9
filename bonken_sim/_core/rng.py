"""Counter-based randomness (splitmix64), exactly as docs/ENGINE.md specifies.

Every deal and every playout owns a stream keyed by (seed, deal index, variant), so results
never depend on threads, chunking or executors. A stream's state is a uint64 that
kernels carry in a local variable.
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
    """The stream's next ``len(buf)`` draws (top 32 bits each), computed ahead of play.

    Drawing ahead keeps the mixing function off the play loop's critical path; the k-th
    random decision uses ``buf[k]``, exactly the stream's k-th draw.
    """
    for j in range(buf.shape[0]):
        s = s + GOLDEN
        buf[j] = mix64(s) >> _S32


@jit
def scale_draw(x, n):
    """Map a 32-bit draw to [0, n) (Lemire's multiply-shift, as in ``draw_below``)."""
    return np.int64((x * np.uint64(n)) >> _S32)


@jit
def draw_below(s, n):
    """Advance stream state ``s`` once; return (new state, a uniform integer in [0, n)).

    The state is a plain scalar, not an array, so hot loops pay no reference counting.
    Lemire's multiply-shift maps the draw to [0, n) for n <= 2**32.
    """
    s = s + GOLDEN
    return s, np.int64(((mix64(s) >> _S32) * np.uint64(n)) >> _S32)


def seed_key(seed):
    """The run key of ``seed`` as a numpy uint64 (plain Python, for callers outside kernels).

    A jitted function returns uint64 to Python as a plain int, which numba would then type as
    int64 on the next call and overflow for keys >= 2**63; this keeps the type.
    """
    return np.uint64(run_key(np.uint64(seed)))
