"""Play is pinned: fixed-seed runs and game runs give the same table contents, row for row.

The digests below were recorded from the engine before the package was reorganised; any
change of dealing, rules, strategies, contract choice, doubling or of what a run writes
shows here. Contents, not file bytes, are hashed: the files also carry versions and times.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli


def _table_digest(files: list[Path]) -> str:
    """SHA-256 of the rows of the part files, in part order, every column by name."""
    h = hashlib.sha256()
    for path in files:
        table = pq.read_table(path)
        frame = table.to_pandas()
        for name in sorted(frame.columns):
            col = frame[name]
            if isinstance(col.dtype, pd.CategoricalDtype):
                col = col.astype(object)
            h.update(name.encode())
            h.update(pd.util.hash_pandas_object(col, index=False).to_numpy().tobytes())
    return h.hexdigest()


def _run(tmp_path: Path, args: list[str]) -> Path:
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, [*args, "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    return out


# extra options -> the first 16 hex digits of the digest of the results and deals tables
DEAL_RUNS = {
    "--strategies basic": "d52633e5f9bc2e84",
    "--strategies random": "31d80069e648a962",
    "--strategies advanced": "f7749cf2d6ea36bc",
    "--strategies advanced,basic,random,basic": "36845e1e1fd83559",
    "--strategies basic,advanced,advanced,random --ruleset bierkaart": "b48f385affbc3b42",
}


@pytest.mark.parametrize("options", list(DEAL_RUNS))
def test_deal_run_tables_pinned(tmp_path, options):
    args = ["run", "--deals", "3000", "--seed", "11", "--chunk-size", "1000", "--threads", "2"]
    out = _run(tmp_path, [*args, *options.split()])
    parts = sorted(out.glob("part-*.parquet"))
    deals = sorted((out / "_deals").glob("part-*.parquet"))
    assert len(parts) == len(deals) == 3
    digest = _table_digest(parts) + _table_digest(deals)
    assert hashlib.sha256(digest.encode()).hexdigest()[:16] == DEAL_RUNS[options]


# extra options -> the first 16 hex digits of the digest of the deals and games tables
GAME_RUNS = {
    "--players basic": "9515a1005eb87be7",
    "--players advanced,basic-nodouble,basic-randomchoice,random": "7617ac01f8547014",
    "--players random": "50e399018ab9a3f9",
    "--players advanced,basic,advanced,basic --ruleset bierkaart": "b887223a6a3a1345",
}


@pytest.mark.parametrize("options", list(GAME_RUNS))
def test_game_run_tables_pinned(tmp_path, options):
    args = ["game", "--games", "300", "--seed", "5", "--chunk-size", "100", "--threads", "2"]
    out = _run(tmp_path, [*args, *options.split()])
    tables = []
    for sub in ("_deals", ""):  # the deals table, then the games table at the top
        files = sorted((out / sub).glob("part-*.parquet"))
        assert len(files) == 3, sub
        tables.append(_table_digest(files))
    digest = hashlib.sha256("".join(tables).encode()).hexdigest()[:16]
    assert digest == GAME_RUNS[options]
