"""``bonken-sim solve``: the exact open-hand value of a trick contract position."""

from __future__ import annotations

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_json
from bonken_sim.cli.long_calls import SOLVE, compile_first
from bonken_sim.cli.options import (
    count_option,
    deal_index,
    resolve_rules,
    ruleset_options,
    seed_option,
)
from bonken_sim.rules.names import contract_variant, variant_name

CONTRACT_HELP = (
    "A trick contract: bukken, hartenjagen, herenboeren, vrouwen, hartenheer, laatste_slag, "
    "troeven (with --trump; bierkaart under its ruleset), or troeven_C, troeven_D, troeven_H, "
    "troeven_S, troeven_NT; or all: every one of them (Domino left out), each with its own "
    "--max-nodes."
)


def _seats(seat: str | None, leader: int) -> list[int]:
    if seat is None:
        return [leader]
    if seat.strip().lower() == "all":
        return [0, 1, 2, 3]
    if seat.strip() not in ("0", "1", "2", "3"):
        raise UserError(f"--seat must be 0-3 or 'all', got {seat!r}")
    return [int(seat)]


def _position(hands, seed, deal, dealer, leader):
    """(hands, leader) of --hands/--leader, or of --seed/--deal/--dealer."""
    from bonken_sim.engine.solve import engine_deal

    if hands is None and seed is None:
        raise UserError("give the position: --hands (with --leader) or --seed (with --deal)")
    if hands is not None and seed is not None:
        raise UserError("give either --hands or --seed (with --deal), not both")
    if hands is not None:
        if deal is not None or dealer is not None:
            raise UserError("--deal and --dealer go with --seed, not with --hands")
        if leader is None:
            raise UserError("--hands needs --leader (the seat to lead the next trick)")
        return hands, leader
    deal = deal_index(deal)
    masks, first = call_or_fail(engine_deal, seed, deal or 0, 0 if dealer is None else dealer)
    return masks, first if leader is None else leader


def _solve_seats(seats, masks, variant, leader, rules, table_bits, max_nodes):
    """The seats' results under one node budget for the command (each seat gets what the
    seats before it left); running out is a one-line error like a bad input (and so is a
    bad position, printed as one line by ``main``)."""
    from bonken_sim.engine.solve import solve_seats

    results, unsolved = solve_seats(masks, variant, leader, seats, rules, table_bits, max_nodes)
    if unsolved is not None:
        raise UserError(unsolved.describe("--max-nodes"))
    return results


def _solve_all(masks, leader, seats, rules, table_bits, max_nodes, as_json):
    """--contract all: every contract in turn, each with its own budget; a contract whose
    search runs out is named, the others are printed, and the command then exits 2."""
    from bonken_sim.engine.solve import solve_deal

    solved = call_or_fail(solve_deal, masks, leader, seats, rules, None, table_bits, max_nodes)
    if as_json:
        echo_json({c.name: None if c.unsolved else [r.record() for r in c.results] for c in solved})
    else:
        for c in solved:
            if c.unsolved is not None:
                click.echo(f"{c.name}: {c.unsolved.describe('--max-nodes')}")
                continue
            for r in c.results:
                for line in format_result(r, c.name):
                    click.echo(line)
    unsolved = [c.name for c in solved if c.unsolved is not None]
    if unsolved:
        raise UserError(
            f"not solved within {max_nodes:,} nodes a contract (--max-nodes): "
            + ", ".join(unsolved)
        )


def _signed(v: int) -> str:
    return f"{v:+d}" if v else "0"


def format_result(r, name: str) -> list[str]:
    """One seat's value and the leader's cards, as text."""
    side = "best" if r.leader == r.seat else "best against it"
    cards = "  ".join(f"{c} {_signed(v)}" for c, v in r.cards.items())
    return [
        f"{name}: seat {r.seat} makes sure of {_signed(r.value)} (seat {r.leader} to lead)",
        f"  seat {r.leader} leads, {side}: {' '.join(r.best)}",
        f"  every card: {cards}",
        f"  {r.nodes:,} nodes, {r.seconds:.3f} s",
    ]


@click.command()
@click.option("--contract", required=True, metavar="NAME", help=CONTRACT_HELP)
@click.option(
    "--trump",
    default=None,
    metavar="SUIT",
    help="Trump for --contract troeven: C, D, H, S or NT (troeven_S names its own).",
)
@click.option(
    "--hands", default=None, metavar="HANDS", help="Four hands, seat 0 to 3, separated by '/'."
)
@click.option(
    "--leader", default=None, type=int, metavar="SEAT", help="The seat to lead the next trick."
)
@click.option(
    "--seed",
    default=None,
    metavar="S",
    callback=seed_option,
    help="Take deal --deal of this run seed.",
)
@click.option(
    "--deal", default=None, metavar="N", help="Deal index with --seed, 0 to 2**63-1 [default: 0]."
)
@click.option(
    "--dealer", default=None, type=int, metavar="SEAT", help="Dealer seat with --seed [default: 0]."
)
@click.option(
    "--seat",
    default=None,
    metavar="SEAT|all",
    help="The seat to value, 0-3 or all [default: leader].",
)
@click.option(
    "--table-bits", default=20, show_default=True, type=int, metavar="N", help="Table: 2**N."
)
@click.option(
    "--max-nodes",
    default="50M",
    metavar="N",
    show_default=True,
    callback=count_option,
    help="Give up (exit 2) after this many search nodes (all seats together), e.g. 200M.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@ruleset_options
def solve(
    contract, trump, hands, leader, seed, deal, dealer, seat, table_bits, max_nodes, as_json,
    ruleset, rules_file,
):  # fmt: skip
    """Exact open-hand value of a trick contract: what a seat can make sure of against the
    other three, and the value of every card the leader may play (docs/SOLVER.md)."""
    from bonken_sim.engine.solve import trick_variant

    rules = resolve_rules(ruleset, rules_file)
    if contract.strip().lower() == "all":
        if trump is not None:
            raise UserError("--trump goes with one troeven contract, not with --contract all")
        masks, first = _position(hands, seed, deal, dealer, leader)
        compile_first(SOLVE)
        _solve_all(masks, first, _seats(seat, first), rules, table_bits, max_nodes, as_json)
        return
    # --contract takes what play takes (troeven_S too), through the same parser; then
    # trick_variant refuses what cannot be solved (domino)
    named = call_or_fail(contract_variant, contract, trump, ruleset=rules)
    variant = call_or_fail(trick_variant, named, None, rules)
    masks, first = _position(hands, seed, deal, dealer, leader)
    compile_first(SOLVE)
    results = _solve_seats(_seats(seat, first), masks, variant, first, rules, table_bits, max_nodes)
    if as_json:
        docs = [r.record() for r in results]
        echo_json(docs if seat is not None and seat.lower() == "all" else docs[0])
        return
    name = variant_name(variant, rules)  # bierkaart, not domino, under the beer-card ruleset
    for r in results:
        for line in format_result(r, name):
            click.echo(line)
