"""The ``bonken-sim`` group, its commands, and ``main``: every error the user can fix one line on
stderr (exit 2), any other a short line and a log file holding its traceback (exit 1)."""

from __future__ import annotations

import atexit
import gc
import os
import sys

import click

from bonken_sim.cli.analyses import advise, ladder
from bonken_sim.cli.bench import bench, warmup
from bonken_sim.cli.games import game, tournament
from bonken_sim.cli.interrupts import INTERRUPTED, TERMINATED, exit_status, interrupts_handled, say
from bonken_sim.cli.play import play, replay, trace
from bonken_sim.cli.report import report
from bonken_sim.cli.rules import rules_cmd
from bonken_sim.cli.runs import compare, run_cmd, summary
from bonken_sim.cli.serve import serve_cmd
from bonken_sim.cli.solve import solve
from bonken_sim.cli.table import bot, match
from bonken_sim.errors import UserFixableError, internal_error_log
from bonken_sim.version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bonken-sim")
def cli() -> None:
    """Simulate the Dutch card game Bonken: play, trace and measure deals of every contract."""


# --help lists the commands in alphabetical order, whatever the order here.
for _command in (
    play,
    trace,
    replay,
    rules_cmd,
    bench,
    warmup,
    ladder,
    game,
    match,
    tournament,
    run_cmd,
    compare,
    summary,
    advise,
    report,
    solve,
    bot,
    serve_cmd,
):
    cli.add_command(_command)


# ``bonken-sim`` alone: click >= 8.2 raises this with the whole help as its message (8.1 printed
# the help and exited 0 by itself); it is shown as click shows it, not squashed into one line.
_NO_COMMAND: tuple[type[click.ClickException], ...] = tuple(
    getattr(click.exceptions, name)
    for name in ("NoArgsIsHelpError",)
    if hasattr(click.exceptions, name)
)


def main(argv: list[str] | None = None) -> int:
    """Entry point: every user error is one line on stderr and exit status 2, an internal
    error a short line and a log file (exit 1, ``internal_error``), an interrupt one line
    (Ctrl-C: 130, SIGTERM: 143), each after the command has cleaned up."""
    if argv is None:
        # The console script: the process ends after this call. Frozen objects are left out of
        # the interpreter's last garbage collection, which otherwise walks numba's millions of
        # objects for about 0.25 s at every exit (measured); files and pools are closed by then.
        atexit.register(gc.freeze)
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with interrupts_handled():
            return _invoke(args)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM as Terminated
        status = exit_status()
        say("terminated" if status == TERMINATED else "interrupted")
        if argv is None:
            # The command has cleaned up (its files, pools and manifest) by now. An interrupted
            # process runs the exit handlers (multiprocessing's among them) but skips the
            # interpreter's teardown: under load, tearing down numba's state after an
            # interrupt was seen to abort ("double free") once in a few dozen.
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
        return status


INTERNAL_ERROR = 1  # the exit status of a bug, apart from a user's mistake (2)


def _invoke(args: list[str]) -> int:
    """Parse ``args`` and run the command; click's errors and the errors a user can fix become
    one line and exit status 2, anything else ``internal_error``.

    Not ``cli.main``: it answers Ctrl-C with a blank line on stderr before its own message.
    """
    try:
        with cli.make_context("bonken-sim", args) as ctx:
            rv = cli.invoke(ctx)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        say("aborted")
        return INTERRUPTED
    except _NO_COMMAND as exc:
        click.echo(exc.format_message(), err=True)
        return 2
    except click.ClickException as exc:
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"bonken-sim: error: {msg}", err=True)
        return exc.exit_code if exc.exit_code else 2
    except UserFixableError as exc:
        click.echo(f"bonken-sim: error: {one_line(exc)}", err=True)
        return 2
    except BrokenPipeError:
        return 0
    except Exception as exc:
        return internal_error(exc, args)
    # a command's return value is its exit code (ctx.exit raises Exit instead)
    return rv if isinstance(rv, int) else 0


def one_line(exc: BaseException) -> str:
    """The message of ``exc`` on one line."""
    return " ".join(str(exc).split("\n")).strip()


def internal_error(exc: Exception, args: list[str]) -> int:
    """A bug, not a mistake of the user: ``bonken-sim: internal error: Type: message`` on
    stderr, the traceback in a log file whose path is printed (``errors.internal_error_log``),
    exit status 1."""
    message = one_line(exc)
    click.echo(
        f"bonken-sim: internal error: {type(exc).__name__}" + (f": {message}" if message else ""),
        err=True,
    )
    log = internal_error_log(exc, args)
    where = f"the traceback is in {log}" if log is not None else "no log file could be written"
    click.echo(f"bonken-sim: this is a bug in bonken-sim; {where}", err=True)
    return INTERNAL_ERROR
