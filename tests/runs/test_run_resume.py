"""A run killed at any moment leaves only complete parts and an incomplete manifest, and
``--resume`` completes it to exactly the bytes of an uninterrupted run. Ctrl-C stops quickly
with a message saying how to resume; a full disk is a clear error."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bonken_sim.cli import main
from bonken_sim.runs.deals import RunInterrupted
from bonken_sim.runs.deals import run as run_dir
from bonken_sim.runs.storage import read_manifest, result_digest, verify_run

KW = dict(deals=24_000, seed=31, strategies="basic,random,random,basic", chunk_size=1000)
ARGS = [
    "--deals",
    "24000",
    "--seed",
    "31",
    "--strategies",
    "basic,random,random,basic",
    "--chunk-size",
    "1000",
]


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> str:
    out = tmp_path_factory.mktemp("ref") / "run"
    run_dir(**KW, out=out)
    return result_digest(out)


def _start(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bonken_sim.cli", "run", *ARGS, "--out", str(out), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # a child of a shell job may inherit an ignored SIGINT; give Python its handler back
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_parts(out: Path, proc: subprocess.Popen, n: int, timeout: float = 120) -> int:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            parts = len(json.loads((out / "_manifest.json").read_text())["parts"])
        except (OSError, ValueError, KeyError):
            parts = 0
        if parts >= n:
            return parts
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.stderr.read()}")
        time.sleep(0.005)
    proc.kill()
    pytest.fail("the run wrote no part in time")


def _assert_nothing_fake(out: Path) -> None:
    """Every file a reader would pick up is a complete Parquet file."""
    m = read_manifest(out)
    assert m["state"] == "incomplete"
    for f in [*out.glob("*.parquet"), *(out / "_deals").glob("*.parquet")]:
        assert not f.name.startswith((".", "_"))
        pq.read_metadata(f)  # raises on a truncated file
    listed = {p["file"] for p in m["parts"]}
    assert listed <= {f.name for f in out.glob("*.parquet")}
    assert verify_run(out) == []


def test_resume_after_sigkill_gives_the_uninterrupted_bytes(tmp_path, capsys, reference):
    out = tmp_path / "run"
    proc = _start(out, "--quiet")
    _wait_for_parts(out, proc, 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    _assert_nothing_fake(out)
    done = read_manifest(out)["deals_done"]
    assert 0 < done < KW["deals"]
    code = main(["run", "--resume", "--out", str(out), "--quiet"])
    assert code == 0, capsys.readouterr().err
    m = read_manifest(out)
    assert m["state"] == "complete" and m["deals_done"] == KW["deals"]
    assert len(m["sessions"]) == 2
    assert not [p for p in out.rglob(".*")], "temporary files left behind"
    assert result_digest(out) == reference


def test_ctrl_c_stops_quickly_and_says_how_to_resume(tmp_path, capsys, reference):
    out = tmp_path / "run"
    proc = _start(out)
    _wait_for_parts(out, proc, 1)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    stopped = time.monotonic() - t0
    assert proc.returncode == 130, err
    assert f"resume with: bonken-sim run --resume --out {out}" in err
    assert "Traceback" not in err
    assert stopped < 10, f"took {stopped:.1f} s to stop"  # a hang detector, not a benchmark
    _assert_nothing_fake(out)
    assert main(["run", "--resume", "--out", str(out), "--quiet"]) == 0
    assert result_digest(out) == reference


def test_interrupt_in_process_then_resume(tmp_path, reference):
    out = tmp_path / "run"

    def progress(done, total):
        if done >= 5000:
            raise KeyboardInterrupt

    with pytest.raises(RunInterrupted) as info:
        run_dir(**KW, out=out, progress=progress)
    assert "resume with: bonken-sim run --resume --out" in info.value.message
    assert info.value.deals_done == read_manifest(out)["deals_done"]
    _assert_nothing_fake(out)
    r = run_dir(out=out, resume=True, threads=1)
    assert r.resumed and 0 < r.deals_this_session < KW["deals"]
    assert result_digest(out) == reference


def test_a_damaged_part_is_played_again_on_resume(tmp_path, reference, capsys):
    out = tmp_path / "run"
    run_dir(**KW, out=out)
    victim = out / "part-000007.parquet"
    data = bytearray(victim.read_bytes())
    data[100] ^= 0xFF
    victim.write_bytes(bytes(data))
    (out / "_deals" / "part-000011.parquet").unlink()
    assert len(verify_run(out)) == 2
    doc = json.loads(
        (main(["run", "--resume", "--out", str(out), "--json"]), capsys.readouterr().out)[1]
    )
    assert doc["deals_this_session"] == 2 * KW["chunk_size"]
    assert verify_run(out) == [] and result_digest(out) == reference


def test_a_full_disk_is_a_clear_error(tmp_path, capsys, monkeypatch, reference):
    import bonken_sim.runs.storage as io

    real = io.write_parquet
    calls = {"n": 0}

    def flaky(path, table, row_group_size, root):
        calls["n"] += 1
        if calls["n"] == 7:
            tmp = io.tmp_name(path)
            tmp.write_bytes(b"PAR1 half a file")  # what a full disk leaves behind
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp))
        return real(path, table, row_group_size, root)

    monkeypatch.setattr(io, "write_parquet", flaky)
    out = tmp_path / "run"
    code = main(["run", *ARGS, "--out", str(out)])
    _, err = capsys.readouterr()
    assert code == 2
    lines = err.strip().splitlines()
    assert lines[-1].startswith(f"bonken-sim: error: cannot write the run in {out}")
    assert lines[-1].endswith("No space left on device") and "Traceback" not in err
    _assert_nothing_fake(out)
    monkeypatch.setattr(io, "write_parquet", real)
    assert main(["run", "--resume", "--out", str(out), "--quiet"]) == 0
    assert result_digest(out) == reference
