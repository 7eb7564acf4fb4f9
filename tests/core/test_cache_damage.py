"""The kernel cache heals itself: a cache file that cannot be read (truncated by a full disk
or a killed compile) is removed with one line and its kernel compiled again, and two
processes compiling the same kernels at once leave a cache both can load.

Each case runs in fresh processes on a cache folder of its own (``BONKEN_SIM_CACHE_DIR``),
so the suite's own cache is never touched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

CALL_KERNELS = """
import json
import numpy as np
from bonken_sim._core import _jit, kernels, rng

compiled = []
with _jit.compiles_watched(lambda: compiled.append(1), lambda: None):
    hands = np.zeros(4, np.uint64)
    kernels.deal_hands(rng.seed_key(7), 3, hands)
print(json.dumps({"hands": [int(h) for h in hands], "compiled": len(compiled)}))
"""


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "BONKEN_SIM_CACHE_DIR": str(cache)}


def _call(cache: Path) -> tuple[dict, str]:
    done = subprocess.run(
        [sys.executable, "-c", CALL_KERNELS],
        env=_env(cache),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr


def _cache_files(cache: Path) -> list[Path]:
    return sorted(p for p in cache.rglob("*") if p.suffix in (".nbi", ".nbc"))


def test_two_processes_compiling_at_once_leave_a_cache_both_load(tmp_path):
    cache = tmp_path / "cache"
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CALL_KERNELS],
            env=_env(cache),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in outs]
    first, second = (json.loads(out) for out, _ in outs)
    assert first["hands"] == second["hands"]
    again, err = _call(cache)
    assert again == {"hands": first["hands"], "compiled": 0}  # all loaded, none compiled
    assert "damaged" not in err
    assert not list(cache.rglob("*.tmp.*"))  # no half-written file left


def test_truncated_cache_files_are_compiled_again_with_one_line_each(tmp_path):
    cache = tmp_path / "cache"
    fresh, _ = _call(cache)
    files = _cache_files(cache)
    assert any(p.suffix == ".nbi" for p in files) and any(p.suffix == ".nbc" for p in files)
    for path in files:  # as a full disk or a killed process leaves them
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    healed, err = _call(cache)
    assert healed["hands"] == fresh["hands"] and healed["compiled"] > 0
    lines = err.strip().splitlines()
    assert lines and all(
        line.startswith("bonken-sim: the kernel cache file ") and "was damaged" in line
        for line in lines
    ), err
    assert "Traceback" not in err
    again, err = _call(cache)
    assert again == {"hands": fresh["hands"], "compiled": 0} and err == ""


def test_a_command_on_a_damaged_cache_plays_and_says_so(tmp_path):
    """``bonken-sim play`` on a copy of the suite's cache with the files of its own kernel
    cut short (only those: the rest loads, so this compiles one driver, not everything)."""
    from bonken_sim._core._jit import cache_dir

    src = cache_dir()
    cache_root = tmp_path / "root"
    copy = cache_root / "numba" / src.name
    shutil.copytree(src, copy)
    damaged = [p for p in _cache_files(copy) if "trace_deal" in p.name]
    assert damaged, "the suite's cache holds no trace_deal build"
    for path in damaged:
        path.write_bytes(path.read_bytes()[:100])
    args = ["play", "--seed", "1", "--deal", "0", "--contract", "vrouwen"]
    cli = [sys.executable, "-c", "import sys; from bonken_sim.cli import main; sys.exit(main())"]
    done = subprocess.run(
        [*cli, *args], env=_env(cache_root), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "was damaged" in done.stderr and "Traceback" not in done.stderr
    clean = subprocess.run(
        [*cli, *args], env=_env(cache_root), capture_output=True, text=True, timeout=600
    )
    assert clean.returncode == 0 and clean.stdout == done.stdout
    assert "damaged" not in clean.stderr
