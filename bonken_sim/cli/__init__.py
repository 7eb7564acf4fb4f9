"""The ``bonken-sim`` command line. Thin: parsing and printing only."""

from __future__ import annotations

import atexit
import gc
import json
import os
import sys
import tempfile
from pathlib import Path

import click

from bonken_sim import __version__
from bonken_sim.rules.names import card_str, hand_str, make_variant, parse_variants
from bonken_sim.runs.options import parse_count, parse_seed


class UserError(click.ClickException):
    """A bad input: printed as one line, exit status 2."""

    exit_code = 2


def _wrap(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except (ValueError, OSError) as exc:
        raise UserError(str(exc)) from None


def _count(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_count(value, what=f"--{param.name.replace('_', '-')}")
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _seed(ctx, param, value):
    if value is None:
        return None
    try:
        return parse_seed(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


_RULESET_HELP = "A named ruleset (house rules): standard, fixed-order, double-points, strict."
_RULES_HELP = "A TOML rules file: a preset plus overrides (see the README, House rules)."


def _ruleset_options(f):
    """--ruleset NAME and --rules FILE on a command (at most one of them)."""
    f = click.option(
        "--rules",
        "rules_file",
        default=None,
        metavar="FILE.toml",
        type=click.Path(dir_okay=False, path_type=Path),
        help=_RULES_HELP,
    )(f)
    return click.option("--ruleset", default=None, metavar="NAME", help=_RULESET_HELP)(f)


def _resolve_rules(ruleset, rules_file):
    from bonken_sim.rules.rulesets import resolve

    return _wrap(resolve, ruleset, rules_file)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bonken-sim")
def cli() -> None:
    """Simulate the Dutch card game Bonken: play, trace and measure deals of every contract."""


@cli.command()
@click.option("--seed", required=True, callback=_seed, help="Run seed (0 to 2**64-1).")
@click.option("--deal", "deal", default="0", show_default=True, help="Deal index (0, 1, 2, ...).")
@click.option(
    "--contract",
    required=True,
    help="bukken, hartenjagen, herenboeren, vrouwen, hartenheer, laatste_slag, domino or troeven.",
)
@click.option("--trump", default=None, help="Trump for troeven: C, D, H, S or NT.")
@click.option(
    "--strategies",
    default="basic",
    show_default=True,
    help="One strategy for all seats or four, comma-separated (random, basic, advanced).",
)
@click.option("--dealer", default=0, show_default=True, help="Dealer seat 0-3.", type=int)
@click.option("--json", "as_json", is_flag=True, help="Print the trace record as JSON instead.")
@_ruleset_options
def play(seed, deal, contract, trump, strategies, dealer, as_json, ruleset, rules_file):
    """Play one deal of one contract and show every trick (or Domino turn)."""
    from bonken_sim.engine.play import play as play_deal

    try:
        deal_i = int(deal)
    except ValueError:
        raise UserError(f"--deal must be a non-negative integer, got {deal!r}") from None
    if deal_i < 0:
        raise UserError(f"--deal must be a non-negative integer, got {deal!r}")
    rules = _resolve_rules(ruleset, rules_file)
    variant = _wrap(make_variant, contract, trump, ruleset=rules)
    p = _wrap(play_deal, seed, deal_i, variant, strategies, dealer, ruleset=rules)
    if as_json:
        click.echo(json.dumps(p.record()))
        return
    for line in format_playout(p):
        click.echo(line)


def _seat_role(seat: int, dealer: int) -> str:
    rel = (seat - dealer) % 4
    return ("dealer", "leader", "chooser", "first doubler")[rel]


def format_playout(p) -> list[str]:
    """A deal as a Bonken player would read it."""
    from bonken_sim.engine.play import strategy_names, trick_winner

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
        row = p.ruleset.table[v.id]
        from bonken_sim._core.ruleset import F_CARD_PTS, F_LAST_PTS, F_TRICK_PTS

        for t in range(len(p.plays) // 4):
            cards = p.plays[4 * t : 4 * t + 4]
            seats = p.seats[4 * t : 4 * t + 4]
            winner = seats[trick_winner(cards, v.trump)]
            pts = int(row[F_TRICK_PTS]) + sum(int(row[F_CARD_PTS + c]) for c in cards)
            if t == 12:
                pts += int(row[F_LAST_PTS])
            shown = "  ".join(f"{q}:{card_str(c)}" for q, c in zip(seats, cards, strict=True))
            lines.append(
                f"  trick {t + 1:2d}: seat {seats[0]} leads  {shown}   "
                f"won by seat {winner}  {pts:+d}"
            )
    lines.append("")
    lines.append("  scores: " + "  ".join(f"seat {s}: {p.scores[s]:+d}" for s in range(4)))
    if not p.is_domino:
        lines.append("  tricks: " + "  ".join(f"seat {s}: {p.tricks[s]}" for s in range(4)))
    return lines


@cli.command()
@click.option("--deals", required=True, callback=_count, help="Number of deals (1e3, 10k, ...).")
@click.option("--seed", required=True, callback=_seed, help="Run seed (0 to 2**64-1).")
@click.option(
    "--contracts",
    default="all",
    show_default=True,
    help="all, or a comma list such as bukken,troeven_H,troeven.",
)
@click.option(
    "--strategies",
    default="basic",
    show_default=True,
    help="One strategy for all seats or four, comma-separated.",
)
@click.option(
    "--dealer",
    default="0",
    show_default=True,
    help="Dealer seat 0-3, or 'rotate' (dealer = deal mod 4).",
)
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Output JSONL file ('-' for stdout).",
)
@_ruleset_options
def trace(deals, seed, contracts, strategies, dealer, out, ruleset, rules_file):
    """Write every card of many deals as JSON lines, for independent checking."""
    from bonken_sim.engine.play import parse_strategies
    from bonken_sim.engine.play import play as play_deal

    rules = _resolve_rules(ruleset, rules_file)
    variants = _wrap(parse_variants, contracts, rules)
    strats = _wrap(parse_strategies, strategies)
    if dealer == "rotate":
        dealer_of = lambda d: d % 4  # noqa: E731
    else:
        try:
            fixed = int(dealer)
        except ValueError:
            raise UserError(f"--dealer must be 0-3 or 'rotate', got {dealer!r}") from None
        if fixed not in (0, 1, 2, 3):
            raise UserError(f"--dealer must be 0-3 or 'rotate', got {dealer!r}")
        dealer_of = lambda d: fixed  # noqa: E731
    if deals > 10**7:
        raise UserError(f"--deals {deals:,} is too many for a trace file (at most 10,000,000)")

    def records():
        for d in range(deals):
            for v in variants:
                p = play_deal(seed, d, v, strats, dealer_of(d), ruleset=rules)
                yield json.dumps(p.record())

    if str(out) == "-":
        for line in records():
            click.echo(line)
        return
    _write_atomic(out, records())
    click.echo(f"wrote {deals * len(variants):,} records to {out}", err=True)


def _write_atomic(path: Path, lines) -> None:
    """Write to a hidden temporary file beside ``path`` and rename it when complete."""
    path = path.expanduser()
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise UserError(f"--out {path} is a directory")
    if not parent.is_dir():
        raise UserError(f"cannot write {path}: directory {parent} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=parent)
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            for line in lines:
                fh.write(line)
                fh.write("\n")
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


@cli.command()
@click.argument(
    "files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--quiet", is_flag=True, help="Print only the summary line.")
def replay(files, quiet):
    """Check trace files card by card under the rules (exit 1 if any record is illegal).

    A record with "scores" must replay to exactly those scores.
    """
    from bonken_sim.engine.play import IllegalPlay
    from bonken_sim.engine.play import replay as replay_record

    n_ok = n_bad = 0
    for path in files:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                where = f"{path}:{lineno}"
                try:
                    record = json.loads(line)
                    if not isinstance(record, dict):
                        raise IllegalPlay("not a JSON object")
                    scores = replay_record(record)
                    if "scores" in record and list(record["scores"]) != scores:
                        raise IllegalPlay(f"scores {record['scores']} but the play gives {scores}")
                    n_ok += 1
                except json.JSONDecodeError as exc:
                    n_bad += 1
                    if not quiet:
                        click.echo(f"{where}: not JSON: {exc.msg}")
                except IllegalPlay as exc:
                    n_bad += 1
                    if not quiet:
                        click.echo(f"{where}: illegal: {exc}")
    click.echo(f"{n_ok} legal, {n_bad} illegal")
    if n_bad:
        raise click.exceptions.Exit(1)


@cli.command("rules")
@click.argument("name", required=False)
@click.option(
    "--rules",
    "rules_file",
    default=None,
    metavar="FILE.toml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Describe a rules file instead of a named ruleset.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the resolved ruleset as JSON.")
def rules_cmd(name, rules_file, as_json):
    """Describe a ruleset in words (without NAME: list the named rulesets)."""
    from bonken_sim.rules.rulesets import PRESET_SUMMARIES, PRESETS

    if name is None and rules_file is None:
        if as_json:
            click.echo(json.dumps({k: r.to_dict() for k, r in PRESETS.items()}, indent=2))
            return
        click.echo("Named rulesets (bonken-sim rules NAME describes one):")
        for key, text in PRESET_SUMMARIES.items():
            click.echo(f"  {key:14s} {text}")
        click.echo("A rules file (--rules FILE.toml) starts from one of them; see the README.")
        return
    r = _resolve_rules(name, rules_file)
    if as_json:
        click.echo(json.dumps(r.to_dict(), indent=2))
        return
    for line in r.describe():
        click.echo(line)


@cli.command()
@click.option(
    "--deals",
    default="200k",
    show_default=True,
    callback=_count,
    help="Fresh deals per timed repeat.",
)
@click.option(
    "--repeats",
    default=5,
    show_default=True,
    type=click.IntRange(1, 100),
    help="Timed repeats; medians are reported.",
)
@click.option(
    "--threads", default="1,2", show_default=True, help="Thread counts to measure, comma-separated."
)
@click.option(
    "--reference-deals",
    default=40,
    show_default=True,
    type=click.IntRange(0, 10_000),
    help="Deals for the pure-Python reference speed-up (0 to skip).",
)
@click.option(
    "--out",
    "out_dir",
    default="benchmarks/results",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for the JSON result.",
)
@click.option(
    "--strategies",
    default="random,basic,advanced",
    show_default=True,
    help="Strategy tiers to measure, comma-separated (each plays all four seats).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result document as JSON.")
def bench(deals, repeats, threads, reference_deals, out_dir, strategies, as_json):
    """Measure deal-playouts per second per strategy, variant and thread count."""
    from bonken_sim.bench.bench import run_bench

    try:
        counts = tuple(int(t) for t in threads.split(","))
    except ValueError:
        raise UserError(
            f"--threads must be a comma list of whole numbers, got {threads!r}"
        ) from None
    if not counts or any(t < 1 or t > 256 for t in counts):
        raise UserError(f"--threads must be between 1 and 256, got {threads!r}")
    from bonken_sim.bench.bench import STRATEGIES

    tiers = tuple(t.strip().lower() for t in strategies.split(","))
    bad = [t for t in tiers if t not in STRATEGIES]
    if bad or len(set(tiers)) != len(tiers):
        raise UserError(
            f"--strategies must be distinct names from {', '.join(STRATEGIES)}, got {strategies!r}"
        )
    echo = (lambda *a, **k: None) if as_json else click.echo
    result = _wrap(
        run_bench,
        strategies=tiers,
        deals=deals,
        repeats=repeats,
        threads=counts,
        reference_deals=reference_deals,
        out_dir=out_dir,
        echo=echo,
    )
    if as_json:
        click.echo(json.dumps(result, indent=2))


@cli.command()
def warmup():
    """Compile every numba kernel into the on-disk cache and say how long it took."""
    from bonken_sim._core._jit import cache_dir
    from bonken_sim.engine.warmup import warmup as do_warmup

    seconds = do_warmup()
    click.echo(f"kernels ready in {seconds:.1f} s (cache: {cache_dir()})")


@cli.command()
@click.option("--deals", default="100k", show_default=True, callback=_count, help="Deals per rung.")
@click.option("--seed", default="1", show_default=True, callback=_seed, help="Seed of the deals.")
@click.option("--threads", default=None, type=click.IntRange(1, 256), help="Threads (all cores).")
@click.option(
    "--out",
    default="results/ladder.json",
    show_default=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Where to save the tables as JSON ('-' for none).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the JSON document instead of tables.")
def ladder(deals, seed, threads, out, as_json):
    """Measure each step of the strategy ladder: card play, contract choice, doubling."""
    from bonken_sim.analyses.ladder import run_ladder, to_json, to_text

    if str(out) != "-":
        if out == Path("results/ladder.json"):
            _wrap(out.parent.mkdir, exist_ok=True)
        if out.is_dir() or not out.expanduser().parent.is_dir():
            raise UserError(f"cannot write --out {out}: not a file in an existing directory")
    result = _wrap(run_ladder, deals, seed, threads)
    doc = to_json(result)
    if str(out) != "-":
        _wrap(_write_atomic, out, [json.dumps(doc, indent=1)])
    click.echo(json.dumps(doc, indent=2) if as_json else to_text(result))
    if str(out) != "-" and not as_json:
        click.echo(f"\nsaved {out}", err=True)


# --- executors (run, game, tournament) ----------------------------------------------------

_EXECUTOR_HELP = (
    "Where the work runs: local (threads in this process), process (a pool of worker "
    "processes) or dask (a Dask cluster; needs the dask extra). [default: local]"
)
_WORKERS_HELP = (
    "Worker processes for --executor process, or for the local Dask cluster started when "
    "--scheduler is not given (1 thread each). [default: the CPUs available]"
)
_SCHEDULER_HELP = "Address of a running Dask scheduler (tcp://host:8786) for --executor dask."
_WRITE_PARTS_HELP = (
    "With process or dask: 'workers' write their Parquet parts into --out themselves (it "
    "must be a path every worker sees), or 'driver': they send them back to be written "
    "here (no shared filesystem needed). Ignored in-process. [default: workers]"
)


def _executor_options(fn=None, *, parts: bool = True, envvar: bool = False):
    """--executor, --workers, --scheduler (and --write-parts) on a command."""

    def env(name: str) -> str | None:
        return f"BONKEN_SIM_{name}" if envvar else None

    def deco(f):
        if parts:
            f = click.option(
                "--write-parts",
                "write_parts",
                metavar="WHO",
                envvar=env("WRITE_PARTS"),
                help=_WRITE_PARTS_HELP,
            )(f)
        f = click.option(
            "--scheduler", metavar="ADDRESS", envvar=env("SCHEDULER"), help=_SCHEDULER_HELP
        )(f)
        f = click.option("--workers", metavar="N", envvar=env("WORKERS"), help=_WORKERS_HELP)(f)
        f = click.option(
            "--executor",
            metavar="local|process|dask",
            envvar=env("EXECUTOR"),
            help=_EXECUTOR_HELP,
        )(f)
        return f

    return deco(fn) if fn is not None else deco


def _where(spec, threads: int) -> str:
    """``2 threads`` in-process, or ``1 thread per task on a process pool of 2 workers``."""
    text = f"{threads} thread{'s' if threads != 1 else ''}"
    return text if spec.local else f"{text} per task on {spec.describe()}"


# --- bonken-sim game / tournament ---------------------------------------------------------


def _profiles_help() -> str:
    from bonken_sim.engine.games import PROFILES

    return "Player profiles: " + ", ".join(PROFILES) + " (see the README)."


@cli.command()
@click.option("--games", required=True, help="Number of games (1e5, 10k, ...).")
@click.option("--seed", default=None, help="Run seed (drawn and printed when not given).")
@click.option(
    "--players",
    default="basic",
    show_default=True,
    help="One profile for every seat, or four comma-separated (seat 0 … 3).",
)
@click.option(
    "--order", default=None, help="Contract order: free or fixed (default: the ruleset's)."
)
@click.option("--doubling", default=None, help="Doubling: on or off (default: the ruleset's).")
@click.option("--threads", default=None, type=int, help="Threads (default: all cores).")
@click.option("--chunk-size", default=None, help="Games per Parquet part (default 20k).")
@click.option("--out", default=None, type=click.Path(path_type=Path), help="Run directory.")
@click.option("--resume", is_flag=True, help="Complete an interrupted run in --out.")
@click.option("--force", is_flag=True, help="Replace an existing game run in --out.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@click.option("--quiet", is_flag=True, help="No progress bar and no summary.")
@_executor_options
@_ruleset_options
def game(
    games,
    seed,
    players,
    order,
    doubling,
    threads,
    chunk_size,
    out,
    resume,
    force,
    as_json,
    quiet,
    executor,
    workers,
    scheduler,
    write_parts,
    ruleset,
    rules_file,
):
    """Play full 11-deal games (choice, doubling, settlement) into a Parquet run directory."""
    from bonken_sim.cli.console import ProgressBar
    from bonken_sim.runs.games import GameRunError, GameRunInterrupted, make_game_config, run_games

    rules = _resolve_rules(ruleset, rules_file) if (ruleset or rules_file) else None
    try:
        cfg = make_game_config(
            games,
            seed,
            players,
            order,
            doubling,
            threads,
            chunk_size,
            out,
            executor=executor,
            workers=workers,
            scheduler=scheduler,
            write_parts=write_parts,
            ruleset=rules,
        )
    except GameRunError as exc:
        raise UserError(str(exc)) from None
    if not quiet and not as_json:
        click.echo(
            f"bonken-sim game: {cfg.games:,} games, seed {cfg.seed}"
            f"{' (drawn)' if cfg.seed_drawn else ''}, players {','.join(cfg.players)}, "
            f"order {cfg.order}, doubling {'on' if cfg.doubling else 'off'}, "
            + (f"ruleset {cfg.rules['name']}, " if cfg.rules is not None else "")
            + f"{_where(cfg.executor_spec, cfg.threads)}",
            err=True,
        )
    bar = ProgressBar(unit="games") if not quiet and sys.stderr.isatty() else None
    try:
        result = run_games(cfg, resume=resume, force=force, progress=bar)
    except GameRunInterrupted as exc:
        if bar is not None:
            bar.clear()
        click.echo(f"bonken-sim: {exc}", err=True)
        raise click.exceptions.Exit(130) from None
    except (GameRunError, OSError) as exc:
        if bar is not None:
            bar.clear()
        raise UserError(str(exc)) from None
    if bar is not None:
        bar.clear()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    elif not quiet:
        rate = result.played / result.play_seconds if result.play_seconds else 0.0
        click.echo(
            f"{result.played:,} games played into {result.out} ({result.parts} parts) in "
            f"{result.wall_seconds:.1f} s, {rate:,.0f} games/s"
        )


game.help = f"{game.help}\n\n{_profiles_help()}"


@cli.command()
@click.option("--games", required=True, callback=_count, help="Games in all (1e5, 10k, ...).")
@click.option("--profiles", required=True, help="2 to 4 profiles, comma-separated.")
@click.option("--seed", default="1", show_default=True, callback=_seed, help="Seed of the deals.")
@click.option(
    "--order", default=None, help="Contract order: free or fixed (default: the ruleset's)."
)
@click.option("--doubling", default=None, help="Doubling: on or off (default: the ruleset's).")
@click.option("--threads", default=None, type=click.IntRange(1, 256), help="Threads (all cores).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document on stdout.")
@_executor_options(parts=False)
@_ruleset_options
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

    spec = _wrap(make_spec, executor, workers, scheduler)
    names = _wrap(parse_tournament_profiles, profiles)
    rules = _resolve_rules(ruleset, rules_file) if (ruleset or rules_file) else None
    if order is None:
        order = rules.order if rules else "free"
    if doubling is None:
        doubling = "off" if rules and not rules.doubling else "on"
    if order not in ("free", "fixed"):
        raise UserError(f"--order must be free or fixed, got {order!r}")
    if doubling not in ("on", "off"):
        raise UserError(f"--doubling must be on or off, got {doubling!r}")
    result = _wrap(
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
    click.echo(json.dumps(to_json(result), indent=1) if as_json else to_text(result))


tournament.help = f"{tournament.help}\n\n{_profiles_help()}"


# --- bonken-sim run / summary ------------------------------------------------------------

_RUN_KEYS = (
    "deals",
    "seed",
    "strategies",
    "contracts",
    "threads",
    "chunk_size",
    "out",
    "resume",
    "force",
    "json",
    "quiet",
    "executor",
    "workers",
    "scheduler",
    "write_parts",
    "ruleset",
    "rules",
)


def _load_run_config(ctx, param, value):
    """``--config run.toml``: its keys (top level or a [run] table) become the defaults that
    environment variables and the command line override."""
    if value is None:
        return None
    import tomllib

    try:
        with open(value, "rb") as fh:
            doc = tomllib.load(fh)
    except OSError as exc:
        raise UserError(f"--config {value}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"--config {value}: not valid TOML: {exc}") from None
    if isinstance(doc.get("run"), dict):
        doc = doc["run"]
    defaults = {}
    for key, item in doc.items():
        name = key.replace("-", "_")
        if name not in _RUN_KEYS:
            known = ", ".join(k.replace("_", "-") for k in _RUN_KEYS)
            raise UserError(f"--config {value}: unknown option {key!r} (known: {known})")
        if name == "json":
            name = "as_json"
        if name == "rules":
            name = "rules_file"
        if isinstance(item, list):
            item = ",".join(str(x) for x in item)
        defaults[name] = item
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return value


@cli.command("run")
@click.option(
    "--deals",
    metavar="N",
    envvar="BONKEN_SIM_DEALS",
    help="Number of deals: 1e6, 2.5M, 10k, 1_000_000.",
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
        "One strategy for all seats or four, comma-separated (random, basic, advanced). "
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
    metavar="T",
    envvar="BONKEN_SIM_THREADS",
    help="Worker threads. [default: the CPUs available]",
)
@click.option(
    "--chunk-size",
    "chunk_size",
    metavar="K",
    envvar="BONKEN_SIM_CHUNK_SIZE",
    help="Deals per Parquet part; memory grows with it. [default: 100k]",
)
@click.option(
    "--out",
    metavar="DIR",
    envvar="BONKEN_SIM_OUT",
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
    metavar="FILE",
    envvar="BONKEN_SIM_CONFIG",
    is_eager=True,
    expose_value=False,
    callback=_load_run_config,
    help="A TOML file setting any of these options (env vars BONKEN_SIM_<OPTION> "
    "and the command line win).",
)
@click.option(
    "--ruleset",
    metavar="NAME",
    envvar="BONKEN_SIM_RULESET",
    help=_RULESET_HELP + " [default: standard]",
)
@click.option(
    "--rules",
    "rules_file",
    metavar="FILE.toml",
    envvar="BONKEN_SIM_RULES",
    help=_RULES_HELP,
)
@_executor_options(envvar=True)
def run_cmd(
    deals,
    seed,
    strategies,
    contracts,
    threads,
    chunk_size,
    out,
    resume,
    force,
    as_json,
    quiet,
    executor,
    workers,
    scheduler,
    write_parts,
    ruleset,
    rules_file,
):
    """Play many deals in every contract variant and write a Parquet run directory."""
    import dataclasses

    from bonken_sim.cli.console import ProgressBar, run_summary
    from bonken_sim.runs.deals import RunError, RunInterrupted, default_out, make_config
    from bonken_sim.runs.deals import run as run_deals

    try:
        cfg = make_config(
            deals=deals,
            seed=seed,
            strategies=strategies,
            contracts=contracts,
            threads=threads,
            chunk_size=chunk_size,
            out=out,
            resume=resume,
            force=force,
            executor=executor,
            workers=workers,
            scheduler=scheduler,
            write_parts=write_parts,
            ruleset=ruleset,
            rules_file=rules_file,
        )
        if cfg.out is None:
            cfg = dataclasses.replace(cfg, out=default_out(cfg.seed))
    except (RunError, ValueError) as exc:
        raise UserError(str(exc)) from None
    bar = ProgressBar() if not quiet and sys.stderr.isatty() else None

    def started(cfg, done):
        if quiet:
            return
        what = f"resuming at {done:,} deals," if cfg.resume else "writing"
        click.echo(
            f"bonken-sim run: {cfg.deals:,} deals, seed {cfg.seed}"
            f"{' (drawn)' if cfg.seed_drawn else ''}, {len(cfg.contracts)} variants, "
            f"ruleset {cfg.ruleset.name}, "
            f"{_where(cfg.executor_spec, cfg.threads)}; {what} {cfg.out}",
            err=True,
        )

    try:
        result = run_deals(cfg, progress=bar, on_start=started)
    except RunInterrupted as exc:
        if bar is not None:
            bar.clear()
        click.echo(f"bonken-sim: {exc.message}", err=True)
        raise click.exceptions.Exit(130) from None
    except (RunError, ValueError, OSError) as exc:
        if bar is not None:
            bar.clear()
        raise UserError(str(exc)) from None
    if bar is not None:
        bar.clear()
    if as_json:
        click.echo(json.dumps(result.to_dict(), indent=1))
    elif not quiet:
        for line in run_summary(result):
            click.echo(line)


@cli.command()
@click.argument("run_a", type=click.Path(path_type=Path))
@click.argument("run_b", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
def compare(run_a, run_b, as_json):
    """Two runs of the same seed (e.g. two rulesets): per variant and seat, the paired
    difference of mean scores B − A with 95% CIs. Two game runs: per seat and profile the
    change in win rate and total, per contract the change in the chooser's score."""
    from bonken_sim.analyses.compare import compare_runs, to_json, to_text

    doc = _wrap(compare_runs, run_a, run_b)
    if as_json:
        click.echo(json.dumps(to_json(doc), indent=1))
        return
    for line in to_text(doc):
        click.echo(line)


@cli.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def summary(run_dir, as_json):
    """Mean raw score per contract variant and seat, with 95% CIs, of a run directory."""
    from bonken_sim.cli.console import score_table
    from bonken_sim.runs.storage import summarize

    doc = _wrap(summarize, run_dir)
    if as_json:
        click.echo(json.dumps(doc, indent=1))
        return
    for line in score_table(doc):
        click.echo(line)


@cli.command()
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
    default="1e5",
    show_default=True,
    metavar="N",
    help="Conditional deals (and as many unconditional ones for the averages).",
)
@click.option("--seed", metavar="S", help="Seed (0 to 2**64-1); drawn and printed if not given.")
@click.option(
    "--strategies",
    default="basic",
    show_default=True,
    metavar="LIST",
    help="One strategy for all seats or four, comma-separated (random, basic, advanced).",
)
@click.option("--threads", metavar="T", help="Worker threads. [default: the CPUs available]")
@click.option(
    "--turns-left",
    metavar="K",
    help="The chooser's choosing turns left in this game, this one included (1-3): the "
    "recommendation then decides when to spend troeven as the game profiles do.",
)
@click.option(
    "--reference",
    metavar="RUN_DIR",
    help="Take the contract averages from this bonken-sim run (same strategies and ruleset, "
    "dealer 0) instead of simulating them (reading takes about 0.6 s per million deals).",
)
@_ruleset_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead.")
def advise(
    hand,
    seat,
    available,
    trump_used,
    deals,
    seed,
    strategies,
    threads,
    turns_left,
    reference,
    ruleset,
    rules_file,
    as_json,
):
    """Which contract to choose and whom to double, for the hand in front of you.

    Keeps your 13 cards at your seat, deals the other 39 at random and plays every contract
    that can still be chosen; compares your score with the contract's average at your seat.
    """
    from bonken_sim.analyses.advise import AdviseError, make_config
    from bonken_sim.analyses.advise import advise as run_advise
    from bonken_sim.analyses.advise_text import advice_lines

    try:
        cfg = make_config(
            hand=hand,
            seat=seat,
            available=available,
            trump_used=trump_used,
            deals=deals,
            seed=seed,
            strategies=strategies,
            threads=threads,
            ruleset=ruleset,
            rules_file=rules_file,
            turns_left=turns_left,
            reference=reference,
        )
    except AdviseError as exc:
        raise UserError(str(exc)) from None
    from bonken_sim.analyses.advise_reference import ReferenceError
    from bonken_sim.cli.console import ProgressBar

    bar = ProgressBar() if sys.stderr.isatty() else None
    try:
        doc = run_advise(cfg, progress=bar)
    except ReferenceError as exc:
        raise UserError(str(exc)) from None
    finally:
        if bar is not None:
            bar.clear()
    if as_json:
        click.echo(json.dumps(doc, indent=1))
        return
    for line in advice_lines(doc):
        click.echo(line)


@cli.command()
@click.argument("run_dir", type=click.Path(path_type=Path))
@click.option(
    "--out",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="Report folder. [default: RUN_DIR/_report]",
)
@click.option(
    "--format",
    "formats",
    metavar="LIST",
    default="html,md",
    show_default=True,
    help="Pages to write: html, md or both (figures and CSV tables are always written).",
)
@click.option(
    "--workers",
    metavar="N",
    type=click.IntRange(1, 64),
    default=None,
    help="Worker processes. [default: the CPUs available, at most 4]",
)
@click.option(
    "--no-policy",
    "no_policy",
    is_flag=True,
    help="Leave out the fitted contract-choice and doubling policies.",
)
@click.option(
    "--compare-games",
    "compare_games",
    metavar="DIR",
    type=click.Path(path_type=Path),
    help="A game run of the same games with the other --doubling: the effect of doubling "
    "on win rates (RUN_DIR must be a game run).",
)
@click.option("--quiet", is_flag=True, help="Print nothing on success.")
def report(run_dir, out, formats, workers, no_policy, compare_games, quiet):
    """Write the report of a run or a game run: figures, CSV tables, report.html and
    report.md."""
    from bonken_sim.report.pool import default_workers, start_early

    workers = default_workers() if workers is None else workers
    start_early(run_dir, workers)
    from bonken_sim.report import ReportError, write_report
    from bonken_sim.report.build import parse_formats

    try:
        fmts = parse_formats(formats)
        result = write_report(
            run_dir,
            out,
            fmts,
            workers=workers,
            fitted=not no_policy,
            compare_games=compare_games,
        )
    except (ReportError, ValueError, OSError) as exc:  # NotARun is a ValueError
        raise UserError(str(exc)) from None
    if not quiet:
        pages = [p for p in ("report.html", "report.md") if p in result.files]
        what = "games" if "figures/game_results.png" in result.files else "deals"
        click.echo(
            f"report of {result.deals:,} {what} written in {result.seconds:.1f} s: "
            + ", ".join(str(result.out / p) for p in pages)
        )


def main(argv: list[str] | None = None) -> int:
    """Entry point: every user error is one line on stderr and a non-zero exit."""
    if argv is None:
        # The console script: the process ends after this call. Frozen objects are left out of
        # the interpreter's last garbage collection, which otherwise walks numba's millions of
        # objects for about 0.25 s at every exit (measured); files and pools are closed by then.
        atexit.register(gc.freeze)
    try:
        rv = cli.main(args=argv, prog_name="bonken-sim", standalone_mode=False)
    except click.exceptions.Exit as exc:
        return int(exc.exit_code or 0)
    except click.exceptions.Abort:
        click.echo("bonken-sim: aborted", err=True)
        return 130
    except click.ClickException as exc:
        msg = exc.format_message().replace("\n", " ")
        click.echo(f"bonken-sim: error: {msg}", err=True)
        return exc.exit_code if exc.exit_code else 2
    except KeyboardInterrupt:
        click.echo("bonken-sim: interrupted", err=True)
        return 130
    except BrokenPipeError:
        return 0
    # Without standalone mode click returns a command's exit code (ctx.exit) as the value.
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
