"""First contact: on a cold kernel cache a command compiles the kernels it uses, only those,
and says so at once (on a terminal with a count) instead of sitting silent; a warm cache
says nothing, and its games/s are measured after the compile."""

from __future__ import annotations

import contextlib
import io
import re
from types import SimpleNamespace

import numba
import pytest

from bonken_sim._core import conditional, game, kernels, solver, staked
from bonken_sim._core._jit import compiles_watched
from bonken_sim.cli import main
from bonken_sim.cli.long_calls import compiling_notice
from bonken_sim.engine import warmup as warmup_module

DONE = "bonken-sim: kernels compiled in 42 s, cached for next time"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _fake_warm(calls: list, compiles: bool):
    """A compile of the parts asked for, recorded, not made: numba's compile events (two
    functions per part) when ``compiles``, none when the kernels load from the cache."""

    def warm(needs, progress=None):
        needs = list(needs)
        calls.append(needs)
        seen = SimpleNamespace(started=0, finished=0)
        for k, need in enumerate(needs):
            progress(k, len(needs), need, seen)
            for _ in range(2 if compiles else 0):
                seen.started += 1
                progress(k, len(needs), need, seen)
                seen.finished += 1
                progress(k, len(needs), need, seen)
        progress(len(needs), len(needs), needs[-1], seen)
        return 42.0

    return warm


@pytest.fixture
def cold_cache(monkeypatch):
    """A cache without the kernels: the parts each command compiles are recorded."""
    calls: list[list[tuple[str, str]]] = []
    monkeypatch.setattr(warmup_module, "missing", lambda needs=warmup_module.ALL: list(needs))
    monkeypatch.setattr(warmup_module, "warm", _fake_warm(calls, compiles=True))
    return calls


class _Recorded:
    """A compiled kernel that notes the numba types of the arguments of every call."""

    def __init__(self, name: str, kernel, seen: set):
        self.name, self.kernel, self.seen = name, kernel, seen

    def __call__(self, *args):
        self.seen.add((self.name, tuple(numba.typeof(a) for a in args)))
        return self.kernel(*args)


@contextlib.contextmanager
def argument_types(monkeypatch):
    """The (kernel, argument types) of every call of a per-level build, of the replay kernel
    and of the solver's entry point inside the block.

    numba compiles a kernel again for arguments of other types (a Fortran-ordered array, a
    read-only one), whatever its cache holds; unlike counting compiles, this does not depend
    on what earlier tests or runs left in the cache."""
    seen: set = set()
    with monkeypatch.context() as m:
        for module in (kernels, game, conditional, staked):
            builds = []
            for level, build in enumerate(module._BUILDS):
                if isinstance(build, tuple):
                    build = tuple(
                        _Recorded(f"{module.__name__}[{level}].{b.__name__}", b, seen)
                        for b in build
                    )
                else:
                    build = _Recorded(f"{module.__name__}[{level}]", build, seen)
                builds.append(build)
            m.setattr(module, "_BUILDS", tuple(builds))
        for module, name in ((kernels, "replay"), (solver, "solve_cards")):  # one build each
            m.setattr(module, name, _Recorded(name, getattr(module, name), seen))
        yield seen


GAME = ["game", "--games", "40", "--seed", "3", "--threads", "1"]


