"""First contact: on a cold kernel cache a command says at once that it compiles the kernels
(once, with a count on a terminal, pointing at `bonken-sim warmup`) instead of sitting
silent, and its games/s are measured after the compile."""

from __future__ import annotations

import io
import re

import pytest

from bonken_sim.cli import main
from bonken_sim.engine import warmup as warmup_module

STEPS = warmup_module.STEPS

NOTICE = "bonken-sim: compiling kernels once (about a minute; `bonken-sim warmup` does this ahead)"
DONE = "bonken-sim: kernels compiled in 42 s, cached for next time"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def cold_cache(monkeypatch):
    """A cache without the kernels: the (warm) compile is recorded, not timed."""
    calls: list[str] = []

    def compile_all(progress=None):
        for k in range(warmup_module.STEPS + 1):
            if progress is not None:
                progress(k, warmup_module.STEPS)
        calls.append("warmup")
        return 42.0

    monkeypatch.setattr(warmup_module, "is_warm", lambda: False)
    monkeypatch.setattr(warmup_module, "warmup", compile_all)
    return calls


GAME = ["game", "--games", "40", "--seed", "3", "--threads", "1"]


def test_a_cold_cache_is_announced_before_the_work(cold_cache, tmp_path, capsys):
    assert main([*GAME, "--out", str(tmp_path / "g")]) == 0
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert lines[:2] == [f"{NOTICE} ...", DONE]
    assert lines[2].startswith("bonken-sim game: 40 games")
    assert cold_cache == ["warmup"]
    assert re.fullmatch(r"40 games played into .* in \d+\.\d s, [\d,]+ games/s\n", out)


def test_on_a_terminal_the_compile_counts_its_steps(cold_cache, tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main([*GAME, "--out", str(tmp_path / "g"), "--json"]) == 0
    text = terminal.getvalue()
    assert text.startswith(f"{NOTICE} ...\n")
    assert f"\rbonken-sim: compiling kernels 3/{STEPS}\033[K" in text
    assert f"\rbonken-sim: compiling kernels {STEPS}/{STEPS}\033[K" in text
    assert f"\r\033[K{DONE}\n" in text


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--deals", "100", "--seed", "1", "--threads", "1"],
        [*GAME],
        ["advise", "--hand", "AS KS QS JS TS 9S 8S 7S AH KH QH JH TH", "--deals", "1000"],
        ["tournament", "--games", "24", "--profiles", "basic,random", "--threads", "1"],
        ["ladder", "--deals", "50", "--out", "-"],
        ["trace", "--deals", "1", "--seed", "1", "--out", "-"],
        ["play", "--seed", "1", "--contract", "bukken"],
    ],
    ids=lambda a: a[0],
)
def test_every_command_that_plays_compiles_first(cold_cache, tmp_path, capsys, args):
    if args[0] in ("run", "game"):
        args = [*args, "--out", str(tmp_path / "out")]
    assert main(args) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"{NOTICE} ...\n") and cold_cache == ["warmup"]


def test_quiet_runs_compile_without_a_word(cold_cache, tmp_path, capsys):
    assert main([*GAME, "--out", str(tmp_path / "g"), "--quiet"]) == 0
    assert capsys.readouterr() == ("", "") and cold_cache == ["warmup"]


def test_a_bad_option_is_refused_before_the_compile(cold_cache, capsys):
    assert main(["game", "--games", "0"]) == 2
    assert NOTICE not in capsys.readouterr().err and cold_cache == []


def test_warm_once_a_warmup_is_complete(tmp_path, monkeypatch):
    """The marker is per engine version (the cache folder) and per installed copy."""
    monkeypatch.setenv("BONKEN_SIM_CACHE_DIR", str(tmp_path))
    from bonken_sim._core._jit import cache_dir

    cache_dir().mkdir(parents=True)  # numba makes it when it caches the first kernel
    assert not warmup_module.is_warm()
    steps: list[tuple[int, int]] = []
    warmup_module.warmup(lambda k, n: steps.append((k, n)))
    assert steps == [(k, warmup_module.STEPS) for k in range(warmup_module.STEPS + 1)]
    assert warmup_module.is_warm()


def test_a_stage_line_never_wraps(monkeypatch):
    """A line longer than the terminal wraps, and its redraw would pile up rows."""
    from bonken_sim.cli.console import StageLine

    monkeypatch.setenv("COLUMNS", "30")
    stream = io.StringIO()
    line = StageLine("bonken-sim", stream)
    line("a stage with a long description", 3, 8)
    assert stream.getvalue() == "\rbonken-sim: a stage with a lo\033[K"
