"""Instruction counts of the play kernel on a fixed workload, under ``valgrind --tool=callgrind``.

Wall-clock and even CPU-time rates move with other load on a shared machine; the number of
instructions a kernel executes does not. Python and numba start up under valgrind far too
slowly to count everything, so the workload runs with valgrind's instrumentation off until
the kernels are loaded, then switches it on (``callgrind_control -i on``) for the deals
alone. The count is then the play kernel's, comparable before and after a change of the
core. To compare two source trees, point ``PYTHONPATH`` at each::

    PYTHONPATH=/tmp/before python benchmarks/callgrind_play.py basic all12 2000
    PYTHONPATH=/tmp/after python benchmarks/callgrind_play.py basic all12 2000

Arguments: the tier (random, basic, advanced), the variants (all12 or domino), the deals.
Prints one JSON line with the instructions counted (``Ir``). Run without valgrind (as the
child it starts, with ``--child``), it loads the kernels, waits for the go and plays.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# Literal ids, not bonken_sim._core.ids: the script must run against source trees from before
# that module existed, to compare them.
TIERS = {"random": 0, "basic": 1, "advanced": 2}
VARIANT_SETS = {
    "all12": list(range(12)),
    "domino": [6],
    "negative": [0, 1, 2, 3, 4],
    "laatste": [5],
    "troeven": [7, 8, 9, 10, 11],
}


def child(tier: str, which: str, deals: int, sync: Path) -> None:
    """Load the kernels, say so, wait for the go, play ``deals`` deals."""
    import numpy as np

    from bonken_sim._core import kernels as K
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    variants = np.array(VARIANT_SETS[which], np.int64)
    strat = np.full(4, TIERS[tier], np.int64)
    table = standard_table()
    key = seed_key(12345)
    outs = (
        np.empty((deals, 4), np.uint64),
        np.empty((deals, len(variants), 4), np.int16),
        np.empty((deals, len(variants), 4), np.int8),
        np.empty((deals, len(variants), 4), np.int8),
    )
    K.simulate_batch(key, 0, 0, variants, strat, table, *(o[:1] for o in outs))  # load
    (sync / "ready").touch()
    while not (sync / "go").exists():
        time.sleep(0.01)
    K.simulate_batch(key, 10**6, 0, variants, strat, table, *outs)
    (sync / "done").touch()
    while not (sync / "end").exists():  # Python's exit is not counted: wait till it is off
        time.sleep(0.01)


def measure(tier: str, which: str, deals: int) -> int:
    """Run the child under callgrind, instrumenting only the deals; returns its Ir."""
    with tempfile.TemporaryDirectory() as tmp:
        sync = Path(tmp)
        out = sync / "callgrind.out"
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            tier,
            which,
            str(deals),
            str(sync),
        ]
        env = dict(os.environ, PYTHONHASHSEED="0")
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        while not (sync / "ready").exists():  # instrumentation off: valgrind runs fast
            if proc.poll() is not None:
                raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "child died")
            time.sleep(0.2)
        subprocess.run(["callgrind_control", "-i", "on", str(proc.pid)], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        (sync / "go").touch()
        while not (sync / "done").exists():
            time.sleep(0.2)
        subprocess.run(["callgrind_control", "-i", "off", str(proc.pid)], check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        (sync / "end").touch()
        proc.wait()
        if os.environ.get("CALLGRIND_KEEP"):
            Path(os.environ["CALLGRIND_KEEP"]).write_text(out.read_text())
        return sum(
            int(line.split()[1])
            for line in out.read_text().splitlines()
            if line.startswith("totals:")
        )


def main() -> None:
    if sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]), Path(sys.argv[5]))
        return
    tier, which, deals = sys.argv[1], sys.argv[2], int(sys.argv[3])
    ir = measure(tier, which, deals)
    print(json.dumps({"tier": tier, "variants": which, "deals": deals, "Ir": ir}))


if __name__ == "__main__":
    main()
