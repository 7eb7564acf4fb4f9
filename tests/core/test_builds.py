"""The play builds per tier level: each level plays the seats of the levels below it exactly
as their own builds do, the Python entry points pick the lowest level that can play the
seats, and every build has a cache key of its own that is the same in every process."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import numpy as np
import pytest
from numba.core.dispatcher import Dispatcher

import bonken_sim._core as core
from bonken_sim._core import kernels as K
from bonken_sim._core._jit import closure_data
from bonken_sim._core.expert import expert_workspace
from bonken_sim._core.ids import N_VARIANTS
from bonken_sim._core.playout import (
    LEVEL_ADVANCED,
    LEVEL_BASIC,
    LEVEL_EXPERT,
    PLAY_STAKED,
    tier_level,
)
from bonken_sim._core.rng import play_state, seed_key
from bonken_sim._core.ruleset import standard_table


def _play(level, strat, deal, v):
    table = standard_table()
    hands = np.zeros(4, np.uint64)
    K.deal_hands(seed_key(7), deal, hands)
    out = [np.zeros(4, np.int64) for _ in range(3)]
    trace = np.zeros(K.TRACE_LEN, np.int64)
    s = np.uint64(play_state(np.uint64(deal * 7919 + 1), v))
    n = PLAY_STAKED[level](table[v], hands, 0, np.array(strat, np.int64), s,
                           np.zeros(52, np.uint64), *out, trace, np.zeros((4, 4), np.int64),
                           expert_workspace())  # fmt: skip
    return [o.tolist() for o in out], trace[:n].tolist()


@pytest.mark.parametrize(
    ("strat", "levels"),
    [
        ((1, 1, 1, 1), (LEVEL_BASIC, LEVEL_ADVANCED, LEVEL_EXPERT)),
        ((0, 1, 0, 0), (LEVEL_BASIC, LEVEL_ADVANCED, LEVEL_EXPERT)),
        ((0, 0, 0, 0), (LEVEL_BASIC, LEVEL_ADVANCED, LEVEL_EXPERT)),
        ((2, 1, 0, 2), (LEVEL_ADVANCED, LEVEL_EXPERT)),
    ],
)
def test_a_higher_level_plays_lower_seats_card_for_card(strat, levels):
    assert tier_level(strat) == levels[0]
    for v in range(N_VARIANTS):
        for deal in range(6):
            plays = [_play(level, strat, deal, v) for level in levels]
            assert all(p == plays[0] for p in plays[1:]), (v, deal)


def test_the_entry_points_pick_the_lowest_level_that_plays_the_seats():
    assert tier_level([0, 0, 0, 0]) == tier_level([1, 0, 1, 1]) == LEVEL_BASIC
    assert tier_level([2, 0, 1, 1]) == LEVEL_ADVANCED
    assert tier_level([2, 3 | (4 << 8), 1, 1]) == LEVEL_EXPERT
    assert tier_level(np.array([[1, 1, 1, 1], [1, 2, 1, 1]])) == LEVEL_ADVANCED


def _dispatchers() -> list[Dispatcher]:
    """Every jit function of the core, the builds made by factories included."""
    seen: dict[int, Dispatcher] = {}

    def walk(d: Dispatcher) -> None:
        if id(d) not in seen:
            seen[id(d)] = d
            for cell in d.py_func.__closure__ or ():
                value = cell.cell_contents
                for x in value if isinstance(value, tuple) else (value,):
                    if isinstance(x, Dispatcher):
                        walk(x)

    for info in pkgutil.iter_modules(core.__path__):
        module = importlib.import_module(f"bonken_sim._core.{info.name}")
        for value in vars(module).values():
            for x in value if isinstance(value, tuple) else (value,):
                if isinstance(x, Dispatcher):
                    walk(x)
    return list(seen.values())


def _keys() -> list[str]:
    return sorted(
        f"{d.py_func.__module__}.{d.py_func.__qualname__}{closure_data(d.py_func)!r}"
        for d in _dispatchers()
    )


def test_every_build_has_a_cache_key_of_its_own_and_the_same_in_every_process():
    keys = _keys()
    assert len(keys) > 100 and len(set(keys)) == len(keys)
    assert not [k for k in keys if "0x" in k]  # no object address in a key
    code = "from tests.core.test_builds import _keys; print(repr(_keys()))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other.stdout.strip() == repr(keys)
