"""``bonken-sim bench`` (playouts per second) and ``warmup`` (compile the kernels)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json
from bonken_sim.cli.console import StageLine
from bonken_sim.cli.long_calls import compile_first
from bonken_sim.cli.options import count_option
from bonken_sim.cli.out_files import OutPath, check_out_dir


def _thread_counts(threads: str) -> tuple[int, ...]:
    """--threads of bench: a comma list of thread counts, each 1 to 256."""
    try:
        counts = tuple(int(t) for t in threads.split(","))
    except ValueError:
        raise UserError(
            f"--threads must be a comma list of whole numbers, got {threads!r}"
        ) from None
    if not counts or any(t < 1 or t > 256 for t in counts):
        raise UserError(f"--threads must be between 1 and 256, got {threads!r}")
    return counts


def _strategy_tiers(strategies: str) -> tuple[str, ...]:
    """--strategies of bench: distinct tier names (bench.STRATEGIES)."""
    from bonken_sim.bench.bench import STRATEGIES

    tiers = tuple(t.strip().lower() for t in strategies.split(","))
    bad = [t for t in tiers if t not in STRATEGIES]
    if bad or len(set(tiers)) != len(tiers):
        raise UserError(
            f"--strategies must be distinct names from {', '.join(STRATEGIES)}, got {strategies!r}"
        )
    return tiers


def _job_sizes(jobs: str) -> dict[str, int]:
    """--jobs of bench: NAME=SIZE items (bench.jobs.parse_jobs), or none."""
    from bonken_sim.bench.jobs import parse_jobs

    return call_or_fail(parse_jobs, jobs)


@click.command()
@click.option(
    "--deals",
    default="200k",
    show_default=True,
    metavar="N",
    callback=count_option,
    help="Fresh deals per timed repeat.",
)
@click.option(
    "--repeats",
    default=5,
    show_default=True,
    metavar="N",
    type=click.IntRange(1, 100),
    help="Timed repeats; medians are reported.",
)
@click.option(
    "--threads",
    default="1,2",
    show_default=True,
    metavar="LIST",
    help="Thread counts to measure, comma-separated.",
)
@click.option(
    "--out",
    "out_dir",
    default="benchmarks/results",
    show_default=True,
    metavar="DIR",
    type=OutPath(file_okay=False, path_type=Path),
    help="Folder for the JSON result.",
)
@click.option(
    "--strategies",
    default="random,basic,advanced",
    show_default=True,
    metavar="LIST",
    help="Strategy tiers to measure, comma-separated (each plays all four seats).",
)
@click.option(
    "--solver-endings",
    default=50,
    show_default=True,
    metavar="N",
    type=click.IntRange(0, 100_000),
    help="5-card endings per contract for the solver's speed (0 to skip).",
)
@click.option(
    "--solver-deals",
    default=1,
    show_default=True,
    metavar="N",
    type=click.IntRange(0, 10_000),
    help="Full deals per contract for the solver's speed (0 to skip).",
)
@click.option(
    "--solver-max-nodes",
    default="1M",
    show_default=True,
    metavar="N",
    callback=count_option,
    help="The solver gives up a position after this many nodes.",
)
@click.option(
    "--jobs",
    default="run=100k,game=20k",
    show_default=True,
    metavar="LIST",
    help="Whole commands to time against the toy playout kernel: run=DEALS,game=GAMES "
    "(either or both), or none; run-random=DEALS adds run with every seat random, the floor "
    "under run. The full-size measure: run=1e6,game=1e6.",
)
@click.option(
    "--job-repeats",
    default=3,
    show_default=True,
    metavar="N",
    type=click.IntRange(1, 100),
    help="Timed repeats of each job (medians are reported).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result document as JSON.")
def bench(
    deals,
    repeats,
    threads,
    out_dir,
    strategies,
    solver_endings,
    solver_deals,
    solver_max_nodes,
    jobs,
    job_repeats,
    as_json,
):
    """Measure deal-playouts per second per strategy, variant and thread count, and whole
    run and game commands against a toy playout kernel."""
    from bonken_sim.bench.bench import run_bench

    counts = _thread_counts(threads)
    tiers = _strategy_tiers(strategies)
    job_sizes = _job_sizes(jobs)
    check_out_dir(out_dir)  # before the measuring, not after it
    compile_first()
    echo = (lambda *a, **k: None) if as_json else click.echo
    result = call_or_fail(
        run_bench,
        strategies=tiers,
        deals=deals,
        repeats=repeats,
        threads=counts,
        out_dir=out_dir,
        echo=echo,
        solver={
            "endings": solver_endings,
            "deals": solver_deals,
            "max_nodes": solver_max_nodes,
        },
        jobs=job_sizes,
        job_repeats=job_repeats,
    )
    if as_json:
        echo_json(result, indent=2)


@click.command()
@click.option(
    "--for",
    "command",
    type=click.Choice(["serve"]),
    default=None,
    help="Only the kernels this command needs that are not compiled yet (serve: its computer "
    "players, hints and replays). [default: every kernel]",
)
def warmup(command):
    """Compile the numba kernels (every one, or those --for a command needs) into the on-disk
    cache and say how long it took."""
    from bonken_sim.engine.version import kernel_cache_dir
    from bonken_sim.engine.warmup import warm
    from bonken_sim.engine.warmup import warmup as do_warmup

    line = StageLine("bonken-sim warmup") if sys.stderr.isatty() else None
    # progress(parts done, parts in all, the part, numba's compiles)
    show = None if line is None else lambda k, n, *_: line("compiling kernels", k, n)
    try:
        if command == "serve":
            from bonken_sim.serve.kernels_ready import SERVE_NEEDS

            seconds = warm(SERVE_NEEDS, show)
        else:
            seconds = do_warmup(show)
    finally:
        if line is not None:
            line.clear()
    click.echo(f"kernels ready in {seconds:.1f} s (cache: {kernel_cache_dir()})")
