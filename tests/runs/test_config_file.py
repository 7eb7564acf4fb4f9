"""runs.config_file: the options a ``run --config`` TOML file sets."""

from __future__ import annotations

import pytest

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
