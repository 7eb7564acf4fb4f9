"""Invariant harness used by the tests: play many deals through the batch kernel and check
the rules' invariants on every one of them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bonken_sim._core import kernels as K
from bonken_sim._core.rng import seed_key
from bonken_sim._core.ruleset import DOMINO, F_TOTAL, standard_table
from bonken_sim.engine.strategies import parse_strategies, strategy_array


@dataclass
class Batch:
    hands: np.ndarray  # (n, 4) uint64
    scores: np.ndarray  # (n, nv, 4) int16
    tricks: np.ndarray  # (n, nv, 4) int8
    order: np.ndarray  # (n, nv, 4) int8
    variants: np.ndarray


def play_batch(
    seed: int, deals: int, strategies="basic", variants=None, dealer=0, start=0
) -> Batch:
    variants = np.arange(12, dtype=np.int64) if variants is None else np.asarray(variants, np.int64)
    nv = len(variants)
    b = Batch(
        np.zeros((deals, 4), np.uint64),
        np.zeros((deals, nv, 4), np.int16),
        np.zeros((deals, nv, 4), np.int8),
        np.zeros((deals, nv, 4), np.int8),
        variants,
    )
    K.simulate_batch(
        seed_key(seed),
        start,
        dealer,
        variants,
        strategy_array(parse_strategies(strategies)),
        standard_table(),
        b.hands,
        b.scores,
        b.tricks,
        b.order,
    )
    return b


def check_invariants(b: Batch) -> None:
    """Raise AssertionError naming the first deal that breaks a rule invariant."""
    table = standard_table()
    h = b.hands.astype(np.uint64)
    union = h[:, 0] | h[:, 1] | h[:, 2] | h[:, 3]
    bad = np.nonzero(union != np.uint64((1 << 52) - 1))[0]
    assert bad.size == 0, f"deal {bad[0] if bad.size else ''}: hands do not cover the deck"
    for p in range(4):
        bad = np.nonzero(_popcount(h[:, p]) != 13)[0]
        assert bad.size == 0, f"deal {bad[0] if bad.size else ''}: seat {p} does not hold 13 cards"
    for j, v in enumerate(b.variants):
        total = b.scores[:, j, :].astype(np.int64).sum(axis=1)
        bad = np.nonzero(total != table[v, F_TOTAL])[0]
        assert bad.size == 0, f"variant {v}, deal {bad[0]}: total {total[bad[0]]}"
        if v == DOMINO:  # domino: a strict finishing order; the last one out pays
            order = np.sort(b.order[:, j, :], axis=1)
            assert np.all(order == np.arange(4)), "domino: out order is not a permutation"
            last = np.argmax(b.order[:, j, :], axis=1)
            loser = np.argmin(b.scores[:, j, :], axis=1)
            assert np.all(last == loser), "domino: the -50 is not on the last seat out"
            assert np.all(b.tricks[:, j, :] == 0)
        else:
            assert np.all(b.tricks[:, j, :].sum(axis=1) == 13), f"variant {v}: not 13 tricks"
            assert np.all(b.order[:, j, :] == -1)


_BYTE_POP = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount(x: np.ndarray) -> np.ndarray:
    """Set bits per uint64 element, by bytes through one table."""
    x = x.astype(np.uint64)
    out = np.zeros(len(x), np.int64)
    for shift in range(0, 64, 8):
        out += _BYTE_POP[((x >> np.uint64(shift)) & np.uint64(255)).astype(np.int64)]
    return out
