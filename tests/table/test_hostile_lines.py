"""Any line a player or a table manager may write gets the protocol's answer, never an
internal error: ``decode`` and the readers of its messages refuse it with a ProtocolError,
``bonken-sim bot`` answers it with an error and plays on, a match records a ``malformed``
fault and goes on (test_match_players.py), ``bot --check`` reports a finding."""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bonken_sim.rules.rulesets import STANDARD
from bonken_sim.table import protocol as P
from bonken_sim.table.bot import Bot, serve
from bonken_sim.table.check import run_check
from tests.fuzz_inputs import EXAMPLES, hostile_bytes, json_objects, json_values

REPO = Path(__file__).resolve().parents[2]
LOWEST = REPO / "examples" / "lowest_bot.py"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
DEEP = "[" * 50_000  # under the 64 KiB a line may hold, far deeper than the parser goes
CLUBS = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"]
LEAD = {
    "type": "play",
    "id": 1,
    "view": {"contract": "bukken", "dealer": 0, "seat": 1, "hand": CLUBS, "plays": []},
}
#: a request of each kind that ``decide`` answers: the base a mutated request starts from
REQUESTS = [
    LEAD,
    {"type": "choose", "id": 2,
     "view": {"dealer": 0, "seat": 1, "hand": CLUBS, "deal": 0, "open": ["bukken", "domino"]}},
    {"type": "double", "id": 3,
     "view": {"dealer": 0, "seat": 1, "hand": CLUBS, "contract": "bukken", "doubles": []}},
]  # fmt: skip


def _one_line_error(exc: BaseException) -> None:
    assert isinstance(exc, P.ProtocolError) and "\n" not in str(exc)


# -- decode and the readers of messages ----------------------------------------------------
@settings(max_examples=EXAMPLES, deadline=None)
@given(hostile_bytes())
def test_decode_gives_a_message_or_a_protocol_error(line):
    try:
        msg = P.decode(line)
    except P.ProtocolError as exc:
        _one_line_error(exc)
    else:
        assert isinstance(msg, dict) and isinstance(msg["type"], str)


@pytest.mark.parametrize("line", [DEEP, '{"type":"play","x":' + DEEP, "[" * 65 + "]" * 65])
def test_decode_refuses_nesting_too_deep(line):
    with pytest.raises(P.ProtocolError, match=r"^not JSON \(lists or objects nested deeper"):
        P.decode(line)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(P.REQUESTS + ("bid",)), json_values(), st.sampled_from([None, STANDARD]))
def test_view_from_json_gives_a_view_or_a_protocol_error(kind, obj, rules):
    try:
        P.view_from_json(kind, obj, rules)
    except P.ProtocolError as exc:
        _one_line_error(exc)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(P.REQUESTS), json_objects(), st.integers(0, 3))
def test_answer_from_json_gives_a_value_or_a_protocol_error(kind, msg, rid):
    msg.setdefault("type", kind)
    try:
        P.answer_from_json(kind, msg, rid, STANDARD)
    except P.ProtocolError as exc:
        _one_line_error(exc)


@settings(max_examples=EXAMPLES, deadline=None)
@given(json_objects(), st.booleans())
def test_hellos_give_their_value_or_a_protocol_error(msg, versioned):
    if versioned:
        msg["protocol"] = P.PROTOCOL_VERSION
    for read in (P.hello_from_json, P.ruleset_from_hello):
        try:
            read(msg)
        except P.ProtocolError as exc:
            _one_line_error(exc)


# -- the player side: bonken-sim bot -------------------------------------------------------
def _mutated(base: dict[str, Any], path: list[str], value: Any) -> dict[str, Any]:
    """``base`` with the field at ``path`` (under its view, or at the top) set to ``value``."""
    msg = copy.deepcopy(base)
    where = msg["view"] if path[0] == "view" and len(path) > 1 else msg
    where[path[-1]] = value
    return msg


_FIELDS = st.sampled_from(
    [["id"], ["view"], ["view", "dealer"], ["view", "seat"], ["view", "hand"],
     ["view", "plays"], ["view", "contract"], ["view", "stake"], ["view", "random_seats"],
     ["view", "deal"], ["view", "open"], ["view", "scores"], ["view", "had_troeven"],
     ["view", "doubles"]]
)  # fmt: skip


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.sampled_from(REQUESTS), _FIELDS, json_values())
def test_bot_answers_a_request_with_any_field_wrong(base, path, value):
    bot = Bot("basic")
    assert bot.answer(P.decode(P.encode(P.hello(STANDARD))))["type"] == "hello"
    reply = bot.answer(_mutated(base, path, value))
    assert reply is not None and reply["type"] in (base["type"], "error")
    P.decode(P.encode(reply))  # and what it answers is a line of the protocol


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(hostile_bytes(), min_size=1, max_size=3))
def test_bot_answers_any_line_and_plays_on(lines):
    data = P.encode(P.hello(STANDARD)).encode()
    data += b"".join(line.replace(b"\n", b" ") + b"\n" for line in lines)
    out = io.BytesIO()
    status = serve("basic", io.BytesIO(data + P.encode(LEAD).encode()), out, log=io.StringIO())
    replies = [P.decode(line) for line in out.getvalue().splitlines()]
    assert status == 0 and replies[0]["type"] == "hello"
    if not any(r.get("type") == "quit" for r in replies):  # a drawn quit ends it early
        assert replies[-1]["type"] in ("play", "error")


def test_bot_answers_a_deep_line_with_an_error_and_plays_on():
    data = (P.encode(P.hello(STANDARD)) + DEEP + "\n" + P.encode(LEAD)).encode()
    out, log = io.BytesIO(), io.StringIO()
    assert serve("basic", io.BytesIO(data), out, log=log) == 0
    hello, error, play = (P.decode(line) for line in out.getvalue().splitlines())
    assert hello["type"] == "hello" and play == {"type": "play", "id": 1, "card": "2C"}
    assert error["type"] == "error" and "id" not in error
    assert error["message"].startswith("cannot read the line: not JSON (lists or objects nested")


def test_the_bot_command_answers_a_deep_line_with_an_error():
    data = P.encode(P.hello(STANDARD)) + DEEP + "\n" + P.encode(LEAD) + P.encode(P.QUIT)
    res = subprocess.run(
        [sys.executable, "-m", "bonken_sim.cli", "bot"],
        input=data, capture_output=True, text=True, env=ENV, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert [json.loads(line)["type"] for line in res.stdout.splitlines()] == [
        "hello",
        "error",
        "play",
    ]
    assert "internal error" not in res.stderr


# -- the checker: bot --check --------------------------------------------------------------
def test_check_reports_a_deep_answer_as_a_finding(tmp_path):
    path = tmp_path / "deep_bot.py"
    path.write_text(
        f"import sys\nsys.path.insert(0, {str(LOWEST.parent)!r})\nimport lowest_bot\n"
        f"lowest_bot.json.dumps = lambda reply: '[' * {len(DEEP)}\nlowest_bot.main()\n"
    )
    lines: list[str] = []
    status = run_check(f"cmd:{sys.executable} {path}", time_limit=10.0, deals=1, seed=3,
                       emit=lines.append)  # fmt: skip
    assert status == 1
    assert lines[0].startswith("FAIL hello (standard ruleset): not JSON (lists or objects nested")
    assert lines[-1] == "0 passed, 1 failed"
