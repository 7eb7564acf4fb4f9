"""A command's long calls: the kernels it needs compiled first (said on stderr the moment
numba starts), and the progress bar around its work, gone however the call ends."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from typing import Any

import click

from bonken_sim.cli.common import UserError, call_or_fail
from bonken_sim.cli.console import ProgressBar, StageLine
from bonken_sim.cli.interrupts import exit_status, say

# --- long calls ---------------------------------------------------------------------------


def compiling_notice(needs: Iterable[tuple[str, str]]) -> str:
    """What the first compile of a command says, at once, on stderr (no ``needs``: every
    kernel)."""
    from bonken_sim.engine.warmup import describe_need

    what = ", ".join(describe_need(n) for n in needs) or "every command"
    return (
        f"bonken-sim: compiling the kernels for {what} once, cached for next time "
        "(`bonken-sim warmup` compiles them all ahead) ..."
    )


REPLAY = ("replay", "")  # the replay kernel: no seats played
SOLVE = ("solve", "")  # the open-hand solver


def plays(part: str, strategies: Any) -> tuple[str, str]:
    """The kernels of ``part`` (``deals``, ``trace``, ``advise``) for these seats' tiers
    (strategies as the user gave them: a bad one is the user's error, found here first)."""
    from bonken_sim.engine.warmup import level_of

    return part, call_or_fail(level_of, strategies)


def plays_games(profiles: Iterable[str]) -> tuple[str, str]:
    """The kernels of full games among these profiles."""
    from bonken_sim.engine.warmup import games_level

    return "games", games_level(profiles)


def compile_first(*needs: tuple[str, str], show: bool = True) -> None:
    """Compile the kernels a command uses (``needs``: its parts of ``engine.warmup``; none:
    every kernel) before its own work: the first command after install or after the engine
    changed compiles them, only those, and later commands find them cached. The moment
    numba starts compiling, say so on stderr when ``show`` (on a terminal, redrawn in
    place: which part, how many numba functions are compiled); a warm cache says nothing.
    The command's own timing then starts after the compile: its deals/s and games/s are the
    play's."""
    from bonken_sim.engine.warmup import ALL, describe_need, missing, warm

    todo = missing(needs or ALL)
    if not todo:
        return
    line = StageLine("bonken-sim") if show and sys.stderr.isatty() else None
    said = False

    def progress(done: int, total: int, need: tuple[str, str], compiles: Any) -> None:
        nonlocal said
        if not show or compiles.started == 0:
            return
        if not said:
            click.echo(compiling_notice(todo if needs else ()), err=True)
            said = True
        if line is not None:
            n = compiles.finished
            step = f"{min(done + 1, total)}/{total} {describe_need(need)}"
            line(f"compiling kernels {step}, {n} function{'s' if n != 1 else ''} done", 0, 0)

    try:
        seconds = warm(todo, progress)
    finally:
        if line is not None:
            line.clear()
    if said:
        click.echo(
            f"bonken-sim: kernels compiled in {seconds:.0f} s, cached for next time", err=True
        )


def run_with_progress(
    start: Callable[[Any], Any],
    *,
    show: bool = True,
    unit: str = "deals",
    interrupted: type[BaseException] | tuple[type[BaseException], ...] = (),
    errors: type[BaseException] | tuple[type[BaseException], ...] = (),
    display: Callable[[], Any] | None = None,
) -> Any:
    """``start(progress)``, with a progress bar on stderr when ``show`` and stderr is a
    terminal (else ``progress`` is None); the bar is gone however the call ends.
    ``display()`` makes another progress display than the bar of ``unit`` (one with the
    bar's ``clear``).

    An ``interrupted`` exception (the run stopped by Ctrl-C or SIGTERM, resumable) prints its
    message and exits with 130 or 143 (``interrupts.exit_status``); an ``errors`` exception
    is a UserError.
    """
    make = display if display is not None else (lambda: ProgressBar(unit=unit))
    bar = make() if show and sys.stderr.isatty() else None
    try:
        return start(bar)
    except interrupted as exc:
        if bar is not None:  # before the message, which would otherwise follow the bar
            bar.clear()
        say(str(exc))
        raise click.exceptions.Exit(exit_status()) from None
    except errors as exc:
        raise UserError(str(exc)) from None
    finally:
        if bar is not None:
            bar.clear()
