"""The help of every command: the options it documents are the ones that exist."""

from __future__ import annotations

import click
import pytest

from bonken_sim.cli import cli
from bonken_sim.rules.presets import PRESET_NAMES


def _help(command: click.Command, name: str) -> str:
    """The --help of ``command``, unwrapped (a wide terminal: no name is split at a hyphen)."""
    with click.Context(command, info_name=name, terminal_width=2000, max_content_width=2000) as ctx:
        return command.get_help(ctx)


RULESET_COMMANDS = sorted(
    name
    for name, command in cli.commands.items()
    if any(p.name == "ruleset" for p in command.params)
)


def test_the_ruleset_commands_are_found():
    assert {"play", "trace", "run", "game", "tournament", "advise"} <= set(RULESET_COMMANDS)
    assert "bierkaart" in PRESET_NAMES


@pytest.mark.parametrize("name", RULESET_COMMANDS)
def test_every_preset_is_named_in_the_ruleset_help(name):
    command = cli.commands[name]
    (option,) = [p for p in command.params if p.name == "ruleset"]
    assert isinstance(option, click.Option)
    text = _help(command, name)
    for preset in PRESET_NAMES:
        assert preset in str(option.help), (name, preset)
        assert preset in text, (name, preset)


def test_no_command_prints_the_usage_and_the_commands_on_many_lines(capsys):
    from bonken_sim.cli import main

    code = main([])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith("Usage: bonken-sim [OPTIONS] COMMAND [ARGS]...\n")
    assert "bonken-sim: error" not in err
    lines = err.splitlines()
    listed = lines[lines.index("Commands:") + 1 :]
    assert sorted(line.split()[0] for line in listed) == sorted(cli.commands)


# The same kind of value has the same placeholder in every command.
METAVAR = {
    **dict.fromkeys(
        (
            "--deals",
            "--games",
            "--deal",
            "--threads",
            "--workers",
            "--chunk-size",
            "--repeats",
            "--turns-left",
        ),
        "N",
    ),
    "--seed": "S",
    **dict.fromkeys(
        ("--strategies", "--contracts", "--players", "--profiles", "--available", "--format"),
        "LIST",
    ),
    "--ruleset": "NAME",
    "--contract": "NAME",
    "--rules": "FILE.toml",
    "--config": "FILE.toml",
    "--dealer": "SEAT",
    "--compare-games": "DIR",
    "--reference": "DIR",
}
# where the same option name holds another kind of value
METAVAR_OF = {
    ("bench", "--threads"): "LIST",  # a list of thread counts
    ("report", "--games"): "DIR",  # game runs beside a deal run, not a number of games
    **{(name, "--out"): "DIR" for name in ("run", "game", "report", "bench", "match")},
    **{(name, "--out"): "FILE" for name in ("trace", "ladder")},
}
# click's names of its types: what an option shows when it was given no placeholder
CLICK_TYPE_NAMES = {"TEXT", "INTEGER", "INTEGER RANGE", "FLOAT", "PATH", "DIRECTORY", "BOOLEAN"}


def _placeholders(name: str) -> dict[str, str]:
    command = cli.commands[name]
    with click.Context(command, info_name=name) as ctx:
        shown = {}
        for param in command.params:
            if not isinstance(param, click.Option) or param.is_flag or param.hidden:
                continue
            record = param.get_help_record(ctx)
            assert record is not None
            flag, _, metavar = record[0].partition(" ")
            shown[flag] = metavar
        return shown


@pytest.mark.parametrize("name", sorted(cli.commands))
def test_the_same_kind_of_value_has_the_same_placeholder(name):
    for flag, metavar in _placeholders(name).items():
        assert metavar not in CLICK_TYPE_NAMES, (name, flag, metavar)
        expected = METAVAR_OF.get((name, flag), METAVAR.get(flag))
        if expected is not None:
            assert metavar == expected, (name, flag, metavar)


def test_every_out_is_a_file_or_a_folder():
    outs = {name for name in cli.commands if "--out" in _placeholders(name)}
    assert outs == {name for name, flag in METAVAR_OF if flag == "--out"}


def test_run_help_says_deals_is_required_unless_resumed():
    text = " ".join(_help(cli.commands["run"], "run").split())
    assert "--deals N Number of deals" in text
    assert "[required unless --resume or --config gives it]" in text
