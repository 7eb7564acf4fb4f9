"""A run directory whose ``_manifest.json`` holds anything at all (nesting too deep, a list,
a number, bytes that are not UTF-8, a real manifest with any field changed or removed) is
read or refused in one line, exit status 2, by every reader of manifests, and nothing in the
directory is changed."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bonken_sim.cli import main
from bonken_sim.runs.game_format import game_manifest, is_game_run, manifest_format
from bonken_sim.runs.lock import Holder
from bonken_sim.runs.manifest import MANIFEST, NotARun, read_manifest
from bonken_sim.runs.schema import FORMAT, SCHEMA_VERSION
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, mutated

DAMAGE = [b"[" * 50_000, b"[1, 2]", b"42", b"\xff\xfe{}", b'{"format": 3', b"NaN"]
_RUN = f'{{"format": "{FORMAT}", "schema_version": {SCHEMA_VERSION}, '.encode()
DAMAGE += [
    _RUN + b'"parts": 5}',
    _RUN + b'"state": "complete", "parts": [5]}',
    _RUN + b'"config": 3}',
]


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(hostile_bytes())
def test_any_manifest_is_read_or_refused_as_not_a_run(tmp_path, damage):
    (tmp_path / MANIFEST).write_bytes(damage)
    for read in (read_manifest, game_manifest):
        try:
            doc = read(tmp_path)
        except NotARun as exc:
            assert "\n" not in str(exc)
        else:
            assert isinstance(doc, dict)
    assert manifest_format(tmp_path) is None or isinstance(manifest_format(tmp_path), str)
    assert isinstance(is_game_run(tmp_path, matches=True), bool)
    Holder.parse(damage.decode("utf-8", "replace"))  # a lock file of the same bytes
    assert (tmp_path / MANIFEST).read_bytes() == damage


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("command", [["summary"], ["report"], ["run", "--resume", "--out"]])
def test_commands_refuse_a_damaged_manifest_in_one_line(tmp_path, capsys, damage, command):
    run = tmp_path / "run"
    run.mkdir()
    (run / MANIFEST).write_bytes(damage)
    assert main([*command, str(run)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
    assert [p.name for p in run.iterdir()] == [MANIFEST]
    assert (run / MANIFEST).read_bytes() == damage


# ---------------------------------------------------------------------------------------
# Real manifests with one field replaced or removed


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory):
    """A tiny deal run, game run and match, made once: {name: directory}."""
    base = tmp_path_factory.mktemp("real")
    commands = {
        "run": ["run", "--deals", "4", "--chunk-size", "2", "--threads", "1"],
        "game": ["game", "--games", "3", "--chunk-size", "2", "--threads", "1"],
        "match": ["match", "--games", "1", "--no-duplicate", "--quiet"],
    }
    for name, command in commands.items():
        assert main([*command, "--seed", "1", "--out", str(base / name)]) == 0
    return {name: base / name for name in commands}


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}


#: the resumes of each kind of run (a manifest the readers refuse, every command refuses)
RESUME = {"run": ["run", "--resume"], "game": ["game", "--resume"], "match": ["match", "--resume"]}


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(RESUME)), data=st.data())
def test_a_real_manifest_with_a_field_changed_is_read_or_refused_in_one_line(
    real_runs, capsys, name, data
):
    root = real_runs[name]
    original = (root / MANIFEST).read_bytes()
    doc, how = data.draw(mutated(json.loads(original)))
    note(how)
    (root / MANIFEST).write_text(json.dumps(doc))
    before = _files(root)
    try:
        try:
            game_manifest(root, matches=True) if name != "run" else read_manifest(root)
        except NotARun as exc:
            commands = [["summary", str(root)], [*RESUME[name], "--out", str(root)]]
            assert "is not a" in str(exc) or "schema version" in str(exc), exc
        else:  # still valid: the summary reads it (a resume might play a run made larger)
            commands = [["summary", str(root)]]
        capsys.readouterr()
        for command in commands:
            code = main(command)
            err = capsys.readouterr().err
            assert code in (0, 2), err
            if code == 2:
                assert err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
                assert _files(root) == before
    finally:
        (root / MANIFEST).write_bytes(original)


@pytest.mark.parametrize(
    ("name", "field", "value", "said"),
    [
        ("run", ("parts", 0, "deals"), "x", "parts[0].deals: 'x' is not a whole number"),
        ("run", ("parts", 0, "index"), None, "parts[0].index is missing"),
        ("run", ("config", "deals"), "4", "config.deals: '4' where a run records 4"),
        ("run", ("config", "contracts"), 5, "config.contracts: 5 is not a list of names"),
        ("game", ("config", "players"), "basic", "config.players: 'basic' is not a list of names"),
        ("game", ("config", "games"), None, "config.games is missing"),
        ("match", ("config", "games"), None, "config.games is missing"),
        ("match", ("parts", 0, "traces_file"), "../x", "parts[0].traces_file: '../x' is not"),
    ],
)
@pytest.mark.parametrize("command", ["summary", "report", "resume"])
def test_a_damaged_field_is_named(real_runs, tmp_path, capsys, name, field, value, said, command):
    root = tmp_path / name
    shutil.copytree(real_runs[name], root)
    doc = json.loads((root / MANIFEST).read_text())
    parent = functools.reduce(lambda v, k: v[k], field[:-1], doc)
    if value is None:
        del parent[field[-1]]
    else:
        parent[field[-1]] = value
    (root / MANIFEST).write_text(json.dumps(doc))
    before = _files(root)
    args = [*RESUME[name], "--out"] if command == "resume" else [command]
    assert main([*args, str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
    assert f"{root / MANIFEST} is not a valid manifest: {said}" in err
    assert _files(root) == before
