"""`bonken-sim run` and `bonken-sim summary` from the command line: options, config file and
environment, refusals, and every error message a user can provoke."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bonken_sim.cli import main
from bonken_sim.runs.deals import RunError, make_config
from bonken_sim.runs.storage import read_manifest


def cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *args):
    code, out, err = cli(capsys, "run", "--json", "--quiet", *args)
    assert code == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    "text, value",
    [
        ("1e6", 10**6),
        ("2.5M", 2_500_000),
        ("10k", 10_000),
        ("1_000_000", 10**6),
        ("7", 7),
        ("1.5k", 1500),
        ("3E2", 300),
    ],
)
def test_counts_accept_the_usual_spellings(text, value):
    assert make_config(deals=text, seed=1).deals == value


@pytest.mark.parametrize(
    "deals, message",
    [
        ("0", "--deals must be positive, got '0'"),
        (
            "-5",
            "--deals must be a positive whole number like 1e6, 2.5M, 10k or 1_000_000, got '-5'",
        ),
        ("1.5", "--deals must be a whole number, got '1.5'"),
        (
            "abc",
            "--deals must be a positive whole number like 1e6, 2.5M, 10k or 1_000_000, got 'abc'",
        ),
        ("1e13", "--deals 10,000,000,000,000 is more than the supported maximum 1,000,000,000,000"),
        ("", "--deals must be a positive whole number"),
    ],
)
def test_bad_counts_are_one_clear_line(capsys, tmp_path, deals, message):
    code, out, err = cli(capsys, "run", "--deals", deals, "--out", tmp_path / "r")
    assert code == 2 and out == ""
    assert err == f"bonken-sim: error: {message}\n" or (message in err and err.count("\n") == 1)
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--strategies", "basic,clever"],
            "--strategies: unknown strategy 'clever' "
            "(expected one of: random, basic, advanced, expert)",
        ),
        (
            ["--strategies", "basic,basic"],
            "--strategies: give one strategy or four (one per seat), got 2",
        ),
        (["--contracts", "bukken,poker"], "--contracts: unknown contract 'poker'"),
        (["--contracts", "troeven_X"], "--contracts: unknown trump 'X'"),
        (["--contracts", ""], "--contracts: no contract given"),
        (["--threads", "0"], "--threads must be a whole number from 1 to 256, got '0'"),
        (["--threads", "two"], "--threads must be a whole number from 1 to 256, got 'two'"),
        (["--chunk-size", "0"], "--chunk-size must be positive, got '0'"),
        (
            ["--chunk-size", "2e6"],
            "--chunk-size 2,000,000 is more than the supported maximum 1,000,000",
        ),
        (["--seed", "-1"], "--seed must be an integer from 0 to 2**64-1, got '-1'"),
        (["--seed", "2**64"], "--seed must be an integer from 0 to 2**64-1"),
        (["--seed", "1_"], "--seed must be an integer from 0 to 2**64-1, got '1_'"),
        (["--seed", "_1"], "--seed must be an integer from 0 to 2**64-1, got '_1'"),
        (["--seed", "1__0"], "--seed must be an integer from 0 to 2**64-1, got '1__0'"),
        (["--resume", "--force"], "--resume and --force exclude each other"),
    ],
)
def test_bad_options_are_one_clear_line(capsys, tmp_path, args, message):
    code, out, err = cli(capsys, "run", "--deals", "10", "--out", tmp_path / "r", *args)
    assert code == 2 and out == ""
    assert err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert not (tmp_path / "r").exists()


def test_deals_is_required(capsys, tmp_path):
    code, _, err = cli(capsys, "run", "--out", tmp_path / "r")
    assert code == 2 and "--deals is required" in err


def test_unwritable_out_is_a_clear_error(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _, err = cli(capsys, "run", "--deals", "10", "--seed", "1", "--out", blocker / "run")
    assert code == 2
    assert err == f"bonken-sim: error: cannot create --out {blocker / 'run'}: Not a directory\n"
    code, _, err = cli(capsys, "run", "--deals", "10", "--seed", "1", "--out", blocker)
    assert (
        code == 2 and err == f"bonken-sim: error: --out {blocker} exists and is not a directory\n"
    )


def test_resume_on_something_that_is_not_a_run(capsys, tmp_path):
    code, _, err = cli(capsys, "run", "--resume", "--out", tmp_path)
    assert code == 2
    assert (
        err == f"bonken-sim: error: --resume: {tmp_path} is not a bonken-sim run directory "
        "(no _manifest.json)\n"
    )
    code, _, err = cli(capsys, "run", "--resume", "--out", tmp_path / "nope")
    assert err == f"bonken-sim: error: --resume: {tmp_path / 'nope'} does not exist\n"
    code, _, err = cli(capsys, "run", "--resume")
    assert err == "bonken-sim: error: --resume needs --out DIR: the run directory to complete\n"
    (tmp_path / "_manifest.json").write_text("{not json")
    code, _, err = cli(capsys, "run", "--resume", "--out", tmp_path)
    assert code == 2 and "is not a valid manifest" in err and err.count("\n") == 1


def test_refuses_to_overwrite_without_force(capsys, tmp_path):
    out = tmp_path / "r"
    first = run_json(capsys, "--deals", "300", "--seed", "4", "--out", out)
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    code, _, err = cli(capsys, "run", "--deals", "300", "--seed", "4", "--out", out)
    assert code == 2
    assert err == (
        f"bonken-sim: error: --out {out} already holds a run; use --force to overwrite it "
        f"or --resume to complete it\n"
    )
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    second = run_json(capsys, "--deals", "200", "--seed", "5", "--out", out, "--force")
    assert second["rows"] == 200 * 12 and first["rows"] == 300 * 12
    assert read_manifest(out)["config"]["seed"] == 5


def test_force_never_deletes_a_directory_that_is_not_a_run(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("precious")
    code, _, err = cli(capsys, "run", "--deals", "10", "--seed", "1", "--out", tmp_path, "--force")
    assert code == 2 and "is not empty, and it is not a bonken-sim run directory" in err
    assert (tmp_path / "notes.txt").read_text() == "precious"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_json(capsys, "--deals", "10", "--seed", "1", "--out", empty)["rows"] == 120


def test_resume_with_different_options_is_refused(capsys, tmp_path):
    out = tmp_path / "r"
    run_json(capsys, "--deals", "200", "--seed", "4", "--out", out, "--chunk-size", "100")
    for args, message in [
        (["--seed", "5"], "a different deal run: --seed 5 differs from the run's 4;"),
        (["--deals", "300"], "a different deal run: --deals 300 differs from the run's 200;"),
        (["--chunk-size", "50"], "--chunk-size 50 differs from the run's 100;"),
        (["--strategies", "random"], "--strategies random,random,random,random differs"),
        (["--contracts", "bukken"], "--contracts bukken differs"),
    ]:
        code, _, err = cli(capsys, "run", "--resume", "--out", out, *args)
        assert code == 2 and message in err and err.count("\n") == 1, err
    # the same options, or none, are fine; a complete run has nothing left to do
    doc = run_json(capsys, "--resume", "--out", out, "--seed", "4", "--deals", "200")
    assert doc["resumed"] and doc["deals_this_session"] == 0 and doc["rows"] == 2400


def test_json_document_and_summary(capsys, tmp_path):
    out = tmp_path / "r"
    doc = run_json(
        capsys,
        "--deals",
        "1k",
        "--seed",
        "11",
        "--out",
        out,
        "--chunk-size",
        "400",
        "--threads",
        "2",
    )
    for key in (
        "out",
        "manifest",
        "seed",
        "deals",
        "rows",
        "parts",
        "files",
        "bytes",
        "wall_seconds",
        "deals_per_second",
        "compile_seconds",
        "simulate_cpu_seconds",
        "write_cpu_seconds",
        "threads",
    ):
        assert key in doc, key
    assert doc["seed"] == 11 and doc["deals"] == 1000 and doc["rows"] == 12000
    assert doc["parts"] == 3 and len(doc["files"]) == 6
    assert all((out / f).is_file() for f in doc["files"])
    code, text, err = cli(capsys, "run", "--deals", "50", "--seed", "11", "--out", tmp_path / "s")
    assert code == 0
    assert "600 rows in 1 part" in text and "deals/s" in text and "compile" in text
    assert "seed 11" in err and "\r" not in err  # no progress bar when stderr is not a terminal
    code, text, _ = cli(capsys, "summary", out)
    assert code == 0 and "complete, 1,000 of 1,000 deals, seed 11" in text
    assert len([ln for ln in text.splitlines() if ln.startswith(("bukken", "troeven_NT"))]) == 2
    code, text, _ = cli(capsys, "summary", out, "--json")
    s = json.loads(text)
    assert [v["variant"] for v in s["variants"]][:2] == ["bukken", "hartenjagen"]
    assert all(v["n"] == 1000 for v in s["variants"])


def test_summary_json_of_one_deal_has_null_intervals(capsys, tmp_path):
    out = tmp_path / "r"
    run_json(capsys, "--deals", "1", "--seed", "3", "--out", out, "--contracts", "bukken")
    code, text, err = cli(capsys, "summary", out, "--json")
    assert code == 0, err

    def refuse(constant):
        raise ValueError(f"{constant} in the JSON output")

    (row,) = json.loads(text, parse_constant=refuse)["variants"]
    assert row["n"] == 1
    assert all(seat["ci95"] is None for seat in row["seats"])


def test_summary_json_of_one_deal_has_no_sd_as_one_game_has_none(capsys, tmp_path):
    """One score has no spread to estimate: null, as a game run of one game says, not 0."""
    out = tmp_path / "r"
    run_json(capsys, "--deals", "1", "--seed", "3", "--out", out, "--contracts", "bukken")
    code, text, err = cli(capsys, "summary", out, "--json")
    assert code == 0, err
    (row,) = json.loads(text)["variants"]
    assert [set(seat) for seat in row["seats"]] == [{"mean", "sd", "ci95"}] * 4
    assert all(seat["sd"] is None for seat in row["seats"])


def test_summary_text_of_one_deal_shows_the_means_without_an_interval(capsys, tmp_path):
    out = tmp_path / "r"
    run_json(capsys, "--deals", "1", "--seed", "3", "--out", out, "--contracts", "bukken")
    code, text, err = cli(capsys, "summary", out)
    assert code == 0, err
    assert "nan" not in text and "±" not in text
    assert "one deal: its scores stand alone" in text
    (row,) = [ln.split() for ln in text.splitlines() if ln.startswith("bukken")]
    assert row[:2] == ["bukken", "1"] and len(row) == 6


def test_summary_errors(capsys, tmp_path):
    code, _, err = cli(capsys, "summary", tmp_path)
    assert (
        code == 2
        and err
        == f"bonken-sim: error: {tmp_path} is not a bonken-sim run directory (no _manifest.json)\n"
    )
    f = tmp_path / "x.parquet"
    f.write_text("not parquet")
    code, _, err = cli(capsys, "summary", f)
    assert code == 2 and "is not a directory" in err


def test_quiet_prints_nothing(capsys, tmp_path):
    code, out, err = cli(
        capsys, "run", "--deals", "20", "--seed", "1", "--out", tmp_path / "r", "--quiet"
    )
    assert code == 0 and out == "" and err == ""


def test_seed_is_drawn_printed_and_recorded(capsys, tmp_path):
    doc = run_json(capsys, "--deals", "10", "--out", tmp_path / "r")
    m = read_manifest(tmp_path / "r")
    assert doc["seed_drawn"] and m["config"]["seed"] == doc["seed"] and m["config"]["seed_drawn"]
    code, _, err = cli(capsys, "run", "--deals", "10", "--out", tmp_path / "s")
    assert "(drawn)" in err


def test_default_out_is_a_new_directory_under_results(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = run_json(capsys, "--deals", "10", "--seed", "3")
    b = run_json(capsys, "--deals", "10", "--seed", "3")
    assert a["out"] != b["out"]
    for d in (a, b):
        p = Path(d["out"])
        assert p.parent == Path("results") and p.name.startswith("run-") and "seed3" in p.name
        assert read_manifest(p)["state"] == "complete"


def test_config_file_env_and_command_line(capsys, tmp_path, monkeypatch):
    cfg = tmp_path / "run.toml"
    cfg.write_text(
        '[run]\ndeals = "2k"\nseed = 3\nchunk-size = 500\n'
        'strategies = ["basic", "random", "basic", "random"]\ncontracts = "bukken,troeven_S"\n'
    )
    out = tmp_path / "r"
    doc = run_json(capsys, "--config", cfg, "--out", out)
    m = read_manifest(out)["config"]
    assert (m["deals"], m["seed"], m["chunk_size"]) == (2000, 3, 500)
    assert m["strategies"] == ["basic", "random", "basic", "random"]
    assert m["contracts"] == ["bukken", "troeven_S"] and doc["rows"] == 4000
    monkeypatch.setenv("BONKEN_SIM_SEED", "4")
    monkeypatch.setenv("BONKEN_SIM_DEALS", "100")
    run_json(capsys, "--config", cfg, "--out", out, "--force")
    m = read_manifest(out)["config"]
    assert (m["deals"], m["seed"], m["chunk_size"]) == (100, 4, 500)  # env beats the file
    run_json(capsys, "--config", cfg, "--out", out, "--force", "--seed", "5")
    assert read_manifest(out)["config"]["seed"] == 5  # the command line beats both
    monkeypatch.setenv("BONKEN_SIM_CONFIG", str(cfg))
    monkeypatch.delenv("BONKEN_SIM_DEALS")
    run_json(capsys, "--out", out, "--force")
    assert read_manifest(out)["config"]["deals"] == 2000


def test_config_file_errors(capsys, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("deals = \n")
    code, _, err = cli(capsys, "run", "--config", bad)
    assert code == 2 and f"--config {bad}: not valid TOML" in err and err.count("\n") == 1
    bad.write_text("deals = 10\nspeed = 'fast'\n")
    code, _, err = cli(capsys, "run", "--config", bad)
    assert code == 2 and "unknown option 'speed'" in err
    code, _, err = cli(capsys, "run", "--config", tmp_path / "missing.toml")
    assert code == 2 and "No such file or directory" in err
    bad.write_text("deals = 0\n")
    code, _, err = cli(capsys, "run", "--config", bad)
    assert code == 2 and "--deals must be positive" in err


@pytest.mark.parametrize(
    "line", ["force = 0", "quiet = 1", "json = 1", "out = { a = 1 }", "deals = [10]"]
)
def test_config_file_value_of_the_wrong_type_is_one_line(capsys, tmp_path, line):
    cfg = tmp_path / "run.toml"
    cfg.write_text(f"{line}\n")
    out = tmp_path / "r"
    code, stdout, err = cli(capsys, "run", "--config", cfg, "--deals", "10", "--out", out)
    key = line.split(" =")[0]
    assert code == 2 and stdout == "" and err.count("\n") == 1
    assert err.startswith(f"bonken-sim: error: --config {cfg}: {key} = ")
    assert "is not allowed (expected " in err
    assert not out.exists()


def test_config_file_not_utf8_or_not_a_regular_file_is_one_line(capsys, tmp_path):
    cfg = tmp_path / "run.toml"
    cfg.write_bytes(b"\xff\xfe")
    code, _, err = cli(capsys, "run", "--config", cfg)
    assert code == 2 and err == (
        f"bonken-sim: error: --config {cfg}: not valid TOML: not UTF-8 text "
        "(byte 0xff at offset 0)\n"
    )
    code, _, err = cli(capsys, "run", "--config", "/dev/zero")
    assert code == 2 and err == "bonken-sim: error: --config /dev/zero: not a regular file\n"


def test_make_config_errors_name_the_option():
    with pytest.raises(RunError, match="--threads"):
        make_config(deals=10, threads=1000)
    with pytest.raises(RunError, match="--dealer"):
        make_config(deals=10, dealer=7)
    assert make_config(deals=10, seed="0x10").seed == 16


def test_progress_bar_draws_in_place_and_clears():
    import io

    from bonken_sim.cli.console import ProgressBar

    buf = io.StringIO()
    bar = ProgressBar(buf)
    bar(0, 1000)
    bar.t0 -= 1.0  # pretend a second went by
    bar(500, 1000)
    bar.clear()
    text = buf.getvalue()
    assert text.startswith("\r0/1,000 deals [") and "\r500/1,000 deals [" in text
    assert " 50%" in text and "500 deals/s" in text and "ETA 1s" in text
    assert text.endswith("\r\033[K") and "\n" not in text
