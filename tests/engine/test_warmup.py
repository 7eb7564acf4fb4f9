"""Compiling per part and tier level: a command compiles only the kernels it plays, and the
parts compiled are remembered per engine version."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from bonken_sim._core import playout
from bonken_sim.engine import warmup as W

# In a fresh interpreter on an empty cache: the first command of a basic run (through the
# CLI, as a user types it), then which builds numba compiled.
_COLD_RUN = """
import contextlib, io, json, sys
from bonken_sim.cli import main
err = io.StringIO()
with contextlib.redirect_stderr(err):
    code = main(["run", "--deals", "20", "--seed", "1", "--threads", "1", "--out", sys.argv[1]])
from bonken_sim._core import play_domino as D, play_tricks as T, playout as P, solver as S
builds = {
    "basic": [T.tricks_random, T.tricks_negative, T.tricks_laatste, T.tricks_troeven,
              D.play_domino, P.PLAY_STAKED[0]],
    "advanced": [T.adv_tricks_negative, T.adv_tricks_laatste, T.adv_tricks_troeven,
                 D.adv_domino, P.PLAY_STAKED[1]],
    "expert": [T.exp_tricks_negative, T.exp_tricks_laatste, T.exp_tricks_troeven,
               D.exp_domino, P.PLAY_STAKED[2], S.solve_value],
}
compiled = {k: [len(f.signatures) > 0 for f in fs] for k, fs in builds.items()}
print(json.dumps({"code": code, "stderr": err.getvalue(), "compiled": compiled}))
"""


def test_levels_follow_the_highest_seat():
    assert W.level_of("basic") == "basic"
    assert W.level_of("random,basic,random,random") == "basic"
    assert W.level_of("advanced,basic,basic,basic") == "advanced"
    assert W.level_of("basic,expert:4:1,random,advanced") == "expert"
    assert W.level_of([1, 2, 1, 1]) == "advanced"
    assert W.games_level(["basic", "basic-nodouble", "random"]) == "basic"
    assert W.games_level(["basic", "advanced"]) == "advanced"
    assert W.games_level(["expert", "basic"]) == "expert"
    # an expert seat's code carries its settings above the tier byte
    assert playout.tier_level(np.array([[1, 1], [3 | (8 << 8), 0]])) == playout.LEVEL_EXPERT


def test_every_part_and_level_is_a_step_of_the_complete_warmup():
    assert W.STEPS == len(W.ALL) == len(W.PLAYING) * len(W.LEVELS) + len(W.OTHERS)
    assert ("deals", "basic") in W.ALL and ("solve", "") in W.ALL
    assert len(set(W.ALL)) == W.STEPS


def test_a_part_compiled_is_remembered_per_engine_version(tmp_path, monkeypatch):
    """The marker lives in the cache folder of this engine version (``cache_dir``)."""
    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path))
    from bonken_sim._core._jit import cache_dir

    cache_dir().mkdir(parents=True)  # numba makes it when it caches the first kernel
    needs = [("replay", ""), ("deals", "basic")]
    assert W.missing(needs) == needs and not W.is_warm(needs)
    steps: list[tuple[int, int, tuple[str, str]]] = []
    W.warm(needs[:1], lambda k, n, need, compiles: steps.append((k, n, need)))
    assert steps[0] == (0, 1, ("replay", "")) and steps[-1] == (1, 1, ("replay", ""))
    assert W.missing(needs) == [("deals", "basic")] and W.is_warm(needs[:1])
    assert not W.is_warm()  # every part: not yet


_WARM_PROCESS = """
import json
from bonken_sim._core._jit import compiles_watched
from bonken_sim.engine.warmup import warmup
started = []
with compiles_watched(lambda: started.append(1), lambda: None):
    warmup()
print(json.dumps(len(started)))
"""


def test_a_warm_cache_loads_every_kernel_without_compiling():
    """After a complete warmup (this session's, conftest.py) a fresh process compiles
    nothing: the kernels built per level are closures over other kernels, which numba's own
    cache key would miss in every new process (``_jit._ClosureCache``)."""
    out = subprocess.run(
        [sys.executable, "-c", _WARM_PROCESS], capture_output=True, text=True, check=True
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == 0


@pytest.mark.slow
def test_a_basic_run_compiles_only_the_basic_builds(tmp_path):
    """On an empty cache (a fresh interpreter) the first `run` of basic seats says it
    compiles, and numba compiles the random and basic play loops, not the advanced or
    expert ones (nor the expert's solver); a second run finds them cached and says nothing.
    About 20 s of CPU: one level's compile."""
    env = {**os.environ, "BONKEN_SIM_CACHE_DIR": str(tmp_path / "cache")}
    cold = subprocess.run(
        [sys.executable, "-c", _COLD_RUN, str(tmp_path / "run1")],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    doc = json.loads(cold.stdout.strip().splitlines()[-1])
    assert doc["code"] == 0
    assert doc["stderr"].startswith("bonken-sim: compiling the kernels for deals (basic) once")
    assert "kernels compiled in" in doc["stderr"]
    assert doc["compiled"] == {"basic": [True] * 6, "advanced": [False] * 5, "expert": [False] * 6}
    warm = subprocess.run(
        [
            sys.executable,
            "-m",
            "bonken_sim.cli",
            "run",
            "--deals",
            "20",
            "--seed",
            "1",
            "--threads",
            "1",
            "--out",
            str(tmp_path / "run2"),
        ],  # fmt: skip
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "compiling" not in warm.stderr
    assert warm.stderr.startswith("bonken-sim run: 20 deals")
