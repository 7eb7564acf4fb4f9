"""``bonken-sim tournament``: profiles against each other on the same deals, every seating.

Each deal set (the 11 deals of one game index) is played once under every seating
arrangement of the profiles, so luck of the cards cancels out between profiles. With two
profiles each holds two seats (6 arrangements); with three, one of them holds two seats,
each in turn (36); with four, all 24 permutations.

Confidence intervals treat a deal set as the unit: a profile's results over all
arrangements of one set are averaged first (they share the cards, so they are not
independent), then a normal 95% interval is taken over sets. Win rates use Wilson's
interval over all seat-games; a shared first place counts as a win for each.

The work is a list of tasks ``play_seating(SeatingTask)`` (a seating and a range of deal
sets → integer sums per set and seat), so ``--executor process|dask`` runs them on worker
processes; the sums are integers, so the result never depends on where or in which order
the tasks ran.
"""

from __future__ import annotations

import itertools
import math
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

import numpy as np

from bonken_sim.engine.games import play_games, profile_name, ranks
from bonken_sim.errors import BadValue, UserFixableError
from bonken_sim.rules.names import Contract, contract_names
from bonken_sim.rules.rulesets import Ruleset
from bonken_sim.runs.executors import (
    Backend,
    ExecutorSpec,
    executor_failed,
    open_backend,
    run_tasks,
    task_failure,
    wrap_executor,
)
from bonken_sim.stats import Interval, mean_interval, wilson_interval

CONTRACTS = [c.label for c in Contract]


class TournamentError(UserFixableError, ValueError):
    """A tournament that could not finish (a worker failure): one line."""


def parse_tournament_profiles(text: str) -> list[str]:
    names = [s.strip().lower() for s in str(text).split(",") if s.strip()]
    if not 2 <= len(names) <= 4:
        raise BadValue(f"--profiles takes 2 to 4 profiles, comma-separated; got {text!r}")
    names = [profile_name(n) for n in names]
    if len(set(names)) != len(names):
        raise BadValue(f"--profiles names a profile twice: {text!r}")
    return names


