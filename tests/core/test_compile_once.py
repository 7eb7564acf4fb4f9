"""Each helper a loop calls is compiled once per loop, not once for literal types and again
for ``int64``: the loops' states begin with typed values (``play_tricks.deal_start``), and
so does the solver's frame index. With literal ``-1``/``0`` in them, every strategy helper
of the basic loops and every frame helper of the solver was compiled twice (docs/ENGINE.md,
"A loop's state begins with typed values").

Run in a fresh process on an empty cache: a build loaded from the cache brings its helpers
inside it and compiles none of them, so only a compile shows what it compiled.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COMPILE_AND_COUNT = """
import gc, json
import numpy as np
from numba.core.registry import CPUDispatcher
from bonken_sim._core import playout, solver
from bonken_sim._core.ruleset import standard_table

playout.compile_loops(0, [2, 4])  # the basic troeven and negative loops
hands = np.array([0b1, 0b10, 0b100, 0b1000], np.uint64) << np.uint64(13 * 3)
si, su = solver.new_stack()
solver.solve_value(hands, 0, 1, standard_table()[0], solver.new_table(8),
                   np.zeros(solver.N_CTX, np.int64), si, su, 1000)
counts = {}
for f in gc.get_objects():
    if isinstance(f, CPUDispatcher) and f.signatures:
        name = f.py_func.__module__.rsplit(".", 1)[-1] + "." + f.py_func.__name__
        counts[name] = max(counts.get(name, 0), len(f.signatures))
print(json.dumps(counts))
"""


def test_the_basic_loops_and_the_solver_compile_each_helper_once(tmp_path):
    env = {**os.environ, "BONKEN_SIM_CACHE_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_AND_COUNT],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True, timeout=300,
    )  # fmt: skip
    counts = json.loads(done.stdout.strip().splitlines()[-1])
    strategy = {k: n for k, n in counts.items() if k.startswith("strategy_basic.")}
    frames = {k: counts[k] for k in ("solver._enter", "solver._next_card", "solver._play",
                                     "solver._close", "solver._abort")}  # fmt: skip
    assert strategy and max(strategy.values()) == 1, strategy
    assert set(frames.values()) == {1}, frames
    # (The trick's rules, trick_legal and the like, have one build per call site with
    # constants of its own: a basic negative loop's trump is always -1, the solver leads
    # with constant arguments. Those are not literals of a state.)
