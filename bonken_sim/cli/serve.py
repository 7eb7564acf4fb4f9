"""``bonken-sim serve``: the local web app (play a game against the computer, hints, the
review, advice for a hand, an opened run)."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import call_or_fail
from bonken_sim.cli.options import resolve_rules, ruleset_options


@click.command("serve")
@click.argument(
    "run_dir",
    required=False,
    metavar="[RUN_DIR]",
    type=click.Path(file_okay=False, path_type=Path),
)
@click.option(
    "--port",
    default=0,
    type=click.IntRange(0, 65535),
    metavar="N",
    help="The port to listen on (0: a free one). [default: 0]",
)
@click.option(
    "--host",
    default="127.0.0.1",
    metavar="ADDRESS",
    help="The address to listen on: 127.0.0.1 for this machine only; another (0.0.0.0: every "
    "address) lets a phone or tablet on your network play, with a secret token in the "
    "printed address that every request must carry. [default: 127.0.0.1]",
)
@click.option(
    "--state",
    "state_dir",
    default=None,
    metavar="DIR",
    type=click.Path(file_okay=False, path_type=Path),
    help="Where games are saved. [default: ~/.local/share/bonken-sim/serve]",
)
@click.option(
    "--hint-samples",
    default=None,
    type=click.IntRange(2, 65535),
    metavar="K",
    help="Deals the expert samples for a card hint and the review. [default: 1000]",
)
@ruleset_options
def serve_cmd(run_dir, port, host, state_dir, hint_samples, ruleset, rules_file):
    """Play Bonken in your browser against the computer, with hints and a review.

    Starts a web app on 127.0.0.1 (or --host) and prints its address; open it in a browser.
    Games are saved after every card, so stopping the server (Ctrl-C) and starting it again
    continues them. RUN_DIR: a run or game-run directory to browse deal by deal and replay any deal
    trick by trick in any contract.
    """
    from bonken_sim.serve.app import ServeOptions
    from bonken_sim.serve.coach import DEFAULT_HINT_SAMPLES
    from bonken_sim.serve.guard import guard_for
    from bonken_sim.serve.kernels_ready import SERVE_NEEDS, Kernels
    from bonken_sim.serve.run_browser import open_run
    from bonken_sim.serve.server import serve
    from bonken_sim.serve.store import default_state_dir

    rules = resolve_rules(ruleset, rules_file)
    options = ServeOptions(
        state_dir=(state_dir or default_state_dir()).expanduser(),
        ruleset=rules,
        hint_samples=hint_samples or DEFAULT_HINT_SAMPLES,
        run=None if run_dir is None else call_or_fail(open_run, run_dir),
        guard=call_or_fail(guard_for, host),
        kernels=Kernels(SERVE_NEEDS),
    )
    kernels = options.kernels

    def ready(address: str) -> None:
        click.echo(
            f"bonken-sim serve: open {address} (Ctrl-C stops it; games are saved in "
            f"{options.state_dir})"
        )
        if options.guard.token is not None:
            click.echo(
                "bonken-sim serve: the address holds a secret token: whoever has it can play "
                "and read the games saved here; plain HTTP, so only on a network you trust"
            )
        if not kernels.ready:  # an empty kernel cache: compiled while the page is served
            click.echo(
                "bonken-sim serve: compiling the computer players' kernels in the background, "
                "once (cached for next time); the page shows the progress, and a game starts "
                "as soon as they are ready",
                err=True,
            )
            kernels.start(compiled)

    def compiled(event: str) -> None:
        status = kernels.status()
        if event == "done":
            click.echo(f"bonken-sim serve: kernels compiled in {status['seconds']:.0f} s", err=True)
        else:
            if kernels.log.strip():  # the compiling process's traceback
                click.echo(kernels.log.rstrip(), err=True)
            click.echo(
                f"bonken-sim serve: error: compiling the kernels failed: {status['error']}; "
                "no game can start (stop the server and start it again to retry)",
                err=True,
            )

    try:
        call_or_fail(serve, options, port, ready)
    finally:
        kernels.stop()
