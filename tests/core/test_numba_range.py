"""The core patches numba's internals, so the package refuses a numba outside the range it is
tested with, at import, in one line; pyproject.toml pins the same range."""

from __future__ import annotations

import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import numba
import pytest

from bonken_sim._core import _numba_range
from bonken_sim._core._numba_range import NUMBA_REQUIREMENT, check_numba, numba_supported

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("version", ["0.68.0", "0.68.1", "0.68.2rc1", "0.68.0+3.g1234abc"])
def test_the_tested_releases_pass(version):
    assert numba_supported(version)
    check_numba(version)


@pytest.mark.parametrize("version", ["0.67.1", "0.69.0", "0.69.0dev0", "1.0.0", "", "dev"])
def test_other_releases_are_refused_in_one_line(version):
    with pytest.raises(ImportError) as err:
        check_numba(version)
    message = str(err.value)
    assert "\n" not in message
    assert NUMBA_REQUIREMENT in message and f"numba {version} is installed" in message


def test_importing_the_core_under_another_numba_fails(monkeypatch):
    import bonken_sim._core as core

    monkeypatch.setattr(numba, "__version__", "0.70.0")
    with pytest.raises(ImportError, match=r"needs numba>=0\.68,<0\.69 .* numba 0\.70\.0"):
        importlib.reload(core)
    monkeypatch.undo()
    importlib.reload(core)  # the real numba passes again


def test_importing_the_package_under_another_numba_fails_with_that_line():
    code = "import numba; numba.__version__ = '0.70.0'; import bonken_sim"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last == (
        f"ImportError: bonken-sim needs {NUMBA_REQUIREMENT} (it patches numba's internals and "
        "is tested on that range), but numba 0.70.0 is installed"
    )


def test_pyproject_pins_the_range_the_core_checks_and_numba_is_in_it():
    project = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]
    pinned = [d for d in project["dependencies"] if d.startswith("numba")]
    assert pinned == [_numba_range.NUMBA_REQUIREMENT]
    assert numba_supported(numba.__version__)
