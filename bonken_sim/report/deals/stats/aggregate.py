"""Streamed sufficient statistics of a run directory: the two passes, driven part by part
and shared between worker processes.

Results part ``k`` and deals part ``k`` cover the same deals, so each pair is read together
(``run_reader``), turned into a (variant, seat relation, deal) score array, and folded into
integer histograms (``part_histograms``, laid out in ``histograms``); the means, distributions and
rates of the report all come from them.

Two passes: the chooser's relative score of a contract (his score minus that contract's mean
chooser score) needs the means over the whole run before the per-deal hindsight choice
exists, so the choice comparison (``choice_comparison``) re-reads the chooser's score column only.

Memory: the only thing that grows with the run is what pass 2 needs per deal from pass 1:
each choice rule's pick and the chooser's own trump call (one byte each), and for a rule with
game values its best negative, call and gap (six bytes): about 90 MB for 10 million deals
with the fitted policy.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.processes import stop_workers
from bonken_sim.report.deals.stats.choice_comparison import (
    compare_choices,
    hindsight_gaps,
    price,
    tie_broken,
)
from bonken_sim.report.deals.stats.histograms import (
    GAME_DEALS,
    GAME_TROEVEN_DEALS,
    GameChoice,
    Hists,
    RunStats,
    chooser_means,
)
from bonken_sim.report.deals.stats.part_histograms import (
    GAP_SUFFIX,
    ChoiceRule,
    DoubleRule,
    call_source,
    fold_parts,
    has_own_call,
)
from bonken_sim.report.deals.stats.run_reader import Layout, open_run, run_layout

__all__ = ["ChoiceRule", "DoubleRule", "Pool", "aggregate", "first_pass", "open_run",
           "run_layout", "second_pass"]  # fmt: skip


def _fold_parts_compact(*args: Any) -> tuple[Hists, dict[int, dict[str, np.ndarray]]]:
    """:func:`fold_parts` in a worker: the counts go back as int32 (a bin holds at most one
    part's deals, < 2^31), half the bytes to pickle."""
    h, picks = fold_parts(*args)
    return h.astype(np.int32), picks


def _split(parts: Sequence[Any], k: int) -> list[list[Any]]:
    """Parts dealt round-robin to ``k`` groups (the last part is often shorter)."""
    groups: list[list[Any]] = [list(parts[i::k]) for i in range(k)]
    return [g for g in groups if g]


def _picklable(*objs: Any) -> bool:
    import pickle

    try:
        pickle.dumps(objs)
    except Exception:  # noqa: BLE001 - any failure means: run in this process
        return False
    return True


def _fold_parts_in_parallel(
    executor: Executor,
    layout: Layout,
    parts: Sequence[Mapping[str, Any]],
    double_rules: Mapping[str, DoubleRule] | None,
    choice_rules: Mapping[str, ChoiceRule] | None,
    absorb: Callable[[tuple[Hists, dict[int, dict[str, np.ndarray]]]], None],
    slots: int,
) -> None:
    """One task per part, taken by the workers from the front; this process takes parts from
    the back until it meets one a worker has. Results are merged as they arrive and dropped:
    memory stays a few parts, not the run.

    The tasks are submitted from a thread: the first submit to a fresh forkserver pool
    blocks until the server has imported its preload (about 2 s), and this process works
    through parts from the back meanwhile instead of waiting."""
    lock = threading.Lock()
    pending: dict[int, Future] = {}
    state: dict[int, str] = {}  # part index → submitting, submitted, mine or merged
    failure: list[BaseException] = []

    def feed() -> None:
        try:
            for p in parts:
                i = p["index"]
                # at most one task per worker: a task in the executor's queue can no longer
                # be cancelled, and this process would idle while it waits there
                while True:
                    with lock:
                        busy = [f for f in pending.values() if not f.done()]
                    if len(busy) < slots:
                        break
                    wait(busy, return_when=FIRST_COMPLETED)
                with lock:
                    if i in state:  # this process has reached the front
                        return
                    state[i] = "submitting"
                fut = executor.submit(_fold_parts_compact, layout, [p], double_rules, choice_rules)
                with lock:
                    pending[i], state[i] = fut, "submitted"
        except BaseException as exc:  # noqa: BLE001 - raised again by the driver
            failure.append(exc)

    def absorb_done(block: bool) -> None:
        with lock:
            futures = dict(pending)
        done = [i for i, f in futures.items() if f.done()]
        if block and not done and futures:
            finished = wait(list(futures.values()), return_when=FIRST_COMPLETED).done
            done = [i for i, f in futures.items() if f in finished]
        for i in done:
            with lock:
                fut = pending.pop(i)
                state[i] = "merged"
            absorb(fut.result())

    feeder = threading.Thread(target=feed, name="report-feeder", daemon=True)
    feeder.start()
    try:
        for part in reversed(parts):
            i = part["index"]
            with lock:
                if i not in state:
                    state[i] = "mine"  # the feeder stops when it gets here
                elif state[i] == "submitted" and pending[i].cancel():
                    del pending[i]
                    state[i] = "mine"
                else:  # being submitted, started by a worker, or already merged
                    break
            absorb(fold_parts(layout, [part], double_rules, choice_rules))
            absorb_done(block=False)
    except BaseException:
        # the report fails: its workers go (one cut short while it sent its result would
        # leave the feeder waiting for it for ever; see ``processes``)
        stop_workers(executor)
        raise
    finally:
        feeder.join()
    if failure:
        raise failure[0]
    while pending:
        absorb_done(block=True)


@dataclass(frozen=True)
class Pool:
    """Worker processes a pass may share its parts with: ``executor`` and its ``workers``
    (no executor, or one worker: this process does every part)."""

    executor: Executor | None = None
    workers: int = 1

    def shares(self, parts: Sequence[Any]) -> bool:
        """Whether the parts are shared out (there must be more than one of them)."""
        return self.executor is not None and self.workers > 1 and len(parts) > 1


def _parts_in_order(manifest: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return sorted(manifest["parts"], key=lambda p: p["index"])


def first_pass(
    path: str | os.PathLike,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    manifest: dict | None = None,
    pool: Pool = Pool(),
    on_part: Callable[[], None] | None = None,
) -> tuple[RunStats, dict[int, dict[str, np.ndarray]]]:
    """Pass 1 over a complete run: every statistic but the choice comparison, and the choice
    rules' picks that :func:`second_pass` needs; ``on_part()`` after each part (progress).

    With a ``pool`` of several workers the parts are shared between them (when the rules
    pickle); the histograms are the same bit for bit."""
    root = Path(path)
    manifest = manifest if manifest is not None else open_run(root)
    layout = run_layout(root, manifest)
    parts = _parts_in_order(manifest)
    parallel = pool.shares(parts) and _picklable(choice_rules, double_rules)
    V = len(layout.variants)
    own = has_own_call(layout.variants)
    hists = Hists.empty(V, list(double_rules or {}), V + own)
    picks: dict[int, dict[str, np.ndarray]] = {}

    def absorb(result: tuple[Hists, dict[int, dict[str, np.ndarray]]]) -> None:
        hists.merge(result[0])
        picks.update(result[1])
        if parallel and on_part is not None:  # one part each
            on_part()

    if not parallel:
        absorb(fold_parts(layout, parts, double_rules, choice_rules, on_part))
    else:
        assert pool.executor is not None
        _fold_parts_in_parallel(
            pool.executor, layout, parts, double_rules, choice_rules, absorb, pool.workers
        )
    call_rule = call_source(choice_rules, layout.variants)[1] if own else ""
    stats = RunStats(manifest, layout.variants, layout.dealer, hists, str(root), None, call_rule)
    return stats, picks


def game_choice(
    stats: RunStats,
    picks: Mapping[int, Mapping[str, np.ndarray]],
    rules: Sequence[str],
    parts: Sequence[Mapping[str, Any]],
) -> GameChoice:
    """How the run's choices are valued as a game values them (``GameChoice``): baselines,
    random choice as a game's mixture, and the troeven prices that hold hindsight and every
    rule with game values to the game's troeven quota (4 deals in 11)."""
    mu = chooser_means(stats.hists)
    V = len(stats.variants)
    troeven = np.array([v.startswith("troeven") for v in stats.variants])
    own = bool(stats.call_rule)
    baseline = np.where(troeven, mu[V], mu[:V]) if own else mu[:V].copy()
    share = np.where(troeven, GAME_TROEVEN_DEALS / max(1, troeven.sum()), 1.0) / GAME_DEALS
    weights = share / share.sum()
    if not (own and (~troeven).any()):
        return GameChoice(baseline, weights, troeven, None, {}, stats.call_rule)
    quota = float(weights[troeven].sum())
    layout = Layout(stats.root, stats.variants, stats.dealer)
    tau = {"hindsight": price(hindsight_gaps(layout, parts, baseline, troeven), quota)}
    for r in rules:
        gaps = [
            tie_broken(picks[p["index"]][r + GAP_SUFFIX], int(p["deal_start"]))
            for p in parts
            if r + GAP_SUFFIX in picks.get(p["index"], {})
        ]
        if len(gaps) == len(parts):
            tau[r] = price(np.concatenate(gaps), quota)
    return GameChoice(baseline, weights, troeven, quota, tau, stats.call_rule)


def second_pass(
    stats: RunStats,
    picks: Mapping[int, Mapping[str, np.ndarray]],
    rules: Sequence[str] = (),
    pool: Pool = Pool(),
) -> RunStats:
    """Pass 2: the choice comparison (hindsight, the ``rules`` picked in pass 1, each under
    the game's troeven quota where it can be, random), which needs each contract's mean
    chooser score over the whole run. Sets ``stats.choice`` (None with fewer than two
    variants)."""
    if len(stats.variants) < 2:
        return stats
    layout = Layout(stats.root, stats.variants, stats.dealer)
    parts = _parts_in_order(stats.manifest)
    game = game_choice(stats, picks, rules, parts)
    parallel = pool.shares(parts)
    groups = _split(parts, pool.workers if parallel else 1)

    def sub(g: list) -> dict:
        return {p["index"]: picks[p["index"]] for p in g if p["index"] in picks}

    if parallel:
        assert pool.executor is not None
        futures = [
            pool.executor.submit(compare_choices, layout, g, game, sub(g), rules) for g in groups
        ]
        cs = [f.result() for f in futures]
    else:
        cs = [compare_choices(layout, g, game, sub(g), rules) for g in groups]
    choice = cs[0]
    for c in cs[1:]:
        choice = choice.merge(c)
    stats.choice = choice
    return stats


def aggregate(
    path: str | os.PathLike,
    choice_rules: Mapping[str, ChoiceRule] | None = None,
    double_rules: Mapping[str, DoubleRule] | None = None,
    manifest: dict | None = None,
    executor: Executor | None = None,
    workers: int = 1,
) -> RunStats:
    """Both passes over a complete run: every statistic of the report."""
    pool = Pool(executor, workers)
    stats, picks = first_pass(path, choice_rules, double_rules, manifest, pool)
    return second_pass(stats, picks, list(choice_rules or {}), pool)
