"""A match's run directory: killed at any moment it keeps its finished parts and
``--resume`` completes it to the tables of an uninterrupted match (outside programs
included); SIGTERM stops it resumably; every bad input is one line and exit status 2 with
nothing already written lost; ``game`` never takes a match for a game run."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli
from bonken_sim.runs.files import sha256_file

REPO = Path(__file__).resolve().parents[2]
LOWEST = f"cmd:{shlex.quote(sys.executable)} {REPO / 'examples' / 'lowest_bot.py'}"
SEATS = ["--player", "basic", "--player", "advanced", "--player", "basic", "--player", LOWEST]
ARGS = ["--games", "24", "--seed", "21", "--chunk-size", "2", *SEATS]


def _match(*args: str):
    return CliRunner().invoke(cli, ["match", *args])


def _digests(root: Path) -> dict[str, str]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return {p.relative_to(root).as_posix(): sha256_file(p) for p in files}


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole") / "m"
    res = _match(*ARGS, "--out", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    return out


def _start(out: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bonken_sim.cli", "match", *ARGS, "--out", str(out), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _parts(out: Path) -> int:
    try:
        return len(json.loads((out / "_manifest.json").read_text())["parts"])
    except (OSError, ValueError, KeyError):
        return 0


def _wait_for_parts(out: Path, proc: subprocess.Popen, n: int, timeout: float = 120) -> None:
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if _parts(out) >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"the match ended early: {proc.stderr.read()}")
        time.sleep(0.005)
    proc.kill()
    pytest.fail("the match wrote no part in time")


def _same_tables(a: Path, b: Path) -> None:
    for table in ("", "_deals"):
        pd.testing.assert_frame_equal(pd.read_parquet(a / table), pd.read_parquet(b / table))
    for sub in ("_traces", "_faults"):
        for f in (a / sub).glob("part-*.jsonl"):
            assert f.read_bytes() == (b / sub / f.name).read_bytes()


def test_resume_after_sigkill_completes_the_match(tmp_path, whole):
    out = tmp_path / "m"
    proc = _start(out)
    _wait_for_parts(out, proc, 2)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["state"] == "incomplete" and 2 <= len(manifest["parts"]) < 12
    res = _match("--resume", "--out", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    manifest = json.loads((out / "_manifest.json").read_text())
    assert manifest["state"] == "complete" and len(manifest["sessions"]) == 2
    assert not [p for p in out.rglob(".*")], "temporary files left behind"
    _same_tables(whole, out)


def test_sigterm_stops_resumably(tmp_path, whole):
    out = tmp_path / "m"
    proc = _start(out)
    _wait_for_parts(out, proc, 1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143, err
    assert "--resume" in err
    res = _match("--resume", "--out", str(out), "--quiet")
    assert res.exit_code == 0, res.output
    _same_tables(whole, out)


@pytest.mark.parametrize(
    "args, message",
    [
        ([], "--games is required"),
        (["--games", "0"], "--games must be positive"),
        (["--games", "2", "--seed", "-1"], "--seed"),
        (["--games", "2", "--players", "basic,nosuch,basic,basic"], "unknown player 'nosuch'"),
        (["--games", "2", "--players", "basic,basic"], "give one player or four"),
        (["--games", "2", "--players", "basic", "--player", "basic"], "not both"),
        (["--games", "2", "--player", "cmd:"], "names no command"),
        (["--games", "2", "--player", "cmd:a 'b"], "cannot split the command"),
        (["--games", "2", "--contracts", "nosuch"], "nosuch"),
        (["--games", "2", "--time-limit", "0"], "--time-limit"),
        (["--games", "2", "--time-limit", "soon"], "--time-limit"),
        (["--games", "2", "--ruleset", "nosuch"], "nosuch"),
        (["--games", "2", "--resume", "--force"], "exclude each other"),
    ],
)
def test_bad_inputs_are_one_line_and_status_2(tmp_path, args, message):
    res = _match(*args, "--out", str(tmp_path / "m"))
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (tmp_path / "m" / "_manifest.json").exists()


def test_nothing_written_is_lost(tmp_path, whole):
    before = _digests(whole)
    for args, message in [
        ((), "already exists"),  # a new match into a finished one
        (("--resume", "--seed", "22"), "holds a different match: --seed 22"),
        (("--resume", "--games", "25"), "--games 25 differs"),
        (("--resume", "--no-duplicate"), "--duplicate off differs"),
    ]:
        base = [] if "--resume" in args else ARGS
        res = _match(*base, *args, "--out", str(whole), "--quiet")
        assert res.exit_code == 2 and message in res.output, res.output
    res = CliRunner().invoke(cli, ["game", "--games", "5", "--out", str(whole), "--force"])
    assert res.exit_code == 2 and "holds a match, not a game run" in res.output
    res = CliRunner().invoke(cli, ["game", "--resume", "--out", str(whole)])
    assert res.exit_code == 2 and "game run" in res.output
    assert _digests(whole) == before
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    res = _match("--games", "1", "--out", str(other))
    assert res.exit_code == 2 and "is not a match" in res.output
    assert (other / "notes.txt").read_text() == "mine"


def test_force_replaces_a_match(tmp_path):
    out = tmp_path / "m"
    first = _match("--games", "2", "--seed", "1", "--out", str(out), "--quiet", "--chunk-size", "1")
    assert first.exit_code == 0, first.output
    res = _match("--games", "1", "--seed", "1", "--out", str(out), "--quiet", "--force")
    assert res.exit_code == 0, res.output
    assert sorted(p.name for p in (out / "_traces").iterdir()) == ["part-000000.jsonl"]
    assert len(pd.read_parquet(out)) == 4
