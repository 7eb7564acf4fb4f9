"""--out FILE of trace and ladder: an existing file is kept unless --force, and a place that
cannot be written is refused before any work, in one line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bonken_sim.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _unwritable(tmp_path: Path) -> Path:
    """A file in a directory that cannot be written (root writes anywhere but /proc)."""
    if os.geteuid() == 0:
        return Path("/proc/bonken-sim-out.json")
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    return ro / "out.json"


TRACE = ["trace", "--deals", "1", "--seed", "1", "--contracts", "bukken", "--out"]
LADDER = ["ladder", "--deals", "50", "--seed", "1", "--out"]


@pytest.mark.parametrize("command", [TRACE, LADDER], ids=["trace", "ladder"])
def test_an_existing_out_file_is_kept_without_force(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setattr("bonken_sim.analyses.ladder.run_ladder", _no_work)
    out = tmp_path / "old.json"
    out.write_text("keep\n")
    code, stdout, err = run(capsys, *command, str(out))
    assert code == 2 and stdout == ""
    assert err == f"bonken-sim: error: --out {out} already exists; --force replaces it\n"
    assert out.read_text() == "keep\n"


def test_trace_force_replaces_the_file(tmp_path, capsys):
    out = tmp_path / "old.jsonl"
    out.write_text("keep\n")
    code, _, err = run(capsys, *TRACE, str(out), "--force")
    assert code == 0, err
    assert json.loads(out.read_text())["contract"] == "bukken"


def test_ladder_force_replaces_the_file(tmp_path, capsys):
    out = tmp_path / "old.json"
    out.write_text("keep\n")
    code, stdout, err = run(capsys, *LADDER, str(out), "--force", "--json")
    assert code == 0, err
    assert json.loads(out.read_text()) == json.loads(stdout)


def _no_work(*args, **kwargs):
    raise AssertionError("the ladder ran although its --out cannot be written")


@pytest.mark.parametrize("command", [TRACE, LADDER], ids=["trace", "ladder"])
def test_an_unwritable_out_is_refused_before_the_work(tmp_path, capsys, monkeypatch, command):
    monkeypatch.setattr("bonken_sim.analyses.ladder.run_ladder", _no_work)
    out = _unwritable(tmp_path)
    code, stdout, err = run(capsys, *command, str(out))
    assert code == 2 and stdout == ""
    assert err.startswith(f"bonken-sim: error: cannot write --out {out}: ") and err.count("\n") == 1


def test_force_is_in_the_help(capsys):
    for name in ("trace", "ladder"):
        assert main([name, "--help"]) == 0
        assert "--force" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command",
    [
        ["run", "--deals", "10", "--seed", "1", "--quiet"],
        ["game", "--games", "10", "--seed", "1", "--quiet"],
        TRACE[:-1],
        LADDER[:-1],
        ["report", "somewhere"],
        ["bench", "--deals", "10"],
    ],
    ids=["run", "game", "trace", "ladder", "report", "bench"],
)
def test_an_empty_out_is_refused(tmp_path, capsys, monkeypatch, command):
    """An empty --out is no path: not the default folder, not the current directory."""
    monkeypatch.chdir(tmp_path)
    code, stdout, err = run(capsys, *command, "--out", "")
    assert (code, stdout, err) == (2, "", "bonken-sim: error: --out must not be empty\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", [TRACE, LADDER], ids=["trace", "ladder"])
@pytest.mark.parametrize("below", ["x.json", "sub/x.json"])
def test_an_out_below_a_file_says_the_file_is_not_a_directory(
    tmp_path, capsys, monkeypatch, command, below
):
    monkeypatch.setattr("bonken_sim.analyses.ladder.run_ladder", _no_work)
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    out = afile / below
    code, stdout, err = run(capsys, *command, str(out))
    assert code == 2 and stdout == ""
    assert err == f"bonken-sim: error: cannot write --out {out}: {afile} is not a directory\n"
    assert afile.read_text() == "keep\n"


@pytest.mark.parametrize("below", ["x", "sub/x"])
def test_a_bench_out_below_a_file_is_refused_before_the_measuring(
    tmp_path, capsys, monkeypatch, below
):
    measured = []

    def fake_bench(*, out_dir, **kwargs):  # what run_bench does: measure, then write
        measured.append(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        return {}

    monkeypatch.setattr("bonken_sim.bench.bench.run_bench", fake_bench)
    monkeypatch.setattr("bonken_sim.cli.bench.compile_first", lambda *needs: None)
    afile = tmp_path / "afile"
    afile.write_text("keep\n")
    out = afile / below
    code, stdout, err = run(capsys, "bench", "--out", str(out))
    assert code == 2 and stdout == "" and measured == []
    assert err == f"bonken-sim: error: cannot write --out {out}: {afile} is not a directory\n"
    assert afile.read_text() == "keep\n"


@pytest.mark.parametrize("command", [TRACE, LADDER], ids=["trace", "ladder"])
def test_an_out_that_is_a_pipe_is_refused_even_with_force(tmp_path, capsys, monkeypatch, command):
    # the finished file would be renamed over it: as root, `--out /dev/null` replaced the device
    monkeypatch.setattr("bonken_sim.analyses.ladder.run_ladder", _no_work)
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code, stdout, err = run(capsys, *command, str(pipe), "--force")
    assert code == 2 and stdout == ""
    assert err == f"bonken-sim: error: --out {pipe} is not a regular file (a device or a pipe)\n"
    assert pipe.is_fifo()


@pytest.mark.parametrize("command", [TRACE, LADDER], ids=["trace", "ladder"])
def test_quiet_writes_the_file_and_prints_nothing(tmp_path, capsys, command):
    out = tmp_path / "out.json"
    loud_out = tmp_path / "loud.json"
    code, stdout, err = run(capsys, *command, str(loud_out))
    assert code == 0 and (stdout or err)  # without --quiet, it says what it did
    code, stdout, err = run(capsys, *command, str(out), "--quiet")
    assert code == 0, err
    assert (stdout, err) == ("", "")
    if command is TRACE:
        assert out.read_bytes() == loud_out.read_bytes()
    else:  # the ladder's JSON carries its timing: the same tables, not the same bytes
        assert json.loads(out.read_text()).keys() == json.loads(loud_out.read_text()).keys()


def test_ladder_quiet_without_a_file_is_refused(capsys, monkeypatch):
    monkeypatch.setattr("bonken_sim.analyses.ladder.run_ladder", _no_work)
    code, stdout, err = run(capsys, *LADDER, "-", "--quiet")
    assert code == 2 and stdout == ""
    assert err == (
        "bonken-sim: error: --quiet with --out - would measure and show nothing; give --out FILE\n"
    )
