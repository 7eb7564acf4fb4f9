"""The provenance record: the versions of the code that made a result, built once.

A run's manifest (``versions``), a report's marker, the fitted models' provenance, advise's
JSON and the bench's result all record this one dict. ``engine`` is the hash of the numba
core (``engine.version``), which is why the record is built in the engine, the one layer that
reads ``_core``.
"""

from __future__ import annotations

import functools
import platform


@functools.cache
def _record() -> dict[str, str]:
    from importlib.metadata import version

    import numba
    import numpy as np

    from bonken_sim.engine.version import engine_version
    from bonken_sim.version import __version__

    return {
        "bonken_sim": __version__,
        "engine": engine_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": version("pyarrow"),  # without importing it (a run imports it late)
        "python": platform.python_version(),
    }


def versions() -> dict[str, str]:
    """bonken_sim, engine, numba, numpy, pyarrow and python versions of this process; built
    once, so the engine hash is that of the code this process loaded even if the sources are
    edited while it runs. A fresh copy each call (callers may add to it)."""
    return dict(_record())
