"""The layers of docs/ENGINE.md ("The rules between the layers") hold: every import in
``bonken_sim/``, at module level or inside a function, is checked against the layer table,
which is read from the doc itself so that the doc and the check cannot drift apart."""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "bonken_sim"
ENGINE_DOC = REPO / "docs" / "ENGINE.md"
CORE, ENGINE = "core", "engine"


@dataclass(frozen=True)
class Allowed:
    """An import a rule would refuse, allowed: from modules under ``source`` to modules under
    ``target`` (dotted prefixes), for ``reason``."""

    source: str
    target: str
    reason: str


ALLOWED = (
    Allowed(
        "bonken_sim.rules",
        "bonken_sim._core.ids",
        "every id is written once, in _core (the kernels read them as constants and _core "
        "imports nothing outside itself); rules names them for users",
    ),
    Allowed(
        "bonken_sim.rules",
        "bonken_sim._core.ruleset",
        "the ruleset table's layout is written once, in _core, where the kernels read it; "
        "rules builds a Ruleset's table with it",
    ),
)


@dataclass(frozen=True)
class Import:
    source: str  # the importing module, dotted
    path: str  # its file, relative to the repository
    line: int
    target: str  # the imported module, dotted


def layer_table(doc: Path = ENGINE_DOC) -> dict[str, tuple[int, str]]:
    """Path under bonken_sim/ (a folder ending in "/" or a file) -> (rank, layer), from the
    first table after the heading "The rules between the layers"."""
    text = doc.read_text("utf-8")
    section = text[text.index("### The rules between the layers") :]
    table: dict[str, tuple[int, str]] = {}
    for line in section.splitlines()[1:]:
        row = re.fullmatch(r"\|\s*(\d+)\s*\|\s*(\w+)\s*\|(.*)\|", line.strip())
        if row:
            for where in re.findall(r"`([^`]+)`", row.group(3)):
                table[where] = (int(row.group(1)), row.group(2))
        elif table:
            break
    return table


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted: str, package: Path) -> bool:
    rel = Path(*dotted.split(".")[1:]) if "." in dotted else Path()
    base = package / rel
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def imports_of(path: Path, package: Path = PACKAGE) -> list[Import]:
    """Every import of bonken_sim or tests in the module at ``path``; ``from m import x`` is
    an import of ``m.x`` when that is a module, else of ``m``."""
    source = module_name(path, package)
    is_package = path.name == "__init__.py"
    where = str(path.relative_to(package.parent))
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = source.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                targets.append(sub if _is_module(sub, package) else module)
        for target in targets:
            if target.split(".")[0] in ("bonken_sim", "tests"):
                found.append(Import(source, where, node.lineno, target))
    return found


def layer_of(module: str, table: dict[str, tuple[int, str]]) -> tuple[int, str] | None:
    """The (rank, layer) of a dotted module of bonken_sim: its file, else its folder."""
    parts = module.split(".")[1:]
    candidates = ["__init__.py"] if not parts else []
    candidates += ["/".join(parts) + ".py"] if parts else []
    candidates += ["/".join(parts[:k]) + "/" for k in range(len(parts), 0, -1)]
    for where in candidates:
        if where in table:
            return table[where]
    return None


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def broken_rule(imp: Import, table: dict[str, tuple[int, str]]) -> str | None:
    """Which rule ``imp`` breaks (None: none, or an allowed exception)."""
    if imp.target.split(".")[0] == "tests":
        return "the package never imports tests/ (it is not installed)"
    src, dst = layer_of(imp.source, table), layer_of(imp.target, table)
    if src is None or dst is None:
        return f"{imp.source if src is None else imp.target} is in no layer of docs/ENGINE.md"
    if any(_under(imp.source, a.source) and _under(imp.target, a.target) for a in ALLOWED):
        return None
    if src[1] == CORE and dst[1] != CORE:
        return "_core/ imports nothing outside _core/"
    if dst[1] == CORE and src[1] not in (CORE, ENGINE):
        return "only engine/ imports _core/"
    if dst[0] > src[0]:
        return f"the {src[1]} layer (rank {src[0]}) imports the {dst[1]} layer (rank {dst[0]})"
    return None


@functools.cache
def all_imports(package: Path = PACKAGE) -> tuple[Import, ...]:
    return tuple(imp for path in sorted(package.rglob("*.py")) for imp in imports_of(path, package))


def offences(package: Path = PACKAGE, doc: Path = ENGINE_DOC) -> list[str]:
    table = layer_table(doc)
    out = []
    for imp in all_imports(package):
        rule = broken_rule(imp, table)
        if rule:
            out.append(f"{imp.path}:{imp.line} ({imp.source}) imports {imp.target}: {rule}")
    return list(dict.fromkeys(out))  # one line per import, not per name imported


def test_the_doc_states_the_layers_in_order():
    table = layer_table()
    ranks = {layer: rank for rank, layer in table.values()}
    assert list(ranks) == [
        "core", "base", "rules", "models", "engine", "runs", "analyses", "research", "table",
        "report", "bench", "serve", "cli", "api",
    ]  # fmt: skip
    assert sorted(ranks.values()) == list(range(len(ranks)))


def test_every_module_of_the_package_is_in_a_layer():
    table = layer_table()
    missing = [
        module_name(p)
        for p in sorted(PACKAGE.rglob("*.py"))
        if layer_of(module_name(p), table) is None
    ]
    assert not missing, f"modules in no layer of docs/ENGINE.md: {missing}"


def test_every_import_keeps_the_layer_rules():
    found = offences()
    assert not found, "imports that break docs/ENGINE.md's layer rules:\n" + "\n".join(found)


def test_every_allowed_exception_is_still_needed():
    used = {
        a
        for imp in all_imports()
        for a in ALLOWED
        if _under(imp.source, a.source) and _under(imp.target, a.target)
    }
    assert used == set(ALLOWED)


@pytest.mark.parametrize(
    ("source", "code", "rule"),
    [
        ("bench/timing.py", "from bonken_sim._core import kernels", "only engine/ imports _core/"),
        ("_core/helper.py", "from bonken_sim.rules import names", "_core/ imports nothing"),
        ("engine/helper.py", "def f():\n    from bonken_sim.bench import bench", "engine layer"),
        ("runs/helper.py", "from bonken_sim import __version__", "runs layer (rank 5) imports"),
        ("bench/helper.py", "from tests import reference", "never imports tests/"),
        ("rules/helper.py", "from .._core.ruleset import F_KIND", None),
        ("engine/helper.py", "from bonken_sim._core import kernels", None),
        ("_core/helper.py", "from . import ids", None),
    ],
)
def test_the_check_names_the_module_the_import_and_the_rule(tmp_path, source, code, rule):
    package = tmp_path / "bonken_sim"
    for where in ("_core", "rules", "engine", "runs", "bench"):
        (package / where).mkdir(parents=True)
        (package / where / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    for name in ("_core/ids.py", "_core/kernels.py", "_core/ruleset.py", "rules/names.py"):
        (package / name).write_text("")
    (package / "bench" / "bench.py").write_text("")
    (package / source).write_text(code + "\n")
    found = offences(package)
    if rule is None:
        assert found == []
    else:
        (line,) = found
        assert line.startswith(f"bonken_sim/{source}:") and rule in line
