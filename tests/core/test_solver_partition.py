"""Partition search (_core.solver_partition): table entries that stand for a set of positions
give the values of the plain search (every entry its own rank pattern) on endings too large
for the brute force, and the set keys merge exactly the positions they should."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bonken_sim._core import solver as S
from bonken_sim._core import solver_partition as SP
from tests.core.test_solver import RULESETS, _ending, _text
from tests.core.test_solver_bounds import NEGATIVE_TRICK_VARIANTS, _masks


def _values(hands, row, leader, seat, partition, table, stack, quasi=True) -> tuple[int, int]:
    """(value, nodes) of one solve with set entries (``partition``) and quasi entries on or
    off."""
    ctx = np.zeros(S.N_CTX, np.int64)
    m = _masks(hands)
    v = S.solve_value_with(m, leader, seat, row, table, ctx, *stack, 10**8, partition, quasi)
    assert not ctx[S.C_ABORTED]
    return int(v), int(ctx[S.C_NODES])


@pytest.mark.parametrize("rs_name", ["standard", "strict", "double-points"])
def test_set_entries_give_the_plain_values(rs_name):
    """6- and 7-card endings, every negative contract, random leader and seat (one table for
    all, as a search player uses it): the same value with and without set entries, and the
    set entries save nodes overall."""
    rng = random.Random(f"partition-{rs_name}")
    table = S.new_table(16)
    stack = S.new_stack()
    nodes = [0, 0]
    for i in range(72):
        hands = _ending(rng, 6 + i % 2)
        vid = NEGATIVE_TRICK_VARIANTS[i % 6]
        row = RULESETS[rs_name].table[vid]
        leader, seat = rng.randrange(4), rng.randrange(4)
        plain, n0 = _values(hands, row, leader, seat, False, table, stack)
        sets, n1 = _values(hands, row, leader, seat, True, table, stack)
        assert sets == plain, (rs_name, vid, _text(hands), leader, seat)
        nodes[0] += n0
        nodes[1] += n1
    assert nodes[1] < nodes[0]


def _keys(hands, vec, am=0, bm=0):
    m = _masks(hands)
    return SP.general_keys(m, 1, 5, np.uint64(am), np.uint64(bm), np.int64(vec))


def test_set_keys_forget_only_the_low_cards_holders():
    """Spades 2-6 spread over the seats: with the top two exact (A, K) the key keeps the
    holders of the A and K and the count each seat holds of the rest."""
    S2, S3, S4, S5, S6 = 39, 40, 41, 42, 43
    SK, SA = 50, 51
    vec = 0x2FFF  # clubs, diamonds, hearts exact (15); spades: the top two
    a = [{SA, S2}, {SK, S3}, {S4}, {S5, S6}]
    b = [{SA, S3}, {SK, S2}, {S6}, {S4, S5}]  # the low cards elsewhere, same counts
    c = [{SK, S2}, {SA, S3}, {S4}, {S5, S6}]  # the A and K swapped
    d = [{SA, S2}, {SK, S3}, {S4, S5}, {S6}]  # seat 2 and 3 counts differ
    assert _keys(a, vec) == _keys(b, vec)
    assert _keys(a, vec) != _keys(c, vec)
    assert _keys(a, vec) != _keys(d, vec)
    assert _keys(a, 0x5FFF) != _keys(b, 0x5FFF)  # the 6, 5 and 4 exact: a and b differ
    # a point card among the low cards is never in a set of positions without one
    assert _keys(a, vec, am=0) != _keys(a, vec, am=1 << S4)


def test_relevance_vector_counts_down_to_the_lowest_relevant_card():
    S2, S3, S4, S5 = 39, 40, 41, 42
    SQ, SK = 49, 50
    hands = _masks([{SK, S2}, {SQ, S3}, {S4}, {S5}])
    rel = np.uint64(1 << S5)  # the 5 decided a trick: K, Q, 5 exact; 4, 3, 2 of three seats
    vec, general = SP.relevance_vector(rel, hands, np.uint64(0))
    assert (vec >> 12) & 15 == 3 and general
    vec, general = SP.relevance_vector(rel, hands, np.uint64(1 << S2))  # the 2 scores
    assert (vec >> 12) & 15 == 6 and not general
    # clubs, diamonds and hearts hold no card: no card of theirs is exact
    assert vec & 0xFFF == 0
