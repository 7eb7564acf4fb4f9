"""A game part's two tables (runs/game_tables.py): their rows from a played batch, and the
Parquet encoding of each column."""

from __future__ import annotations

import io

import numpy as np
import pyarrow.parquet as pq
import pytest

from bonken_sim.engine.games import PAIRS, play_games
from bonken_sim.rules.names import variant_names
from bonken_sim.runs.game_tables import deals_table, encode_table, games_table

PLAYERS = ("advanced", "basic", "random", "basic-nodouble")


@pytest.fixture(scope="module")
def batch():
    # a different seating per game: every profile in every seat
    seating = np.array([np.roll(np.arange(4), g % 4) for g in range(40)])
    return play_games(40, 3, seating, list(PLAYERS), start=1000, threads=2)


def test_the_deals_table_holds_the_batch_row_by_row(batch):
    deals = deals_table(batch, {"part": 0}).to_pandas()
    assert len(deals) == batch.n * 11
    for row in (0, 17, len(deals) - 1):
        g, k = divmod(row, 11)
        r = deals.iloc[row]
        assert (r.game, r.deal) == (1000 + g, k)
        assert r.dealer == (1000 + g + k) % 4 and r.chooser == (r.dealer + 2) % 4
        assert r.variant == variant_names(None)[batch.variant[g, k]]
        assert r.doubles == batch.dbl[g, k]
        doubled = batch.doubled()[g, k]
        for a, c in PAIRS:
            assert r[f"m_{a}{c}"] == doubled[a, c] + doubled[c, a]
        for p in range(4):
            assert (r[f"raw_{p}"], r[f"final_{p}"]) == (batch.raw[g, k, p], batch.final[g, k, p])


def test_the_games_table_names_each_seat_s_profile(batch):
    games = games_table(batch, PLAYERS, {"part": 0}).to_pandas()
    for p in range(4):
        want = [PLAYERS[i] for i in batch.profiles[:, p]]
        assert games[f"profile_{p}"].astype(str).tolist() == want
        assert np.array_equal(games[f"total_{p}"], batch.totals[:, p])
    best = games[[f"total_{p}" for p in range(4)]].to_numpy().argmax(axis=1)
    assert all(games[f"rank_{p}"].iloc[i] == 1 for i, p in enumerate(best))


def _chunks(data: bytes) -> dict:
    meta = pq.ParquetFile(io.BytesIO(data)).metadata.row_group(0)
    return {meta.column(i).path_in_schema: meta.column(i) for i in range(meta.num_columns)}


@pytest.mark.parametrize("which", ["deals", "games"])
def test_each_column_is_encoded_as_documented(batch, which):
    if which == "deals":
        table = deals_table(batch, {"part": 0})
    else:
        table = games_table(batch, PLAYERS, {"part": 0})
    data = encode_table(table)
    assert pq.read_table(io.BytesIO(data)).equals(table)  # the same rows, types, metadata
    for name, chunk in _chunks(data).items():
        delta = name == "game" or name.startswith(("m_", "raw_", "final_", "total_"))
        if delta:
            assert "DELTA_BINARY_PACKED" in chunk.encodings, name
            assert chunk.compression == "UNCOMPRESSED", name
        else:
            assert "RLE_DICTIONARY" in chunk.encodings, name
            assert chunk.compression == "ZSTD", name
        assert chunk.is_stats_set == (name == "game"), name
