"""A game run in-process: parts played on one pool and written while the next part plays;
a failed write or an interrupt keeps the parts written so far, and --resume completes the
run to the same bytes."""

from __future__ import annotations

import errno
import json

import pytest

import bonken_sim.runs.games as games_module
from bonken_sim.runs.errors import GameRunError, GameRunInterrupted
from bonken_sim.runs.games import MANIFEST, make_game_config, run_games
from bonken_sim.runs.storage import sha256_file

GAMES, CHUNK = 400, 100


def _config(out, **options):
    return make_game_config(GAMES, 4, chunk_size=CHUNK, threads=2, out=out, **options)


def _digests(root):
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in root.rglob("part-*.parquet")}


def _manifest(root):
    return json.loads((root / MANIFEST).read_text())


@pytest.fixture(scope="module")
def whole(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole") / "run"
    run_games(_config(out))
    return out


def test_an_in_process_session_records_its_play_and_write_times(whole):
    session = _manifest(whole)["sessions"][-1]
    assert session["games_played"] == GAMES and session["executor"] == "local"
    assert session["play_cpu_seconds"] > 0 and session["write_cpu_seconds"] > 0
    assert session["play_seconds"] >= session["write_tail_seconds"] >= 0


def test_one_thread_writes_the_same_bytes(whole, tmp_path):
    run_games(make_game_config(GAMES, 4, chunk_size=CHUNK, threads=1, out=tmp_path / "one"))
    assert _digests(tmp_path / "one") == _digests(whole)


def test_a_failed_write_keeps_the_parts_before_it_and_resumes(whole, tmp_path, monkeypatch):
    real = games_module.write_bytes

    def full_disk(root, name, data, rows, sha256=None):
        if "part-000002" in name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(root, name, data, rows, sha256)

    monkeypatch.setattr(games_module, "write_bytes", full_disk)
    out = tmp_path / "full"
    with pytest.raises(GameRunError, match="No space left on device"):
        run_games(_config(out))
    manifest = _manifest(out)
    assert manifest["state"] == "incomplete"
    assert [p["index"] for p in manifest["parts"]] == [0, 1]
    assert sorted(p.name for p in out.glob("part-*.parquet")) == [
        "part-000000.parquet",
        "part-000001.parquet",
    ]
    monkeypatch.setattr(games_module, "write_bytes", real)
    result = run_games(make_game_config(resume=True, out=out, threads=2), resume=True)
    assert result.played == GAMES - 2 * CHUNK
    assert _digests(out) == _digests(whole)


def test_an_interrupt_keeps_the_written_parts_and_resumes(whole, tmp_path):
    def ctrl_c(done, total):  # the progress callback runs on the main thread
        if done >= 2 * CHUNK:
            raise KeyboardInterrupt

    out = tmp_path / "cut"
    with pytest.raises(GameRunInterrupted, match="--resume"):
        run_games(_config(out), progress=ctrl_c)
    manifest = _manifest(out)
    assert manifest["state"] == "incomplete"
    kept = [p["index"] for p in manifest["parts"]]
    assert kept == list(range(len(kept))) and len(kept) < GAMES // CHUNK
    for p in manifest["parts"]:
        assert sha256_file(out / p["deals_file"]) == p["deals_sha256"]
    result = run_games(make_game_config(resume=True, out=out, threads=2), resume=True)
    assert result.played == GAMES - len(kept) * CHUNK
    assert _digests(out) == _digests(whole)


def test_a_game_error_stops_the_run_with_the_parts_before_it_kept(tmp_path, monkeypatch):
    from bonken_sim.engine.games import GameError, GamePlayer

    real = GamePlayer.play

    def broken(self, b, lo, hi):
        if b.start >= 2 * CHUNK:
            raise GameError("a chooser had no legal contract")
        real(self, b, lo, hi)

    monkeypatch.setattr(GamePlayer, "play", broken)
    out = tmp_path / "broken"
    with pytest.raises(GameError):
        run_games(_config(out))
    manifest = _manifest(out)
    assert manifest["state"] == "incomplete"
    assert [p["index"] for p in manifest["parts"]] == [0, 1]
