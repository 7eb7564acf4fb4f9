"""Instruction counts of the play kernel on a fixed workload, under ``valgrind --tool=callgrind``.

Wall-clock and even CPU-time rates move with other load on a shared machine; the number of
instructions a kernel executes does not. Python and numba start up under valgrind far too
slowly to count everything, so the workload runs with valgrind's instrumentation off until
the kernels are loaded, then switches it on (``callgrind_control -i on``) for the deals
alone. The count is then the play kernel's, comparable before and after a change of the
core. To compare two source trees, point ``PYTHONPATH`` at each::

    PYTHONPATH=/tmp/before python benchmarks/callgrind_play.py basic all12 2000
    PYTHONPATH=/tmp/after python benchmarks/callgrind_play.py basic all12 2000

Arguments: the tier (random, basic, advanced); the workload: a set of variants (all12,
negative, laatste, domino, troeven), each played on every deal, or ``games``: that many full
11-deal games of the tier's profile on one thread; the deals (or games). Prints one JSON line
with the instructions counted (``Ir``) and per playout (a deal played in one variant).

``--functions`` splits the count by compiled function: valgrind records each instruction's
cost (``--dump-instr=yes``), the child writes where numba put each function (address, size
and name, read from the object code of the kernels; so it compiles them afresh, into a
temporary cache: a few minutes under valgrind), and the script prints each function's share
and instructions per playout before the JSON line. Numba's and LLVM's inlining decide what
is a function: a strategy inlined into its trick loop counts as the loop's.

Run without valgrind (as the child it starts, with ``--child``), it loads the kernels, waits
for the go and plays.
"""

from __future__ import annotations

import bisect
import importlib
import json
import os
import pkgutil
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
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
GAMES = "games"
DEALS_PER_GAME = 11
TOP_FUNCTIONS = 12


def playouts(which: str, deals: int) -> int:
    """Deals played in one variant each by the workload."""
    return deals * (DEALS_PER_GAME if which == GAMES else len(VARIANT_SETS[which]))


def child(tier: str, which: str, deals: int, sync: Path, function_map: bool) -> None:
    """Load the kernels, say so, wait for the go, play ``deals`` deals (or games)."""
    play = _games_workload(tier, deals) if which == GAMES else _deals_workload(tier, which, deals)
    play(warm=True)
    if function_map:
        write_function_map(sync / "functions.txt")
    (sync / "ready").touch()
    while not (sync / "go").exists():
        time.sleep(0.01)
    play(warm=False)
    (sync / "done").touch()
    while not (sync / "end").exists():  # Python's exit is not counted: wait till it is off
        time.sleep(0.01)


def _deals_workload(tier: str, which: str, deals: int):
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

    def play(warm: bool) -> None:
        if warm:
            K.simulate_batch(key, 0, 0, variants, strat, table, *(o[:1] for o in outs))
        else:
            K.simulate_batch(key, 10**6, 0, variants, strat, table, *outs)

    return play


def _games_workload(tier: str, games: int):
    import numpy as np

    from bonken_sim.engine.games import GamePlayer

    seating = np.zeros(4, np.int64)
    player = GamePlayer(12345, [tier])  # models and tables prepared outside the count
    batch = player.batch(10**6, games, seating)

    def play(warm: bool) -> None:
        if warm:
            player.play(player.batch(0, 2, seating), 0, 2)
        else:
            player.play(batch, 0, games)

    return play


# --- where numba put each function ------------------------------------------------------------


def write_function_map(path: Path) -> None:
    """One line per function of the compiled core: start address, size (hex) and symbol."""
    import bonken_sim._core as core

    found: dict[int, tuple[int, str]] = {}
    for info in pkgutil.iter_modules(core.__path__):
        module = importlib.import_module(f"bonken_sim._core.{info.name}")
        for dispatcher in _dispatchers(vars(module).values()):
            for cres in list(dispatcher.overloads.values()):
                found.update(_symbols(cres.library))
    path.write_text("".join(f"{a:x} {s:x} {name}\n" for a, (s, name) in sorted(found.items())))


def _dispatchers(values):
    """The numba dispatchers among ``values``, looking into tuples and lists (the builds)."""
    from numba.core.dispatcher import Dispatcher

    for v in values:
        if isinstance(v, Dispatcher):
            yield v
        elif isinstance(v, tuple | list):
            yield from _dispatchers(v)


def _symbols(library) -> dict[int, tuple[int, str]]:
    """{address: (size, symbol)} of the functions in a compiled library's object code. A
    library loaded from numba's cache has no object code to read: the map needs a fresh
    compile."""
    try:
        obj = library.serialize_using_object_code()[2][0]
    except Exception:
        return {}
    with tempfile.NamedTemporaryFile(suffix=".o") as f:
        f.write(obj)
        f.flush()
        listing = subprocess.run(
            ["nm", "-S", "--defined-only", f.name], capture_output=True, text=True, check=True
        ).stdout
    found = {}
    for line in listing.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            try:
                address = library.get_pointer_to_function(parts[3])
            except Exception:
                continue
            if address:
                found[address] = (int(parts[1], 16), parts[3])
    return found


