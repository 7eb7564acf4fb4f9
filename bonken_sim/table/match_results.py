"""A match's results per player, read back from its run directory (so a resumed match
reports exactly what an uninterrupted one does): win rate, points per game and points per
deal in each contract, each with a 95% interval, the differences between players paired per
board, and each player's faults.

As in ``tournament`` the unit is the **board** (the 11 deals of one game index of the
seed): a player's values over the table games of one board (its rotations, its contracts)
are averaged first, since they share the cards, and a normal 95% interval is taken over
boards; a player that holds several seats counts, per game, the mean over its seats. Win
rates are Wilson intervals over seat-games, a shared first place a win for each.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bonken_sim.files import NotJson, json_document
from bonken_sim.rules.names import contract_names, variant_names
from bonken_sim.runs.game_format import game_manifest
from bonken_sim.runs.manifest import NotARun
from bonken_sim.runs.readers import dictionary_codes, run_names_rules
from bonken_sim.runs.summary_text import counted
from bonken_sim.stats import mean_interval, wilson_interval
from bonken_sim.table import match_config  # noqa: F401  (checks a match's manifest)
from bonken_sim.table.players import FAULT_KINDS


def _read(path: Path, columns: list[str] | None = None):
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path, columns=columns)
    except (OSError, ValueError, KeyError) as exc:
        raise NotARun(f"cannot read {path}: {exc}") from None


def _boards(part_games: np.ndarray, table) -> np.ndarray:
    """The board of each row: its column, or (a plain game run's tables) the game itself."""
    if "board" in table.column_names:
        return table.column("board").to_numpy()
    return part_games


def _per_board(board: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The mean of ``values`` (rows, …) over the rows of each board, boards in order."""
    uniq, inv = np.unique(board, return_inverse=True)
    sums = np.zeros((len(uniq), *values.shape[1:]))
    np.add.at(sums, inv, values)
    counts = np.bincount(inv, minlength=len(uniq)).astype(np.float64)
    return sums / counts.reshape(-1, *([1] * (values.ndim - 1)))


def _faults(root: Path, parts: list[dict], players: Sequence[str]) -> dict[str, dict[str, int]]:
    out = {name: dict.fromkeys(("total", *FAULT_KINDS), 0) for name in players}
    for part in parts:
        path = root / part["faults_file"]
        with open(path, "rb") as fh:
            for lineno, line in enumerate(fh, 1):
                if line.strip():
                    try:
                        f = json_document(line)
                        counts = out[players[f["seat"]]]
                        kind = str(f["kind"])
                    except (NotJson, LookupError, TypeError) as exc:
                        raise NotARun(f"{path}:{lineno} is not a fault record: {exc}") from None
                    counts["total"] += 1
                    counts[kind] = counts.get(kind, 0) + 1
    return out


def match_results(path: str | Path) -> dict[str, Any]:
    """The results of the (complete or partial) match in ``path`` as a JSON-ready dict."""
    root = Path(path)
    manifest = game_manifest(root, matches=True)
    cfg = manifest["config"]
    seats = [str(x) for x in cfg["players"]]
    names = list(dict.fromkeys(seats))
    # (4, K): seat p's share of player j's per-game value (the mean over its seats)
    share = np.array([[(s == n) / seats.count(n) for n in names] for s in seats])
    # a contract match gives each listed variant its own row; whole games each contract
    by_variant = bool(cfg.get("contracts"))
    beer = run_names_rules(manifest)
    contracts = variant_names(beer) if by_variant else contract_names(beer)
    column = "variant" if by_variant else "contract"
    parts = sorted(manifest["parts"], key=lambda p: p["index"])
    wins, totals, board_g = [], [], []
    deal_final, deal_contract, board_d = [], [], []
    for part in parts:
        g = _read(root / part["games_file"], None)
        game = g.column("game").to_numpy()
        board_g.append(_boards(game, g))
        totals.append(np.stack([g.column(f"total_{p}").to_numpy() for p in range(4)], 1))
        wins.append(np.stack([g.column(f"rank_{p}").to_numpy() == 1 for p in range(4)], 1))
        d = _read(root / part["deals_file"], None)
        board_d.append(_boards(d.column("game").to_numpy(), d))
        deal_contract.append(dictionary_codes(d.column(column).combine_chunks(), contracts))
        deal_final.append(np.stack([d.column(f"final_{p}").to_numpy() for p in range(4)], 1))
    doc: dict[str, Any] = {
        "match": str(root),
        "state": manifest.get("state"),
        "seed": cfg["seed"],
        "boards": cfg["boards"],
        "games": cfg["games"],
        "games_done": int(sum(len(t) for t in totals)),
        "duplicate": bool(cfg.get("duplicate", True)),
        "contracts": list(cfg.get("contracts") or []),
        "ruleset": "standard" if cfg.get("ruleset") is None else cfg["ruleset"].get("name"),
        "seats": seats,
        "players": {},
        "versus": [],
    }
    faults = _faults(root, parts, seats)
    if not totals:
        for n in names:
            doc["players"][n] = {"seats": [p for p in range(4) if seats[p] == n]}
            doc["players"][n]["faults"] = faults[n]
        return doc
    tot = np.concatenate(totals).astype(np.float64)
    win = np.concatenate(wins)
    bg = np.concatenate(board_g)
    per_board_total = _per_board(bg, tot @ share)  # (boards, K)
    per_board_win = _per_board(bg, win.astype(np.float64) @ share)  # first-place shares
    bd = np.concatenate(board_d)
    code = np.concatenate(deal_contract).astype(np.int64)
    final = np.concatenate(deal_final).astype(np.float64) @ share  # (deals, K)
    for j, n in enumerate(names):
        mine = [p for p in range(4) if seats[p] == n]
        per_contract = {}
        for c, cname in enumerate(contracts):
            here = code == c
            if here.any():
                per_contract[cname] = mean_interval(_per_board(bd[here], final[here, j])).as_dict()
        doc["players"][n] = {
            "seats": mine,
            "seat_games": int(len(win) * len(mine)),
            "win_rate": wilson_interval(int(win[:, mine].sum()), len(win) * len(mine)).as_dict(),
            "points_per_game": mean_interval(per_board_total[:, j]).as_dict(),
            "points_per_deal": per_contract,
            "faults": faults[n],
        }
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            win_diff = mean_interval(per_board_win[:, a] - per_board_win[:, b])
            points_diff = mean_interval(per_board_total[:, a] - per_board_total[:, b])
            doc["versus"].append(
                {
                    "a": names[a],
                    "b": names[b],
                    "win_rate_difference": win_diff.as_dict(),
                    "points_per_game_difference": points_diff.as_dict(),
                }
            )
    return doc


def _ci(d: dict[str, Any] | None, pct: bool = False) -> str:
    """A rate with its interval, or a mean ± its half-width ("-": nothing to show)."""
    if not d or d.get("n", 0) == 0 or math.isnan(d["mean"]):
        return "-"
    lo, hi = d["ci95"]
    if pct:
        return f"{d['mean']:6.1%} [{lo:.1%}, {hi:.1%}]"
    if math.isnan(lo):
        return f"{d['mean']:+8.2f}{'':8s}"
    return f"{d['mean']:+8.2f} ± {(hi - lo) / 2:5.2f}"


def _pp(d: dict[str, Any]) -> str:
    """A difference of rates in percentage points ± the half-width of its interval."""
    if d.get("n", 0) == 0 or math.isnan(d["mean"]):
        return "-"
    lo, hi = d["ci95"]
    if math.isnan(lo):
        return f"{100 * d['mean']:+7.1f} pp"
    return f"{100 * d['mean']:+7.1f} ± {50 * (hi - lo):4.1f} pp"


def results_text(doc: dict[str, Any]) -> list[str]:
    """The results as the terminal shows them."""
    mode = "duplicate (4 rotations per board)" if doc["duplicate"] else "no duplicate"
    what = f"contracts {','.join(doc['contracts'])}" if doc["contracts"] else "whole games"
    lines = [
        f"match: {doc['games_done']:,} of {doc['games']:,} table games = "
        f"{counted(doc['boards'], 'board')},"
        f" {what}, {mode}, seed {doc['seed']}, ruleset {doc['ruleset']}",
        "  95% intervals over boards (a board's table games averaged first); win rates: "
        "Wilson over seat-games",
        "",
    ]
    players = doc["players"]
    width = max(20, *(len(n) + 2 for n in players))
    head = f"  {'player':{width}s}{'seats':>8s}{'win rate (95% CI)':>26s}"
    lines.append(head + f"{'points per game':>22s}{'faults':>8s}")
    for n, e in players.items():
        seats = ",".join(map(str, e["seats"]))
        lines.append(
            f"  {n:{width}s}{seats:>8s}{_ci(e.get('win_rate'), True):>26s}"
            f"{_ci(e.get('points_per_game')):>22s}{e['faults']['total']:>8d}"
        )
    if doc["versus"]:
        lines += ["", "  paired per board, first minus second (95% CI)"]
        pairs = [f"{v['a']} − {v['b']}" for v in doc["versus"]]
        pw = max(len("players"), *map(len, pairs)) + 2
        lines.append(f"  {'players':{pw}s}{'win rate':>18s}{'points per game':>22s}")
        for pair, v in zip(pairs, doc["versus"], strict=True):
            wins = _pp(v["win_rate_difference"])
            lines.append(f"  {pair:{pw}s}{wins:>18s}{_ci(v['points_per_game_difference']):>22s}")
    contracts = [c for e in players.values() for c in e.get("points_per_deal", {})]
    if contracts:
        lines += ["", "  points per deal, by contract (95% CI)"]
        names = list(players)
        lines.append("  " + f"{'contract':14s}" + "".join(f"{n[:20]:>22s}" for n in names))
        for c in dict.fromkeys(contracts):
            row = "".join(f"{_ci(players[n]['points_per_deal'].get(c)):>22s}" for n in names)
            lines.append(f"  {c:14s}{row}")
    faulty = {n: e["faults"] for n, e in players.items() if e["faults"]["total"]}
    if faulty:
        lines += ["", "  faults (answers refused; the basic profile's decision was played)"]
        for n, f in faulty.items():
            kinds = ", ".join(f"{k} {f[k]}" for k in FAULT_KINDS if f.get(k))
            lines.append(f"  {n:{width}s}{f['total']:>6d}  {kinds}")
    return [line.rstrip() for line in lines]
