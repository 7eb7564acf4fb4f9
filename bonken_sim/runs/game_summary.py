"""``bonken-sim summary`` of a game run: per seat and per player profile the win rate (Wilson
95% interval), the mean settled total and the settled points each contract brings per game
(normal 95% intervals from exact integer sums), streamed part by part.

The unit is the game: a game's totals are one draw. A profile that holds several seats gets,
per game, the sum over its seats divided by their number, so its interval is over games (the
seats of one game share the cards and are not independent); its win rate, like the report's
and the tournament's, is a Wilson interval over seat-games. A win is rank 1, a shared first
place counting for each.

Memory is one part at a time (its two files, read column by column), whatever the run's size.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.rules.names import contract_names
from bonken_sim.runs.game_format import MATCH_FORMAT, game_manifest
from bonken_sim.runs.lock import writer_record
from bonken_sim.runs.manifest import NotARun
from bonken_sim.runs.readers import dictionary_codes, run_names_rules
from bonken_sim.stats import Estimate, mean_ci, wilson_ci

SEATS = range(4)


def scaled(e: Estimate, k: float) -> Estimate:
    """``e`` of a quantity multiplied by ``k`` (a sum over a profile's seats → their mean)."""
    return Estimate(e.mean * k, e.sd * k, e.lo * k, e.hi * k)


@dataclass
class _Sums:
    """Exact integer sums over the games read so far."""

    games: int
    wins: np.ndarray  # (4,) games won (rank 1) per seat
    shared_first: int  # games whose first place is shared
    total: np.ndarray  # (2, 4): Σ total, Σ total² per seat
    profile_total: np.ndarray  # (2, K): Σ, Σ² of the per-game sum over the profile's seats
    contract: np.ndarray  # (2, C, 4): Σ, Σ² of the settled points per game and contract
    profile_contract: np.ndarray  # (2, C, K)
    deals: np.ndarray  # (C,) deals played per contract

    @classmethod
    def zeros(cls, n_contracts: int, n_profiles: int) -> _Sums:
        z = np.zeros
        return cls(
            0,
            z(4, np.int64),
            0,
            z((2, 4), np.int64),
            z((2, n_profiles), np.int64),
            z((2, n_contracts, 4), np.int64),
            z((2, n_contracts, n_profiles), np.int64),
            z(n_contracts, np.int64),
        )


def _moments(x: np.ndarray) -> np.ndarray:
    """(2, …): the sum and the sum of squares over the first axis, as exact int64."""
    x = x.astype(np.int64)
    return np.stack([x.sum(0), (x * x).sum(0)])


def _read(path: Path, columns: list[str]):
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path, columns=columns)
    except (OSError, ValueError, KeyError) as exc:  # ArrowInvalid is a ValueError
        raise NotARun(f"cannot read {path}: {exc}") from None


def _add_part(
    root: Path, part: dict, sums: _Sums, names: tuple[str, ...], of_profile: np.ndarray
) -> None:
    """Fold one part (its games file and its deals file) into ``sums``."""
    start, n = int(part["game_start"]), int(part["games"])
    cols = ["game", *(f"total_{p}" for p in SEATS), *(f"rank_{p}" for p in SEATS)]
    g = _read(root / part["games_file"], cols)
    at = g.column("game").to_numpy() - start
    if g.num_rows != n or not np.array_equal(np.sort(at), np.arange(n)):
        last = start + n - 1
        raise NotARun(f"{root}: {part['games_file']} does not hold games {start:,} … {last:,}")
    totals = np.zeros((n, 4), np.int64)
    ranks = np.zeros((n, 4), np.int64)
    for p in SEATS:
        totals[at, p] = g.column(f"total_{p}").to_numpy()
        ranks[at, p] = g.column(f"rank_{p}").to_numpy()
    del g
    d = _read(root / part["deals_file"], ["game", "contract", *(f"final_{p}" for p in SEATS)])
    game = d.column("game").to_numpy() - start
    code = dictionary_codes(d.column("contract").combine_chunks(), names).astype(np.int64)
    if len(game) and (game.min() < 0 or game.max() >= n or code.min() < 0):
        raise NotARun(f"{root}: {part['deals_file']} holds deals outside its games")
    C = len(names)
    cell = game * C + code
    per_game = np.zeros((n, C, 4), np.int64)  # settled points per game, contract and seat
    for p in SEATS:
        final = d.column(f"final_{p}").to_numpy().astype(np.float64)
        # exact: the sums are integers far below 2**53
        per_game[:, :, p] = np.bincount(cell, final, minlength=n * C).reshape(n, C)
    sums.deals += np.bincount(code, minlength=C)
    del d
    if not np.array_equal(per_game.sum(1), totals):
        raise NotARun(f"{root}: part {part['index']}: the deals and games tables disagree")
    first = ranks == 1
    sums.games += n
    sums.wins += first.sum(0)
    sums.shared_first += int((first.sum(1) > 1).sum())
    sums.total += _moments(totals)
    sums.profile_total += _moments(totals @ of_profile)
    sums.contract += _moments(per_game)
    sums.profile_contract += _moments(per_game @ of_profile)


