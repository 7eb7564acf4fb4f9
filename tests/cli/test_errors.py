"""The two endings of a command that fails: a mistake the user can fix is one line
``bonken-sim: error: ...`` and exit status 2; anything else is a bug: a short line
``bonken-sim: internal error: Type: message``, the traceback in a log file whose path is
printed, and exit status 1."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from bonken_sim.cli import main
from bonken_sim.errors import BadValue, UserFixableError, internal_error_log, log_dir
from bonken_sim.runs.errors import RunError
from bonken_sim.runs.executors import WorkersLost, executor_failed, wrap_executor
from bonken_sim.runs.pipeline import play_on_backend

LOG_LINE = re.compile(r"^bonken-sim: this is a bug in bonken-sim; the traceback is in (.+\.log)$")


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """XDG_CACHE_HOME in the test's folder: the log files go there."""
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture(scope="module")
def deal_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("errors") / "run"
    assert main(["run", "--deals", "200", "--chunk-size", "100", "--out", str(out), "--quiet"]) == 0
    return out


def _log_of(err: str) -> Path:
    lines = err.strip().splitlines()
    assert len(lines) == 2, err
    found = LOG_LINE.match(lines[1])
    assert found, err
    return Path(found.group(1))


def test_an_error_deep_inside_a_command_is_a_bug_with_its_traceback_logged(
    capsys, cache_home, deal_run, monkeypatch
):
    """A ValueError of the computation (here one of the readers summary streams through)
    is not the user's mistake: exit 1, not the one-line user error with exit 2."""
    import bonken_sim.runs.readers as readers

    def broken(*args, **kwargs):
        raise ValueError("boom")

    monkeypatch.setattr(readers, "variant_scores", broken)
    code, out, err = cli(capsys, "summary", deal_run)
    assert code == 1
    assert out == ""
    assert err.splitlines()[0] == "bonken-sim: internal error: ValueError: boom"
    assert "bonken-sim: error:" not in err
    log = _log_of(err)
    assert log.parent == cache_home / "bonken-sim" / "logs"
    text = log.read_text()
    assert text.startswith(f"bonken-sim summary {deal_run}\n")
    assert "Traceback (most recent call last):" in text
    assert "in broken" in text and "ValueError: boom" in text


def test_an_index_error_in_a_command_is_a_bug_too(capsys, cache_home, monkeypatch):
    import bonken_sim.rules.ruleset as ruleset

    def broken(self):
        raise IndexError("list index out of range")

    monkeypatch.setattr(ruleset.Ruleset, "describe", broken)
    code, out, err = cli(capsys, "rules", "standard")
    assert code == 1
    assert err.splitlines()[0] == "bonken-sim: internal error: IndexError: list index out of range"
    assert "IndexError: list index out of range" in _log_of(err).read_text()


def test_the_log_goes_to_the_temporary_folder_when_the_cache_cannot_be_written(
    tmp_path, monkeypatch
):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))
    try:
        raise KeyError("x")
    except KeyError as exc:
        log = internal_error_log(exc, ["play"])
    assert log is not None and log.parent == temp
    assert "KeyError: 'x'" in log.read_text()


def test_the_log_folder_honours_xdg_cache_home(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert log_dir() == tmp_path / "bonken-sim" / "logs"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert log_dir() == Path.home() / ".cache" / "bonken-sim" / "logs"


@pytest.mark.parametrize(
    "args, message",
    [
        (["play", "--seed", "1", "--contract", "nonsense"], "unknown contract"),
        (["summary", "{run}/nothing-here"], "does not exist"),
        (["rules", "--rules", "{run}/missing.toml"], "cannot read rules file"),
    ],
)
def test_a_bad_input_is_still_one_line_and_exit_2(capsys, cache_home, tmp_path, args, message):
    code, out, err = cli(capsys, *(a.format(run=tmp_path) for a in args))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert err.startswith("bonken-sim: error: ") and message in err
    assert not (cache_home / "bonken-sim" / "logs").exists()


def test_a_truncated_part_is_the_users_error_naming_the_run(capsys, deal_run, tmp_path):
    """A part file cut short (a disk that filled, a copy stopped half way) is found when it
    is read: one line naming the run, exit 2, for summary and compare alike."""
    import shutil

    cut = tmp_path / "cut"
    shutil.copytree(deal_run, cut)
    part = sorted(cut.glob("part-*.parquet"))[-1]  # not the first: its schema is read at once
    part.write_bytes(part.read_bytes()[:300])
    for args in (["summary", cut], ["compare", deal_run, cut]):
        code, _, err = cli(capsys, *args)
        assert code == 2, err
        assert err.startswith(f"bonken-sim: error: {cut}: cannot read the run's parts: ")
        assert len(err.strip().splitlines()) == 1


def test_the_error_classes_of_bad_input_keep_their_old_base():
    from bonken_sim.files import CannotRead, CannotWrite
    from bonken_sim.rules.names import UnknownContract
    from bonken_sim.runs.manifest import NotARun

    assert issubclass(BadValue, ValueError)
    for cls, old in (
        (RunError, ValueError),
        (NotARun, ValueError),
        (UnknownContract, ValueError),
        (CannotRead, OSError),
        (CannotWrite, OSError),
        (WorkersLost, RuntimeError),
    ):
        assert issubclass(cls, UserFixableError) and issubclass(cls, old), cls


def _fails(exc: BaseException):
    def task(_):
        raise exc

    return task


def test_a_task_that_raises_a_bug_is_not_made_an_executor_failure():
    """A run on an executor: a worker process that died is a one-line failure the run
    reports (and can resume), an error in the task's own code is raised as it is."""
    with ThreadPoolExecutor(1) as pool:
        backend = wrap_executor(pool)
        with pytest.raises(IndexError, match="boom"):
            play_on_backend(backend, _fails(IndexError("boom")), [1], print, RunError)
        line = play_on_backend(backend, _fails(BrokenProcessPool("died")), [1], print, RunError)
    assert line is not None and "BrokenProcessPool" in line
    assert executor_failed(WorkersLost("worker processes died 4 times"))
    assert not executor_failed(ValueError("boom"))
