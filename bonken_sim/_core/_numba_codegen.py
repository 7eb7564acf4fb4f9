"""LLVM's code generation options for the kernels (compile time only).

On x86-64 LLVM's cmov converter is off (``codegen_options``). The bench's yardsticks
(``_core/yardstick.py``) compile with LLVM's defaults all the same: they stand for what a plain
numba kernel does on the machine, and the speed goals are set against them. The option is
global in LLVM, so the libraries of the functions ``stock(qualname)`` names are finalized (and
so their machine code made) with the default back on; so is a ``prange`` kernel's parallel
part, which numba compiles under a name of its own (only the yardstick's toy kernel has one).
numba compiles under one global lock, so the switch cannot reach another compile.

``install()`` sets the options and wraps numba's ``CPUCodeLibrary.finalize``; idempotent.
"""

from __future__ import annotations

import llvmlite.binding as llvm
from numba.core import codegen

_STOCK: set[str] = set()
_MARK = "_bonken_codegen"
_PARFOR_PREFIX = "__numba_parfor_gufunc"
_CMOV = "--x86-cmov-converter"


def codegen_options(machine: str) -> tuple[str, ...]:
    """LLVM options for compiling the kernels on a machine (``platform.machine()``).

    On x86-64, LLVM's cmov converter (X86CmovConverter) is off. It turns a loop's
    conditional moves back into branches where it guesses the condition predictable; in the
    play loops the conditions are the cards, so those branches mispredict. Off, basic play
    ran 5.3% more playouts per CPU-second over all twelve variants (negative contracts
    13.6% more, troeven 3.5% fewer; 8 alternated pairs, ``bench_cpu_ab.py``) and basic games
    6.5% more (8 of 10 pairs); random and advanced play over all twelve moved by under 1.5%.
    The machine code changes, not what it computes: play is the same card for card.

    Only for x86-64: the option belongs to LLVM's x86 backend, and LLVM ends the process
    on an option it does not know."""
    if machine.lower() in ("x86_64", "amd64"):
        return (f"{_CMOV}=false",)
    return ()


def stock(qualname: str) -> None:
    """Compile the functions named ``qualname`` with LLVM's default options."""
    _STOCK.add(qualname)


def _is_stock(name: str) -> bool:
    return name in _STOCK or name.startswith(_PARFOR_PREFIX)


def install(machine: str) -> None:
    """Set ``codegen_options(machine)``; with any set, finalize the ``stock`` libraries with
    LLVM's defaults."""
    options = codegen_options(machine)
    cls = codegen.CPUCodeLibrary
    if not options or getattr(cls.finalize, _MARK, False):
        return
    for option in options:
        llvm.set_option("bonken-sim", option)
    inner = cls.finalize

    def finalize(self):
        if not _is_stock(self.name):
            return inner(self)
        llvm.set_option("bonken-sim", f"{_CMOV}=true")
        try:
            return inner(self)
        finally:
            for option in options:
                llvm.set_option("bonken-sim", option)

    # the wrapped finalize keeps the marks of the wrappers inside it (their install() checks)
    for name, value in vars(inner).items():
        setattr(finalize, name, value)
    setattr(finalize, _MARK, True)
    cls.finalize = finalize  # type: ignore[method-assign]  # the patch: see install
