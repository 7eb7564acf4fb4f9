"""Kernels that optimize their own code before linking in the functions they call (compile
time only).

numba compiles each jit function into a library of its own. When a library is finalized, numba
links in the libraries of every function it calls, already optimized, and then runs LLVM's
whole optimization pipeline again over the linked module, callees and all, before emitting
machine code for all of it (so that a small callee can be inlined into its caller). The play
loops are large, and every kernel that plays deals calls them through its level's
dispatcher: the basic ``run`` has three such layers (the dispatcher, the batch loop, its
wrapper), each optimizing every loop's code once more. Measured on an empty cache, after the
loops, in four alternated pairs on a loaded machine: the basic ``run`` kernels took 6.5-7.9
CPU-s to compile before, 5.2-6.6 s with the dispatcher and the kernels over it optimizing
their own code first and linking the loops in afterwards (1.6 s less at the median).

``link_late(qualname)`` marks the functions of one qualified name (a kernel's per-level
builds share it) to be finalized that way: their own module goes through the pipeline
alone, then the callees' libraries are linked in as they are. The machine code of the
callees is what their own compile made of them; the kernel still carries all of it, so a
kernel loaded from the cache needs nothing else. What is lost is LLVM inlining a callee into
the kernel: for the drivers marked (a few calls per deal, against thousands of instructions
of play) that costs nothing measurable. Functions called per card must not be marked.

``install()`` wraps numba's ``CPUCodeLibrary.finalize``; it is idempotent.
"""

from __future__ import annotations

from numba.core import codegen

_LATE: set[str] = set()
_MARK = "_bonken_link_late"


def link_late(qualname: str) -> None:
    """Finalize the libraries of functions named ``qualname`` optimizing their own code
    before linking their callees (see the module)."""
    _LATE.add(qualname)


def _finalize_late(self) -> None:
    """``CPUCodeLibrary.finalize`` with the own module optimized before the linking (numba
    0.68's steps, in that order otherwise)."""
    codegen.require_global_compiler_lock()
    self._codegen._check_llvm_bugs()
    self._raise_if_finalized()
    self._optimize_final_module()  # this library's own functions only
    seen = set()
    for library in self._linking_libraries:
        if library not in seen:
            self._reload_init.update(library._reload_init)
            seen.add(library)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
    self._final_module.verify()
    self._finalize_final_module()


def install() -> None:
    """Route the finalizing of marked libraries through ``_finalize_late``."""
    cls = codegen.CPUCodeLibrary
    if getattr(cls.finalize, _MARK, False):
        return
    numba_finalize = cls.finalize

    def finalize(self):
        if self.name in _LATE:
            return _finalize_late(self)
        return numba_finalize(self)

    setattr(finalize, _MARK, True)
    cls.finalize = finalize  # type: ignore[method-assign]  # the patch: see install
