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
from bonken_sim.processes import usable_cores

# In a fresh interpreter on an empty cache: the first command of a basic run (through the
# CLI, as a user types it), then which builds numba compiled.
_COLD_RUN = """
import contextlib, io, json, sys
from bonken_sim.cli import main
from numba.core import event
here = []  # the play loops this process compiled itself
class Loops(event.Listener):
    def on_start(self, ev):
        pass
    def on_end(self, ev):
        here.append(ev.data["dispatcher"])
err = io.StringIO()
with contextlib.redirect_stderr(err), event.install_listener("numba:compile", Loops()):
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
compiled = {k: [len(f.signatures) for f in fs] for k, fs in builds.items()}
here = [k for k, loop in enumerate(P.LOOPS[0]) if any(loop is d for d in here)]
print(json.dumps({"code": code, "stderr": err.getvalue(), "compiled": compiled, "here": here}))
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


def test_a_read_only_table_plays_on_the_kernels_of_a_writable_one():
    """The commands pass ``Ruleset.table`` (read-only), warmup and the engine's defaults
    ``standard_table()`` (writable): the kernels take both as one type, so neither compiles
    the kernels again (numba types a read-only array apart), and both play alike."""
    from bonken_sim._core import kernels as K
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    writable = standard_table()
    assert playout.kernel_table(writable) is writable  # no copy for the usual table
    frozen = standard_table()
    frozen.setflags(write=False)
    as_kernel = playout.kernel_table(frozen)
    assert as_kernel.flags.writeable and np.array_equal(as_kernel, writable)
    assert playout.kernel_table(frozen[3]).flags.writeable

    def traced(table):
        out = [np.zeros(4, np.uint64), *(np.zeros(4, np.int64) for _ in range(3))]
        trace = np.zeros(K.TRACE_LEN, np.int64)
        n = K.trace_deal(seed_key(5), 7, 1, 2, np.array([1, 1, 0, 1]), table, *out, trace)
        return [a.tolist() for a in out], trace[:n].tolist()

    assert traced(frozen) == traced(writable)


def test_the_loops_compiled_ahead_are_those_the_kernels_call():
    """``compile_loops`` compiles each level's play loops for the argument types the
    kernels pass them: after this session's warmup every one is in the cache under them,
    and loading them compiles nothing."""
    from bonken_sim._core._jit import compiles_watched

    compiled: list[int] = []
    with compiles_watched(lambda: compiled.append(1), lambda: None):
        for level in playout.LEVELS:
            assert playout.loops_to_compile(level) == []
            playout.compile_loops(level, range(len(playout.LOOPS[level])))
    assert compiled == []


def test_two_processes_name_different_builds_apart(tmp_path):
    """Each cache entry's data file is named by its key: two processes adding different
    builds of one function each write their own file, never the other's, and an entry the
    index lost to the other's update is still found."""
    from bonken_sim._core import _jit

    first = _jit._EntryFiles(str(tmp_path), "f-1.py311", ("stamp", 1))
    second = _jit._EntryFiles(str(tmp_path), "f-1.py311", ("stamp", 1))
    first.save(("int64",), "code for int64")
    second.save(("uint64",), "code for uint64")
    second.save(("int64",), "code for int64")  # the same entry: the same file
    assert first.load(("int64",)) == "code for int64"
    assert first.load(("uint64",)) == "code for uint64"
    assert len(list(tmp_path.glob("f-1.py311.*.nbc"))) == 2
    (tmp_path / "f-1.py311.nbi").unlink()  # an index update the other process overwrote
    assert second.load(("uint64",)) == "code for uint64"
    assert second.load(("int8",)) is None


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


def test_parts_the_second_process_did_not_finish_are_compiled_here(tmp_path, monkeypatch):
    """A level's games part goes to a second process while this one compiles the others;
    a part it leaves without a marker (it failed, or was killed) is compiled here after."""
    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path))
    from bonken_sim._core._jit import cache_dir

    cache_dir().mkdir(parents=True)
    calls: list[tuple[str, str]] = []
    fakes = {part: (lambda level, part=part: calls.append((part, level))) for part in W._COMPILE}
    monkeypatch.setattr(W, "_COMPILE", fakes)
    monkeypatch.setattr(W, "_loops_in_two", lambda level: None)
    monkeypatch.setattr(W, "usable_cores", lambda: 2)

    class Failed:
        def wait(self) -> int:
            return 1

        def poll(self) -> int:
            return 1

    started: list[list[str]] = []
    monkeypatch.setattr(W, "_second", lambda script, args: started.append(args) or Failed())
    needs = [("games", "basic"), ("deals", "basic"), ("trace", "basic"), ("staked", "")]
    W.warm(needs)
    assert started == [["games:basic"]]  # staked alone in its group: here
    assert calls == [("deals", "basic"), ("trace", "basic"), ("games", "basic"), ("staked", "")]
    assert W.missing(needs) == []


def test_the_second_process_compiles_its_parts_into_the_cache(tmp_path, monkeypatch):
    """The second process's script, on an empty cache: the part's kernels land in the
    cache and its marker is left (the bench part: the cheapest to compile)."""
    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path))
    from bonken_sim._core._jit import cache_dir

    second = W._second(W._SECOND_PARTS, ["bench:"])
    assert second is not None and second.wait() == 0
    assert W.missing([("bench", "")]) == []
    assert list(cache_dir().rglob("yardstick*.nbc"))


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
    expert ones (nor the expert's solver), each once: the run's read-only ruleset table
    plays on the builds its compile step made with a writable one. A second run finds them
    cached and says nothing. About 20 s of CPU: one level's compile."""
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
    assert doc["compiled"] == {"basic": [1] * 6, "advanced": [0] * 5, "expert": [0] * 6}
    # On two cores a second process compiled the later half of the basic loops into the
    # cache, and the run's kernel found them there: this process compiled only the first.
    two = usable_cores() >= 2
    assert doc["here"] == ([0, 1, 2] if two else [0, 1, 2, 3, 4])
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
