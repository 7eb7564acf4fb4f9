"""Every script in benchmarks/ imports only names the package has: the scripts run outside the
suite, so a renamed function would otherwise break one unnoticed until somebody measures."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

SCRIPTS = sorted((Path(__file__).resolve().parents[2] / "benchmarks").glob("*.py"))


def test_there_are_scripts():
    assert len(SCRIPTS) >= 5


def _has(module, name: str) -> bool:
    """Whether ``from module import name`` finds it: an attribute, or a submodule (which is
    an attribute only once something imported it, so the order of the tests would decide)."""
    if hasattr(module, name):
        return True
    try:
        importlib.import_module(f"{module.__name__}.{name}")
    except ModuleNotFoundError:
        return False
    return True


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_the_package_names_a_script_imports_exist(script: Path):
    missing = []
    for node in ast.walk(ast.parse(script.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bonken_sim"):
            module = importlib.import_module(node.module)
            names = [a.name for a in node.names]
            missing += [f"{node.module}.{n}" for n in names if not _has(module, n)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("bonken_sim"):
                    importlib.import_module(alias.name)
    assert not missing, f"{script.name} imports names that do not exist: {missing}"
