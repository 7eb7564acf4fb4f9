"""``bonken-sim run`` (many deals into a Parquet run directory), ``summary`` (its mean scores)
and ``compare`` (two runs side by side)."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json, echo_lines
from bonken_sim.cli.long_calls import compile_first, plays, run_with_progress
from bonken_sim.cli.options import (
    RULES_HELP,
    executor_description,
    executor_options,
    expert_options,
    expert_strategies,
)
from bonken_sim.cli.out_files import OutPath
from bonken_sim.errors import UserFixableError
from bonken_sim.rules.presets import RULESET_HELP

# The run options whose config-file key is not their parameter name.
_PARAMETER_OF_KEY = {"json": "as_json", "rules": "rules_file"}


def _load_config_file(ctx: click.Context, param: click.Parameter, value: str | None):
    """``--config run.toml``: its options become the defaults that environment variables and
    the command line override (see ``runs.config_file``)."""
    if value is None:
        return None
    from bonken_sim.runs.config_file import RunConfigFileError, read_run_config

    try:
        options = read_run_config(value)
    except OSError as exc:
        raise UserError(f"--config {value}: {exc.strerror or exc}") from None
    except RunConfigFileError as exc:
        raise UserError(f"--config {value}: {exc}") from None
    defaults = {_PARAMETER_OF_KEY.get(key, key): item for key, item in options.items()}
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return value


@click.command("run")
@click.option(
    "--deals",
    metavar="N",
    envvar="BONKEN_SIM_DEALS",
    help="Number of deals: 1e6, 2.5M, 10k, 1_000_000. "
    "[required unless --resume or --config gives it]",
)
@click.option(
    "--seed",
    metavar="S",
    envvar="BONKEN_SIM_SEED",
    help="Run seed (0 to 2**64-1); drawn, printed and recorded if not given.",
)
@click.option(
    "--strategies",
    metavar="LIST",
    envvar="BONKEN_SIM_STRATEGIES",
    help=(
        "One strategy for all seats or four, comma-separated (random, basic, advanced, expert). "
        "[default: basic]"
    ),
)
@click.option(
    "--contracts",
    metavar="LIST",
    envvar="BONKEN_SIM_CONTRACTS",
    help="all, or a comma list such as bukken,troeven_H,troeven. [default: all]",
)
@click.option(
    "--threads",
    metavar="N",
    envvar="BONKEN_SIM_THREADS",
    help="Worker threads. [default: the CPUs available]",
)
@click.option(
    "--chunk-size",
    "chunk_size",
    metavar="N",
    envvar="BONKEN_SIM_CHUNK_SIZE",
    help="Deals per Parquet part; memory grows with it. [default: 100k]",
)
@click.option(
    "--out",
    metavar="DIR",
    envvar="BONKEN_SIM_OUT",
    type=OutPath(),
    help="Run directory. [default: a new results/run-<time>-seed<seed>]",
)
@click.option(
    "--resume",
    is_flag=True,
    envvar="BONKEN_SIM_RESUME",
    help="Complete the interrupted run in --out (same options).",
)
@click.option(
    "--force", is_flag=True, envvar="BONKEN_SIM_FORCE", help="Overwrite the run already in --out."
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    envvar="BONKEN_SIM_JSON",
    help="Print one JSON document with the summary on stdout.",
)
@click.option(
    "--quiet",
    is_flag=True,
    envvar="BONKEN_SIM_QUIET",
    help="No progress bar and no summary (errors still shown).",
)
@click.option(
    "--config",
    "config_file",
    metavar="FILE.toml",
    envvar="BONKEN_SIM_CONFIG",
    is_eager=True,
    expose_value=False,
    callback=_load_config_file,
    help="A TOML file setting any of these options (env vars BONKEN_SIM_<OPTION> "
    "and the command line win).",
)
@click.option(
    "--ruleset",
    metavar="NAME",
    envvar="BONKEN_SIM_RULESET",
    help=RULESET_HELP + " [default: standard]",
)
@click.option(
    "--rules",
    "rules_file",
    metavar="FILE.toml",
    envvar="BONKEN_SIM_RULES",
    help=RULES_HELP,
)
@expert_options
@executor_options(envvar=True)
def run_cmd(as_json, quiet, expert_samples, expert_exact, **run_options):
    """Play many deals in every contract variant and write a Parquet run directory."""
    import dataclasses

    if expert_samples is not None or expert_exact is not None:
        given = run_options.get("strategies") or "basic"
        run_options["strategies"] = expert_strategies(given, expert_samples, expert_exact)
    from bonken_sim.cli.console import run_summary
    from bonken_sim.runs.deals import RunError, RunInterrupted, default_out, make_config
    from bonken_sim.runs.deals import run as run_deals

    try:
        # every other option is the make_config parameter of the same name
        cfg = make_config(**run_options)
        if cfg.out is None:
            cfg = dataclasses.replace(cfg, out=default_out(cfg.seed))
    except (RunError, ValueError) as exc:
        raise UserError(str(exc)) from None
    compile_first(plays("deals", cfg.strategies), show=not quiet)

    def started(cfg, done):
        if quiet:
            return
        what = f"resuming at {done:,} deals," if cfg.resume else "writing"
        click.echo(
            f"bonken-sim run: {cfg.deals:,} deals, seed {cfg.seed}"
            f"{' (drawn)' if cfg.seed_drawn else ''}, {len(cfg.contracts)} variants, "
            f"ruleset {cfg.ruleset.name}, "
            f"{executor_description(cfg.executor_spec, cfg.threads)}; {what} {cfg.out}",
            err=True,
        )

    result = run_with_progress(
        lambda bar: run_deals(cfg, progress=bar, on_start=started),
        show=not quiet,
        interrupted=RunInterrupted,
        errors=UserFixableError,
    )
    if as_json:
        echo_json(result.to_dict(), indent=1)
    elif not quiet:
        echo_lines(run_summary(result))


@click.command()
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(run_a, run_b, as_json):
    """Two runs of the same seed (e.g. two rulesets): per variant and seat, the paired
    difference of mean scores B − A with 95% CIs. Two game runs: per seat and profile the
    change in win rate and total, per contract the change in the chooser's score."""
    from bonken_sim.analyses.compare import compare_runs, to_json, to_text

    doc = call_or_fail(compare_runs, run_a, run_b)
    if as_json:
        echo_json(to_json(doc), indent=1)
        return
    echo_lines(to_text(doc))


@click.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def summary(run_dir, as_json):
    """A run's summary with 95% CIs: a deal run's mean raw score per contract variant and seat;
    a game run's win rates, mean totals and settled points per contract, per seat and profile."""
    from bonken_sim.cli.console import score_table
    from bonken_sim.runs.game_format import is_game_run
    from bonken_sim.runs.game_summary import summarize_game_run
    from bonken_sim.runs.storage import summarize
    from bonken_sim.runs.summary_text import game_summary_lines
    from bonken_sim.table import match_config  # noqa: F401  (checks a match's manifest)

    game = is_game_run(run_dir, matches=True)
    doc = call_or_fail(summarize_game_run if game else summarize, run_dir)
    if as_json:
        echo_json(doc, indent=1)
        return
    echo_lines((game_summary_lines if game else score_table)(doc))
