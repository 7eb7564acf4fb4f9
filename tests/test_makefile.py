"""The README's `make run`: its main job is reproducible, so two users' runs (and the figures
the docs quote from them) agree card for card."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_make_run_plays_fixed_printed_seeds():
    plan = subprocess.run(
        ["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    run = [line for line in plan.splitlines() if re.search(r"bonken-sim run ", line)]
    games = [line for line in plan.splitlines() if re.search(r"bonken-sim game ", line)]
    # the main run, then the strong run on its first deals: the same seed
    assert len(run) == 2 and all(re.search(r" --seed \d+ ", line) for line in run), run
    seeds = {re.search(r" --seed (\d+) ", line).group(1) for line in run}  # type: ignore[union-attr]
    assert len(seeds) == 1 and "--strategies expert " in run[1], run
    assert games and all(re.search(r" --seed \d+ ", line) for line in games), games
