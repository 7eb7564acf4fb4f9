"""The ``bonken-sim`` group, its commands, and ``main``: every user error one line on stderr."""

from __future__ import annotations

import atexit
import gc

import click

from bonken_sim import __version__
from bonken_sim.cli.analyses import advise, ladder
from bonken_sim.cli.bench import bench, warmup
from bonken_sim.cli.games import game, tournament
from bonken_sim.cli.play import play, replay, trace
from bonken_sim.cli.report import report
from bonken_sim.cli.rules import rules_cmd
from bonken_sim.cli.runs import compare, run_cmd, summary
from bonken_sim.cli.solve import solve


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
    tournament,
    run_cmd,
    compare,
    summary,
    advise,
    report,
    solve,
):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> int:
    """Entry point: every user error is one line on stderr and a non-zero exit."""
    if argv is None:
        # The console script: the process ends after this call. Frozen objects are left out of
        # the interpreter's last garbage collection, which otherwise walks numba's millions of
        # objects for about 0.25 s at every exit (measured); files and pools are closed by then.
        atexit.register(gc.freeze)
    try:
        rv = cli.main(args=argv, prog_name="bonken-sim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        click.echo("bonken-sim: aborted", err=True)
        return 130
    except click.ClickException as exc:
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"bonken-sim: error: {msg}", err=True)
        return exc.exit_code if exc.exit_code else 2
    except KeyboardInterrupt:
        click.echo("bonken-sim: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    # Without standalone mode click returns a command's exit code (ctx.exit) as the value.
    return rv if isinstance(rv, int) else 0
