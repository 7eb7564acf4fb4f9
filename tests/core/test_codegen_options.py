"""The LLVM options the kernels compile with: the cmov converter is off on x86-64 only.
Elsewhere the option does not exist, and LLVM would end the process on it at import."""

from __future__ import annotations

import pytest

from bonken_sim._core._jit import codegen_options


@pytest.mark.parametrize("machine", ["x86_64", "AMD64"])
def test_x86_64_keeps_its_conditional_moves(machine):
    assert codegen_options(machine) == ("--x86-cmov-converter=false",)


@pytest.mark.parametrize("machine", ["aarch64", "arm64", "ppc64le", ""])
def test_other_machines_get_no_x86_option(machine):
    assert codegen_options(machine) == ()
