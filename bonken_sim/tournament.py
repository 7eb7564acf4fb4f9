"""``bonken-sim tournament``: profiles against each other on the same deals, every seating.

Each deal set (the 11 deals of one game index) is played once under every seating
arrangement of the profiles, so luck of the cards cancels out between profiles. With two
profiles each holds two seats (6 arrangements); with three, one of them holds two seats,
each in turn (36); with four, all 24 permutations.

Confidence intervals treat a deal set as the unit: a profile's results over all
arrangements of one set are averaged first (they share the cards, so they are not
independent), then a normal 95% interval is taken over sets. Win rates use Wilson's
interval over all seat-games; a shared first place counts as a win for each.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from .games import PROFILES, play_games, ranks
from .ladder import Interval, mean_interval, wilson_interval
from .rules import Contract

CONTRACTS = [c.label for c in Contract]


def parse_tournament_profiles(text: str) -> list[str]:
    names = [s.strip().lower() for s in str(text).split(",") if s.strip()]
    if not 2 <= len(names) <= 4:
        raise ValueError(f"--profiles takes 2 to 4 profiles, comma-separated; got {text!r}")
    for n in names:
        if n not in PROFILES:
            raise ValueError(f"unknown profile {n!r} (choose from {', '.join(PROFILES)})")
    if len(set(names)) != len(names):
        raise ValueError(f"--profiles names a profile twice: {text!r}")
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
        raise ValueError(f"a tournament needs 2 to 4 profiles, got {k}")
    return sorted({p for pool in pools for p in itertools.permutations(pool)})


def run_tournament(
    games: int,
    seed: int,
    profiles: list[str],
    *,
    fixed_order: bool = False,
    doubling: bool = True,
    threads: int | None = None,
) -> dict[str, Any]:
    arr = arrangements(len(profiles))
    sets = -(-games // len(arr))
    k = len(profiles)
    total_sum = np.zeros((sets, k))
    seat_games = np.zeros((sets, k))
    wins = np.zeros(k, dtype=np.int64)
    trials = np.zeros(k, dtype=np.int64)
    c_sum = np.zeros((sets, k, len(CONTRACTS)))
    c_cnt = np.zeros((sets, k, len(CONTRACTS)))
    from .io import VARIANT_CONTRACT

    for seating in arr:
        b = play_games(
            sets,
            seed,
            np.array(seating),
            profiles,
            fixed_order=fixed_order,
            doubling=doubling,
            threads=threads,
        )
        rk = ranks(b.totals)
        contract = VARIANT_CONTRACT[b.variant.astype(np.int64)]  # (sets, 11)
        for p, j in enumerate(seating):
            total_sum[:, j] += b.totals[:, p]
            seat_games[:, j] += 1
            wins[j] += int((rk[:, p] == 1).sum())
            trials[j] += sets
            for c in range(len(CONTRACTS)):
                here = contract == c
                c_sum[:, j, c] += (b.final[:, :, p] * here).sum(axis=1)
                c_cnt[:, j, c] += here.sum(axis=1)
    per_set_total = total_sum / seat_games
    out: dict[str, Any] = {
        "games": sets * len(arr),
        "deal_sets": sets,
        "arrangements": len(arr),
        "seed": seed,
        "order": "fixed" if fixed_order else "free",
        "doubling": doubling,
        "profiles": {},
    }
    for j, name in enumerate(profiles):
        per_contract = {}
        for c, cname in enumerate(CONTRACTS):
            ok = c_cnt[:, j, c] > 0
            per_contract[cname] = mean_interval(c_sum[ok, j, c] / c_cnt[ok, j, c])
        out["profiles"][name] = {
            "seat_games": int(trials[j]),
            "win_rate": wilson_interval(int(wins[j]), int(trials[j])),
            "mean_total": mean_interval(per_set_total[:, j]),
            "per_contract": per_contract,
        }
    return out


def _jsonable(x: Any) -> Any:
    if isinstance(x, Interval):
        return x.as_dict()
    if isinstance(x, dict):
        return {k: _jsonable(v) for k, v in x.items()}
    return x


def to_json(result: dict[str, Any]) -> dict[str, Any]:
    return _jsonable(result)


def _ci(iv: Interval, pct: bool = False) -> str:
    if iv.n == 0 or math.isnan(iv.mean):
        return "-"
    if pct:
        return f"{iv.mean:6.1%} [{iv.lo:.1%}, {iv.hi:.1%}]"
    return f"{iv.mean:+8.2f} ± {(iv.hi - iv.lo) / 2:5.2f}"


def to_text(result: dict[str, Any]) -> str:
    lines = [
        f"tournament: {result['games']:,} games = {result['deal_sets']:,} deal sets × "
        f"{result['arrangements']} seatings, seed {result['seed']}, order {result['order']}, "
        f"doubling {'on' if result['doubling'] else 'off'}",
        "",
        f"  {'profile':20s}{'win rate (95% CI)':>26s}   {'mean total (95% CI)':>20s}",
    ]
    for name, e in result["profiles"].items():
        lines.append(f"  {name:20s}{_ci(e['win_rate'], True):>26s}   {_ci(e['mean_total']):>20s}")
    lines += ["", "  mean settled score per deal, by contract (95% CI)"]
    names = list(result["profiles"])
    lines.append("  " + f"{'contract':14s}" + "".join(f"{n:>22s}" for n in names))
    for c in CONTRACTS:
        row = "".join(f"{_ci(result['profiles'][n]['per_contract'][c]):>22s}" for n in names)
        lines.append(f"  {c:14s}{row}")
    return "\n".join(lines)