def test_a_cold_cache_is_announced_before_the_work(cold_cache, tmp_path, capsys):
    assert main([*GAME, "--out", str(tmp_path / "g")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[:2] == [compiling_notice([("games", "basic")]), DONE]
    assert lines[0].startswith("bonken-sim: compiling the kernels for games (basic) once")
    assert lines[2].startswith("bonken-sim game: 40 games")
    assert cold_cache == [[("games", "basic")]]
    assert re.fullmatch(r"40 games played into .* in \d+\.\d s, [\d,]+ games/s\n", out)


def test_on_a_terminal_the_compile_counts_parts_and_functions(cold_cache, tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    args = ["ladder", "--deals", "50", "--expert-deals", "0", "--out", "-", "--json"]
    assert main(args) == 0
    text = terminal.getvalue()
    needs = [("deals", "basic"), ("deals", "advanced"), ("staked", "advanced")]
    assert cold_cache == [needs]
    assert text.startswith(compiling_notice(needs) + "\n")
    assert "\rbonken-sim: compiling kernels 1/3 deals (basic), 0 functions done\033[K" in text
    assert "\rbonken-sim: compiling kernels 1/3 deals (basic), 1 function done\033[K" in text
    assert "\rbonken-sim: compiling kernels 3/3 staked deals (advanced), 6 functions done" in text
    assert f"\r\033[K{DONE}\n" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--deals", "1"], "--deals must be at least 2"),
        (["--deals", "2e7"], "--deals must be at most 10,000,000"),
        (["--deals", "50", "--expert-deals", "1"], "--expert-deals must be 0"),
        (["--deals", "50", "--games", "11"], "--games must be 0 (no whole-game rungs) or"),
    ],
)
def test_ladder_refuses_its_counts_before_compiling(cold_cache, capsys, args, message):
    """A count the ladder refuses is refused at once, not after minutes of compiling."""
    assert main(["ladder", *args, "--out", "-"]) == 2
    out, err = capsys.readouterr()
    assert cold_cache == [] and out == ""
    assert err.startswith(f"bonken-sim: error: {message}") and err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (["run", "--deals", "100", "--seed", "1", "--threads", "1"], [("deals", "basic")]),
        (
            ["run", "--deals", "100", "--strategies", "advanced,basic,random,basic"],
            [("deals", "advanced")],
        ),
        (
            ["run", "--deals", "300", "--ruleset", "strict", "--chunk-size", "100"],
            [("deals", "basic")],
        ),
        ([*GAME], [("games", "basic")]),
        (
            ["game", "--games", "90", "--ruleset", "bierkaart", "--order", "fixed"],
            [("games", "basic")],
        ),
        (
            ["game", "--games", "1", "--threads", "1", "--players", "basic,expert,basic,basic"],
            [("games", "expert")],
        ),
        (
            ["advise", "--hand", "AS KS QS JS TS 9S 8S 7S AH KH QH JH TH", "--deals", "1000"],
            [("advise", "basic")],
        ),
        (
            [
                "advise",
                *("--hand", "AS KS QS JS TS 9S 8S 7S AH KH QH JH TH", "--deals", "500"),
                *("--ruleset", "double-points", "--strategies", "advanced"),
            ],
            [("advise", "advanced")],
        ),
        (
            ["tournament", "--games", "24", "--profiles", "basic,advanced", "--threads", "1"],
            [("games", "advanced")],
        ),
        (
            ["ladder", "--deals", "50", "--expert-deals", "2", "--expert-samples", "2"],
            [
                ("deals", "basic"),
                ("deals", "advanced"),
                ("deals", "expert"),
                ("staked", "advanced"),
            ],
        ),
        (
            ["ladder", "--deals", "50", "--expert-deals", "0", "--games", "12", "--threads", "1"],
            [
                ("deals", "basic"),
                ("deals", "advanced"),
                ("staked", "advanced"),
                ("games", "expert"),
            ],
        ),
        (["trace", "--deals", "1", "--seed", "1", "--out", "-"], [("trace", "basic")]),
        (
            ["play", "--seed", "1", "--contract", "bukken", "--strategies", "expert:2"],
            [("trace", "expert")],
        ),
        (
            [
                "solve",
                "--contract",
                "troeven",
                "--trump",
                "S",
                "--hands",
                "AS/KS/QS/JS",
                "--leader",
                "0",
            ],
            [("solve", "")],
        ),
    ],
    ids=lambda a: a[0] if isinstance(a[0], str) else None,
)
def test_every_command_compiles_what_it_plays(
    cold_cache, tmp_path, capsys, monkeypatch, args, needs
):
    """...and plays on the kernels warmup compiled (this session's, conftest.py): numba
    compiles nothing more, and no argument of a command has a type the warm calls of its
    parts lack (a read-only ruleset table once made `play` compile the expert kernels
    again; Fortran-ordered seat arrays made every `game` run compile its games kernel)."""
    if args[0] in ("run", "game", "ladder") and "--out" not in args:
        args = [*args, "--out", str(tmp_path / "out")]
    compiled: list[int] = []
    with compiles_watched(lambda: compiled.append(1), lambda: None):
        with argument_types(monkeypatch) as used:
            assert main(args) == 0
    err = capsys.readouterr().err
    assert cold_cache == [needs]
    assert err.startswith(compiling_notice(needs) + "\n")
    assert compiled == []
    with argument_types(monkeypatch) as warmed:
        for part, level in needs:
            warmup_module._COMPILE[part](level)
    assert used <= warmed, sorted(map(str, used - warmed)) + ["warm:"] + sorted(map(str, warmed))


