"""The numba releases this core is tested with, checked before numba is patched.

``_jit`` and the ``_numba_*`` modules it installs patch numba's internals (its function ids,
its inliner, its code library's finalize); another numba release may have moved them and
would fail deep inside a compile, or compile other code. So the package refuses it at import,
in one line. ``pyproject.toml`` states the same range (a test holds them equal).
"""

from __future__ import annotations

import re

#: the lowest numba release tested (major, minor), and the first one not tested
NUMBA_LOWEST = (0, 68)
NUMBA_BELOW = (0, 69)
#: the requirement as pyproject.toml writes it
NUMBA_REQUIREMENT = f"numba>={NUMBA_LOWEST[0]}.{NUMBA_LOWEST[1]},<{NUMBA_BELOW[0]}.{NUMBA_BELOW[1]}"


def numba_supported(version: str) -> bool:
    """Whether numba ``version`` (as ``numba.__version__`` spells it) is in the tested range."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return found is not None and NUMBA_LOWEST <= tuple(map(int, found.groups())) < NUMBA_BELOW


def check_numba(version: str) -> None:
    """Raise ImportError, one line, unless numba ``version`` is in the tested range."""
    if not numba_supported(version):
        raise ImportError(
            f"bonken-sim needs {NUMBA_REQUIREMENT} (it patches numba's internals and is "
            f"tested on that range), but numba {version} is installed"
        )
