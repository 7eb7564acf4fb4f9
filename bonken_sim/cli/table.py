"""``bonken-sim bot``: a player speaking the player protocol on stdin and stdout, or
(``--check``) the conformance run of an outside player."""

from __future__ import annotations

import sys

import click

from bonken_sim.cli.common import (
    UserError,
    call_or_fail,
    compile_first,
    count_option,
    seed_option,
)

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
