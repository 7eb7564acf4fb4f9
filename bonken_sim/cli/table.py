"""``bonken-sim bot``: a player speaking the player protocol on stdin and stdout, or
(``--check``) the conformance run of an outside player; ``bonken-sim match``: players at one
table, built-in profiles and outside programs, into a run directory."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json, echo_lines
from bonken_sim.cli.long_calls import REPLAY, compile_first, run_with_progress
from bonken_sim.cli.options import count_option, given_rules, ruleset_options, seed_option
from bonken_sim.cli.out_files import OutPath
from bonken_sim.errors import UserFixableError
from bonken_sim.runs.summary_text import counted

# The kernels of a decision from a view at the basic level: every profile's choice and
# doubling, the random and basic card tiers (the check's legal answers too).
DECIDE_BASIC = ("decide", "basic")


def decide_level(strategy: str) -> str:
    """The level of the decision kernels ``strategy``'s card tier plays with (checked first:
    an unknown strategy is the user's error, before anything compiles)."""
    from bonken_sim.engine.decide import seat_policy
    from bonken_sim.engine.games import PROFILES
    from bonken_sim.engine.warmup import games_level

    policy = call_or_fail(seat_policy, strategy)
    return games_level([policy.name]) if policy.name in PROFILES else "expert"


@click.command("bot")
@click.option(
    "--strategy",
    default=None,
    metavar="PROFILE",
    help="The profile that plays, chooses and doubles: random, basic, advanced, expert, "
    "basic-nodouble, basic-randomchoice, or expert:K:E.  [default: basic]",
)
@click.option(
    "--seed",
    default="0",
    show_default=True,
    metavar="S",
    callback=seed_option,
    help="Seed of the random draws (random profiles, the expert's samples); a request's "
    "draws follow from it and the request's id. With --check: the deals asked.",
)
@click.option("--explain", is_flag=True, help='Answers carry what the profile weighed ("weighed").')
@click.option(
    "--check",
    "target",
    default=None,
    metavar='"cmd:COMMAND"',
    help="Check the player COMMAND speaks the protocol and answers legally, instead of playing.",
)
@click.option(
    "--time-limit",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0.1, max=3600),
    metavar="SECONDS",
    help="With --check: the longest a player may take to answer one request.",
)
@click.option(
    "--deals",
    default="2",
    show_default=True,
    metavar="N",
    callback=count_option,
    help="With --check: deals of each contract variant whose every turn is asked.",
)
def bot(strategy, seed, explain, target, time_limit, deals):
    """Play as a player of the protocol (docs/PROTOCOL.md): requests on stdin, answers on
    stdout, one JSON object a line; or check an outside player with --check."""
    if target is not None:
        if strategy is not None or explain:
            raise UserError("--strategy and --explain play; --check checks another player")
        from bonken_sim.table.check import run_check

        if deals > 1000:
            raise UserError(f"--deals with --check is at most 1000, got {deals}")
        compile_first(DECIDE_BASIC, ("trace", "basic"))  # the deals asked: random seats
        return call_or_fail(run_check, target, time_limit, deals, seed, click.echo)
    from bonken_sim.table.bot import serve, warm

    strategy = "basic" if strategy is None else strategy
    compile_first(DECIDE_BASIC, ("decide", decide_level(strategy)))
    call_or_fail(warm, strategy)
    return serve(strategy, sys.stdin.buffer, sys.stdout.buffer, seed, explain)


