"""The basic tier's discard danger against its definition in docs/ENGINE.md: the closed form
(pair tables, no loop over cards) must keep the documented sum, whatever rewrites it."""

from __future__ import annotations

import numpy as np

from bonken_sim._core import strategy_basic as B


def _danger_by_definition(hs: int, outs: int) -> int:
    """ENGINE.md: take my cards of the suit from the highest down, skip the first
    max(0, |mine| - |out|) of them, and sum n_below - n_above (outstanding cards) over the rest."""
    mine = [r for r in range(13) if hs >> r & 1]
    out = [r for r in range(13) if outs >> r & 1]
    skip = max(0, len(mine) - len(out))
    kept = sorted(mine, reverse=True)[skip:]
    return sum(sum(o < r for o in out) - sum(o > r for o in out) for r in kept)


def _disjoint_fields(seed: int, n: int):
    """Random (mine, outstanding) pairs of disjoint 13-bit suit fields, every density."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        owner = rng.integers(0, 3, 13)  # 0: elsewhere, 1: mine, 2: outstanding
        yield (
            sum(1 << r for r in range(13) if owner[r] == 1),
            sum(1 << r for r in range(13) if owner[r] == 2),
        )


EDGES = [(0, 0), (0x1FFF, 0), (0, 0x1FFF), (0x1, 0x1FFE), (0x1FFE, 0x1), (0x155, 0xAAA),
         (0xFC0, 0x3F), (0x3F, 0xFC0), (0x1000, 0x0FFF), (0x0FFF, 0x1000)]  # fmt: skip


def test_danger_is_the_documented_sum():
    for hs, outs in EDGES + list(_disjoint_fields(7, 5000)):
        got = B.danger(np.uint64(hs), np.uint64(outs))
        assert got == _danger_by_definition(hs, outs), (hex(hs), hex(outs))
