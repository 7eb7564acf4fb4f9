"""``summary`` of a game run: win rates, mean totals and per-contract settled points per seat
and profile, with 95% intervals, streamed part by part; checked against pandas."""

from __future__ import annotations

import json
import math
import shutil

import numpy as np
import pandas as pd
import pytest

from bonken_sim.runs import game_summary
from bonken_sim.runs.game_format import is_game_run
from bonken_sim.runs.game_summary import summarize_game_run
from bonken_sim.runs.games import MANIFEST, make_game_config, run_games
from bonken_sim.runs.manifest import NotARun
from bonken_sim.runs.summary_text import game_summary_lines
from bonken_sim.stats import wilson_ci

Z = 1.959963984540054
PLAYERS = ("basic", "random", "basic", "advanced")
CHUNK = 120


@pytest.fixture(scope="module")
def game_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("gs") / "run"
    cfg = make_game_config(300, 4, ",".join(PLAYERS), threads=1, chunk_size=CHUNK, out=out)
    run_games(cfg)
    return out


def _tables(root):
    """The run's games and deals tables, read whole by pandas from the manifest's parts."""
    parts = json.loads((root / MANIFEST).read_text())["parts"]
    games = pd.concat([pd.read_parquet(root / p["games_file"]) for p in parts])
    deals = pd.concat([pd.read_parquet(root / p["deals_file"]) for p in parts])
    return games.sort_values("game").reset_index(drop=True), deals


def _check_estimate(e, x: np.ndarray) -> None:
    """``e`` is the mean of ``x`` with a normal 95% CI that contains it."""
    x = np.asarray(x, np.float64)
    assert e["mean"] == pytest.approx(x.mean())
    lo, hi = e["ci95"]
    assert lo <= x.mean() <= hi
    assert (hi - lo) / 2 == pytest.approx(Z * x.std(ddof=1) / math.sqrt(len(x)))


def _contributions(deals: pd.DataFrame) -> pd.DataFrame:
    """Settled points per (game, contract) and seat, 0 where a game has no such deal."""
    finals = [f"final_{p}" for p in range(4)]
    deals = deals.assign(contract=deals.contract.astype(str))
    return deals.groupby(["game", "contract"])[finals].sum()


def _check_against_pandas(doc, games: pd.DataFrame, deals: pd.DataFrame) -> None:
    n = len(games)
    assert doc["games_done"] == n
    for p, row in enumerate(doc["seats"]):
        wins = int((games[f"rank_{p}"] == 1).sum())
        assert row["profile"] == PLAYERS[p] and row["wins"] == wins
        assert row["win_rate"] == wilson_ci(wins, n).to_dict()
        assert row["win_rate"]["ci95"][0] <= wins / n <= row["win_rate"]["ci95"][1]
        _check_estimate(row["mean_total"], games[f"total_{p}"])
    for row in doc["profiles"]:
        seats = [p for p in range(4) if PLAYERS[p] == row["profile"]]
        assert row["seats"] == seats
        wins = sum(int((games[f"rank_{p}"] == 1).sum()) for p in seats)
        assert row["win_rate"] == wilson_ci(wins, n * len(seats)).to_dict()
        per_game = games[[f"total_{p}" for p in seats]].mean(axis=1)
        _check_estimate(row["mean_total"], per_game)
    contrib = _contributions(deals)
    contracts = [row["contract"] for row in doc["contracts"]]
    assert contracts == [
        c for c in doc_contract_order() if c in set(contrib.index.get_level_values(1))
    ]
    for row in doc["contracts"]:
        c = row["contract"]
        assert row["deals"] == int((deals.contract.astype(str) == c).sum())
        per_game = contrib.xs(c, level="contract").reindex(games.game, fill_value=0)
        for p in range(4):
            _check_estimate(row["seats"][p], per_game[f"final_{p}"])
        basic = per_game[["final_0", "final_2"]].mean(axis=1)
        _check_estimate(row["profiles"]["basic"], basic)
    # the contracts' contributions add up to the mean totals, seat by seat
    for p in range(4):
        total = sum(row["seats"][p]["mean"] for row in doc["contracts"])
        assert total == pytest.approx(doc["seats"][p]["mean_total"]["mean"])


def doc_contract_order():
    return ("bukken", "hartenjagen", "herenboeren", "vrouwen", "hartenheer", "laatste_slag",
            "domino", "troeven")  # fmt: skip


def test_summary_agrees_with_pandas(game_run):
    doc = summarize_game_run(game_run)
    assert doc["kind"] == "games" and doc["state"] == "complete"
    assert (doc["games"], doc["seed"], doc["players"]) == (300, 4, list(PLAYERS))
    assert doc["ruleset"] == "standard" and doc["order"] == "free" and doc["doubling"] is True
    games, deals = _tables(game_run)
    _check_against_pandas(doc, games, deals)
    first = games[[f"rank_{p}" for p in range(4)]].eq(1).sum(axis=1)
    assert doc["shared_first"] == int((first > 1).sum())
    assert json.loads(json.dumps(doc)) == doc


def test_summary_streams_one_part_at_a_time(game_run, monkeypatch):
    rows = []
    real = game_summary._read

    def spy(path, columns):
        table = real(path, columns)
        rows.append(table.num_rows)
        return table

    monkeypatch.setattr(game_summary, "_read", spy)
    summarize_game_run(game_run)
    assert len(rows) == 2 * 3 and max(rows) <= CHUNK * 11


def test_an_incomplete_run_is_summarised_over_its_finished_parts(game_run, tmp_path):
    out = tmp_path / "cut"
    shutil.copytree(game_run, out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest["state"] = "incomplete"
    manifest["parts"] = manifest["parts"][:2]
    (out / MANIFEST).write_text(json.dumps(manifest))
    doc = summarize_game_run(out)
    assert doc["state"] == "incomplete" and doc["games_done"] == 2 * CHUNK
    games, deals = _tables(out)
    _check_against_pandas(doc, games, deals)
    assert "incomplete, 240 of 300 games" in game_summary_lines(doc)[0]


def test_summary_text(game_run):
    lines = game_summary_lines(summarize_game_run(game_run))
    assert max(len(line) for line in lines) <= 100
    text = "\n".join(lines)
    assert "game run, complete, 300 of 300 games, seed 4" in text
    assert "players basic,random,basic,advanced" in text
    for p, name in enumerate(PLAYERS):
        assert sum(line.startswith(f"{p}    {name} ") for line in lines) == 1
    assert "troeven" in text and "the same per profile" in text


def test_no_parts_and_not_a_game_run(game_run, tmp_path):
    out = tmp_path / "empty"
    shutil.copytree(game_run, out)
    manifest = json.loads((out / MANIFEST).read_text())
    manifest.update(state="incomplete", parts=[])
    (out / MANIFEST).write_text(json.dumps(manifest))
    doc = summarize_game_run(out)
    assert doc["games_done"] == 0 and doc["seats"] == []
    assert "nothing to summarise" in game_summary_lines(doc)[-1]
    assert is_game_run(game_run) and not is_game_run(tmp_path)
    with pytest.raises(NotARun, match="not a bonken-sim game run directory"):
        summarize_game_run(tmp_path)
