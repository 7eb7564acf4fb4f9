"""What the commands share: the one-line user error, option callbacks and decorators (counts,
seeds, --ruleset/--rules, the executor options), the progress bar around a long call and the
atomic --out write."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import click

from bonken_sim.cli.console import ProgressBar, StageLine
from bonken_sim.cli.interrupts import exit_status, say
from bonken_sim.errors import UserFixableError
from bonken_sim.files import CannotWrite, check_dir_writable, check_writable, write_atomic
from bonken_sim.rules.presets import RULESET_HELP
from bonken_sim.runs.options import parse_count, parse_seed


class UserError(click.ClickException):
    """A bad input: printed as one line, exit status 2."""

    exit_code = 2


def call_or_fail(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)``; the error the user can fix that it raises (a bad value, a file
    that cannot be read) becomes a UserError with the same message. Any other error passes
    through: it is a bug, not the user's mistake (``main.internal_error``)."""
    try:
        return fn(*args, **kwargs)
    except UserFixableError as exc:
        raise UserError(str(exc)) from None


def echo_lines(lines: Iterable[str]) -> None:
    for line in lines:
        click.echo(line)


# --- JSON output --------------------------------------------------------------------------


def _finite(x: Any) -> bool:
    return not isinstance(x, float) or math.isfinite(x)


