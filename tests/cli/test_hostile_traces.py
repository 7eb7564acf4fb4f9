"""``bonken-sim replay`` answers any file as docs/COMMANDS.md says: each record legal, or
illegal with the first rule it breaks (exit 1), or the file refused in one line (exit 2),
never an internal error; a real record with any field changed or removed is a record
replayed or called illegal."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from bonken_sim.cli import main
from bonken_sim.engine.play import IllegalPlay, replay
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, mutated

_SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """The records of ``bonken-sim trace --deals 3 --seed 1``, and a file to write lines to."""
    base = tmp_path_factory.mktemp("trace")
    assert main(["trace", "--deals", "3", "--seed", "1", "--out", str(base / "t.jsonl")]) == 0
    lines = (base / "t.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines], base / "damaged.jsonl"


def _answer(capsys, path, n_records: int | None) -> tuple[int, str]:
    """Replay ``path``; assert the answer is one of those documented: (exit status, stdout)."""
    capsys.readouterr()
    code = main(["replay", str(path)])
    out, err = capsys.readouterr()
    if code == 2:
        assert out == "" and err.startswith("bonken-sim: error: ") and err.count("\n") == 1, err
        return code, out
    assert code in (0, 1) and err == "", (code, err)
    *illegal, last = out.splitlines()
    ok, bad = (int(word) for word in last.replace(",", " ").split()[::2][:2])
    assert last == f"{ok} legal, {bad} illegal" and len(illegal) == bad and code == (bad > 0)
    assert all(": illegal: " in line for line in illegal), illegal
    if n_records is not None:
        assert ok + bad == n_records
    return code, out


@_SETTINGS
@given(hostile_bytes())
def test_any_bytes_as_a_trace_file_are_answered(records, capsys, data):
    _, path = records
    path.write_bytes(data)
    _answer(capsys, path, None)


@settings(_SETTINGS, max_examples=EXAMPLES // 2)
@given(data=st.data())
def test_a_real_record_with_a_field_changed_is_replayed_or_illegal(records, capsys, data):
    recs, path = records
    depth = data.draw(st.sampled_from([1, 2, None]))  # the top fields as often as the cards
    record, how = data.draw(mutated(data.draw(st.sampled_from(recs)), depth))
    note(how)
    try:
        scores = replay(record)
    except IllegalPlay as exc:
        assert "\n" not in str(exc)
    else:
        assert isinstance(scores, list) and len(scores) == 4
    path.write_text(json.dumps(record) + "\n")
    _answer(capsys, path, 1)


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("scores", 5, "scores 5 but the play gives"),
        ("dealer", 1.0, "dealer must be a seat 0-3, got 1.0"),
        ("dealer", True, "dealer must be a seat 0-3, got True"),
        ("trump", ["H"], "unknown trump ['H']"),
        ("hands", [[None] * 13] * 4, "malformed record: not a card: None"),
        ("plays", [7], "malformed record: not a card: 7"),
    ],
)
def test_a_damaged_field_is_named(records, capsys, field, value, said):
    recs, path = records
    record = {**next(r for r in recs if r["trump"]), field: value}
    path.write_text(json.dumps(record) + "\n")
    code, out = _answer(capsys, path, 1)
    assert code == 1 and f"{path}:1: illegal: {said}" in out