@click.command("match")
@click.option(
    "--games",
    default=None,
    metavar="N",
    help="Boards to play: the 11 deals of game 0 … N-1 of the seed, each played once per "
    "rotation (duplicate) or once. [required unless --resume takes the run's]",
)
@click.option(
    "--seed",
    default=None,
    metavar="S",
    help="Seed of the deals (0 to 2**64-1); drawn, printed and recorded if not given.",
)
@click.option(
    "--players",
    default=None,
    metavar="LIST",
    help="One player for every seat, or four comma-separated (seat 0 … 3): a profile or "
    "cmd:COMMAND. [default: basic]",
)
@click.option(
    "--player",
    "player",
    multiple=True,
    metavar="PLAYER",
    help="One seat's player, in seat order (given four times, or once for every seat): a "
    "profile or cmd:COMMAND (a command with commas in it goes here).",
)
@click.option(
    "--duplicate/--no-duplicate",
    default=None,
    help="Play every board four times with the players rotated through the seats, so cards "
    "and seats cancel (default); --no-duplicate plays it once, as game does.",
)
@click.option(
    "--contracts",
    default=None,
    metavar="LIST",
    help="Play each board's deals in each of these contracts (no choice, no doubling) "
    "instead of whole games: variants as run --contracts names them (all, troeven, ...).",
)
@click.option(
    "--time-limit",
    default=None,
    metavar="SECONDS",
    help="Seconds an outside program has for each decision. [default: 10]",
)
@click.option(
    "--chunk-size", default=None, metavar="N", help="Boards per part of the run. [default: 100]"
)
@click.option(
    "--out", default=None, metavar="DIR", type=OutPath(path_type=Path), help="Run directory."
)
@click.option("--resume", is_flag=True, help="Complete an interrupted match in --out.")
@click.option("--force", is_flag=True, help="Replace an existing match in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar and no results table.")
@ruleset_options
def match(players, player, as_json, quiet, ruleset, rules_file, **options):
    """Seat built-in profiles and outside programs (the player protocol, docs/PROTOCOL.md)
    at one table and play Bonken games between them into a run directory that summary and
    report read like a game run; print each player's results with 95% intervals."""
    from bonken_sim.engine.games import PROFILES
    from bonken_sim.table.match import run_match
    from bonken_sim.table.match_config import MatchError, MatchInterrupted, make_match_config
    from bonken_sim.table.match_results import match_results, results_text

    if players is not None and player:
        raise UserError("give the players with --players or with --player, not both")
    rules = given_rules(ruleset, rules_file)
    try:
        cfg = make_match_config(
            players=list(player) if player else players, ruleset=rules, **options
        )
    except MatchError as exc:
        raise UserError(str(exc)) from None
    from bonken_sim.engine.warmup import games_level

    # an outside program's decisions are checked (and its faults played) by basic's decide
    level = games_level([p for p in cfg.players if p in PROFILES] or ["basic"])
    compile_first(DECIDE_BASIC, ("decide", level), REPLAY, show=not quiet)
    if not quiet and not as_json:
        click.echo(
            f"bonken-sim match: {counted(cfg.boards, 'board')} ({cfg.games:,} table games), seed "
            f"{cfg.seed}{' (drawn)' if cfg.seed_drawn else ''}, players "
            f"{' | '.join(cfg.players)}, "
            + ("duplicate" if cfg.duplicate else "no duplicate")
            + (f", contracts {','.join(cfg.contracts)}" if cfg.contracts else "")
            + (f", ruleset {cfg.rules['name']}" if cfg.rules is not None else "")
            + (f", time limit {cfg.time_limit:g} s" if cfg.commands else ""),
            err=True,
        )
    result = run_with_progress(
        lambda bar: run_match(cfg, progress=bar),
        show=not quiet,
        unit="games",
        interrupted=MatchInterrupted,
        errors=UserFixableError,
    )
    doc = call_or_fail(match_results, result.out)
    if as_json:
        echo_json({"run": result.to_dict(), "results": doc}, indent=1)
    elif not quiet:
        rate = result.played / result.play_seconds if result.play_seconds else 0.0
        if result.played == 0:
            click.echo(f"{result.out} is complete: nothing left to play")
        else:
            click.echo(
                f"{result.played:,} table games played into {result.out} "
                f"({counted(result.parts, 'part')}) in {result.wall_seconds:.1f} s, "
                f"{rate:,.1f} games/s"
                + (f", {counted(result.faults, 'fault')}" if result.faults else "")
            )
        echo_lines(results_text(doc))