def short_name(symbol: str) -> str:
    """``_ZN10bonken_sim5_core14strategy_basic12troeven_leadB20v…`` as
    ``strategy_basic.troeven_lead`` (the length-prefixed parts of the mangled name, less the
    package prefix)."""
    body = symbol[3:] if symbol.startswith("_ZN") else symbol
    parts, i = [], 0
    while (m := re.match(r"\d+", body[i:])) is not None:
        n, start = int(m.group()), i + m.end()
        parts.append(body[start : start + n])
        i = start + n
    if parts[:2] == ["bonken_sim", "_core"]:
        parts = parts[2:]
    name = ".".join(parts) if parts else symbol
    return name.replace("_3clocals_3e", "<locals>")


# --- callgrind's per-instruction costs --------------------------------------------------------


def instruction_costs(text: str) -> Counter:
    """{instruction address: Ir} from a callgrind output file written with
    ``--dump-instr=yes``. Positions may be absolute, relative to the previous line's
    (``+n``, ``-n``) or the same (``*``); the cost line after a ``calls=`` line is the call's
    inclusive cost, counted where the callee's instructions are, so it is skipped here."""
    columns = 1
    costs: Counter = Counter()
    address = 0
    after_call = False
    for line in text.splitlines():
        if line.startswith("positions:"):
            columns = len(line.split()) - 1
            continue
        if not line or not (line[0].isdigit() or line[0] in "+-*"):
            after_call = line.startswith("calls=")
            continue
        fields = line.split()
        address = _position(fields[0], address)
        if after_call:
            after_call = False
            continue
        if len(fields) > columns:
            costs[address] += int(fields[columns])
    return costs


def _position(token: str, previous: int) -> int:
    if token == "*":
        return previous
    if token[0] in "+-":
        step = int(token[1:], 0)
        return previous + step if token[0] == "+" else previous - step
    return int(token, 0)


def by_function(costs: Counter, function_map: str) -> Counter:
    """Ir per function of the map (``write_function_map``'s lines); what lies outside every
    function of the compiled core counts as ``(outside the compiled core)``."""
    spans = sorted(
        (int(a, 16), int(s, 16), short_name(n))
        for a, s, n in (line.split(maxsplit=2) for line in function_map.splitlines())
    )
    starts = [s[0] for s in spans]
    totals: Counter = Counter()
    for address, ir in costs.items():
        k = bisect.bisect_right(starts, address) - 1
        inside = k >= 0 and address < spans[k][0] + spans[k][1]
        totals[spans[k][2] if inside else "(outside the compiled core)"] += ir
    return totals


# --- the parent -------------------------------------------------------------------------------


def measure(tier: str, which: str, deals: int, functions: bool) -> tuple[int, Counter | None]:
    """Run the child under callgrind, instrumenting only the deals; returns its Ir (and with
    ``functions`` the Ir per compiled function)."""
    with tempfile.TemporaryDirectory() as tmp:
        sync = Path(tmp)
        out = sync / "callgrind.out"
        cmd = [
            "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            *(["--dump-instr=yes"] if functions else []),
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--child",
            tier,
            which,
            str(deals),
            str(sync),
            *(["--functions"] if functions else []),
        ]
        env = dict(os.environ, PYTHONHASHSEED="0")
        if functions:  # the map is read from object code, which only a fresh compile has
            env["BONKEN_SIM_CACHE_DIR"] = str(sync / "numba-cache")
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
        text = out.read_text()
        if os.environ.get("CALLGRIND_KEEP"):
            Path(os.environ["CALLGRIND_KEEP"]).write_text(text)
        ir = sum(int(line.split()[1]) for line in text.splitlines() if line.startswith("totals:"))
        if not functions:
            return ir, None
        return ir, by_function(instruction_costs(text), (sync / "functions.txt").read_text())


def main() -> None:
    if sys.argv[1] == "--child":
        tier, which, deals, sync = sys.argv[2], sys.argv[3], int(sys.argv[4]), Path(sys.argv[5])
        child(tier, which, deals, sync, "--functions" in sys.argv[6:])
        return
    args = [a for a in sys.argv[1:] if a != "--functions"]
    functions = len(args) < len(sys.argv) - 1
    tier, which, deals = args[0], args[1], int(args[2])
    n = playouts(which, deals)
    ir, split = measure(tier, which, deals, functions)
    doc = {"tier": tier, "variants": which, "deals": deals, "Ir": ir, "per_playout": ir / n}
    if split is not None:
        counted = sum(split.values())
        rows = split.most_common(TOP_FUNCTIONS)
        for name, fir in rows:
            print(f"{100 * fir / counted:5.1f}%  {fir / n:8.0f} per playout  {name}")
        doc["functions"] = {name: fir / n for name, fir in rows}
    print(json.dumps(doc))


if __name__ == "__main__":
    main()