def _estimate(s: np.ndarray, n: int, k: int = 1) -> dict[str, Any]:
    """The mean per game of a (Σ, Σ²) pair, divided by ``k`` seats, as a JSON dict."""
    return scaled(mean_ci(n, int(s[0]), int(s[1])), 1 / k).to_dict()


def summarize_game_run(path: str | os.PathLike) -> dict[str, Any]:
    """The summary of the game run (or match) in ``path`` as a JSON-ready dict (``kind``
    "games"), over its finished parts: it also works on an incomplete run. NotARun when
    ``path`` is not a game run or its parts cannot be read."""
    root = Path(path)
    manifest = game_manifest(root, matches=True)
    cfg = manifest["config"]
    players = [str(x) for x in cfg["players"]]
    profiles = list(dict.fromkeys(players))
    of_profile = np.array([[int(x == name) for name in profiles] for x in players], np.int64)
    names = contract_names(run_names_rules(manifest))
    sums = _Sums.zeros(len(names), len(profiles))
    for part in sorted(manifest.get("parts", []), key=lambda p: p["index"]):
        _add_part(root, part, sums, names, of_profile)
    n = sums.games
    ruleset = cfg.get("ruleset")
    doc: dict[str, Any] = {
        "kind": "games",
        "run_kind": "match" if manifest.get("format") == MATCH_FORMAT else "game run",
        "run": str(path),
        "state": manifest.get("state"),
        "writer": writer_record(root),
        "seed": cfg["seed"],
        "games": cfg["games"],
        "games_done": n,
        "players": players,
        "order": cfg["order"],
        "doubling": cfg["doubling"],
        "ruleset": "standard" if ruleset is None else ruleset.get("name"),
        "shared_first": sums.shared_first,
        "seats": [],
        "profiles": [],
        "contracts": [],
    }
    if n == 0:
        return doc
    doc["seats"] = [
        {
            "seat": p,
            "profile": players[p],
            "wins": int(sums.wins[p]),
            "win_rate": wilson_ci(int(sums.wins[p]), n).to_dict(),
            "mean_total": _estimate(sums.total[:, p], n),
        }
        for p in SEATS
    ]
    for j, name in enumerate(profiles):
        seats = [p for p in SEATS if players[p] == name]
        wins = int(sums.wins[seats].sum())
        doc["profiles"].append(
            {
                "profile": name,
                "seats": seats,
                "wins": wins,
                "seat_games": n * len(seats),
                "win_rate": wilson_ci(wins, n * len(seats)).to_dict(),
                "mean_total": _estimate(sums.profile_total[:, j], n, len(seats)),
            }
        )
    for c, name in enumerate(names):
        if sums.deals[c] == 0:
            continue
        doc["contracts"].append(
            {
                "contract": name,
                "deals": int(sums.deals[c]),
                "seats": [_estimate(sums.contract[:, c, p], n) for p in SEATS],
                "profiles": {
                    prof: _estimate(sums.profile_contract[:, c, j], n, players.count(prof))
                    for j, prof in enumerate(profiles)
                },
            }
        )
    return doc