def json_ready(x: Any) -> Any:
    """``x`` with every number JSON cannot hold made None (``null``): a NaN is a value that
    could not be computed (the interval or spread of a single sample, the mean of none), and
    an interval (a ``ci95`` key, or one ending in ``_ci95``) with such a bound is None as a
    whole. Tuples become lists."""
    if isinstance(x, dict):
        return {k: _json_value(k, v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [json_ready(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _json_value(key: Any, value: Any) -> Any:
    is_interval = isinstance(key, str) and (key == "ci95" or key.endswith("_ci95"))
    if is_interval and isinstance(value, list | tuple) and not all(map(_finite, value)):
        return None
    return json_ready(value)


def json_text(doc: Any, indent: int | None = None) -> str:
    """``doc`` as a JSON document (``json_ready``: no NaN or Infinity, which JSON has not)."""
    return json.dumps(json_ready(doc), indent=indent, allow_nan=False)


def echo_json(doc: Any, indent: int | None = None) -> None:
    """Print ``doc`` as one JSON document on stdout (``json_text``)."""
    click.echo(json_text(doc, indent))


# --- option callbacks ---------------------------------------------------------------------


def count_option(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """A count such as 1e6, 10k or 1_000_000 (see ``runs.options.parse_count``)."""
    if value is None:
        return None
    try:
        return parse_count(value, what=f"--{str(param.name).replace('_', '-')}")
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def seed_option(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """A seed, 0 to 2**64-1."""
    if value is None:
        return None
    try:
        return parse_seed(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def deal_index(value: str | int | None, name: str = "--deal") -> int | None:
    """A deal index of a seed, 0 to 2**63-1 as the engine checks it (None stays None)."""
    from bonken_sim.engine.play import check_deal

    if value is None:
        return None
    try:
        return check_deal(int(str(value).strip()))
    except ValueError:  # not an integer, or out of the engine's range
        raise UserError(f"{name} must be an integer from 0 to 2**63-1, got {value!r}") from None


def run_seed_option(f):
    """--seed S, required (play, trace)."""
    return click.option(
        "--seed", required=True, metavar="S", callback=seed_option, help="Run seed (0 to 2**64-1)."
    )(f)


def deals_seed_option(f):
    """--seed S of the deals an analysis plays, 1 if not given (ladder, tournament)."""
    return click.option(
        "--seed",
        default="1",
        show_default=True,
        metavar="S",
        callback=seed_option,
        help="Seed of the deals (0 to 2**64-1).",
    )(f)


def strategies_option(f):
    """--strategies LIST of the seats, basic if not given (play, trace, advise)."""
    return click.option(
        "--strategies",
        default="basic",
        show_default=True,
        metavar="LIST",
        help="One strategy for all seats or four, comma-separated "
        "(random, basic, advanced, expert).",
    )(f)


def expert_options(f):
    """--expert-samples K and --expert-exact-tricks E: the search settings of every expert
    seat (``expert_strategies`` applies them)."""
    from bonken_sim.rules.names import (
        EXPERT_EXACT_MAX,
        EXPERT_EXACT_TRICKS,
        EXPERT_SAMPLES,
        EXPERT_SAMPLES_MAX,
    )

    f = click.option(
        "--expert-exact-tricks",
        "expert_exact",
        default=None,
        metavar="E",
        type=click.IntRange(0, EXPERT_EXACT_MAX),
        help="Expert seats value the last E tricks of a deal with the open-hand solver "
        "(trick contracts; 0: never). "
        f"[default: {EXPERT_EXACT_TRICKS}]",
    )(f)
    return click.option(
        "--expert-samples",
        "expert_samples",
        default=None,
        metavar="K",
        type=click.IntRange(1, EXPERT_SAMPLES_MAX),
        help=f"Deals an expert seat samples per decision. [default: {EXPERT_SAMPLES}]",
    )(f)


def expert_strategies(strategies: str, samples: int | None, exact: int | None) -> str:
    """``--strategies`` with every expert seat given the --expert-* settings, as names
    (``expert:K:E`` unless the defaults). Settings without an expert seat are an error."""
    from bonken_sim.engine.play import (
        parse_strategies,
        strategy_names,
        with_expert_settings,
    )

    if samples is None and exact is None:
        return strategies
    strats = call_or_fail(parse_strategies, strategies)
    if not any("expert" in s.name.lower() for s in strats):
        raise UserError(
            "--expert-samples / --expert-exact-tricks need an expert seat in --strategies"
        )
    return strategy_names(with_expert_settings(strats, samples, exact))


def analysis_threads_option(f):
    """--threads T of an analysis, 1 to 256 (ladder, tournament)."""
    return click.option(
        "--threads",
        default=None,
        metavar="N",
        type=click.IntRange(1, 256),
        help="Worker threads, 1 to 256. [default: the CPUs available]",
    )(f)


# --- house rules --------------------------------------------------------------------------

RULES_HELP = "A TOML rules file: a preset plus overrides (see the README, House rules)."


def ruleset_options(f):
    """--ruleset NAME and --rules FILE on a command (at most one of them)."""
    f = click.option(
        "--rules",
        "rules_file",
        default=None,
        metavar="FILE.toml",
        type=click.Path(dir_okay=False, path_type=Path),
        help=RULES_HELP,
    )(f)
    return click.option("--ruleset", default=None, metavar="NAME", help=RULESET_HELP)(f)


def order_doubling_options(f):
    """--order free|fixed and --doubling on|off of full games, the ruleset's when not given
    (game, tournament)."""
    f = click.option(
        "--doubling",
        default=None,
        metavar="on|off",
        help="Doubling: on or off. [default: the ruleset's]",
    )(f)
    return click.option(
        "--order",
        default=None,
        metavar="free|fixed",
        help="Contract order: free or fixed. [default: the ruleset's]",
    )(f)


def resolve_rules(ruleset, rules_file):
    """The Ruleset of --ruleset or --rules (the standard rules when neither is given)."""
    from bonken_sim.rules.rulesets import resolve

    return call_or_fail(resolve, ruleset, rules_file)


def given_rules(ruleset, rules_file):
    """The Ruleset of --ruleset or --rules, or None when neither is given: a game run then
    records no ruleset and plays the rules of RULES.md."""
    return resolve_rules(ruleset, rules_file) if (ruleset or rules_file) else None


# --- executors (run, game, tournament) ----------------------------------------------------

EXECUTOR_HELP = (
    "Where the work runs: local (threads in this process), process (a pool of worker "
    "processes) or dask (a Dask cluster; needs the dask extra). [default: local]"
)
WORKERS_HELP = (
    "Worker processes for --executor process, or for the local Dask cluster started when "
    "--scheduler is not given (1 thread each). [default: the CPUs available]"
)
SCHEDULER_HELP = "Address of a running Dask scheduler (tcp://host:8786) for --executor dask."
WRITE_PARTS_HELP = (
    "With process or dask: 'workers' write their Parquet parts into --out themselves (it "
    "must be a path every worker sees), or 'driver': they send them back to be written "
    "here (no shared filesystem needed). Ignored in-process. [default: workers]"
)


def executor_options(fn=None, *, parts: bool = True, envvar: bool = False):
    """--executor, --workers, --scheduler (and --write-parts) on a command; with ``envvar``
    each also read from BONKEN_SIM_<OPTION>."""

    def env(name: str) -> str | None:
        return f"BONKEN_SIM_{name}" if envvar else None

    def deco(f):
        if parts:
            f = click.option(
                "--write-parts",
                "write_parts",
                metavar="workers|driver",
                envvar=env("WRITE_PARTS"),
                help=WRITE_PARTS_HELP,
            )(f)
        f = click.option(
            "--scheduler", metavar="ADDRESS", envvar=env("SCHEDULER"), help=SCHEDULER_HELP
        )(f)
        f = click.option("--workers", metavar="N", envvar=env("WORKERS"), help=WORKERS_HELP)(f)
        f = click.option(
            "--executor",
            metavar="local|process|dask",
            envvar=env("EXECUTOR"),
            help=EXECUTOR_HELP,
        )(f)
        return f

    return deco(fn) if fn is not None else deco


def executor_description(spec, threads: int) -> str:
    """``2 threads`` in-process, or ``1 thread per task on a process pool of 2 workers``."""
    text = f"{threads} thread{'s' if threads != 1 else ''}"
    return text if spec.local else f"{text} per task on {spec.describe()}"


# --- long calls ---------------------------------------------------------------------------

_PARTS = {
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


def _describe(need: tuple[str, str]) -> str:
    part, level = need
    return _PARTS[part] + (f" ({level})" if level else "")


def compiling_notice(needs: Iterable[tuple[str, str]]) -> str:
    """What the first compile of a command says, at once, on stderr (no ``needs``: every
    kernel)."""
    what = ", ".join(_describe(n) for n in needs) or "every command"
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


def ladder_needs(expert: bool, games: bool = False) -> list[tuple[str, str]]:
    """The ladder's kernels: its card-play rungs' deals (random and basic, basic and
    advanced, and with ``expert`` the expert's), its doubling rungs' staked deals, and with
    ``games`` its whole-game rungs' games (every one seats an expert profile: the expert
    level's)."""
    levels = ("basic", "advanced", "expert") if expert else ("basic", "advanced")
    games_part = [("games", "expert")] if games else []
    return [*(("deals", level) for level in levels), ("staked", "advanced"), *games_part]


def compile_first(*needs: tuple[str, str], show: bool = True) -> None:
    """Compile the kernels a command uses (``needs``: its parts of ``engine.warmup``; none:
    every kernel) before its own work: the first command after install or after the engine
    changed compiles them, only those, and later commands find them cached. The moment
    numba starts compiling, say so on stderr when ``show`` (on a terminal, redrawn in
    place: which part, how many numba functions are compiled); a warm cache says nothing.
    The command's own timing then starts after the compile: its deals/s and games/s are the
    play's."""
    from bonken_sim.engine.warmup import ALL, missing, warm

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
            step = f"{min(done + 1, total)}/{total} {_describe(need)}"
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


# --- files --------------------------------------------------------------------------------


FORCE_HELP = "Replace the --out file if it exists."


class OutPath(click.Path):
    """The path type of an --out option: click.Path that refuses an empty path (``Path("")``
    is the current directory, and a deal run took it for no --out at all)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            name = param.opts[0] if param is not None and param.opts else "--out"
            raise UserError(f"{name} must not be empty")
        return super().convert(value, param, ctx)


def check_out_file(path: Path, force: bool) -> None:
    """Refuse an --out file before any work is done: a directory, an existing file (unless
    ``force``), a place that cannot be written."""
    target = path.expanduser()
    if target.is_dir():
        raise UserError(f"--out {target} is a directory")
    if target.exists() and not target.is_file():
        # a device or a FIFO: the finished file would be renamed over it (as root, over
        # /dev/null itself), so it is refused even with --force
        raise UserError(f"--out {target} is not a regular file (a device or a pipe)")
    if target.exists() and not force:
        raise UserError(f"--out {target} already exists; --force replaces it")
    try:
        check_writable(target)
    except CannotWrite as exc:
        raise UserError(f"cannot write --out {target}: {exc.reason}") from None


def check_out_dir(path: Path) -> None:
    """Refuse an --out folder before any work is done: a path that is not a directory (or
    lies below a file), a place where it cannot be made or written in."""
    target = path.expanduser()
    if target.exists() and not target.is_dir():
        raise UserError(f"--out {target} is not a directory")
    try:
        check_dir_writable(target)
    except CannotWrite as exc:
        raise UserError(f"cannot write --out {target}: {exc.reason}") from None


def write_out(path: Path, lines: Iterable[str]) -> None:
    """The --out file, written whole or not at all (``files.write_atomic``)."""
    if path.expanduser().is_dir():
        raise UserError(f"--out {path.expanduser()} is a directory")
    call_or_fail(write_atomic, path, lines)
