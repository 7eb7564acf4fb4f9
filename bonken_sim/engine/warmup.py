"""Compile kernels into numba's on-disk cache, all of them (``warmup``) or only those one
command uses (``warm``), so later runs start warm.

The kernels come in *parts*: the kernels one kind of command calls (a run's deals, a traced
deal, advise's conditional deals, full games, the ladder's staked deals; replay, a seat's
decision from its view, bench's yardstick and the solver, which play no seats). A part that
plays deals comes in one build per tier *level* (``LEVELS``: the highest tier among the
seats; ``_core.playout``), and compiling one level does not compile the others: a run of
basic seats never compiles the advanced or expert play loops. A part compiled here leaves a
marker in the cache folder, which is keyed on the core's sources: ``is_warm`` is then true
until the engine changes (or the cache is removed).
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bonken_sim import _core
from bonken_sim._core._jit import cache_dir, compiles_watched
from bonken_sim._core.playout import LEVEL_NAMES, tier_level
from bonken_sim.processes import usable_cores

LEVELS = LEVEL_NAMES  # basic (random and basic seats), advanced, expert
PLAYING = ("deals", "trace", "advise", "games", "staked", "decide")  # the parts built per level
OTHERS = ("replay", "bench", "solve")  # the parts that play no seats
Need = tuple[str, str]  # (part, level): level "" for the parts that play no seats
# (parts done, parts in all, the part compiling, numba's compiles so far)
Progress = Callable[[int, int, Need, "Compiles"], None]
ALL: tuple[Need, ...] = (
    *((part, level) for level in LEVELS for part in PLAYING),
    *((part, "") for part in OTHERS),
)
PART_NAMES = {
    "deals": "deals",
    "trace": "traced deals",
    "advise": "advise",
    "games": "games",
    "staked": "staked deals",
    "replay": "replay",
    "decide": "decide",
    "bench": "the bench yardstick",
    "solve": "the solver",
}


def describe_need(need: Need) -> str:
    """A part as the terminal and the page name it: ``decide (advanced)``, ``the solver``."""
    part, level = need
    return PART_NAMES.get(part, part) + (f" ({level})" if level else "")


STEPS = len(ALL)  # the steps of a complete warmup, for its progress

# Per level, seats that reach it (the kernels' strategy codes) and game profiles that do.
_SEATS = {"basic": (0, 1, 0, 1), "advanced": (2, 1, 0, 2), "expert": (3, 2, 1, 0)}
_PROFILES = {
    "basic": ["basic", "random", "basic", "random"],
    "advanced": ["advanced", "basic", "basic", "basic"],
    "expert": ["expert", "advanced", "basic", "random"],
}


def level_of(strategies: str | Sequence[str | int]) -> str:
    """The level of the builds that play these seats: strategies as the commands take them
    (``basic``, ``advanced,basic,basic,basic``, ``expert:8:2``) or their kernel codes."""
    from bonken_sim.engine.strategies import parse_strategies, strategy_array

    return LEVELS[tier_level(strategy_array(parse_strategies(strategies)))]


def games_level(profiles: Iterable[str]) -> str:
    """The level of full games among these profiles (every game seats each of them)."""
    from bonken_sim.engine.games import profile

    return LEVELS[tier_level([profile(name).card for name in profiles])]


def _marker(need: Need) -> Path:
    """The file compiling ``need`` leaves in the cache. numba caches a copy of the core per
    folder it is installed in (one per checkout), so the marker names the folder too."""
    core = str(Path(_core.__file__).resolve().parent)
    folder = hashlib.sha1(core.encode()).hexdigest()[:16]
    part, level = need
    return cache_dir() / f"warm-{part}{'-' + level if level else ''}-{folder}"


def missing(needs: Iterable[Need] = ALL) -> list[Need]:
    """The parts of ``needs`` not compiled yet (in order, each once)."""
    return [n for n in dict.fromkeys(needs) if not _marker(n).is_file()]


def is_warm(needs: Iterable[Need] = ALL) -> bool:
    """Whether the kernel cache holds the parts ``needs`` (by default: every kernel)."""
    return not missing(needs)


def _read_only(table: np.ndarray) -> np.ndarray:
    """The table as ``Ruleset.table`` is: read-only. ``replay`` and ``advise``'s conditional
    deals take it as the commands give it, and numba compiles a kernel for a read-only array
    apart from one for a writable array (the other kernels take any table as writable:
    ``playout.kernel_table``)."""
    table.setflags(write=False)
    return table


def _deals(level: str) -> None:
    from bonken_sim._core.ids import N_VARIANTS
    from bonken_sim._core.ruleset import standard_table
    from bonken_sim.engine.deals import play_deal_columns

    play_deal_columns(0, 0, 2, 0, tuple(range(N_VARIANTS)), _SEATS[level], standard_table())


def _trace(level: str) -> None:
    from bonken_sim._core import kernels as K
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    table = standard_table()
    hands = np.zeros(4, np.uint64)
    scores, tricks, order = (np.zeros(4, np.int64) for _ in range(3))
    trace = np.zeros(K.TRACE_LEN, np.int64)
    strat = np.array(_SEATS[level], np.int64)
    for v in (0, 6):  # a trick contract and Domino
        K.trace_deal(seed_key(0), 0, 0, v, strat, table, hands, scores, tricks, order, trace)
    _replay(level)  # `trace` and `play` take each trick's seats and winner from a replay


def _replay(_level: str) -> None:
    from bonken_sim._core import kernels as K
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table

    hands = np.zeros(4, np.uint64)
    K.deal_hands(seed_key(0), 0, hands)
    plays = np.zeros(1, np.int64)  # a verdict on any plays compiles the kernel
    seats, results = np.zeros(1, np.int64), np.zeros((13, 3), np.int64)
    K.replay(_read_only(standard_table())[0], hands, 0, plays, np.zeros(4, np.int64),
             np.zeros(4, np.int64), seats, results)  # fmt: skip


def _advise(level: str) -> None:
    from bonken_sim._core.ruleset import standard_table
    from bonken_sim.engine.conditional import deal_scores, warm_conditional_dealer

    one, seats = np.zeros(1, np.int64), np.array(_SEATS[level], np.int64)
    table = _read_only(standard_table())
    deal_scores(0, 0, 1, 0, one, seats, table, hand=(1 << 13) - 1, seat=2)
    deal_scores(0, 0, 1, 0, one, seats, table)
    warm_conditional_dealer()


def _games(level: str) -> None:
    from bonken_sim.engine.games import play_games

    play_games(2, 0, np.arange(4), _PROFILES[level], threads=1)


def _staked(level: str) -> None:
    from bonken_sim._core.rng import seed_key
    from bonken_sim._core.ruleset import standard_table
    from bonken_sim._core.staked import staked_batch

    deals, variants, strat = np.zeros(1, np.int64), np.ones(1, np.int64), _SEATS[level]
    stakes, scores = np.ones((1, 4, 4), np.int64), np.zeros((1, 4), np.int64)
    staked_batch(seed_key(0), deals, 0, variants, np.array(strat, np.int64), standard_table(),
                 stakes, scores)  # fmt: skip


def _decide(level: str) -> None:
    from bonken_sim.engine.decide import ChooseView, DoubleView, PlayView, decide

    clubs = "2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC"
    if level == "expert":  # the expert's search from a view: a decision with a choice
        decide(PlayView("bukken", 0, 2, clubs, [(1, "5S")]), "expert:1")
        # and the searched choice and doubling (the expert profile's), over the advanced loops
        decide(ChooseView(0, 2, clubs, 0, ["bukken", "troeven_C"]), "expert")
        decide(DoubleView(0, 3, clubs, "bukken"), "expert")
        return
    decide(PlayView("bukken", dealer=0, seat=1, hand=clubs), level)
    if level == "basic":  # choice and doubling are the same for every tier
        decide(ChooseView(0, 2, clubs, 0, ["bukken", "troeven_C"]), "basic")
        decide(DoubleView(0, 3, clubs, "bukken"), "basic")


def _bench(_level: str) -> None:
    from bonken_sim.engine.yardstick import baseline_playouts, seed_key

    baseline_playouts(seed_key(0), 0, 1)


def _solve(_level: str) -> None:
    from bonken_sim.engine.solve import solve

    solve("AS / KS / QS / JS", "troeven", "S", leader=0, seat=0, table_bits=10)


_COMPILE: dict[str, Callable[[str], None]] = {
    "deals": _deals,
    "trace": _trace,
    "replay": _replay,
    "decide": _decide,
    "advise": _advise,
    "games": _games,
    "staked": _staked,
    "bench": _bench,
    "solve": _solve,
}


@dataclass
class Compiles:
    """numba's compiles so far (each function a kernel calls is one; loads from the cache are
    none), for a progress display."""

    started: int = 0
    finished: int = 0


# The parts a second process compiles while this one compiles the others of their level
# (or, for "solve", the other parts that play no seats). Measured one by one on an empty
# cache after the loops: games 15-18 s a level and staked 3-6 s, against 13-28 s for the
# rest of a level; solve 3 s against 2 s for replay and bench.
IN_SECOND = ("games", "staked", "solve")

# A second process's work: compile the loops of one level given by their indices, or the
# parts given as part:level (each leaves its marker).
_SECOND_LOOPS = """
import sys
sys.path.insert(0, sys.argv[1])
from bonken_sim._core.playout import compile_loops
compile_loops(int(sys.argv[2]), [int(k) for k in sys.argv[3:]])
"""
_SECOND_PARTS = """
import sys
sys.path.insert(0, sys.argv[1])
from bonken_sim.engine.warmup import compile_part
for arg in sys.argv[2:]:
    compile_part(tuple(arg.split(":")))
