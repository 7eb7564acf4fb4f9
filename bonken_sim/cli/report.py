"""``bonken-sim report``: the figures, CSV tables and pages of a run or a game run."""

from __future__ import annotations

import warnings
from pathlib import Path

import click

from bonken_sim.cli.common import call_or_fail
from bonken_sim.cli.console import StageLine
from bonken_sim.cli.long_calls import run_with_progress
from bonken_sim.cli.out_files import OutPath
from bonken_sim.errors import UserFixableError


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--out",
    metavar="DIR",
    type=OutPath(path_type=Path),
    help="Report folder. [default: RUN_DIR/_report]",
)
@click.option(
    "--format",
    "formats",
    metavar="LIST",
    default="html,md",
    show_default=True,
    help="Pages to write: html, md or both (figures and CSV tables are always written).",
)
@click.option(
    "--workers",
    metavar="N",
    type=click.IntRange(1, 64),
    default=None,
    help="Worker processes. [default: the CPUs available, at most 4]",
)
@click.option(
    "--no-policy",
    "no_policy",
    is_flag=True,
    help="Leave out the fitted contract-choice and doubling policies.",
)
@click.option(
    "--compare-games",
    "compare_games",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="A game run of the same games with the other --doubling: the effect of doubling "
    "on win rates (RUN_DIR must be a game run).",
)
@click.option(
    "--games",
    "games",
    metavar="DIR",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A game run, or a folder of game runs, played under the run's rules: adds a section "
    "on whole games (win rates, what choice and doubling are worth). Repeatable; RUN_DIR must "
    "be a deal run.",
)
@click.option(
    "--ladder",
    "ladder",
    metavar="FILE",
    type=click.Path(path_type=Path),
    help="A strategy ladder's JSON (bonken-sim ladder --out FILE) with its expert rungs: adds "
    "a section on how far basic and advanced card play are from expert play, per contract "
    "(deal and game runs).",
)
@click.option(
    "--strong-deals",
    "strong_deals",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="A deal run of the strongest card play (run --strategies expert) on the run's first "
    "deals: adds the section 'Under strong play' (RUN_DIR must be a deal run).",
)
@click.option(
    "--strong-games",
    "strong_games",
    metavar="DIR",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A game run, or a folder of game runs, of the strongest players (expert, "
    "expert-randomchoice, expert-nodouble): adds what choice and doubling are worth under "
    "strong play to that section. Repeatable.",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
def report(run_dir, out, formats, workers, no_policy, compare_games, games, ladder,
           strong_deals, strong_games, quiet):  # fmt: skip
    """Write the report of a run or a game run: figures, CSV tables, report.html and
    report.md."""
    from bonken_sim.report.page.pool import default_workers, start_early

    workers = default_workers() if workers is None else workers
    # The pool's forkserver gets its head start while this process imports the report.
    start_early(run_dir, workers)
    from bonken_sim.report import write_report
    from bonken_sim.report.page.build import parse_formats

    fmts = call_or_fail(parse_formats, formats)

    def start(progress):
        options = {
            "workers": workers,
            "fitted": not no_policy,
            "compare_games": compare_games,
            "games": games,
            "ladder": ladder,
            "strong_deals": strong_deals,
            "strong_games": strong_games,
        }
        return write_report(run_dir, out, fmts, progress=progress, **options)

    with warnings.catch_warnings():
        if quiet:  # the pool's workers take this process's filters
            warnings.simplefilter("ignore")
        result = run_with_progress(
            start,
            show=not quiet,
            errors=UserFixableError,
            display=lambda: StageLine("report"),
        )
    if not quiet:
        pages = [p for p in ("report.html", "report.md") if p in result.files]
        what = "games" if "figures/game_results.png" in result.files else "deals"
        click.echo(
            f"report of {result.deals:,} {what} written in {result.seconds:.1f} s: "
            + ", ".join(str(result.out / p) for p in pages)
        )
