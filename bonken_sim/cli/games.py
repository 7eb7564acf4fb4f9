"""``bonken-sim game`` (full games into a run directory) and ``tournament`` (profiles against
each other on the same deals)."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json, json_text
from bonken_sim.cli.long_calls import compile_first, plays_games, run_with_progress
from bonken_sim.cli.options import (
    analysis_threads_option,
    count_option,
    deals_seed_option,
    executor_description,
    executor_options,
    given_rules,
    order_doubling_options,
    ruleset_options,
)
from bonken_sim.cli.out_files import OutPath
from bonken_sim.errors import UserFixableError
from bonken_sim.runs.summary_text import counted


def _profiles_help() -> str:
    from bonken_sim.engine.games import PROFILES

    return "Player profiles: " + ", ".join(PROFILES) + " (see the README)."


@click.command()
@click.option(
    "--games",
    default=None,
    metavar="N",
    help="Number of games (1e5, 10k, ...). [required unless --resume takes the run's]",
)
@click.option(
    "--seed",
    default=None,
    metavar="S",
    help="Run seed (0 to 2**64-1); drawn, printed and recorded if not given.",
)
@click.option(
    "--players",
    default=None,
    metavar="LIST",
    help="One profile for every seat, or four comma-separated (seat 0 … 3). [default: basic]",
)
@order_doubling_options
@click.option(
    "--threads",
    default=None,
    metavar="N",
    type=int,
    help="Worker threads. [default: the CPUs available]",
)
@click.option(
    "--chunk-size", default=None, metavar="N", help="Games per Parquet part. [default: 20k]"
)
@click.option(
    "--out", default=None, metavar="DIR", type=OutPath(path_type=Path), help="Run directory."
)
@click.option("--resume", is_flag=True, help="Complete an interrupted run in --out.")
@click.option("--force", is_flag=True, help="Replace an existing game run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@executor_options
@ruleset_options
def game(resume, force, as_json, quiet, ruleset, rules_file, **game_options):
    """Play full 11-deal games (choice, doubling, settlement) into a Parquet run directory."""
    from bonken_sim.runs.games import GameRunError, GameRunInterrupted, make_game_config, run_games

    rules = given_rules(ruleset, rules_file)
    try:
        # every other option is the make_game_config parameter of the same name
        cfg = make_game_config(**game_options, ruleset=rules, resume=resume, force=force)
    except GameRunError as exc:
        raise UserError(str(exc)) from None
    compile_first(plays_games(cfg.players), show=not quiet)
    if not quiet and not as_json:
        click.echo(
            f"bonken-sim game: {cfg.games:,} games, seed {cfg.seed}"
            f"{' (drawn)' if cfg.seed_drawn else ''}, players {','.join(cfg.players)}, "
            f"order {cfg.order}, doubling {'on' if cfg.doubling else 'off'}, "
            + (f"ruleset {cfg.rules['name']}, " if cfg.rules is not None else "")
            + f"{executor_description(cfg.executor_spec, cfg.threads)}",
            err=True,
        )
    result = run_with_progress(
        lambda bar: run_games(cfg, resume=resume, force=force, progress=bar),
        show=not quiet,
        unit="games",
        interrupted=GameRunInterrupted,
        errors=UserFixableError,
    )
    if as_json:
        echo_json(result.to_dict(), indent=1)
    elif not quiet:
        rate = result.played / result.play_seconds if result.play_seconds else 0.0
        click.echo(
            f"{result.played:,} games played into {result.out} "
            f"({counted(result.parts, 'part')}) in "
            f"{result.wall_seconds:.1f} s, {rate:,.0f} games/s"
        )


game.help = f"{game.help}\n\n{_profiles_help()}"


@click.command()
@click.option(
    "--games",
    required=True,
    metavar="N",
    callback=count_option,
    help="Games in all (1e5, 10k, ...).",
)
@click.option("--profiles", required=True, metavar="LIST", help="2 to 4 profiles, comma-separated.")
@deals_seed_option
@order_doubling_options
@analysis_threads_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@executor_options(parts=False)
@ruleset_options
def tournament(
    games,
    profiles,
    seed,
    order,
    doubling,
    threads,
    as_json,
    executor,
    workers,
    scheduler,
    ruleset,
    rules_file,
):
    """Profiles against each other on the same deals, every seating arrangement equally often."""
    from bonken_sim.analyses.ladder import to_json
    from bonken_sim.analyses.tournament import parse_tournament_profiles, run_tournament, to_text
    from bonken_sim.runs.executors import make_spec

    spec = call_or_fail(make_spec, executor, workers, scheduler)
    names = call_or_fail(parse_tournament_profiles, profiles)
    rules = given_rules(ruleset, rules_file)
    if order is None:
        order = rules.order if rules else "free"
    if doubling is None:
        doubling = "off" if rules and not rules.doubling else "on"
    if order not in ("free", "fixed"):
        raise UserError(f"--order must be free or fixed, got {order!r}")
    if doubling not in ("on", "off"):
        raise UserError(f"--doubling must be on or off, got {doubling!r}")
    compile_first(plays_games(names))
    result = call_or_fail(
        run_tournament,
        games,
        seed,
        names,
        fixed_order=order == "fixed",
        doubling=doubling == "on",
        threads=threads,
        executor_spec=spec,
        ruleset=rules,
    )
    click.echo(json_text(to_json(result), indent=1) if as_json else to_text(result))


tournament.help = f"{tournament.help}\n\n{_profiles_help()}"
