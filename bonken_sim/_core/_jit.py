"""The one place that calls numba.njit.

Every kernel is compiled with ``cache=True``. numba's cache only notices edits to the file a
function is defined in, not to helpers it calls in other files, so the cache directory is keyed
on a hash of all core sources: an edit anywhere in ``_core`` gives a fresh cache and stale
kernels never run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_CORE_DIR = Path(__file__).resolve().parent


def _source_hash() -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for path in sorted(_CORE_DIR.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where compiled kernels are cached (``BONKEN_SIM_CACHE_DIR`` overrides the root)."""
    root = os.environ.get("BONKEN_SIM_CACHE_DIR")
    if root:
        base = Path(root)
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "bonken-sim"
    return base / "numba" / _source_hash()


numba.config.CACHE_DIR = str(cache_dir())


def jit(fn=None, **options):
    """``numba.njit`` with the project's fixed options (cache on, GIL released).

    ``_nrt=False`` (numba's switch for its reference-counting runtime) is for the play loops
    and the per-deal drivers, which allocate nothing: with reference counting, every call that
    passes arrays costs two atomic operations per array (measured: about 0.2 µs per playout,
    a sixth of a random playout, and more per game deal). Such a function cannot allocate, so
    each batch kernel allocates its scratch in a thin wrapper and loops in an ``_nrt=False``
    function.
    """
    options.setdefault("cache", True)
    options.setdefault("nogil", True)
    options.setdefault("error_model", "numpy")
    if fn is None:
        return lambda f: numba.njit(**options)(f)
    return numba.njit(**options)(fn)


_I1_FALSE = ir.Constant(ir.IntType(1), 0)


def _u64_intrinsic(name, doc, emit):
    """A numba intrinsic of one uint64 argument that compiles to the single LLVM operation
    ``emit(builder, x)`` (a bit-count instruction)."""

    def typer(typingctx, x):
        if x != types.uint64:
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, args[0])

        return types.uint64(types.uint64), codegen

    typer.__name__ = typer.__qualname__ = name
    typer.__doc__ = doc
    return intrinsic(typer)


popcnt = _u64_intrinsic(
    "popcnt", "Number of set bits of a uint64 (one POPCNT instruction).", lambda b, x: b.ctpop(x)
)
ctz = _u64_intrinsic(
    "ctz", "Index of the lowest set bit of a non-zero uint64.", lambda b, x: b.cttz(x, _I1_FALSE)
)
clz = _u64_intrinsic(
    "clz", "Number of leading zero bits of a uint64.", lambda b, x: b.ctlz(x, _I1_FALSE)
)
