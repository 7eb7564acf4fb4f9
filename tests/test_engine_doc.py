"""docs/ENGINE.md's layout table names every module of the package, so the map engineers read
stays the tree they work in (the command line's modules are named there as a group: one
module per command group)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_module_is_in_the_layout_table():
    doc = (ROOT / "docs" / "ENGINE.md").read_text(encoding="utf-8")
    package = ROOT / "bonken_sim"
    unnamed = [
        str(path.relative_to(ROOT))
        for path in sorted(package.rglob("*.py"))
        if path.name != "__init__.py"
        and path.parent != package / "cli"
        and f"`{path.name}`" not in doc
    ]
    assert unnamed == [], f"not in docs/ENGINE.md's layout table: {unnamed}"
