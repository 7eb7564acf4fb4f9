"""Quasi-symmetry (_core.solver_quasi): an entry bounds the positions that differ from its
own only in the point classes of their cards, widened by the points that differ; the
solver's values stay those of the search without these entries."""

from __future__ import annotations

import random

import numpy as np
import pytest

from bonken_sim._core import solver as S
from bonken_sim._core import solver_quasi as Q
from bonken_sim._core.ruleset import F_PTS_A_MASK, F_PTS_B_MASK
from bonken_sim._core.solver_table import position_keys
from bonken_sim.rules.names import VARIANT_NAMES
from tests.core.test_solver import RULESETS, _text
from tests.core.test_solver_bounds import _masks
from tests.core.test_solver_partition import _values

# The contracts where a suit holds point cards and plain ones, and more than one point card
# (hartenjagen scores every heart alike, hartenheer one card, bukken and laatste_slag none:
# quasi-symmetry is off there; hartenheer is solved here too, with it off).
MIXED = ("herenboeren", "vrouwen", "hartenheer")


def _vid(name: str) -> int:
    return VARIANT_NAMES.index(name)


def _court_ending(rng: random.Random, k: int) -> list[set[int]]:
    """``k`` cards a seat from the top ``k`` ranks of every suit, so that point cards sit
    beside plain ones of the same hand (the positions quasi-symmetry merges)."""
    deck = [13 * s + r for s in range(4) for r in range(13 - k, 13)]
    rng.shuffle(deck)
    return [set(deck[i * k : (i + 1) * k]) for i in range(4)]


@pytest.mark.parametrize("rs_name", ["standard", "strict", "double-points"])
def test_quasi_entries_give_the_plain_values(rs_name):
    """6- and 7-card endings of the court cards, the three contracts, random leader and seat,
    one table for all: the same value with and without quasi entries (with and without set
    entries), and the quasi entries save nodes overall."""
    rng = random.Random(f"quasi-{rs_name}")
    table = S.new_table(16)
    stack = S.new_stack()
    nodes = [0, 0]
    for i in range(36):
        hands = _court_ending(rng, 6 + i % 2)
        row = RULESETS[rs_name].table[_vid(MIXED[i % 3])]
        leader, seat = rng.randrange(4), rng.randrange(4)
        plain, n0 = _values(hands, row, leader, seat, True, table, stack, quasi=False)
        quasi, n1 = _values(hands, row, leader, seat, True, table, stack)
        alone, _ = _values(hands, row, leader, seat, False, table, stack)
        assert quasi == plain == alone, (rs_name, MIXED[i % 3], _text(hands), leader, seat)
        nodes[0] += n0
        nodes[1] += n1
    assert nodes[1] < nodes[0]


def test_quasi_symmetry_is_on_only_where_a_suit_mixes_point_and_plain_cards():
    """On in herenboeren and vrouwen; off where it cannot help."""
    rules = RULESETS["standard"]
    table = S.new_table(10)
    stack = S.new_stack()
    hands = _masks([{0}, {1}, {2}, {3}])
    for name, on in [
        ("herenboeren", 1),
        ("vrouwen", 1),
        ("hartenheer", 0),
        ("hartenjagen", 0),
        ("bukken", 0),
        ("troeven_S", 0),
    ]:
        ctx = np.zeros(S.N_CTX, np.int64)
        S.solve_value(hands, 0, 0, rules.table[_vid(name)], table, ctx, *stack, 1000)
        assert ctx[S.C_QUASI] == on, name


def _planes(cards: set[int], am: set[int], bm: set[int]):
    hands = _masks([cards, set(), set(), set()])
    rem = hands[0]
    _, _, _, _, pa, pb = Q.keys_and_planes(hands, rem, 0, 1, _mask(am), _mask(bm))
    return pa, pb


def _mask(cards: set[int]) -> np.uint64:
    return np.uint64(sum(1 << c for c in cards))


def test_a_stored_bound_is_widened_by_the_points_that_differ_card_by_card():
    """X holds spades J (class B, -10) and Q (plain); Y the same pattern with K (class A,
    -20) where X had the Q and the J played earlier in X's place. X's bounds [-30, -10]:
    Y's lower bound falls by the K's 20 points, its upper bound gains the J's 10."""
    ctx = np.zeros(S.N_CTX, np.int64)
    ctx[S.C_A_PTS] = -20
    ctx[S.C_B_PTS] = -10
    SJ, SQ, SK, S2 = 48, 49, 50, 39
    table = S.new_table(8)
    xa, xb = _planes({S2, SJ, SQ}, set(), {SJ})  # X: 2, J (B), Q
    ya, yb = _planes({S2, SQ, SK}, {SK}, set())  # Y: 2, Q, K (A): same ranks in play
    key, check = np.uint64(12345 | 1), np.int64(777)
    Q.quasi_store(table, key, check, -30, -10, 100, 0, xa, xb, np.int64(0x3215))
    i = Q.quasi_find(table, key, check)
    assert i >= 0 and Q.quasi_vector(table, i) == 0x3215
    assert Q.quasi_find(table, key, np.int64(778)) == -1
    assert Q.quasi_bounds(table, i, xa, xb, ctx) == (-30, -10)  # the same position
    # the middle card: B (-10) in X, plain in Y (+10 at most); the top card: plain in X,
    # A (-20) in Y (-20 at most)
    assert Q.quasi_bounds(table, i, ya, yb, ctx) == (-30 - 20, -10 + 10)
    # a second store of the same position narrows the bounds and keeps, per suit, the
    # larger count of exact cards
    Q.quasi_store(table, key, check, -25, -5, 10, 0, xa, xb, np.int64(0x1F04))
    assert Q.quasi_bounds(table, i, xa, xb, ctx) == (-25, -10)
    assert Q.quasi_vector(table, i) == 0x3F15
    # another position of the key that cost less does not replace it
    Q.quasi_store(table, key, check, -50, -40, 1, 0, ya, yb, np.int64(0))
    assert Q.quasi_bounds(table, i, xa, xb, ctx) == (-25, -10)


def test_quasi_keys_drop_the_point_classes_and_nothing_else():
    """Spades 2, J, Q, K against 2, 10, Q, K, each card with the same seat: one quasi key
    (the J scores in herenboeren, the 10 does not, so the exact keys differ); another
    holder or another leader: another key."""
    S2, S10, SJ, SQ, SK = 39, 47, 48, 49, 50
    rules = RULESETS["standard"].table[_vid("herenboeren")]
    am = np.uint64(rules[F_PTS_A_MASK])
    bm = np.uint64(rules[F_PTS_B_MASK])

    def keys(hands, leader=1):
        m = _masks(hands)
        rem = m[0] | m[1] | m[2] | m[3]
        h1, h2, q1, q2, _, _ = Q.keys_and_planes(m, rem, leader, 5, am, bm)
        assert (h1, h2) == position_keys(m, rem, leader, 5, am, bm)
        return (q1, q2), (h1, h2)

    x = keys([{SJ}, {SQ}, {S2}, {SK}])
    y = keys([{S10}, {SQ}, {S2}, {SK}])
    assert x[0] == y[0] and x[1] != y[1]
    assert keys([{SQ}, {SJ}, {S2}, {SK}])[0] != x[0]
    assert keys([{SJ}, {SQ}, {S2}, {SK}], leader=2)[0] != x[0]
