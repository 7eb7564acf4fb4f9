"""The LLVM options the kernels compile with: the cmov converter is off on x86-64 only
(elsewhere the option does not exist, and LLVM would end the process on it at import); the
bench's yardsticks compile with LLVM's defaults, as a plain numba kernel does."""

from __future__ import annotations

import pytest

from bonken_sim._core import _numba_codegen
from bonken_sim._core._numba_codegen import codegen_options


@pytest.mark.parametrize("machine", ["x86_64", "AMD64"])
def test_x86_64_keeps_its_conditional_moves(machine):
    assert codegen_options(machine) == ("--x86-cmov-converter=false",)


@pytest.mark.parametrize("machine", ["aarch64", "arm64", "ppc64le", ""])
def test_other_machines_get_no_x86_option(machine):
    assert codegen_options(machine) == ()


def test_the_yardsticks_compile_with_llvms_defaults_and_the_engine_does_not():
    from bonken_sim._core import kernels, play_tricks, yardstick

    for kernel in (yardstick.baseline_playouts, yardstick.tuned_playouts, yardstick.toy_playouts):
        assert _numba_codegen._is_stock(kernel.py_func.__qualname__)
    assert _numba_codegen._is_stock("__numba_parfor_gufunc_0x7f00deadbeef")  # the toy's prange
    engine = (kernels.deal_hands, play_tricks.tricks_negative, play_tricks.tricks_troeven)
    assert not any(_numba_codegen._is_stock(k.py_func.__qualname__) for k in engine)
