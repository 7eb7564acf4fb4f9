"""Shared fixtures. Kernels are compiled once per CI run by `bonken-sim warmup` (make test);
the session fixture below does the same when pytest is run alone, so no test pays compile
time of its own.

The slow tests (marked here, by module, so the list is in one place) are part of `make
test`; `pytest -m "not slow"` leaves them out for a quick loop while editing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


# Modules whose tests play or report on many deals: about two thirds of the suite's time.
SLOW_MODULES = (
    "tests/core/test_engine_differential.py",
    "tests/core/test_engine_invariants.py",
    "tests/reference/test_golden.py",
    "tests/report/test_report.py",
    "tests/report/test_report_cli.py",
    "tests/report/test_report_house_rules.py",
    "tests/runs/test_executors.py",
    "tests/engine/test_games.py",
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("::")[0] in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels():
    from bonken_sim.engine.warmup import warmup

    warmup()


def golden_records(name: str) -> list[dict]:
    path = GOLDEN / name
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
