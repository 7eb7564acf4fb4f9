"""A player program is ended whole: at a match's end, after a crash or a timeout (before it
is started again) and when the checker drops it, its process group is killed and awaited, so
a child it started, holding its pipes, does not outlive it."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from bonken_sim.cli import cli
from bonken_sim.table import protocol as P
from bonken_sim.table.check import run_check
from bonken_sim.table.pipe import PlayerGone, PlayerPipe

HERE = Path(__file__).resolve().parent
FAULTY = HERE / "faulty_bot.py"


def _runs(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie waiting for a parent that may never reap it does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the process itself
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat[stat.rindex(")") + 2] != "Z"


def _children(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.fixture
def children(tmp_path, monkeypatch):
    """The file where each start of the faulty player writes its child's pid; any child
    still running after the test is killed, so that a failing test leaves nothing behind."""
    path = tmp_path / "children.txt"
    monkeypatch.setenv("FAULTY_BOT_CHILDREN", str(path))
    yield path
    for pid in _children(path):
        if _runs(pid):
            os.kill(pid, 9)


def test_stop_ends_the_players_child_holding_its_pipes(children):
    pipe = PlayerPipe([sys.executable, str(FAULTY), "never", "1"])
    pipe.send(P.encode(P.hello("standard")))
    assert P.decode(pipe.receive(30.0))["type"] == "hello"
    (child,) = _children(children)
    assert _runs(child)
    pipe.stop()  # the player exits when its input ends; its child would sleep on
    assert pipe.proc.returncode is not None
    assert not _runs(child)
    assert all(not reader.is_alive() for reader in pipe._readers)  # the pipes' ends closed


def test_a_player_that_exits_is_gone_though_its_child_holds_its_output(children):
    pipe = PlayerPipe([sys.executable, str(FAULTY), "crash", "1"])
    pipe.send(P.encode(P.hello("standard")))
    assert P.decode(pipe.receive(30.0))["type"] == "hello"
    clubs = [r + "C" for r in "23456789TJQKA"]
    view = {"contract": "bukken", "dealer": 0, "seat": 1, "hand": clubs, "plays": []}
    pipe.send(P.encode({"type": "play", "id": 1, "view": view}))
    with pytest.raises(PlayerGone, match="exited with status 3"):  # not a timeout
        pipe.receive(30.0)
    pipe.stop()
    assert [pid for pid in _children(children) if _runs(pid)] == []


@pytest.mark.parametrize(
    ("mode", "n", "starts"),
    [("never", 1, 1), ("crash", 60, 2), ("hang", 60, 2)],
    ids=["match-end", "crash", "timeout"],
)
def test_a_match_leaves_no_player_process(tmp_path, children, mode, n, starts):
    bot = f"cmd:{shlex.quote(sys.executable)} {FAULTY} {mode} {n}"
    res = CliRunner().invoke(
        cli,
        ["match", "--out", str(tmp_path / "m"), "--quiet", "--games", "1", "--seed", "4",
         "--no-duplicate", "--time-limit", "1",
         "--player", "basic", "--player", "basic", "--player", "basic", "--player", bot],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    pids = _children(children)
    assert len(pids) >= starts  # started again after each crash or timeout, a child each time
    assert [pid for pid in pids if _runs(pid)] == []


def test_the_checker_leaves_no_player_process(children):
    lines: list[str] = []
    status = run_check(
        f"cmd:{shlex.quote(sys.executable)} {FAULTY} crash 3",
        time_limit=1.0,
        deals=1,
        seed=3,
        emit=lines.append,
    )
    assert status == 1  # the crashes are findings
    pids = _children(children)
    assert len(pids) >= 2
    assert [pid for pid in pids if _runs(pid)] == []
