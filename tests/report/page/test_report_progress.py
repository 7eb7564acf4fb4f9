"""`bonken-sim report` on a terminal shows what it is doing, and a small run draws its
figures without a warning (one printed a matplotlib UserWarning even with --quiet)."""

from __future__ import annotations

import io
import signal
import subprocess
import sys
import warnings

import pytest

import bonken_sim
from bonken_sim.cli import main
from bonken_sim.report import write_report


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    """300 deals in 3 parts: too few for any trump-suit line of the trump value figure."""
    out = tmp_path_factory.mktemp("report_progress") / "run"
    bonken_sim.run(deals=300, seed=2, chunk_size=100, out=out, threads=1)
    return out


@pytest.fixture(scope="module")
def small_games(tmp_path_factory):
    out = tmp_path_factory.mktemp("report_progress") / "games"
    assert main(["game", "--games", "50", "--seed", "2", "--out", str(out), "--quiet"]) == 0
    return out


def _stages(text: str) -> list[str]:
    return [s.removesuffix("\033[K") for s in text.split("\r") if s.removesuffix("\033[K")]


@pytest.mark.parametrize("workers", ["1", "2"])
def test_report_shows_its_stages_on_a_terminal(small_run, tmp_path, monkeypatch, workers):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    code = main(["report", str(small_run), "--out", str(tmp_path / "r"), "--workers", workers])
    assert code == 0
    text = terminal.getvalue()
    assert text.endswith("\r\033[K"), "the line is cleared at the end"
    stages = _stages(text)
    assert stages[:4] == [f"report: reading parts {k}/3" for k in range(4)]
    assert "report: comparing the choice rules" in stages
    prefix = "report: drawing figures "
    counts = [
        tuple(int(x) for x in s.removeprefix(prefix).split("/"))
        for s in stages
        if s.startswith(prefix)
    ]
    assert counts and all(k <= n for k, n in counts)
    assert [k for k, _ in counts] == sorted(k for k, _ in counts)  # it only counts up
    # one process draws from 0; with a pool, the workers may have drawn some figures while
    # this process still compared the choice rules (the first frame then counts them)
    assert workers == "2" or counts[0][0] == 0
    assert stages[-1] == "report: writing pages"


def test_game_report_shows_its_stages(small_games, tmp_path, monkeypatch):
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert main(["report", str(small_games), "--out", str(tmp_path / "r")]) == 0
    stages = _stages(terminal.getvalue())
    assert stages[0] == "report: reading the games"
    assert "report: drawing figures 0/3" in stages and stages[-1] == "report: writing pages"


def test_no_progress_when_quiet_or_not_a_terminal(small_run, tmp_path, monkeypatch, capsys):
    assert main(["report", str(small_run), "--out", str(tmp_path / "a"), "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.startswith("report of 300 deals")
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    args = ["report", str(small_run), "--out", str(tmp_path / "b"), "--workers", "1", "--quiet"]
    assert main(args) == 0
    assert terminal.getvalue() == ""


def test_a_small_run_draws_every_figure_without_a_warning(small_run, small_games, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        write_report(small_run, tmp_path / "deals", workers=1, fitted=True)
        write_report(small_games, tmp_path / "games")
    svg = (tmp_path / "deals" / "figures" / "trump_value.svg").read_text()
    assert "too few deals" in svg


def test_quiet_report_prints_nothing_with_workers(small_run, tmp_path):
    """The console script as a user runs it: two worker processes draw figures."""
    res = subprocess.run(
        [sys.executable, "-m", "bonken_sim.cli", "report", str(small_run), "--out",
         str(tmp_path / "r"), "--workers", "2", "--quiet"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "")


def test_workers_take_the_warning_filters_they_are_given():
    from bonken_sim.report.page.pool import init_worker

    sigint = signal.getsignal(signal.SIGINT)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            init_worker([("ignore", None, Warning, None, 0)])
            warnings.warn("not shown", UserWarning, stacklevel=1)  # ignored, not raised
            assert list(warnings.filters) == [("ignore", None, Warning, None, 0)]
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # Ctrl-C is the parent's
    finally:
        signal.signal(signal.SIGINT, sigint)
