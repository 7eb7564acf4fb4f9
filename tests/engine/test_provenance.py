"""One provenance record, built by the engine, is what every result records."""

from __future__ import annotations

import platform

import numba
import numpy as np

import bonken_sim
from bonken_sim.engine.provenance import versions
from bonken_sim.engine.version import engine_version
from bonken_sim.runs import directory
from bonken_sim.version import __version__


def test_the_record_holds_every_version_once_built():
    v = versions()
    assert v == {
        "bonken_sim": __version__,
        "engine": engine_version(),
        "numba": numba.__version__,
        "numpy": np.__version__,
        "pyarrow": v["pyarrow"],
        "python": platform.python_version(),
    }
    assert v["pyarrow"]


def test_each_call_is_a_fresh_copy_of_the_same_record():
    a = versions()
    a["bonken_sim"] = "edited"
    assert versions()["bonken_sim"] == __version__
    assert directory.versions() == versions()


def test_the_package_root_reexports_the_one_version():
    assert bonken_sim.__version__ == __version__
