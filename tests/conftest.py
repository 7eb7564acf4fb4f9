"""Shared fixtures. Kernels are compiled once per CI run by `bonken-sim warmup` (make test);
the session fixture below does the same when pytest is run alone, so no test pays compile
time of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="session", autouse=True)
def _compiled_kernels():
    from bonken_sim.engine.warmup import warmup

    warmup()


def golden_records(name: str) -> list[dict]:
    path = GOLDEN / name
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]
