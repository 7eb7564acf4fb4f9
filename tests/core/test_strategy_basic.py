"""The basic tier's discard against its definition in docs/ENGINE.md: the danger's closed form
(pair tables, no loop over cards) must keep the documented sum, and the packed discard must
pick the reference's card, whatever rewrites them."""

from __future__ import annotations

import numpy as np
import pytest

from bonken_sim._core import strategy_basic as B
from bonken_sim._core.ruleset import (
    F_PEN_MASK,
    F_PTS_A,
    F_PTS_A_MASK,
    F_PTS_B,
    F_PTS_B_MASK,
    F_TOP_MASK,
    standard_table,
)
from tests.reference.rules import contract_of, penalty_set
from tests.reference.strategies import TrickView, discard_negative


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


def _discard_cases(seed: int, n: int):
    """Random (hand, outstanding) pairs of disjoint 52-card masks, the hand 2-13 cards."""
    rng = np.random.default_rng(seed)
    for _ in range(n):
        order = rng.permutation(52)
        n_hand = int(rng.integers(2, 14))
        n_out = int(rng.integers(0, 53 - n_hand))
        yield (
            sum(1 << int(c) for c in order[:n_hand]),
            sum(1 << int(c) for c in order[n_hand : n_hand + n_out]),
        )


@pytest.mark.parametrize("variant", range(5))
def test_discard_is_the_reference_discard(variant):
    """The packed, branch-free discard picks the card of the reference's score formula."""
    contract, _ = contract_of(variant)
    row = standard_table()[variant]
    masks = [np.uint64(row[f]) for f in (F_PEN_MASK, F_TOP_MASK, F_PTS_A_MASK)]
    pen, top, a_mask = masks
    b_mask = np.uint64(row[F_PTS_B_MASK])
    pen_set = penalty_set(contract)
    for hand, out in _discard_cases(variant, 1500):
        hand_set = {c for c in range(52) if hand >> c & 1}
        view = TrickView(
            contract=contract,
            trump_suit=None,
            seat=0,
            hand=hand_set,
            legal=hand_set,
            played={c for c in range(52) if not (hand | out) >> c & 1},
            trick=[],
        )
        got = B.neg_discard(
            np.uint64(hand), np.uint64(out), pen, top, a_mask, row[F_PTS_A], b_mask, row[F_PTS_B]
        )
        assert got == discard_negative(view, pen_set), (contract, hex(hand), hex(out))
