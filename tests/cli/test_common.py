"""cli.common: the progress bar around a long call, the one-line errors, the --out write."""

from __future__ import annotations

import io
import json
import math

import click
import pytest

from bonken_sim.cli.common import UserError, call_or_fail, json_ready, json_text
from bonken_sim.cli.long_calls import run_with_progress
from bonken_sim.cli.out_files import write_out
from bonken_sim.files import read_small_file
from bonken_sim.runs.options import parse_count


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


class _Stopped(KeyboardInterrupt):
    pass


def _on_terminal(monkeypatch) -> _Terminal:
    """stderr is a terminal (set in the test itself: pytest's capture resets sys.stderr
    between the fixtures and the test)."""
    stream = _Terminal()
    monkeypatch.setattr("sys.stderr", stream)
    return stream


def test_the_bar_is_cleared_before_the_interruption_message(monkeypatch):
    terminal = _on_terminal(monkeypatch)

    def start(bar):
        bar(1, 4)
        raise _Stopped("interrupted at 1 of 4; --resume completes it")

    with pytest.raises(click.exceptions.Exit) as exc:
        run_with_progress(start, interrupted=_Stopped)
    assert exc.value.exit_code == 130
    text = terminal.getvalue()
    assert text.startswith("\r1/4 deals [")
    assert text.endswith("\r\033[Kbonken-sim: interrupted at 1 of 4; --resume completes it\n")


def test_an_error_is_a_user_error_and_the_bar_is_gone(monkeypatch):
    terminal = _on_terminal(monkeypatch)

    def start(bar):
        bar(2, 4)
        raise ValueError("bad run")

    with pytest.raises(UserError, match="^bad run$"):
        run_with_progress(start, unit="games", errors=ValueError)
    assert "2/4 games" in terminal.getvalue() and terminal.getvalue().endswith("\r\033[K")


def test_no_bar_when_hidden_or_not_a_terminal(monkeypatch):
    terminal = _on_terminal(monkeypatch)
    assert run_with_progress(lambda bar: bar, show=False) is None
    monkeypatch.setattr("sys.stderr", io.StringIO())
    assert run_with_progress(lambda bar: bar) is None
    assert terminal.getvalue() == ""


def test_other_exceptions_pass_through(monkeypatch):
    _on_terminal(monkeypatch)

    def start(bar):
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError, match="a bug"):
        run_with_progress(start, errors=ValueError)


def test_call_or_fail_turns_bad_values_and_files_into_user_errors(tmp_path):
    assert call_or_fail(parse_count, "12") == 12
    with pytest.raises(UserError, match="must be a positive whole number"):
        call_or_fail(parse_count, "x")
    with pytest.raises(UserError, match="is a directory"):
        call_or_fail(read_small_file, tmp_path)


def test_call_or_fail_lets_other_errors_through():
    """A ValueError or OSError of the computation itself is a bug, not the user's mistake:
    it is not made a one-line error."""
    with pytest.raises(ValueError, match="invalid literal"):
        call_or_fail(int, "x")
    with pytest.raises(FileNotFoundError):
        call_or_fail(open, "/nonexistent-dir/x")


def test_write_out_names_the_option_for_a_directory(tmp_path):
    with pytest.raises(UserError) as err:
        write_out(tmp_path, ["x"])
    assert err.value.message == f"--out {tmp_path} is a directory"
    with pytest.raises(UserError, match="does not exist"):
        write_out(tmp_path / "nope" / "x.json", ["x"])
    write_out(tmp_path / "x.json", ["{}"])
    assert (tmp_path / "x.json").read_text() == "{}\n"


def test_json_has_null_where_a_value_could_not_be_computed():
    doc = {
        "mean": 1.5,
        "sd": math.nan,
        "ci95": [math.nan, math.nan],
        "p_profit_ci95": (0.25, math.inf),
        "rates": [0.5, -math.inf, 2],
        "rows": [{"ci95": [1.0, 2.0], "n": 3}],
        "name": "nan",
    }
    assert json_ready(doc) == {
        "mean": 1.5,
        "sd": None,
        "ci95": None,
        "p_profit_ci95": None,
        "rates": [0.5, None, 2],
        "rows": [{"ci95": [1.0, 2.0], "n": 3}],
        "name": "nan",
    }
    text = json_text(doc, indent=1)
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == json_ready(doc)
