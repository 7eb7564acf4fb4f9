"""`bonken-sim match` with built-in seats: the same games as `game` (its tables column for
column and value for value), duplicate boards that rotate the same cards through the seats,
contract matches, the trace of every deal (replayed), the results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli
from bonken_sim.engine.games import PROFILES
from bonken_sim.engine.play import play


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


def _match(out: Path, *args: str):
    res = _run("match", "--out", str(out), "--quiet", *args)
    assert res.exit_code == 0, res.output
    return out


def _traces(run: Path) -> list[dict]:
    out = []
    for path in sorted((run / "_traces").glob("part-*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line]
    return out


@pytest.mark.parametrize(
    "players, games, extra",
    [
        ("basic", "8", ()),
        ("advanced", "6", ()),
        ("advanced,basic,basic-nodouble,advanced", "4", ()),
        ("advanced,basic,basic,advanced", "4", ("--ruleset", "fixed-order")),
        ("basic,advanced,advanced,basic", "3", ("--ruleset", "bierkaart")),
        ("advanced", "3", ("--ruleset", "strict")),
    ],
)
def test_no_duplicate_match_writes_the_tables_game_writes(tmp_path, players, games, extra):
    """Built-in basic and advanced seats decide through `decide` exactly as `game`'s kernel
    plays, so the tables agree column for column, value for value."""
    g = tmp_path / "game"
    res = _run("game", "--games", games, "--seed", "11", "--players", players, "--out", str(g),
               "--quiet", *extra)  # fmt: skip
    assert res.exit_code == 0, res.output
    m = _match(tmp_path / "match", "--games", games, "--seed", "11", "--players", players,
               "--no-duplicate", *extra)  # fmt: skip
    for table in ("", "_deals"):
        a = pd.read_parquet(g / table)
        b = pd.read_parquet(m / table)
        assert list(a.columns) == list(b.columns)
        pd.testing.assert_frame_equal(a, b)


#: games per profile: a searching seat's decisions are slow from a view, so fewer of those
_IDENTITY_GAMES = {"expert": 1, "expert-choice": 1, "expert-double": 1, "expert-fitted": 2,
                   "expert-nodouble": 1, "expert-randomchoice": 1}  # fmt: skip


@pytest.mark.parametrize("profile", list(PROFILES))
def test_every_profile_plays_at_the_table_what_game_plays(tmp_path, profile):
    """Each profile against basic and advanced seats: every decision of a built-in seat
    draws from the game kernel's stream of its deal (random cards and contracts, the
    expert's samples, the searches' samples), so the match's tables are `game`'s."""
    players = f"{profile},advanced,{profile},basic"
    games = str(_IDENTITY_GAMES.get(profile, 3))
    g = tmp_path / "game"
    res = _run("game", "--games", games, "--seed", "241", "--players", players, "--out", str(g),
               "--quiet")  # fmt: skip
    assert res.exit_code == 0, res.output
    m = _match(tmp_path / "match", "--games", games, "--seed", "241", "--players", players,
               "--no-duplicate")  # fmt: skip
    for table in ("", "_deals"):
        pd.testing.assert_frame_equal(pd.read_parquet(g / table), pd.read_parquet(m / table))


@pytest.fixture(scope="module")
def boards(tmp_path_factory):
    """Three boards of four basic players, once (as `game`) and in duplicate."""
    root = tmp_path_factory.mktemp("dup")
    once = _match(root / "once", "--games", "3", "--seed", "4", "--no-duplicate")
    dup = _match(root / "dup", "--games", "3", "--seed", "4")
    return once, dup


def test_duplicate_rotates_the_same_cards_through_the_seats(boards):
    once, dup = boards
    g1 = pd.read_parquet(once).set_index("game")
    g4 = pd.read_parquet(dup).set_index("game")
    assert sorted(g4.index) == list(range(12))
    assert list(g4.columns[-2:]) == ["board", "rotation"]
    t_once = {(r["game"], r["game_deal"]): r for r in _traces(once)}
    t_dup = {(r["game"], r["game_deal"]): r for r in _traces(dup)}
    for g, row in g4.iterrows():
        b, r = int(row.board), int(row.rotation)
        assert b == g // 4 and g == 4 * b + (b - r) % 4
        assert row.first_dealer == g % 4 == (b - r) % 4
        for k in range(11):
            rec, ref = t_dup[(g, k)], t_once[(b, k)]
            assert rec["deal"] == ref["deal"] == 11 * b + k
            # table seat p holds the board's seat p + r, the dealer turned alike
            assert rec["hands"] == [ref["hands"][(p + r) % 4] for p in range(4)]
            assert rec["dealer"] == (ref["dealer"] - r) % 4
            # four identical players: the same game, its seats turned
            assert rec["plays"] == ref["plays"] and rec["contract"] == ref["contract"]
            assert rec["scores"] == [ref["scores"][(p + r) % 4] for p in range(4)]
        totals = [row[f"total_{p}"] for p in range(4)]
        assert totals == [g1.loc[b, f"total_{(p + r) % 4}"] for p in range(4)]
    # each board is played in every rotation
    assert (g4.groupby("board").rotation.apply(sorted) == pd.Series([[0, 1, 2, 3]] * 3)).all()


def test_duplicate_seats_each_player_at_every_seat_of_the_board(tmp_path):
    players = "basic,advanced,basic-nodouble,random"
    run = _match(tmp_path / "m", "--games", "2", "--seed", "8", "--players", players)
    games = pd.read_parquet(run)
    for p, name in enumerate(players.split(",")):
        assert (games[f"profile_{p}"] == name).all()  # table seat p is always player p
    deals = pd.read_parquet(run / "_deals")
    assert (deals.dealer == (deals.game % 4 + deals.deal) % 4).all()
    assert list(deals.columns[-2:]) == ["board", "rotation"]
    for _board, rows in games.groupby("board"):
        # player p sits at the board's seat p + r: every seat once
        for p in range(4):
            assert sorted((p + rows.rotation) % 4) == [0, 1, 2, 3]


def test_traces_replay_and_carry_where_they_were_played(boards, tmp_path):
    _, dup = boards
    files = sorted((dup / "_traces").glob("part-*.jsonl"))
    res = _run("replay", *map(str, files))
    assert res.exit_code == 0, res.output
    assert res.output.strip() == f"{12 * 11} legal, 0 illegal"
    rec = _traces(dup)[0]
    for key in ("deal", "dealer", "contract", "hands", "plays", "scores", "ruleset", "game",
                "game_deal", "board", "rotation", "doubles", "final"):  # fmt: skip
        assert key in rec


def test_contract_match_plays_each_deal_in_each_contract(tmp_path):
    run = _match(tmp_path / "c", "--games", "2", "--seed", "3", "--no-duplicate",
                 "--contracts", "hartenjagen,troeven_H,domino")  # fmt: skip
    manifest = json.loads((run / "_manifest.json").read_text())
    assert manifest["config"]["games"] == 6 and manifest["config"]["doubling"] is False
    deals = pd.read_parquet(run / "_deals")
    assert len(deals) == 66 and (deals.doubles == 0).all()
    for p in range(4):
        assert (deals[f"raw_{p}"] == deals[f"final_{p}"]).all()
    names = {0: "hartenjagen", 1: "domino", 2: "troeven_H"}  # in variant order
    assert (deals.variant.astype(str) == deals.game.map(lambda g: names[g % 3])).all()
    # every card the engine's own play loop plays: same scores
    for row in deals.itertuples():
        ref = play(3, 11 * row.board + row.deal, str(row.variant), "basic", dealer=row.dealer)
        assert [getattr(row, f"raw_{p}") for p in range(4)] == ref.scores


def test_results_json_and_text(boards):
    _, dup = boards
    res = _run("match", "--out", str(dup), "--resume", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["run"]["played"] == 0  # complete already: nothing left to play
    results = doc["results"]
    assert results["games_done"] == 12 and results["boards"] == 3
    basic = results["players"]["basic"]
    assert basic["seats"] == [0, 1, 2, 3] and basic["seat_games"] == 48
    # four identical players: every board's rotations average to the same
    assert basic["points_per_game"]["mean"] == pytest.approx(0.0)
    assert basic["faults"]["total"] == 0
    text = _run("match", "--out", str(dup), "--resume")
    assert "points per deal, by contract" in text.output


def test_summary_and_report_read_a_match(boards, tmp_path):
    _, dup = boards
    res = _run("summary", str(dup))
    assert res.exit_code == 0, res.output
    assert res.output.startswith(f"{dup}: match, complete, 12 of 12 games")
    res = _run("report", str(dup), "--out", str(tmp_path / "rep"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "rep" / "report.md").is_file()


def test_same_games_in_one_part_or_many(tmp_path):
    a = _match(tmp_path / "a", "--games", "3", "--seed", "5", "--chunk-size", "1")
    b = _match(tmp_path / "b", "--games", "3", "--seed", "5")
    assert len(json.loads((a / "_manifest.json").read_text())["parts"]) == 3
    for table in ("", "_deals"):
        pd.testing.assert_frame_equal(pd.read_parquet(a / table), pd.read_parquet(b / table))
    assert _traces(a) == _traces(b)
    assert np.array_equal(
        pd.read_parquet(a).sort_values("game").total_0, pd.read_parquet(b).total_0
    )