def test_replay_compiles_only_the_replay_kernel(cold_cache, tmp_path, capsys, monkeypatch):
    trace = tmp_path / "t.jsonl"
    assert (
        main(["trace", "--deals", "1", "--seed", "1", "--contracts", "bukken", "--out", str(trace)])
        == 0
    )
    with argument_types(monkeypatch) as used:
        assert main(["replay", "--quiet", str(trace)]) == 0
    assert cold_cache[-1] == [("replay", "")]
    assert compiling_notice([("replay", "")]) in capsys.readouterr().err
    with argument_types(monkeypatch) as warmed:
        warmup_module._COMPILE["replay"]("")
    assert used and used <= warmed


@pytest.mark.parametrize(
    ("command", "parts"),
    [
        (GAME, [("games", "basic")]),
        (["trace", "--deals", "2", "--seed", "1", "--contracts", "bukken"], [("trace", "basic")]),
        (
            ["ladder", "--deals", "50", "--expert-deals", "0"],
            [("deals", "basic"), ("deals", "advanced"), ("staked", "advanced")],
        ),
    ],
    ids=["game", "trace", "ladder"],
)
def test_quiet_commands_compile_without_a_word(cold_cache, tmp_path, capsys, command, parts):
    assert main([*command, "--out", str(tmp_path / "out"), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "") and cold_cache == [parts]


def test_a_bad_option_is_refused_before_the_compile(cold_cache, capsys):
    assert main(["game", "--games", "0"]) == 2
    assert "compiling" not in capsys.readouterr().err and cold_cache == []


def test_a_warm_cache_says_nothing(monkeypatch, tmp_path, capsys):
    """Parts compiled before (their markers) are not compiled again; parts whose kernels
    numba loads from its cache (no compile events) are not announced."""
    calls: list = []
    monkeypatch.setattr(warmup_module, "warm", _fake_warm(calls, compiles=False))
    monkeypatch.setattr(warmup_module, "missing", lambda needs=warmup_module.ALL: [])
    assert main([*GAME, "--out", str(tmp_path / "a")]) == 0
    assert calls == [] and "compiling" not in capsys.readouterr().err
    monkeypatch.setattr(warmup_module, "missing", lambda needs=warmup_module.ALL: list(needs))
    assert main([*GAME, "--out", str(tmp_path / "b")]) == 0
    assert calls == [[("games", "basic")]] and "compiling" not in capsys.readouterr().err


def test_bench_and_warmup_compile_every_kernel(cold_cache, monkeypatch, capsys):
    from bonken_sim.cli.long_calls import compile_first

    compile_first()
    assert cold_cache == [list(warmup_module.ALL)]
    assert capsys.readouterr().err.startswith(compiling_notice(()) + "\n")
    assert compiling_notice(()).startswith("bonken-sim: compiling the kernels for every command")


def test_a_stage_line_never_wraps(monkeypatch):
    """A line longer than the terminal wraps, and its redraw would pile up rows."""
    from bonken_sim.cli.console import StageLine

    monkeypatch.setenv("COLUMNS", "30")
    stream = io.StringIO()
    line = StageLine("bonken-sim", stream)
    line("a stage with a long description", 3, 8)
    assert stream.getvalue() == "\rbonken-sim: a stage with a lo\033[K"
