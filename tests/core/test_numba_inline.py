"""numba's inliner copies a callee's blocks with one memo (``_core._numba_inline``): the
copies share one scope and say what the block-by-block copies say, and the wrap is what
numba's inlining runs once the core is imported."""

from __future__ import annotations

import copy

import numba
from numba.core import inline_closurecall, ir
from numba.core.compiler import run_frontend

import bonken_sim._core._jit  # noqa: F401  (installs the wrap)
from bonken_sim._core import _numba_inline


def _branchy(x, y):
    total = 0
    for k in range(x):
        if k % 3 == 0:
            total += y
        elif k % 3 == 1:
            total -= k
        else:
            total ^= k
    return total if total > 0 else -total


def _other(a):
    return a + 1 if a > 2 else a - 1


def _dump(block: ir.Block) -> list[str]:
    return [str(stmt) for stmt in block.body]


def test_blocks_of_one_function_share_one_copied_scope():
    fir = run_frontend(_branchy)
    assert len(fir.blocks) > 3
    copier = _numba_inline._BlockCopier()
    copies = {label: copier.deepcopy(block) for label, block in fir.blocks.items()}
    plain = {label: copy.deepcopy(block) for label, block in fir.blocks.items()}
    scopes = {id(block.scope) for block in copies.values()}
    assert len(scopes) == 1
    assert copies[min(copies)].scope is not fir.blocks[min(copies)].scope
    for label, block in copies.items():
        assert block is not fir.blocks[label]
        assert _dump(block) == _dump(plain[label])
        assert block.scope.localvars._con.keys() == plain[label].scope.localvars._con.keys()
    # Another function's blocks get a scope of their own.
    other = run_frontend(_other)
    other_copies = [copier.deepcopy(block) for block in other.blocks.values()]
    assert {id(block.scope) for block in other_copies}.isdisjoint(scopes)
    # With a memo of the caller's, or on anything but a block, it is copy.deepcopy.
    memo: dict = {}
    block = next(iter(fir.blocks.values()))
    assert copier.deepcopy(block, memo) is memo[id(block)]
    assert copier.deepcopy([1, [2]]) == [1, [2]]


def test_numba_inlining_runs_through_the_shared_memo(monkeypatch):
    assert getattr(inline_closurecall.InlineWorker.inline_ir, "_bonken_shared_memo", False)
    _numba_inline.install()  # a second install does not wrap the wrap
    assert not hasattr(inline_closurecall.InlineWorker.inline_ir.__wrapped__, "__wrapped__")

    copied = []
    original = _numba_inline._BlockCopier.deepcopy

    def counting(self, x, memo=None):
        if memo is None and isinstance(x, ir.Block):
            copied.append(x)
        return original(self, x, memo)

    monkeypatch.setattr(_numba_inline._BlockCopier, "deepcopy", counting)
    callee = numba.njit(inline="always")(_branchy)

    @numba.njit
    def caller(x):
        return callee(x, 5) + callee(x + 1, 2)

    assert caller(10) == _branchy(10, 5) + _branchy(11, 2)
    assert caller(2) == _branchy(2, 5) + _branchy(3, 2)
    assert len(copied) >= 2 * len(run_frontend(_branchy).blocks)  # both call sites
    assert inline_closurecall.copy is copy  # the stand-in is gone after the call
