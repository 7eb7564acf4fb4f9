"""The ``bonken-sim`` command line. Parsing and printing only: each command group is a module
here (play, runs, games, analyses, report, bench, rules), what they share is in ``common``,
the group and the entry point in ``main``; the work is done by the packages they call.

``bonken_sim.cli:main`` is the console script, ``bonken_sim.cli.cli`` the click group.
"""

from __future__ import annotations

from bonken_sim.cli.main import cli, main
from bonken_sim.cli.play import format_playout

__all__ = ["cli", "format_playout", "main"]
