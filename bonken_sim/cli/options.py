"""The options the commands share: option callbacks and decorators (counts, seeds, deal
indices, strategies and the expert's settings, --ruleset/--rules, the executor options)."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail
from bonken_sim.rules.presets import RULESET_HELP
from bonken_sim.runs.options import parse_count, parse_seed

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
    from bonken_sim.engine.strategies import parse_strategies, strategy_names, with_expert_settings

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
