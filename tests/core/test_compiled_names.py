"""Functions compiled in different processes keep their own code when a later kernel links
them: numba numbers its compiles from 1 in every process, so two builds of one closure
compiled in two processes (``engine.warmup`` compiles a level's loops in two) got one
compiled name, and a kernel over both ran one body for both calls (``_core._jit``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from numba.core.bytecode import FunctionIdentity

ROOT = Path(__file__).resolve().parents[2]


def _in_new_process(code: str, cache: Path) -> str:
    env = {**os.environ, "BONKEN_SIM_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", f"from tests.core import clash_kernels as c; print({code})"],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True, timeout=120,
    )  # fmt: skip
    return run.stdout.strip()


def test_builds_cached_by_two_processes_keep_their_own_code_in_a_third(tmp_path):
    # Each build is the first compile of a fresh process: with ids counted from 1 both
    # had the same name, and the third process's kernel returned 2002.
    assert _in_new_process("c.plus_one(1)", tmp_path) == "2"
    assert _in_new_process("c.plus_two(1)", tmp_path) == "3"
    assert _in_new_process("c.both(1)", tmp_path) == "2003"


def test_compile_ids_are_drawn_not_counted():
    ids = [next(FunctionIdentity._unique_ids) for _ in range(3)]
    assert len(set(ids)) == 3 and min(ids) > 2**32  # not a count from 1