def arrangements(k: int) -> list[tuple[int, ...]]:
    """Every seating of ``k`` profiles over 4 seats, each profile equally often overall."""
    if k == 4:
        pools = [(0, 1, 2, 3)]
    elif k == 3:
        pools = [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    elif k == 2:
        pools = [(0, 0, 1, 1)]
    else:
        raise BadValue(f"a tournament needs 2 to 4 profiles, got {k}")
    return sorted({p for pool in pools for p in itertools.permutations(pool)})


#: sets of deals per task on a process pool or a Dask cluster
TASK_SETS = 5000


@dataclass(frozen=True)
class SeatingTask:
    """Deal sets ``[lo, hi)`` played under one seating arrangement (any executor)."""

    seed: int
    seating: tuple[int, ...]
    profiles: tuple[str, ...]
    lo: int
    hi: int
    fixed_order: bool
    doubling: bool
    threads: int | None
    rules: dict[str, Any] | None = None  # a house ruleset (Ruleset.to_dict); None: RULES.md


@dataclass
class SeatingResult:
    """Per deal set and seat: settled total, first places, settled score and deal count per
    contract (integers, so the sums do not depend on the order tasks finish in)."""

    lo: int
    hi: int
    seating: tuple[int, ...]
    totals: np.ndarray  # (n, 4) int64
    wins: np.ndarray  # (4,) int64
    c_sum: np.ndarray  # (n, 4, C) int64
    c_cnt: np.ndarray  # (n, C) int64


def play_seating(task: SeatingTask) -> SeatingResult:
    from bonken_sim.runs.storage import VARIANT_CONTRACT

    n = task.hi - task.lo
    b = play_games(
        n,
        task.seed,
        np.array(task.seating),
        list(task.profiles),
        start=task.lo,
        fixed_order=task.fixed_order,
        doubling=task.doubling,
        table=None if task.rules is None else Ruleset.from_dict(task.rules).table,
        threads=task.threads,
    )
    rk = ranks(b.totals)
    contract = VARIANT_CONTRACT[b.variant.astype(np.int64)]  # (n, 11)
    c_sum = np.zeros((n, 4, len(CONTRACTS)), np.int64)
    c_cnt = np.zeros((n, len(CONTRACTS)), np.int64)
    for c in range(len(CONTRACTS)):
        here = contract == c
        c_cnt[:, c] = here.sum(axis=1)
        for p in range(4):
            c_sum[:, p, c] = (b.final[:, :, p] * here).sum(axis=1)
    wins = (rk == 1).sum(axis=0).astype(np.int64)
    return SeatingResult(
        task.lo, task.hi, task.seating, b.totals.astype(np.int64), wins, c_sum, c_cnt
    )


def _chunk(entry: tuple) -> tuple:
    """Sort key of a per-seat chunk of totals: its seating and first deal set."""
    return entry[0], entry[1]


def run_tournament(
    games: int,
    seed: int,
    profiles: list[str],
    *,
    fixed_order: bool = False,
    doubling: bool = True,
    threads: int | None = None,
    executor_spec: ExecutorSpec | None = None,
    executor: Executor | None = None,
    ruleset: Ruleset | None = None,
) -> dict[str, Any]:
    """Play the tournament; in-process by default, or on ``executor`` (any
    ``concurrent.futures.Executor``) or the executor of ``executor_spec``. The result never
    depends on where it ran."""
    rules = None if ruleset is None or ruleset.is_standard else ruleset.to_dict()
    arr = arrangements(len(profiles))
    sets = -(-games // len(arr))
    k = len(profiles)
    total_sum = np.zeros((sets, k), np.int64)
    seat_games = np.zeros((sets, k), np.int64)
    wins = np.zeros(k, dtype=np.int64)
    trials = np.zeros(k, dtype=np.int64)
    c_sum = np.zeros((sets, k, len(CONTRACTS)), np.int64)
    c_cnt = np.zeros((sets, k, len(CONTRACTS)), np.int64)
    # per profile and seat: first places, seat-games, and each game's settled total
    seat_wins = np.zeros((k, 4), np.int64)
    seat_trials = np.zeros((k, 4), np.int64)
    # (seating, first deal set, totals): sorted before use, so the statistics do not depend
    # on the order in which an executor's tasks finish (float sums are not associative)
    seat_totals: list[list[list[tuple]]] = [[[] for _ in range(4)] for _ in range(k)]
    spec = executor_spec or ExecutorSpec()
    backend: Backend | None = None
    if executor is not None:
        backend = wrap_executor(executor)
    elif not spec.local:
        backend = open_backend(spec)

    def add(r: SeatingResult) -> None:
        s = slice(r.lo, r.hi)
        for p, j in enumerate(r.seating):
            total_sum[s, j] += r.totals[:, p]
            seat_games[s, j] += 1
            wins[j] += int(r.wins[p])
            trials[j] += r.hi - r.lo
            c_sum[s, j, :] += r.c_sum[:, p, :]
            c_cnt[s, j, :] += r.c_cnt
            seat_wins[j, p] += int(r.wins[p])
            seat_trials[j, p] += r.hi - r.lo
            seat_totals[j][p].append((tuple(r.seating), r.lo, r.totals[:, p]))

    def task(seating: tuple[int, ...], lo: int, hi: int, threads: int | None) -> SeatingTask:
        return SeatingTask(
            seed, seating, tuple(profiles), lo, hi, fixed_order, doubling, threads, rules
        )

    if backend is None:
        for seating in arr:
            add(play_seating(task(seating, 0, sets, threads)))
    else:
        # on workers a task uses 1 thread unless told otherwise (no oversubscription)
        tasks = [
            task(seating, lo, min(sets, lo + TASK_SETS), threads or 1)
            for seating in arr
            for lo in range(0, sets, TASK_SETS)
        ]
        finished = False
        try:
            for _, r in run_tasks(backend, play_seating, tasks):
                add(r)
            finished = True
        except Exception as exc:
            if isinstance(exc, ValueError) or not executor_failed(exc):
                raise
            raise TournamentError(task_failure(exc, backend.kind)) from None
        finally:
            if backend.own:
                backend.close(cancel=not finished)
    per_set_total = total_sum / seat_games
    out: dict[str, Any] = {
        "games": sets * len(arr),
        "deal_sets": sets,
        "arrangements": len(arr),
        "seed": seed,
        "order": "fixed" if fixed_order else "free",
        "doubling": doubling,
        "ruleset": (ruleset or Ruleset()).name,
        "profiles": {},
    }
    for j, name in enumerate(profiles):
        per_contract = {}
        for c, cname in enumerate(contract_names(ruleset)):  # bierkaart in Domino's place
            ok = c_cnt[:, j, c] > 0
            per_contract[cname] = mean_interval(c_sum[ok, j, c] / c_cnt[ok, j, c])
        per_seat = {}
        for p in range(4):
            if seat_trials[j, p]:
                per_seat[str(p)] = {
                    "seat_games": int(seat_trials[j, p]),
                    "win_rate": wilson_interval(int(seat_wins[j, p]), int(seat_trials[j, p])),
                    "mean_total": mean_interval(
                        np.concatenate([t for *_, t in sorted(seat_totals[j][p], key=_chunk)])
                    ),
                }
        out["profiles"][name] = {
            "seat_games": int(trials[j]),
            "win_rate": wilson_interval(int(wins[j]), int(trials[j])),
            "mean_total": mean_interval(per_set_total[:, j]),
            "per_contract": per_contract,
            "per_seat": per_seat,
        }
    return out


def _ci(iv: Interval, pct: bool = False) -> str:
    """A rate with its interval, or a mean ± its half-width; a mean of one deal set has no
    interval: the mean alone, its decimals in line with those of the others."""
    if iv.n == 0 or math.isnan(iv.mean):
        return "-"
    if pct:
        return f"{iv.mean:6.1%} [{iv.lo:.1%}, {iv.hi:.1%}]"
    if math.isnan(iv.lo):
        return f"{iv.mean:+8.2f}{'':8s}"
    return f"{iv.mean:+8.2f} ± {(iv.hi - iv.lo) / 2:5.2f}"


def to_text(result: dict[str, Any]) -> str:
    lines = [
        f"tournament: {result['games']:,} games = {result['deal_sets']:,} deal sets × "
        f"{result['arrangements']} seatings, seed {result['seed']}, order {result['order']}, "
        f"doubling {'on' if result['doubling'] else 'off'}",
        *(
            [
                "one deal set: the means over deal sets have no 95% CI "
                f"(--games {2 * result['arrangements']} or more gives them one)"
            ]
            if result["deal_sets"] < 2
            else []
        ),
        "",
        f"  {'profile':20s}{'win rate (95% CI)':>26s}   {'mean total (95% CI)':>20s}",
    ]
    for name, e in result["profiles"].items():
        lines.append(f"  {name:20s}{_ci(e['win_rate'], True):>26s}   {_ci(e['mean_total']):>20s}")
    lines += [
        "",
        "  by seat (the first dealer rotates across games, so seats differ only by chance)",
        f"  {'profile':20s}{'seat':>5s}{'win rate (95% CI)':>26s}   {'mean total (95% CI)':>20s}",
    ]
    for name, e in result["profiles"].items():
        for p, pe in e["per_seat"].items():
            lines.append(
                f"  {name:20s}{p:>5s}{_ci(pe['win_rate'], True):>26s}   "
                f"{_ci(pe['mean_total']):>20s}"
            )
    lines += ["", "  mean settled score per deal, by contract (95% CI)"]
    names = list(result["profiles"])
    lines.append("  " + f"{'contract':14s}" + "".join(f"{n:>22s}" for n in names))
    for c in result["profiles"][names[0]]["per_contract"]:
        row = "".join(f"{_ci(result['profiles'][n]['per_contract'][c]):>22s}" for n in names)
        lines.append(f"  {c:14s}{row}")
    return "\n".join(line.rstrip() for line in lines)
