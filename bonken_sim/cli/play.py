"""``bonken-sim play``, ``trace`` and ``replay``: single deals shown, written and checked."""

from __future__ import annotations

import json
from pathlib import Path

import click

from bonken_sim.cli.common import UserError, call_or_fail, echo_lines
from bonken_sim.cli.long_calls import REPLAY, compile_first, plays
from bonken_sim.cli.options import (
    count_option,
    deal_index,
    expert_options,
    expert_strategies,
    resolve_rules,
    ruleset_options,
    run_seed_option,
    strategies_option,
)
from bonken_sim.cli.out_files import FORCE_HELP, OutPath, check_out_file, write_out
from bonken_sim.files import NotJson, json_document
from bonken_sim.rules.names import card_str, contract_variant, hand_str, parse_variants


@click.command()
@run_seed_option
@click.option(
    "--deal", "deal", default="0", show_default=True, metavar="N", help="Deal index (0 to 2**63-1)."
)
@click.option(
    "--contract",
    required=True,
    metavar="NAME",
    help="bukken, hartenjagen, herenboeren, vrouwen, hartenheer, laatste_slag, domino, "
    "troeven (with --trump), or troeven_C, troeven_D, troeven_H, troeven_S, troeven_NT.",
)
@click.option(
    "--trump",
    default=None,
    metavar="SUIT",
    help="Trump for --contract troeven: C, D, H, S or NT (troeven_S names its own).",
)
@strategies_option
@expert_options
@click.option(
    "--dealer", default=0, show_default=True, metavar="SEAT", help="Dealer seat 0-3.", type=int
)
@click.option("--json", "as_json", is_flag=True, help="Print the trace record as JSON instead.")
@ruleset_options
def play(
    seed, deal, contract, trump, strategies, expert_samples, expert_exact, dealer, as_json,
    ruleset, rules_file,
):  # fmt: skip
    """Play one deal of one contract and show every trick (or Domino turn)."""
    from bonken_sim.engine.play import play as play_deal

    strategies = expert_strategies(strategies, expert_samples, expert_exact)
    deal_i = deal_index(deal)
    rules = resolve_rules(ruleset, rules_file)
    variant = call_or_fail(contract_variant, contract, trump, ruleset=rules)
    compile_first(plays("trace", strategies))
    p = call_or_fail(play_deal, seed, deal_i, variant, strategies, dealer, ruleset=rules)
    if as_json:
        click.echo(json.dumps(p.record()))
        return
    echo_lines(format_playout(p))


def _seat_role(seat: int, dealer: int) -> str:
    rel = (seat - dealer) % 4
    return ("dealer", "leader", "chooser", "first doubler")[rel]


def format_playout(p) -> list[str]:
    """A deal as a Bonken player would read it."""
    from bonken_sim.engine.strategies import strategy_names

    v = p.variant
    lines = [
        f"seed {p.seed}, deal {p.deal}: {p.contract_name}"
        + (f" (trump {v.trump})" if v.trump else "")
        + f", dealer seat {p.dealer}, strategies {strategy_names(p.strategies)}"
        + ("" if p.ruleset.is_standard else f", ruleset {p.ruleset.name}"),
        "",
    ]
    for s in range(4):
        lines.append(f"  seat {s} ({_seat_role(s, p.dealer):13s}) {hand_str(p.hands[s])}")
    lines.append("")
    if not p.is_domino:
        lines.append("  (each card is shown as seat:card, in playing order)")
    if p.is_domino:
        held = [bin(h).count("1") for h in p.hands]
        for i, (c, seat) in enumerate(zip(p.plays, p.seats, strict=True)):
            if c is None:
                lines.append(f"  turn {i + 1:3d}: seat {seat} passes")
                continue
            held[seat] -= 1
            note = "  (out)" if held[seat] == 0 else ""
            if sum(1 for h in held if h) == 0:
                note = "  (last card)"
            lines.append(f"  turn {i + 1:3d}: seat {seat} lays {card_str(c)}{note}")
        order = ", ".join(f"seat {s}" for s in p.out_order)
        lines.append("")
        lines.append(f"  went out in order: {order}")
    else:
        for t, trick in enumerate(p.trick_results()):  # as the engine played and scored them
            shown = "  ".join(
                f"{q}:{card_str(c)}" for q, c in zip(trick.seats, trick.cards, strict=True)
            )
            lines.append(
                f"  trick {t + 1:2d}: seat {trick.leader} leads  {shown}   "
                f"won by seat {trick.winner}  {trick.points:+d}"
            )
    lines.append("")
    lines.append("  scores: " + "  ".join(f"seat {s}: {p.scores[s]:+d}" for s in range(4)))
    if not p.is_domino:
        lines.append("  tricks: " + "  ".join(f"seat {s}: {p.tricks[s]}" for s in range(4)))
    return lines


def _dealer_of(dealer: str):
    """--dealer of trace: a fixed seat 0-3, or 'rotate' (dealer = deal mod 4)."""
    if dealer == "rotate":
        return lambda d: d % 4
    try:
        fixed = int(dealer)
    except ValueError:
        raise UserError(f"--dealer must be 0-3 or 'rotate', got {dealer!r}") from None
    if fixed not in (0, 1, 2, 3):
        raise UserError(f"--dealer must be 0-3 or 'rotate', got {dealer!r}")
    return lambda d: fixed


