"""``bonken-sim report``: aggregate a run, draw the figures, write the report folder.

This module only orchestrates: ``deals.stats.aggregate`` (or ``games.stats``) reads the run,
the sections (``deals.sections``, ``games.sections``, ``games.game_set.section``,
``ladder.section``) turn the statistics into tables, figure specs and text, ``drawing``
draws the figures on the worker pool, and ``render`` writes the pages.

The folder is built under a hidden temporary name beside its destination and renamed into
place when complete, so a failed or interrupted report never leaves a half-written one; a
previous report in the same place is replaced whole.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from bonken_sim.engine.provenance import versions
from bonken_sim.errors import UserFixableError
from bonken_sim.files import NotJson, json_document, nearest_existing
from bonken_sim.processes import (
    held_interrupts,
    let_a_stop_signal_land,
    stop_workers,
    workers_watched,
)
from bonken_sim.report.deals.sections.deal_page import GUIDE, deal_sections
from bonken_sim.report.deals.stats.aggregate import (
    ChoiceRule,
    DoubleRule,
    Pool,
    first_pass,
    open_run,
    second_pass,
)
from bonken_sim.report.games import stats as G
from bonken_sim.report.games.game_set.section import games_section
from bonken_sim.report.games.game_set.stats import (
    aggregate_game_set,
    chooser_means_by_variant,
    find_game_runs,
)
from bonken_sim.report.games.sections import GAME_GUIDE, game_sections
from bonken_sim.report.ladder.read import read_ladder, run_tier
from bonken_sim.report.ladder.section import ladder_section
from bonken_sim.report.page.drawing import FigureQueue, by_cost
from bonken_sim.report.page.figures import render_figure
from bonken_sim.report.page.meta import deal_run_meta, game_run_meta
from bonken_sim.report.page.pool import init_worker, pool_context, start_forkserver
from bonken_sim.report.page.render import html_page, markdown_page
from bonken_sim.report.page.section_types import page_parts
from bonken_sim.report.strong_play.read import StrongPlayError, read_strong
from bonken_sim.report.strong_play.section import strong_section
from bonken_sim.runs.lock import lock_or_refuse, writer_of
from bonken_sim.runs.manifest import NotARun
from bonken_sim.runs.storage import DEALS_DIR, VARIANT_NAMES

REPORT_FORMAT = "bonken-sim-report"
MARKER = "report.json"
FORMATS = ("html", "md")
DEFAULT_DIR = "_report"  # '_' keeps it out of the run's Parquet datasets (readers skip it)


class ReportError(UserFixableError, ValueError):
    """A report that cannot be written where asked (bad --out, bad --format)."""


# progress(stage, done, total): what the report is doing (see write_report)
Progress = Callable[[str, int, int], None]


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


@dataclass
class ReportResult:
    out: Path
    files: list[str]
    deals: int
    seconds: float
    aggregate_seconds: float


def parse_formats(text: str | Sequence[str]) -> tuple[str, ...]:
    items = text.split(",") if isinstance(text, str) else list(text)
    names = [i.strip().lower() for i in items if i.strip()]
    bad = [n for n in names if n not in FORMATS]
    if not names or bad:
        raise ReportError(
            f"--format must be a comma list of {', '.join(FORMATS)}, got {','.join(items)!r}"
        )
    return tuple(dict.fromkeys(names))


def check_out(run: Path, out: Path) -> None:
    """Refuse destinations that would overwrite the run's data, hide inside its datasets,
    or replace a folder that is not a previous report."""
    run_abs, out_abs = run.resolve(), out.resolve()
    if out_abs == run_abs:
        raise ReportError(f"--out {out} is the run directory itself; use {run / DEFAULT_DIR}")
    if out_abs.is_relative_to(run_abs):
        first = out_abs.relative_to(run_abs).parts[0]
        if first == DEALS_DIR or not first.startswith(("_", ".")):
            raise ReportError(
                f"--out {out}: inside the run directory only a name starting with '_' keeps "
                f"the report out of the run's Parquet data (default: {run / DEFAULT_DIR})"
            )
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out {out} exists and is not a directory")
    # the folder is made with mkdir(parents=True): the nearest ancestor there is (a dangling
    # link included) must be a directory
    ancestor = nearest_existing(out.parent) or Path(".")
    if not ancestor.is_dir():
        raise ReportError(f"cannot write the report to {out}: {ancestor} is not a directory")
    if out.is_dir() and any(out.iterdir()) and not is_report_dir(out):
        raise ReportError(
            f"--out {out} exists and is not a bonken-sim report; choose a new or empty directory"
        )


def _unless_written(open_fn: Callable[[Path], dict], root: Path) -> dict:
    """The manifest ``open_fn`` opens; a run that cannot be reported because another process
    is writing it right now is refused saying so, not as a run to complete or repair."""
    try:
        return open_fn(root)
    except NotARun:
        holder = writer_of(root)
        if holder is None:
            raise
        raise ReportError(
            f"{root} is being written by {holder.describe()}; report it when that has finished"
        ) from None


@contextmanager
def _locked_if_inside(run: Path, out: Path) -> Iterator[None]:
    """A report written into its run's directory holds the run's lock while it writes, so
    that no ``run --force`` or ``--resume`` changes the run under it (and it refuses while
    one does). A report elsewhere takes no lock: it only reads the run."""
    if not out.resolve().is_relative_to(run.resolve()):
        yield
        return
    lock = lock_or_refuse(run, ReportError)
    with lock if lock is not None else contextlib.nullcontext():
        yield


def is_report_dir(path: Path) -> bool:
    try:
        doc = json_document((path / MARKER).read_bytes())
    except (OSError, NotJson):
        return False
    return isinstance(doc, dict) and doc.get("format") == REPORT_FORMAT


def write_report(
    run: str | os.PathLike,
    out: str | os.PathLike | None = None,
    formats: str | Sequence[str] = FORMATS,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    workers: int = 1,
    fitted: bool = False,
    compare_games: str | os.PathLike | None = None,
    progress: Progress | None = None,
    games: Sequence[str | os.PathLike] = (),
    ladder: str | os.PathLike | None = None,
    strong_deals: str | os.PathLike | None = None,
    strong_games: Sequence[str | os.PathLike] = (),
) -> ReportResult:
    """Write the report of run directory ``run`` into ``out`` (default ``run/_report``).

    ``choice_rules`` (name → rule) add rows to the choice comparison and ``double_rules``
    (name → rule) a realised-gain figure each; see ``aggregate.ChoiceRule``/``DoubleRule``.
    ``workers`` > 1: that many processes share the aggregation and the drawing (they are
    spawned, so a script calling this needs the ``if __name__ == "__main__":`` guard);
    ``pool.default_workers()`` is what the command line uses. ``fitted``: add the fitted
    choice and doubling policies (``bonken_sim.models.choice``/``doubling``) as rules ``policy``.

    A game run (``bonken-sim game``) gets the game report instead (win rates, totals,
    per-contract contributions, doubling); the rules, ``workers`` and ``fitted`` do not apply
    to it. ``compare_games``: a second game run of the same games with the other doubling
    setting, for the effect of doubling on win rates (game runs only). ``games``: game runs
    (or folders of them) played under the run's rules, for a section on whole games (deal
    runs only; see ``games.game_set``). ``ladder``: a strategy ladder's JSON (``bonken-sim ladder
    --out``) with its expert rungs, for a section on how far the heuristic tiers' card play
    is from expert play (deal and game runs; see ``ladder.read``). ``strong_deals`` (a deal run
    of the strongest card play on the run's first deals) and ``strong_games`` (game runs of
    the strongest players): a section on whether the report's answers hold under strong play
    (deal runs only; see ``strong_play``).

    ``progress(stage, done, total)`` is told what is being done: the parts read, the figures
    drawn (``done`` of ``total``; total 0 for a stage without a count).
    """
    progress = progress or _no_progress
    t0 = time.perf_counter()
    root = Path(run)
    fmts = parse_formats(formats)
    if G.manifest_format(root) in G.GAME_FORMATS:
        if games:
            raise ReportError(
                f"--games adds games to a deal run's report; {root} is a game run itself"
            )
        if strong_deals is not None or strong_games:
            raise ReportError(
                f"--strong-deals and --strong-games add to a deal run's report; {root} is a "
                "game run"
            )
        game_manifest = _unless_written(G.open_game_run, root)
        strong = read_ladder(ladder, game_manifest) if ladder is not None else None
        dest = Path(out) if out is not None else root / DEFAULT_DIR
        check_out(root, dest)
        with _locked_if_inside(root, dest):
            return _write_games(
                root, dest, fmts, game_manifest, compare_games, strong, t0, progress
            )
    if compare_games is not None:
        open_run(root)  # a run that is not a run at all says so first
        raise ReportError(
            f"--compare-games needs a game run (bonken-sim game) as RUN_DIR; {root} is a deal run"
        )
    manifest = _unless_written(open_run, root)  # NotARun: a missing, foreign or incomplete run
    game_runs = find_game_runs(games, manifest) if games else []
    strong = read_ladder(ladder, manifest) if ladder is not None else None
    try:
        strong_runs = read_strong(strong_deals, strong_games, (root, manifest))
    except StrongPlayError as exc:
        raise ReportError(str(exc)) from None
    dest = Path(out) if out is not None else root / DEFAULT_DIR
    check_out(root, dest)
    workers = max(1, int(workers))
    if fitted:
        from bonken_sim.report.deals.stats.aggregate import run_layout
        from bonken_sim.report.deals.stats.policies import fitted_rules

        fit_choice, fit_double = fitted_rules(run_layout(root, manifest).dealer)
        choice_rules = {**fit_choice, **(choice_rules or {})}
        double_rules = {**fit_double, **(double_rules or {})}
    pool: Executor | None = None
    if workers > 1:
        start_forkserver()  # with Ctrl-C ignored, if start_early has not
        filters = list(warnings.filters)
        pool = ProcessPoolExecutor(
            workers, mp_context=pool_context(), initializer=init_worker, initargs=(filters,)
        )
    try:
        rules = (choice_rules, double_rules, game_runs, strong, strong_runs)
        with (
            _locked_if_inside(root, dest),
            workers_watched(pool) if pool is not None else contextlib.nullcontext(),
        ):
            return _write_deals(root, dest, fmts, manifest, rules, pool, workers, t0, progress)
    except BrokenProcessPool:
        if pool is not None:
            stop_workers(pool)
        let_a_stop_signal_land()  # workers killed by SIGTERM: this process is stopping too
        raise ReportError(
            "a worker process of the report died (killed, or out of memory?); "
            "try again, or with --workers 1"
        ) from None
    except BaseException:
        if pool is not None:
            stop_workers(pool)  # else joining the pool may wait for ever (see ``processes``)
        raise
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _write_deals(root, dest, fmts, manifest, rules, pool, workers, t0, progress):
    choice_rules, double_rules, game_runs, strong, strong_runs = rules
    n_parts = len(manifest["parts"])
    read = [0]

    def part_read() -> None:
        read[0] += 1
        progress("reading parts", read[0], n_parts)

    with _report_folder(dest) as (tmp, on_failure):
        progress("reading parts", 0, n_parts)
        stats, picks = first_pass(
            root, choice_rules, double_rules, manifest, Pool(pool, workers), part_read
        )
        dbl = list(double_rules or {})

        def base(name: str) -> str:
            return str(tmp / "figures" / name)

        queue = FigureQueue(pool, workers) if pool is not None else None
        if queue is not None:
            on_failure.append(queue.abort)
            # every figure but the choice comparison is drawn while this process runs the
            # second pass (it reads one score column: cheaper than keeping workers busy)
            _, early, _ = page_parts(deal_sections(stats, dbl, has_games=bool(game_runs)))
            queue.add([(n, early[n], base(n)) for n in by_cost(early)])
        progress("comparing the choice rules", 0, 0)
        second_pass(stats, picks, list(choice_rules or {}))
        t_agg = time.perf_counter() - t0
        built = deal_sections(stats, dbl, has_games=bool(game_runs))
        game_set = None  # the heuristic games' statistics, for the strong-play section too
        if game_runs:
            progress("reading the games", 0, 0)
            # the variants' means only: the contracts may end with the chooser's own troeven
            mu = chooser_means_by_variant(stats.variants, stats.mu_chooser[: len(stats.variants)])
            game_set = aggregate_game_set(game_runs, mu)
            built.append(games_section(game_set))
        if strong is not None:
            run = (stats.variants, run_tier(manifest))
            built.append(ladder_section(strong, run, len(built) + 1))
        if strong_runs is not None:
            progress("reading the strong-play runs", 0, 0)
            built.append(strong_section(strong_runs, (root, manifest), game_set, len(built) + 1))
        sections, draw, tabs = page_parts(built)
        items = {item.name: item for s in sections for item in s.figures}
        order = by_cost(items)
        pngs: dict[str, bytes] = {}
        if queue is not None:
            queue.add([(n, draw[n], base(n)) for n in order if n not in queue.names])
        files = _write_tables(tmp, tabs)

        def drawn(by_pool: int = 0) -> None:
            progress("drawing figures", len(pngs) + by_pool, len(order))

        if queue is not None:
            # this process draws too: the cheapest figures no worker has taken yet
            while (job := queue.take_cheapest()) is not None:
                drawn(queue.drawn())
                name, spec, path = job
                pngs[name] = render_figure(spec, path)
            pngs.update(queue.finish(on_wait=drawn))
        for name in order:
            if name not in pngs:
                drawn()
                pngs[name] = render_figure(draw[name], base(name))
            items[name].png = pngs[name]
            files += _figure_files(name)
        progress("writing pages", 0, 0)
        seed = manifest["config"].get("seed")
        title = f"Bonken simulation report: {stats.deals:,} deals, seed {seed}"
        page = (title, deal_run_meta(stats, root, game_runs), GUIDE, sections)
        head = {"run": str(root.resolve()), "deals": stats.deals, "seed": seed}
        if game_runs:
            head["games"] = [str(r.root.resolve()) for r in game_runs]
        if strong is not None:
            head["ladder"] = str(strong.path.resolve())
        if strong_runs is not None:
            if strong_runs.deals is not None:
                head["strong_deals"] = str(strong_runs.deals[0].resolve())
            head["strong_games"] = [str(r.root.resolve()) for r in strong_runs.games]
        seconds = _finish(tmp, dest, fmts, page, files, head, t0)
    return ReportResult(dest, sorted(files), stats.deals, seconds, t_agg)


def _write_games(root, dest, fmts, manifest, compare, strong, t0, progress) -> ReportResult:
    with _report_folder(dest) as (tmp, _):
        progress("reading the games", 0, 0)
        stats = G.aggregate_games(root, manifest)
        if compare is not None:
            stats.compare = G.compare_doubling(stats, compare)
        t_agg = time.perf_counter() - t0
        built = game_sections(stats)
        if strong is not None:
            # games play every variant; the profiles' card play is not one tier in general
            run = (VARIANT_NAMES, None)
            built.append(ladder_section(strong, run, len(built) + 1))
        sections, draw, tabs = page_parts(built)
        files = _write_tables(tmp, tabs)
        figures = [item for section in sections for item in section.figures]
        for k, item in enumerate(figures):
            progress("drawing figures", k, len(figures))
            item.png = render_figure(draw[item.name], str(tmp / "figures" / item.name))
            files += _figure_files(item.name)
        progress("writing pages", 0, 0)
        seed = manifest["config"].get("seed")
        title = f"Bonken game report: {stats.games:,} games, seed {seed}"
        page = (title, game_run_meta(stats, root), GAME_GUIDE, sections)
        head = {
            "kind": "games",
            "run": str(root.resolve()),
            "compared_with": None if compare is None else str(Path(compare).resolve()),
            "games": stats.games,
            "seed": seed,
        }
        seconds = _finish(tmp, dest, fmts, page, files, head, t0)
    return ReportResult(dest, sorted(files), stats.games, seconds, t_agg)


@contextmanager
def _report_folder(dest: Path) -> Iterator[tuple[Path, list[Callable[[], None]]]]:
    """The private folder a report is built in (with its ``figures`` and ``tables``), and a
    list of what to stop if the report fails. On failure the folder is removed, and an
    OSError becomes a ReportError naming ``dest``."""
    # named before it is made, so that an interrupt landing right after the mkdir still
    # finds it to remove
    tmp = dest.parent / f".{dest.name}.{secrets.token_hex(6)}.tmp"
    on_failure: list[Callable[[], None]] = []
    try:
        _make_private_dir(tmp, dest)
        (tmp / "figures").mkdir()
        (tmp / "tables").mkdir()
        yield tmp, on_failure
    except BaseException as exc:
        # Held: SIGTERM kills the workers as it reaches this process, whose interrupt may
        # be delivered again a moment later (cli.interrupts), after the broken pool has
        # brought us here; landing in the rmtree it left the folder behind.
        with held_interrupts():
            for stop in on_failure:
                stop()
            shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(exc, OSError):
            raise ReportError(f"cannot write the report to {dest}: {exc.strerror or exc}") from None
        raise


def _figure_files(name: str) -> list[str]:
    return [f"figures/{name}.png", f"figures/{name}.svg"]


def _make_private_dir(tmp: Path, dest: Path) -> None:
    """Make ``tmp``, the private folder beside ``dest`` that a report is built in. It is
    made first, so an unwritable destination fails now and not after the whole pass."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir(mode=0o700)
    except OSError as exc:
        raise ReportError(f"cannot write the report to {dest}: {exc.strerror or exc}") from None


