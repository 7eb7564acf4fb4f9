"""One writer per run directory: a second writer is refused at once, naming the first; a
killed writer never blocks the next one; readers go on and say that the run is being
written. The races are between real processes, as two shells would start them."""

from __future__ import annotations

import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.report import ReportError, write_report
from bonken_sim.runs import lock as L
from bonken_sim.runs.manifest import MANIFEST
from bonken_sim.runs.readers import summarize

CLI = [sys.executable, "-c", "import sys; from bonken_sim.cli import main; sys.exit(main())"]
WAIT = 120.0  # seconds: a cold kernel cache compiles after the lock is taken, never before


def _start_writer(out: Path, *args: str) -> subprocess.Popen:
    """A long run into ``out`` in a process of its own (its own session, so a signal reaches
    it and its workers alone)."""
    return subprocess.Popen(
        [
            *CLI,
            "run",
            "--deals",
            "1e8",
            "--seed",
            "4",
            "--threads",
            "1",
            "--out",
            str(out),
            "--quiet",
            *args,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _wait_for_record(out: Path, proc: subprocess.Popen) -> L.Holder:
    """The lock record of ``proc`` once it is written (and the run's manifest with it)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        try:
            holder = L.Holder.parse((out / L.LOCK_FILE).read_text())
        except OSError:
            holder = None
        if holder is not None and holder.pid == proc.pid and (out / MANIFEST).exists():
            return holder
        time.sleep(0.05)
    raise AssertionError(f"{proc.args} took no lock on {out} in {WAIT} s")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=WAIT)


def _stop(proc: subprocess.Popen, sig: int) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, sig)
    proc.wait(timeout=WAIT)


def _manifest(out: Path) -> dict:
    return json.loads((out / MANIFEST).read_text())


def test_a_second_writer_is_refused_even_with_force(tmp_path):
    out = tmp_path / "R"
    first = _start_writer(out)
    try:
        holder = _wait_for_record(out, first)
        assert holder.here and "--seed 4" in holder.command
        second = _cli("run", "--deals", "400k", "--seed", "5", "--out", str(out), "--force")
        assert second.returncode == 2
        lines = second.stderr.strip().splitlines()
        assert len(lines) == 1, second.stderr
        assert lines[0].startswith(f"bonken-sim: error: {out} is being written by pid {first.pid}")
        assert "--seed 4" in lines[0] and holder.since in lines[0]
        # resuming it, or writing a game run there, is refused the same way
        resumed = _cli("run", "--resume", "--out", str(out))
        assert resumed.returncode == 2 and f"pid {first.pid}" in resumed.stderr
        game = _cli("game", "--games", "100", "--out", str(out), "--force")
        assert game.returncode == 2 and f"pid {first.pid}" in game.stderr
        # a reader goes on, and says so
        summary = _cli("summary", str(out))
        assert summary.returncode == 0, summary.stderr
        assert f"being written now by pid {first.pid} on this host" in summary.stdout
        # a report of it (incomplete: it is being played) says why, not "resume it"
        report = _cli("report", str(out), "--out", str(tmp_path / "elsewhere"))
        assert report.returncode == 2
        assert report.stderr.startswith(f"bonken-sim: error: {out} is being written by pid ")
        assert (
            "report it when that has finished" in report.stderr and "--resume" not in report.stderr
        )
        assert _manifest(out)["config"]["seed"] == 4  # the first run's, untouched
    finally:
        _stop(first, signal.SIGTERM)
    assert first.returncode == 143
    assert not (out / L.LOCK_FILE).exists()  # let go when the run stopped
    assert _manifest(out)["config"]["seed"] == 4
    assert summarize(out)["writer"] is None
    again = _cli("run", "--deals", "2000", "--seed", "5", "--out", str(out), "--force")
    assert again.returncode == 0, again.stderr
    assert _manifest(out)["config"]["seed"] == 5 and _manifest(out)["state"] == "complete"


def test_a_killed_writer_does_not_block_the_next(tmp_path):
    out = tmp_path / "R"
    first = _start_writer(out)
    try:
        _wait_for_record(out, first)
    finally:
        _stop(first, signal.SIGKILL)
    assert (out / L.LOCK_FILE).exists()  # its record stays behind, its lock does not
    assert L.writer_of(out) is None
    assert "being written" not in _cli("summary", str(out)).stdout
    again = _cli("run", "--deals", "2000", "--seed", "5", "--out", str(out), "--force")
    assert again.returncode == 0, again.stderr
    assert not (out / L.LOCK_FILE).exists()
    assert _manifest(out)["config"]["seed"] == 5


def test_a_game_run_is_locked_too(tmp_path):
    out = tmp_path / "G"
    out.mkdir()
    with L.acquire(out):
        code = main(["game", "--games", "50", "--seed", "1", "--out", str(out), "--quiet"])
        assert code == 2
        assert not (out / MANIFEST).exists()
    assert main(["game", "--games", "50", "--seed", "1", "--out", str(out), "--quiet"]) == 0


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("lock") / "run"
    bonken_sim.run(deals=400, seed=3, chunk_size=200, out=out, threads=1)
    return out


def test_a_report_into_a_run_being_written_is_refused(finished_run, capsys):
    with L.acquire(finished_run):
        with pytest.raises(ReportError, match=f"being written by pid {os.getpid()}"):
            write_report(finished_run)
        assert not (finished_run / "_report").exists()
        # a report elsewhere only reads the run
        elsewhere = finished_run.parent / "elsewhere"
        write_report(finished_run, elsewhere, formats="md")
        assert (elsewhere / "report.md").is_file()
    # and while a report writes into the run, the run is locked for other writers
    held: list[L.Holder | None] = []

    def progress(*stage) -> None:
        held.append(L.writer_of(finished_run))

    write_report(finished_run, formats="md", progress=progress)
    assert held and all(h is not None and h.pid == os.getpid() for h in held)
    assert L.writer_of(finished_run) is None


def test_summary_json_names_the_writer(finished_run):
    assert summarize(finished_run)["writer"] is None
    with L.acquire(finished_run):
        writer = summarize(finished_run)["writer"]
    assert writer["pid"] == os.getpid() and writer["host"] == socket.gethostname()


# ---------------------------------------------------------------------------------------
# The lock itself


def test_acquire_release_and_the_holder(tmp_path):
    lock = L.acquire(tmp_path)
    record = L.Holder.parse((tmp_path / L.LOCK_FILE).read_text())
    assert record is not None and record.pid == os.getpid()
    with pytest.raises(L.DirectoryBusy) as busy:
        L.acquire(tmp_path, retry_seconds=0)
    assert busy.value.holder == record
    assert L.writer_of(tmp_path) == record
    lock.release()
    assert not (tmp_path / L.LOCK_FILE).exists() and L.writer_of(tmp_path) is None
    with L.acquire(tmp_path) as again:
        assert again.held and again.took_over is None


def test_a_stale_record_is_taken_over(tmp_path):
    stale = L.Holder(_dead_pid(), socket.gethostname(), "bonken-sim run", "2026-01-01T00:00:00Z")
    (tmp_path / L.LOCK_FILE).write_text(stale.to_json())
    with L.acquire(tmp_path) as lock:
        assert lock.took_over == stale


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _no_flock(monkeypatch):
    def flock(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(L.fcntl, "flock", flock)


@pytest.mark.parametrize(
    ("pid", "host", "busy"),
    [
        ("live", "here", True),  # a process of this host that still runs
        ("dead", "here", False),  # one that no longer runs: taken over
        ("live", "elsewhere", True),  # another host's: cannot be checked, so it holds
    ],
)
def test_without_flock_the_record_is_the_lock(tmp_path, monkeypatch, pid, host, busy):
    _no_flock(monkeypatch)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        holder = L.Holder(
            sleeper.pid if pid == "live" else _dead_pid(),
            socket.gethostname() if host == "here" else "another-host.example",
            "bonken-sim run --deals 1e6",
            "2026-01-01T00:00:00Z",
        )
        (tmp_path / L.LOCK_FILE).write_text(holder.to_json())
        if busy:
            with pytest.raises(L.DirectoryBusy, match=f"pid {holder.pid}"):
                L.acquire(tmp_path, retry_seconds=0)
            assert L.writer_of(tmp_path) == holder
        else:
            with L.acquire(tmp_path) as lock:
                assert lock.took_over == holder
            assert not (tmp_path / L.LOCK_FILE).exists()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_refused_directory_keeps_no_lock_file(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    (ro / "stranger.txt").write_text("not a run")
    code = main(["run", "--deals", "100", "--out", str(ro), "--quiet"])
    assert code == 2
    assert sorted(p.name for p in ro.iterdir()) == ["stranger.txt"]
