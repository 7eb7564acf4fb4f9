"""Runs and games with expert seats give the same bytes on every executor: the expert's
samples are keyed by the deal, never by the worker or the chunk that plays it."""

from __future__ import annotations

from pathlib import Path

from bonken_sim.cli import main
from bonken_sim.runs.storage import result_digest, sha256_file

RUN = ["--deals", "40", "--seed", "6", "--strategies", "expert:2:1,advanced,random,basic",
       "--contracts", "hartenjagen,domino,troeven_S", "--quiet"]  # fmt: skip
GAME = ["--games", "4", "--seed", "2", "--players", "expert,advanced,basic,expert", "--quiet"]


def _game_digests(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


def test_expert_run_is_the_same_on_a_process_pool_and_any_chunks(tmp_path):
    ref, pool = tmp_path / "ref", tmp_path / "pool"
    assert main(["run", *RUN, "--chunk-size", "40", "--threads", "1", "--out", str(ref)]) == 0
    args = ["run", *RUN, "--chunk-size", "10", "--executor", "process", "--workers", "2"]
    assert main([*args, "--out", str(pool)]) == 0
    assert result_digest(pool) == result_digest(ref)


def test_expert_game_is_the_same_on_a_process_pool(tmp_path):
    ref, pool = tmp_path / "ref", tmp_path / "pool"
    assert main(["game", *GAME, "--chunk-size", "2", "--out", str(ref)]) == 0
    args = ["game", *GAME, "--chunk-size", "2", "--executor", "process", "--workers", "2"]
    assert main([*args, "--out", str(pool)]) == 0
    digests = _game_digests(ref)
    assert digests and _game_digests(pool) == digests
