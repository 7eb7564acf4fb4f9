"""``bonken-sim advise`` (the contract and doubles for a hand) and ``ladder`` (what each step
of the strategy ladder is worth)."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json, echo_lines, json_text
from bonken_sim.cli.long_calls import compile_first, plays, run_with_progress
from bonken_sim.cli.options import (
    analysis_threads_option,
    count_option,
    deals_seed_option,
    expert_options,
    expert_strategies,
    ruleset_options,
    strategies_option,
)
from bonken_sim.cli.out_files import FORCE_HELP, OutPath, check_out_file, write_out
from bonken_sim.engine.warmup import ladder_needs


@click.command()
@click.option(
    "--hand",
    required=True,
    metavar="CARDS",
    help='Your 13 cards, any order and separator: "AS KS 7S 2H ...", 10H and lower case too.',
)
@click.option(
    "--seat",
    default="chooser",
    show_default=True,
    metavar="ROLE",
    help="Your seat in this deal: chooser, leader, dealer or doubler.",
)
@click.option(
    "--available",
    default="all",
    show_default=True,
    metavar="LIST",
    help="The contracts still available: all, or a comma list such as "
    "bukken,vrouwen,troeven_H,troeven_NT (troeven = all five trumps).",
)
@click.option(
    "--trump-used",
    is_flag=True,
    help="The chooser (you, with --seat chooser) has had his troeven: negatives only.",
)
@click.option(
    "--deals",
    metavar="N",
    help="Conditional deals (and as many unconditional ones for the averages). "
    "[default: 1e5; 200 when a seat plays expert, which searches at every card]",
)
@click.option("--seed", metavar="S", help="Seed (0 to 2**64-1); drawn and printed if not given.")
@strategies_option
@click.option("--threads", metavar="N", help="Worker threads. [default: the CPUs available]")
@click.option(
    "--turns-left",
    metavar="N",
    help="The chooser's choosing turns left in this game, this one included (1-3): the "
    "recommendation then decides when to spend troeven as the game profiles do.",
)
@click.option(
    "--reference",
    metavar="DIR",
    help="Take the contract averages from this bonken-sim run (same strategies and ruleset, "
    "dealer 0) instead of simulating them (reading takes about 0.6 s per million deals).",
)
@expert_options
@ruleset_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead.")
def advise(as_json, expert_samples, expert_exact, **advise_options):
    """Which contract to choose and whom to double, for the hand in front of you.

    Keeps your 13 cards at your seat, deals the other 39 at random and plays every contract
    that can still be chosen; compares your score with the contract's average at your seat.
    """
    from bonken_sim.analyses.advise import AdviseError, make_config
    from bonken_sim.analyses.advise import advise as run_advise
    from bonken_sim.analyses.advise.reference import ReferenceError
    from bonken_sim.analyses.advise.text import advice_lines

    strategies = advise_options["strategies"]
    advise_options["strategies"] = expert_strategies(strategies, expert_samples, expert_exact)
    try:
        # every other option is the make_config parameter of the same name
        cfg = make_config(**advise_options)
    except AdviseError as exc:
        raise UserError(str(exc)) from None
    compile_first(plays("advise", cfg.strategies))
    doc = run_with_progress(lambda bar: run_advise(cfg, progress=bar), errors=ReferenceError)
    if as_json:
        echo_json(doc, indent=1)
        return
    echo_lines(advice_lines(doc))


def _rung_count(name: str, default: str, help: str):
    """A ladder option counting the deals or games of optional rungs: 0 leaves them out,
    any other value is a count (``count_option``: 1e5, 10k, ...)."""
    return click.option(
        name,
        default=default,
        show_default=True,
        metavar="N",
        callback=lambda ctx, param, value: 0 if value == "0" else count_option(ctx, param, value),
        help=help,
    )


@click.command()
@click.option(
    "--deals",
    default="100k",
    show_default=True,
    metavar="N",
    callback=count_option,
    help="Deals per rung.",
)
@deals_seed_option
@analysis_threads_option
@click.option(
    "--out",
    default="results/ladder.json",
    show_default=True,
    metavar="FILE",
    type=OutPath(dir_okay=False, path_type=Path),
    help="Where to save the tables as JSON ('-' for none).",
)
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON document instead of tables.")
@click.option(
    "--quiet", is_flag=True, help="No compile notice and nothing printed (the tables go to --out)."
)
@_rung_count(
    "--expert-deals", "2000", "Deals of the rung 'expert over advanced' (0: leave it out)."
)
@_rung_count(
    "--games",
    "0",
    "Whole games of each two-profile rung: every heuristic profile against expert, "
    "and each search step of the expert's game (0: leave them out; at least 12).",
)
@_rung_count(
    "--infer-deals",
    "0",
    "Deals of the rung 'card play with inference against without': the inferring expert "
    "and the plain one, each among three advanced (0: leave it out).",
)
@expert_options
def ladder(
    deals,
    seed,
    threads,
    out,
    force,
    as_json,
    quiet,
    expert_deals,
    games,
    infer_deals,
    expert_samples,
    expert_exact,
):
    """Measure each step of the strategy ladder: card play, contract choice, doubling, and
    with --games whole games against the strongest profile."""
    from bonken_sim.analyses.ladder import check_counts, run_ladder, to_json, to_text

    call_or_fail(check_counts, deals, expert_deals, games, infer_deals)  # before the compile
    expert = expert_strategies("expert", expert_samples, expert_exact).split(",")[0]
    saving = str(out) != "-"
    if quiet and not saving:
        raise UserError("--quiet with --out - would measure and show nothing; give --out FILE")
    if saving:
        if out == Path("results/ladder.json"):
            try:
                out.parent.mkdir(exist_ok=True)
            except OSError as exc:
                raise UserError(f"cannot write --out {out}: {exc.strerror or exc}") from None
        check_out_file(out, force)  # before the work, not after it
    compile_first(*ladder_needs(expert_deals > 0 or infer_deals > 0, games > 0), show=not quiet)
    result = call_or_fail(
        run_ladder, deals, seed, threads, expert_deals, expert, games, infer_deals
    )
    doc = to_json(result)
    if saving:
        write_out(out, [json_text(doc, indent=1)])
    if quiet:
        return
    click.echo(json_text(doc, indent=2) if as_json else to_text(result))
    if saving and not as_json:
        click.echo(f"\nsaved {out}", err=True)