@click.command()
@click.option(
    "--deals",
    required=True,
    metavar="N",
    callback=count_option,
    help="Number of deals (1e3, 10k, ...).",
)
@run_seed_option
@click.option(
    "--contracts",
    default="all",
    show_default=True,
    metavar="LIST",
    help="all, or a comma list such as bukken,troeven_H,troeven.",
)
@strategies_option
@expert_options
@click.option(
    "--dealer",
    default="0",
    show_default=True,
    metavar="SEAT",
    help="Dealer seat 0-3, or 'rotate' (dealer = deal mod 4).",
)
@click.option(
    "--out",
    "out",
    required=True,
    metavar="FILE",
    type=OutPath(dir_okay=False, path_type=Path),
    help="Output JSONL file ('-' for stdout).",
)
@click.option("--force", is_flag=True, help=FORCE_HELP)
@click.option(
    "--quiet", is_flag=True, help="No compile notice and no closing line (the records only)."
)
@ruleset_options
def trace(
    deals, seed, contracts, strategies, expert_samples, expert_exact, dealer, out, force,
    quiet, ruleset, rules_file,
):  # fmt: skip
    """Write every card of many deals as JSON lines, for independent checking."""
    from bonken_sim.engine.play import play as play_deal
    from bonken_sim.engine.strategies import parse_strategies

    rules = resolve_rules(ruleset, rules_file)
    variants = call_or_fail(parse_variants, contracts, rules)
    strats = call_or_fail(
        parse_strategies, expert_strategies(strategies, expert_samples, expert_exact)
    )
    dealer_of = _dealer_of(dealer)
    if deals > 10**7:
        raise UserError(f"--deals {deals:,} is too many for a trace file (at most 10,000,000)")
    if str(out) != "-":
        check_out_file(out, force)
    compile_first(plays("trace", strats), show=not quiet)

    def records():
        for d in range(deals):
            for v in variants:
                p = play_deal(seed, d, v, strats, dealer_of(d), ruleset=rules)
                yield json.dumps(p.record())

    if str(out) == "-":
        echo_lines(records())
        return
    write_out(out, records())
    if not quiet:
        click.echo(f"wrote {deals * len(variants):,} records to {out}", err=True)


@click.command()
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--quiet", is_flag=True, help="Print only the summary line.")
def replay(files, quiet):
    """Check trace files card by card under the rules (exit 1 if any record is illegal).

    A record with "scores" must replay to exactly those scores. A file that is not UTF-8
    JSON lines (a line that is not a JSON object, e.g. a truncated trace), or holds no
    record, is an error (exit 2).
    """
    compile_first(REPLAY)
    n_ok = n_bad = 0
    for path in files:
        ok, bad = _replay_file(path, quiet)
        n_ok, n_bad = n_ok + ok, n_bad + bad
    click.echo(f"{n_ok} legal, {n_bad} illegal")
    if n_bad:
        raise click.exceptions.Exit(1)


def _trace_record(line: str, where: str) -> dict:
    """One line of a trace file as its record; a line that is not JSON (a truncated trace, a
    file of something else) or not a JSON object is a UserError naming the file and line:
    the file is not a trace, and there is no play in it to call illegal."""
    try:
        record = json_document(line)
    except NotJson as exc:
        raise UserError(f"not a trace file: {where} is not JSON ({exc.why})") from None
    if not isinstance(record, dict):
        kind = {list: "an array", str: "a string", bool: "true or false", type(None): "null"}
        what = kind.get(type(record), "a number")
        raise UserError(f"not a trace file: {where} is {what}, not a trace record (a JSON object)")
    return record


# A trace record is one or two kB (a few more with long house-rule names); a longer line is
# not a record, and reading it whole could take all the memory there is (``/dev/zero``).
MAX_RECORD_CHARS = 1 << 20


def _numbered_lines(fh, path: Path):
    """(line number, line) of an open trace file, each line read with a bound: a line over
    ``MAX_RECORD_CHARS`` characters is a UserError, not a read to the end of the file."""
    lineno = 0
    while line := fh.readline(MAX_RECORD_CHARS + 1):
        lineno += 1
        if len(line) > MAX_RECORD_CHARS and not line.endswith("\n"):
            raise UserError(
                f"not a trace file: {path}:{lineno} is longer than {MAX_RECORD_CHARS:,} "
                "characters (a trace record is a few kB)"
            )
        yield lineno, line


def _replay_file(path: Path, quiet: bool) -> tuple[int, int]:
    """Replay every record of one trace file: (legal, illegal), each illegal one printed
    unless ``quiet``. A file that is not UTF-8 JSON lines (a line that is not a JSON object
    included), or holds no record, is a UserError: replay checks records, and there is
    nothing to check."""
    from bonken_sim.engine.play import IllegalPlay
    from bonken_sim.engine.play import replay as replay_record

    n_ok = n_bad = 0
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in _numbered_lines(fh, path):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                record = _trace_record(line, where)
                try:
                    scores = replay_record(record)
                    if "scores" in record and record["scores"] != scores:
                        raise IllegalPlay(f"scores {record['scores']} but the play gives {scores}")
                    n_ok += 1
                except IllegalPlay as exc:
                    n_bad += 1
                    if not quiet:
                        click.echo(f"{where}: illegal: {exc}")
    except UnicodeDecodeError:
        raise UserError(f"not a trace file: {path} is not UTF-8 JSON lines") from None
    except OSError as exc:
        raise UserError(f"cannot read {path}: {exc.strerror or exc}") from None
    if n_ok + n_bad == 0:
        raise UserError(f"no records in {path}: a trace file has one JSON record per line")
    return n_ok, n_bad
