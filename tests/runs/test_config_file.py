"""runs.config_file: the options a ``run --config`` TOML file sets."""

from __future__ import annotations

import pytest

from bonken_sim.files import CannotRead
from bonken_sim.runs.config_file import RUN_CONFIG_KEYS, RunConfigFileError, read_run_config


def test_keys_at_top_level_or_in_a_run_table(tmp_path):
    top = tmp_path / "top.toml"
    top.write_text('deals = "1k"\nchunk-size = 500\njson = true\nrules = "house.toml"\n')
    assert read_run_config(top) == {
        "deals": "1k",
        "chunk_size": 500,
        "json": True,
        "rules": "house.toml",
    }
    table = tmp_path / "table.toml"
    table.write_text('title = "ignored outside [run]"\n[run]\nseed = 3\nwrite_parts = "driver"\n')
    assert read_run_config(table) == {"seed": 3, "write_parts": "driver"}


def test_a_list_is_the_comma_list_of_the_command_line(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('contracts = ["bukken", "troeven_H"]\nstrategies = ["basic", "random"]\n')
    assert read_run_config(path) == {
        "contracts": "bukken,troeven_H",
        "strategies": "basic,random",
    }


def test_unknown_option_lists_the_known_ones(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text("deals = 10\nfrobs = 2\n")
    with pytest.raises(RunConfigFileError) as err:
        read_run_config(path)
    known = ", ".join(k.replace("_", "-") for k in RUN_CONFIG_KEYS)
    assert str(err.value) == f"unknown option 'frobs' (known: {known})"
    assert "chunk-size" in known and "write-parts" in known


def test_bad_toml_and_missing_file(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("deals = [")
    with pytest.raises(RunConfigFileError, match="^not valid TOML: "):
        read_run_config(bad)
    with pytest.raises(FileNotFoundError):
        read_run_config(tmp_path / "missing.toml")
    bad.write_text("deals = " + "[" * 50_000 + "]" * 50_000 + "\n")
    with pytest.raises(RunConfigFileError, match="^not valid TOML: lists or tables nested too"):
        read_run_config(bad)


@pytest.mark.parametrize(
    "line, expected",
    [
        ("force = 0", "true or false"),
        ("quiet = 1", "true or false"),
        ("json = 1", "true or false"),
        ('resume = "yes"', "true or false"),
        ("deals = [1]", "a number or its text"),
        ("chunk-size = { a = 1 }", "a number or its text"),
        ("seed = true", "a number or its text"),
        ("threads = [2]", "a number or its text"),
        ("workers = 2020-01-01", "a number or its text"),
        ("strategies = [1, 2]", "a text or a list of texts"),
        ("contracts = { a = 1 }", "a text or a list of texts"),
        ("out = { a = 1 }", "a text"),
        ('out = ["a", "b"]', "a text"),
        ("executor = 1", "a text"),
        ("scheduler = true", "a text"),
        ('write-parts = ["driver"]', "a text"),
        ("ruleset = { name = 1 }", "a text"),
        ("rules = 5", "a text"),
    ],
)
def test_a_value_of_the_wrong_type_names_the_key(tmp_path, line, expected):
    path = tmp_path / "run.toml"
    path.write_text(f"[run]\n{line}\n")
    with pytest.raises(RunConfigFileError) as err:
        read_run_config(path)
    key = line.split(" =")[0]
    assert str(err.value).startswith(f"{key} = ")
    assert str(err.value).endswith(f" is not allowed (expected {expected})")


def test_numbers_may_be_numbers_or_text(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('deals = 1e6\nseed = "0x10"\nthreads = 2\nworkers = "3"\nforce = false\n')
    assert read_run_config(path) == {
        "deals": 1e6,
        "seed": "0x10",
        "threads": 2,
        "workers": "3",
        "force": False,
    }


def test_a_file_that_is_not_utf8(tmp_path):
    path = tmp_path / "run.toml"
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(RunConfigFileError) as err:
        read_run_config(path)
    assert str(err.value) == "not valid TOML: not UTF-8 text (byte 0xff at offset 0)"


def test_only_a_small_regular_file_is_read(tmp_path):
    with pytest.raises(CannotRead) as err:
        read_run_config("/dev/zero")  # read whole, it would fill the memory
    assert err.value.strerror == "not a regular file"
    with pytest.raises(CannotRead) as err:
        read_run_config(tmp_path)
    assert err.value.strerror == "is a directory"
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (1 << 20) + "\n")
    with pytest.raises(CannotRead) as err:
        read_run_config(big)
    assert err.value.strerror == "1,048,579 bytes, more than the 1 MiB allowed"
