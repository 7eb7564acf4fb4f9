"""Shared fixtures. Kernels are compiled once per CI run by `bonken-sim warmup` (make test);
the session fixture below does the same when pytest is run alone, so no test pays compile
time of its own. `make test` runs the tests on one worker process per core (pytest-xdist,
`--dist loadfile`: a file's tests share one worker, so its module fixtures are built once).

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


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`make test` runs the suite on `-n auto` workers (pytest-xdist): one per usable core,
    at most 4 (each loads every kernel, and many tests play on two threads themselves)."""
    from bonken_sim.processes import usable_cores

    return min(4, usable_cores())


def pytest_sessionstart(session):
    """With workers, the kernels the cache lacks are compiled here, once, before they start
    (xdist starts them after this hook), not by every worker at once."""
    if getattr(session.config.option, "numprocesses", None) and not hasattr(
        session.config, "workerinput"
    ):
        from bonken_sim.engine.warmup import ALL, warm

        warm(ALL)


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels():
    from bonken_sim.engine.warmup import warmup

    warmup()  # compiled by `make test`'s warmup or the hook above: a load of about a second


def golden_records(name: str) -> list[dict]:
    path = GOLDEN / name
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
