"""The engine's version: what a run records so that its results can be matched to the code.

It is the name of the compiled-kernel cache folder, a hash of numba's version and every
``_core`` source file: any change to card play gives another version (and a fresh cache).
"""

from __future__ import annotations

from pathlib import Path

from bonken_sim._core._jit import cache_dir


def engine_version() -> str:
    """The 16-hex-digit hash of the numba core as it is on disk (``versions.engine``)."""
    return cache_dir().name


def kernel_cache_dir() -> Path:
    """Where the compiled kernels of this engine version live (``bonken-sim warmup`` fills it)."""
    return cache_dir()
