"""`bonken-sim report` from the command line: what it prints, every refusal as one line, and
the page in a real (headless) browser."""

from __future__ import annotations

import json
import re
import shutil

import pytest

import bonken_sim
from bonken_sim.cli import main
from tests.report.page.browser import figures_shown, screenshot


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("report_cli") / "run"
    bonken_sim.run(deals=600, seed=5, chunk_size=200, out=out, threads=1)
    return out


@pytest.fixture(scope="module")
def reported(run_dir):
    """The run's report written by the command line with its defaults (two workers here)."""
    code = main(["report", str(run_dir), "--quiet"])
    assert code == 0
    return run_dir / "_report"


def test_report_prints_where_it_is(capsys, run_dir, tmp_path):
    """Also --format md alone and --no-policy (one report: each costs seconds of drawing)."""
    out_dir = tmp_path / "r"
    code, out, err = cli(
        capsys, "report", run_dir, "--out", out_dir, "--workers", "1", "--format", "md",
        "--no-policy",
    )  # fmt: skip
    assert code == 0, err
    assert re.fullmatch(
        rf"report of 600 deals written in \d+\.\d s: {out_dir / 'report.md'}\n", out
    )
    assert (out_dir / "report.md").is_file() and not (out_dir / "report.html").exists()
    assert len(list((out_dir / "tables").glob("*.csv"))) >= 11
    assert "\npolicy," not in (out_dir / "tables" / "choice_value.csv").read_text()
    assert len(list((out_dir / "figures").glob("*.png"))) == 11


def test_default_out_and_run_untouched(reported, run_dir):
    assert (reported / "report.html").is_file() and (reported / "report.md").is_file()
    manifest = json.loads((run_dir / "_manifest.json").read_text())
    assert {p.name for p in run_dir.iterdir()} == {
        "_manifest.json",
        "_deals",
        "_report",
        *(p["file"] for p in manifest["parts"]),
    }
    assert bonken_sim.runs.storage.verify_run(run_dir) == []


def test_policy_on_by_default(reported):
    assert "\npolicy," in (reported / "tables" / "choice_value.csv").read_text()
    assert (reported / "figures" / "doubling_policy.svg").is_file()


def _damaged(run_dir, tmp_path, **changes):
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy, ignore=shutil.ignore_patterns("_report"))
    manifest = json.loads((copy / "_manifest.json").read_text())
    manifest.update(changes)
    (copy / "_manifest.json").write_text(json.dumps(manifest))
    return copy


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing", r"does not exist"),
        ("empty", r"is not a bonken-sim run directory \(no _manifest\.json\)"),
        ("file", r"is not a directory"),
        ("incomplete", r"is an incomplete run \(600 of 600 deals\); complete it with: "),
        ("schema", r"schema version 99 is not supported"),
        ("foreign", r"is not a bonken-sim run manifest"),
        ("format", r"--format must be a comma list of html, md, got 'pdf'"),
        ("out_in_run", r"inside the run directory only a name starting with '_'"),
        ("out_is_run", r"is the run directory itself"),
        ("out_not_report", r"exists and is not a bonken-sim report"),
        ("out_unwritable", r"cannot write the report to .*: .*/f is not a directory"),
        ("out_below_a_dangling_link", r"to .*/link/report: .*/link is not a directory"),
        ("out_is_file", r"exists and is not a directory"),
        ("missing_part", r"part file part-000001\.parquet is missing"),
    ],
)
def test_errors_are_one_line(capsys, run_dir, tmp_path, case, message):
    args: list = ["report", run_dir, "--workers", "1"]
    if case == "missing":
        args[1] = tmp_path / "nope"
    elif case == "empty":
        args[1] = tmp_path
    elif case == "file":
        (tmp_path / "f").write_text("x")
        args[1] = tmp_path / "f"
    elif case == "incomplete":
        args[1] = _damaged(run_dir, tmp_path, state="incomplete")
    elif case == "schema":
        args[1] = _damaged(run_dir, tmp_path, schema_version=99)
    elif case == "foreign":
        args[1] = _damaged(run_dir, tmp_path, format="something-else")
    elif case == "format":
        args += ["--format", "pdf"]
    elif case == "out_in_run":
        args += ["--out", run_dir / "report"]
    elif case == "out_is_run":
        args += ["--out", run_dir]
    elif case == "out_not_report":
        (tmp_path / "mine").mkdir()
        (tmp_path / "mine" / "notes.txt").write_text("keep me")
        args += ["--out", tmp_path / "mine"]
    elif case == "out_unwritable":
        (tmp_path / "f").write_text("x")
        args += ["--out", tmp_path / "f" / "report"]
    elif case == "out_below_a_dangling_link":  # mkdir cannot make a folder through it
        (tmp_path / "link").symlink_to(tmp_path / "nowhere")
        args += ["--out", tmp_path / "link" / "report"]
    elif case == "out_is_file":
        (tmp_path / "f").write_text("x")
        args += ["--out", tmp_path / "f"]
    elif case == "missing_part":
        copy = _damaged(run_dir, tmp_path)
        (copy / "part-000001.parquet").unlink()
        args[1] = copy
    code, out, err = cli(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("bonken-sim: error: "), err
    assert re.search(message, err), err
    if case == "out_not_report":
        assert (tmp_path / "mine" / "notes.txt").read_text() == "keep me"
        assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_page_renders_in_a_browser(reported, tmp_path):
    """Headless Chromium loads report.html: every inline figure decodes (the page's script
    records the count on <body>), and a screenshot is taken (look at it: not asserted)."""
    page = (reported / "report.html").resolve().as_uri()
    shown = figures_shown(page)
    assert shown == ("12", "12")  # 11 + the fitted policy's doubling
    shot = tmp_path / "report.png"
    screenshot(page, shot)
    assert shot.stat().st_size > 10_000
