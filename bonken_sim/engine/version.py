"""The engine's version: what a run records so that its results can be matched to the code.

It is the name of the compiled-kernel cache folder, a hash of numba's version and every
``_core`` source file: any change to card play gives another version (and a fresh cache).
"""

from __future__ import annotations

from bonken_sim._core._jit import cache_dir


def engine_version() -> str:
    """The 16-hex-digit hash of the numba core as it is on disk (``versions.engine``)."""
    return cache_dir().name
