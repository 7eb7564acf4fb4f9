"""The layout of a game run: the directory itself reads as the games table (as a deal run reads
as its results table) and ``_deals/`` as the deals table, with any Parquet reader; runs of the
first layout (``deals/`` + ``games/``) are still read, summarised, compared, reported and
resumed in place."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pyarrow.dataset as pads
import pytest

from bonken_sim.analyses.compare import compare_runs
from bonken_sim.cli import main
from bonken_sim.runs.game_format import game_dataset, game_part_files
from bonken_sim.runs.game_summary import summarize_game_run
from bonken_sim.runs.games import MANIFEST, make_game_config, run_games
from bonken_sim.runs.storage import sha256_file

GAMES = 300
CHUNK = 100
GAME_COLUMNS = ["game", "first_dealer"] + [
    f"{c}_{p}" for c in ("profile", "total", "rank") for p in range(4)
]


def _play(out: Path) -> Path:
    run_games(make_game_config(GAMES, 5, threads=1, chunk_size=CHUNK, out=out))
    return out


def _digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


def _to_old_layout(root: Path) -> Path:
    """A game run as the first layout wrote it: the same part files in deals/ and games/, a
    manifest without ``tables``."""
    manifest = json.loads((root / MANIFEST).read_text())
    for sub in ("deals", "games"):
        (root / sub).mkdir()
    for part in manifest["parts"]:
        for key, sub in (("deals_file", "deals"), ("games_file", "games")):
            name = Path(part[key]).name
            os.replace(root / part[key], root / sub / name)
            part[key] = f"{sub}/{name}"
    del manifest["tables"]
    (root / MANIFEST).write_text(json.dumps(manifest))
    (root / "_deals").rmdir()
    return root


@pytest.fixture(scope="module")
def new_run(tmp_path_factory):
    return _play(tmp_path_factory.mktemp("layout") / "new")


@pytest.fixture(scope="module")
def old_run(tmp_path_factory):
    return _to_old_layout(_play(tmp_path_factory.mktemp("layout") / "old"))


def test_the_run_directory_reads_as_the_games_table(new_run):
    games = pd.read_parquet(new_run)
    assert list(games.columns) == GAME_COLUMNS and len(games) == GAMES
    assert not games.isna().any().any()
    assert sorted(games.game) == list(range(GAMES))
    deals = pd.read_parquet(new_run / "_deals")
    assert len(deals) == GAMES * 11 and "final_0" in deals.columns
    assert pads.dataset(new_run).to_table().num_rows == GAMES
    manifest = json.loads((new_run / MANIFEST).read_text())
    assert set(manifest["tables"]) == {"games", "deals"}
    assert sorted(p.name for p in new_run.iterdir()) == [
        "_deals",
        "_manifest.json",
        *(f"part-{k:06d}.parquet" for k in range(3)),
    ]


def test_duckdb_and_polars_read_the_games_table(new_run):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    con = duckdb.connect()
    assert con.execute(f"select count(*) from '{new_run}/*.parquet'").fetchone() == (GAMES,)
    n = con.execute(f"select count(*) from '{new_run}/_deals/*.parquet'").fetchone()
    assert n == (GAMES * 11,)
    assert pl.scan_parquet(f"{new_run}/*.parquet").collect().columns == GAME_COLUMNS


def test_game_dataset_reads_either_layout_the_same(new_run, old_run):
    for table in ("games", "deals"):
        a = game_dataset(new_run, table).to_table().to_pandas()
        b = game_dataset(old_run, table).to_table().to_pandas()
        pd.testing.assert_frame_equal(a, b)
    assert [Path(f).parent.name for f in game_part_files(old_run, "deals")] == ["deals"] * 3
    with pytest.raises(ValueError, match="table must be"):
        game_part_files(new_run, "hands")


def test_an_old_layout_run_is_summarised_compared_and_reported(new_run, old_run, tmp_path):
    from bonken_sim.report.games.stats import aggregate_games

    old, new = summarize_game_run(old_run), summarize_game_run(new_run)
    assert {k: v for k, v in old.items() if k != "run"} == {
        k: v for k, v in new.items() if k != "run"
    }
    doc = compare_runs(old_run, new_run)
    assert doc["games"] == GAMES and all(s["total"]["diff"].mean == 0 for s in doc["seats"])
    assert aggregate_games(old_run).games == GAMES
    assert main(["report", str(old_run), "--out", str(tmp_path / "rep"), "--quiet"]) == 0


def test_an_old_layout_run_resumes_in_place(old_run, tmp_path):
    out = tmp_path / "cut"
    shutil.copytree(old_run, out)
    manifest = json.loads((out / MANIFEST).read_text())
    for part in manifest["parts"][1:]:
        (out / part["deals_file"]).unlink()
        (out / part["games_file"]).unlink()
    manifest.update(state="incomplete", parts=manifest["parts"][:1])
    (out / MANIFEST).write_text(json.dumps(manifest))
    result = run_games(make_game_config(resume=True, out=out, threads=1), resume=True)
    assert result.played == 2 * CHUNK
    assert _digests(out) == _digests(old_run)  # the same files in deals/ and games/
    assert not (out / "_deals").exists() and not list(out.glob("part-*.parquet"))
    assert "tables" not in json.loads((out / MANIFEST).read_text())


def test_force_rewrites_an_old_layout_run_in_the_new_layout(new_run, old_run, tmp_path):
    out = tmp_path / "forced"
    shutil.copytree(old_run, out)
    run_games(make_game_config(GAMES, 5, threads=1, chunk_size=CHUNK, out=out), force=True)
    assert _digests(out) == _digests(new_run)
    assert not (out / "deals").exists() and not (out / "games").exists()
    # empty part directories of either layout count as an empty --out
    empty = tmp_path / "empty"
    for sub in ("deals", "games", "_deals"):
        (empty / sub).mkdir(parents=True)
    run_games(make_game_config(GAMES, 5, threads=1, chunk_size=CHUNK, out=empty))
    assert _digests(empty) == _digests(new_run)
