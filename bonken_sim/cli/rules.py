"""``bonken-sim rules``: a ruleset described in words, or the named rulesets listed."""

from __future__ import annotations

from pathlib import Path

import click

from bonken_sim.cli.common import UserError, echo_json, echo_lines
from bonken_sim.cli.options import resolve_rules


@click.command("rules")
@click.argument("name", required=False)
@click.option(
    "--rules",
    "rules_file",
    default=None,
    metavar="FILE.toml",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Describe a rules file instead of a named ruleset.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the resolved ruleset as JSON.")
def rules_cmd(name, rules_file, as_json):
    """Describe a ruleset in words (without NAME: list the named rulesets)."""
    from bonken_sim.rules.rulesets import PRESET_SUMMARIES, PRESETS

    if name is None and rules_file is None:
        if as_json:
            echo_json({k: r.to_dict() for k, r in PRESETS.items()}, indent=2)
            return
        click.echo("Named rulesets (bonken-sim rules NAME describes one):")
        for key, text in PRESET_SUMMARIES.items():
            click.echo(f"  {key:14s} {text}")
        click.echo("A rules file (--rules FILE.toml) starts from one of them; see the README.")
        return
    if name is not None and rules_file is not None:
        raise UserError("give NAME or --rules, not both (a rules file names its preset)")
    r = resolve_rules(name, rules_file)
    if as_json:
        echo_json(r.to_dict(), indent=2)
        return
    echo_lines(r.describe())
