"""A run directory whose ``_manifest.json`` holds anything at all (nesting too deep, a list,
a number, bytes that are not UTF-8) is refused in one line, exit status 2, by every reader of
manifests, and nothing in the directory is changed."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from bonken_sim.cli import main
from bonken_sim.runs.game_format import game_manifest, is_game_run, manifest_format
from bonken_sim.runs.lock import Holder
from bonken_sim.runs.manifest import MANIFEST, NotARun, read_manifest
from bonken_sim.runs.schema import FORMAT, SCHEMA_VERSION
from tests.fuzz_inputs import EXAMPLES, hostile_bytes

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