"""


def _second(script: str, args: list[str]) -> subprocess.Popen | None:
    """A second interpreter running ``script`` on this package (None if it cannot start)."""
    package = str(Path(_core.__file__).resolve().parent.parent.parent)
    try:
        return subprocess.Popen(
            [sys.executable, "-c", script, package, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def _stop(second: subprocess.Popen) -> None:
    """Interrupted: the second process goes too."""
    if second.poll() is None:
        second.kill()
        second.wait()


def _loops_in_two(level: int) -> None:
    """Compile the play loops ``level``'s builds add (``_core.playout.LOOPS``) in two
    processes at once, if two cores are there: numba compiles one function at a time, and
    a level's loops are most of its compile. A second interpreter compiles the later half
    into the cache while this one compiles the first; the kernels then load them all from
    there. Should the second fail, a kernel's compile compiles its loops as before."""
    from bonken_sim._core.playout import compile_loops, loops_to_compile

    todo = loops_to_compile(level)
    if len(todo) < 2 or usable_cores() < 2:
        return
    half = (len(todo) + 1) // 2  # the first half: the loops numba types first
    second = _second(_SECOND_LOOPS, [str(level), *map(str, todo[half:])])
    if second is None:
        return
    try:
        compile_loops(level, todo[:half])
        second.wait()
    finally:
        _stop(second)


