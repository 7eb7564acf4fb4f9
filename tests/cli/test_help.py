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