def _write_tables(tmp: Path, tabs: dict[str, pd.DataFrame]) -> list[str]:
    """Each table as ``tables/<name>.csv``; returns the files written."""
    files = []
    for name, frame in tabs.items():
        frame.to_csv(tmp / "tables" / f"{name}.csv", index=False, float_format="%.10g")
        files.append(f"tables/{name}.csv")
    return files


def _finish(tmp: Path, dest: Path, fmts, page: tuple, files: list[str], head: dict, t0) -> float:
    """Write the pages (``page``: title, meta, guide, sections) and the marker (``head``
    first, then what every report records), then put the folder in place; returns the
    seconds since ``t0``."""
    title, meta, guide, sections = page
    if "html" in fmts:
        (tmp / "report.html").write_text(html_page(title, meta, guide, sections, tmp), "utf-8")
        files.append("report.html")
    if "md" in fmts:
        (tmp / "report.md").write_text(markdown_page(title, meta, guide, sections), "utf-8")
        files.append("report.md")
    seconds = time.perf_counter() - t0
    provenance = versions()
    doc = {
        "format": REPORT_FORMAT,
        "version": 1,
        **head,
        "bonken_sim": provenance["bonken_sim"],
        "versions": provenance,
        "generated": datetime.now(UTC).isoformat(timespec="seconds"),
        "formats": list(fmts),
        "files": sorted(files),
        "seconds": round(seconds, 2),
    }
    (tmp / MARKER).write_text(json.dumps(doc, indent=1) + "\n", "utf-8")
    _swap_into_place(tmp, dest)
    return seconds


def _swap_into_place(tmp: Path, dest: Path) -> None:
    """Rename the finished folder to ``dest``; a previous report there is replaced."""
    os.chmod(tmp, 0o755)  # mkdtemp makes it private; a report is meant to be shared
    if dest.exists():
        old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
        os.replace(dest, old)
        os.replace(tmp, dest)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, dest)