def compile_part(need: Need) -> None:
    """Compile (or load) the kernels of one part and leave its marker."""
    _COMPILE[need[0]](need[1])
    with contextlib.suppress(OSError):  # an unwritable cache: numba cannot cache either
        _marker(need).touch()


def _by_level(needs: Sequence[Need]) -> list[list[Need]]:
    """``needs`` grouped by level, levels in order, the parts that play no seats last."""
    order = [*LEVELS, ""]
    return [g for lv in order if (g := [n for n in needs if n[1] == lv])]


def _compile(needs: Sequence[Need], progress: Progress | None) -> float:
    """Compile ``needs`` level by level: a level's loops (in two processes), then its parts,
    those of ``IN_SECOND`` not compiled before in a second process while this one compiles
    the others (each part's kernels load the loops from the cache). A part the second
    process did not finish (no marker) is compiled here after it."""
    t0 = time.perf_counter()
    seen = Compiles()
    part: list[Need] = []  # the part compiling now, for the events
    total = len(needs)

    def show(need: Need) -> None:
        part.append(need)
        if progress is not None:
            progress(len(part) - 1, total, need, seen)

    def started() -> None:
        seen.started += 1
        if progress is not None:
            progress(len(part) - 1, total, part[-1], seen)

    def finished() -> None:
        seen.finished += 1
        if progress is not None:
            progress(len(part) - 1, total, part[-1], seen)

    levels_done: set[int] = set()
    with compiles_watched(started, finished):
        for group in _by_level(needs):
            # a part compiled before (its marker) only loads: here, into this process
            there = [n for n in group if n[0] in IN_SECOND and not _marker(n).is_file()]
            if len(there) == len(group) or usable_cores() < 2:
                there = []
            here = [n for n in group if n not in there]
            show(here[0])  # shown while its level's loops compile
            level = group[0][1]
            if level:  # parts that play: the level's loops (and those below) first
                for lv in range(LEVELS.index(level) + 1):
                    if lv not in levels_done:
                        _loops_in_two(lv)
                        levels_done.add(lv)
            second = _second(_SECOND_PARTS, [f"{p}:{lv}" for p, lv in there]) if there else None
            try:
                for k, need in enumerate(here):
                    if k:
                        show(need)
                    compile_part(need)
                if second is not None:
                    second.wait()
            finally:
                if second is not None:
                    _stop(second)
            for need in there:  # done there, or (no marker) to compile here
                show(need)
                if not _marker(need).is_file():
                    compile_part(need)
    if progress is not None and needs:
        progress(total, total, needs[-1], seen)
    return time.perf_counter() - t0


def warm(needs: Iterable[Need], progress: Progress | None = None) -> float:
    """Compile the kernels of ``needs`` not compiled yet, each part by calling it once;
    returns the seconds taken. ``progress(done, total, need, compiles)`` is called before
    each part (``need``: the part about to compile), as numba starts and ends compiling each
    function, and at the end (``need``: the last one)."""
    return _compile(missing(needs), progress)


def warmup(progress: Progress | None = None) -> float:
    """Compile (or load from the cache) every kernel, as ``warm`` (``STEPS`` parts)."""
    return _compile(ALL, progress)


def ladder_needs(expert: bool, games: bool = False) -> list[Need]:
    """The ladder's kernels: its card-play rungs' deals (random and basic, basic and
    advanced, and with ``expert`` the expert's), its doubling rungs' staked deals, and with
    ``games`` its whole-game rungs' games (every one seats an expert profile: the expert
    level's)."""
    levels = ("basic", "advanced", "expert") if expert else ("basic", "advanced")
    games_part = [("games", "expert")] if games else []
    return [*(("deals", level) for level in levels), ("staked", "advanced"), *games_part]
