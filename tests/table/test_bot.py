"""``bonken-sim bot``: the loop in process, and a whole session with the command, whose
answers are exactly ``decide``'s."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bonken_sim.engine.decide import decide
from bonken_sim.rules.names import VARIANT_NAMES
from bonken_sim.rules.rulesets import STANDARD, preset
from bonken_sim.table import protocol as P
from bonken_sim.table.bot import Bot, request_seed, serve
from bonken_sim.table.positions import choose_positions, double_positions, play_positions

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "bonken_sim.cli"]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
CLUBS = ["2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC"]


def _serve(lines: list[str | dict], strategy: str = "basic", **kw) -> tuple[list[dict], int]:
    text = "".join(x if isinstance(x, str) else P.encode(x) for x in lines)
    out, log = io.BytesIO(), io.StringIO()
    status = serve(strategy, io.BytesIO(text.encode()), out, log=log, **kw)
    return [P.decode(line) for line in out.getvalue().splitlines()], status


def _lead(rid: int, **change) -> dict:
    view = {"contract": "bukken", "dealer": 0, "seat": 1, "hand": CLUBS, "plays": [], **change}
    return {"type": "play", "id": rid, "view": view}


def test_hello_then_requests_then_quit():
    replies, status = _serve([P.hello("standard"), _lead(1), P.QUIT, _lead(2)])
    assert status == 0
    assert replies[0] == P.player_hello("bonken-sim basic", replies[0]["version"])
    assert replies[1] == {"type": "play", "id": 1, "card": "2C"}
    assert len(replies) == 2  # nothing read after quit


def test_notices_and_blank_lines_get_no_answer():
    notices = [
        P.game_start(1, 1, ["a", "b", "c", "d"]),
        P.deal_end(1, 0, "bukken", [0] * 4, [], [0] * 4, [0] * 4),
        P.game_end(1, [0] * 4),
        P.error("refused", 3),
        {"type": "later_notice"},
        "\n",
    ]
    replies, status = _serve([P.hello(None), *notices, _lead(4)])
    assert status == 0 and [r["type"] for r in replies] == ["hello", "play"]


def test_what_it_cannot_answer_is_an_error_and_it_goes_on():
    bad_view = _lead(3, hand=CLUBS[:5])  # 5 cards before any play: decide refuses it
    replies, status = _serve([
        _lead(1),  # before hello
        P.hello(None),
        "this is no JSON\n",
        '{"type": "play", "id": 2, "view": {"contract": "bukken"}}\n',
        bad_view,
        {"type": "bid", "id": 4},
        {"type": "play", "id": -1, "view": {}},
        '["a list"]\n',
        "x" * (P.MAX_LINE + 10) + "\n",
        _lead(5),
    ])  # fmt: skip
    assert status == 0
    errors = replies[:1] + replies[2:-1]
    assert all(r["type"] == "error" and "\n" not in r["message"] for r in errors)
    assert [r.get("id") for r in errors] == [1, None, 2, 3, 4, None, None, None]
    assert "before hello" in errors[0]["message"]
    assert "view.dealer is missing" in errors[2]["message"]
    assert "13 less the 0 it played" in errors[3]["message"]
    assert "unknown request type 'bid'" in errors[4]["message"]
    assert "longer than" in errors[7]["message"]
    assert replies[-1] == {"type": "play", "id": 5, "card": "2C"}


def test_a_hello_it_cannot_read_is_refused():
    replies, _ = _serve([{"type": "hello", "protocol": 2, "ruleset": STANDARD.to_dict()}])
    assert replies[0]["type"] == "error" and "protocol 2" in replies[0]["message"]
    replies, _ = _serve([{"type": "hello", "protocol": 1, "ruleset": {"name": "x"}}])
    assert replies[0]["type"] == "error" and "missing key" in replies[0]["message"]


def test_end_of_input_ends_it():
    assert _serve([P.hello(None)]) == ([P.player_hello("bonken-sim basic", _version())], 0)


def _version() -> str:
    from bonken_sim.version import __version__

    return __version__


def test_explain_adds_what_was_weighed():
    view = choose_positions(STANDARD, 1, 3)[0].view
    bot = Bot("basic", explain=True)
    bot.answer(P.hello(None))
    reply = bot.answer(P.request("choose", 1, view))
    assert reply is not None and reply["weighed"]
    assert P.answer_from_json("choose", reply, 1)[1] == decide(view, "basic", explain=True).weighed
    assert "weighed" not in (Bot("basic").answer(P.request("choose", 1, view)) or {"weighed": 0})


def test_request_seed_is_the_seed_and_id_only():
    assert request_seed(5, 7) == request_seed(5, 7)
    assert len({request_seed(5, i) for i in range(100)} | {request_seed(6, 7)}) == 101


def _positions():
    return [
        *play_positions(STANDARD, VARIANT_NAMES, 1, 11)[::7],
        *play_positions(preset("strict"), ("troeven_S", "domino"), 1, 12)[::5],
        *choose_positions(STANDARD, 2, 13),
        *double_positions(STANDARD, 6, 14),
    ]


@pytest.mark.parametrize("strategy", ["random", "advanced"])
def test_a_session_answers_as_decide_does(strategy):
    positions = _positions()
    rules = [p.view.ruleset for p in positions]
    lines = []
    current = None
    for i, p in enumerate(positions, start=1):
        if rules[i - 1] != current:
            current = rules[i - 1]
            lines.append(P.encode(P.hello(current)))
        lines.append(P.encode(P.request(p.kind, 1000 + i, p.view)))
    res = subprocess.run(
        [*CLI, "bot", "--strategy", strategy, "--seed", "42"],
        input="".join(lines), capture_output=True, text=True, env=ENV, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    replies = [P.decode(line) for line in res.stdout.splitlines()]
    assert [r["type"] for r in replies].count("hello") == 3  # standard, strict, standard
    answers = [r for r in replies if r["type"] != "hello"]
    assert len(answers) == len(positions)
    for i, (p, reply) in enumerate(zip(positions, answers, strict=True), start=1):
        want = decide(p.view, strategy, request_seed(42, 1000 + i))
        value, weighed = P.answer_from_json(p.kind, reply, 1000 + i)
        assert weighed == ()
        assert value == {"play": want.card, "choose": want.contract}.get(p.kind, want.doubles)


def test_a_double_request_reaches_decide_with_every_field(monkeypatch):
    """The doubling by search reads the deal, the variants open to the chooser and whether
    he had troeven: the bot passes them on as the table sent them."""
    seen = []

    def record(view, strategy, seed, explain=False):
        seen.append(view)
        return decide(view, "basic", seed)

    monkeypatch.setattr("bonken_sim.table.bot.decide", record)
    view = {
        "dealer": 0,
        "seat": 3,
        "hand": CLUBS,
        "contract": "bukken",
        "doubles": [],
        "deal": 6,
        "open": ["bukken", "vrouwen", "troeven_S"],
        "chooser_had_troeven": True,
    }
    replies, _ = _serve([P.hello("standard"), {"type": "double", "id": 5, "view": view}],
                        "expert")  # fmt: skip
    assert replies[1]["type"] == "double"
    assert (seen[0].deal, seen[0].open, seen[0].chooser_had_troeven) == (
        6, ("bukken", "vrouwen", "troeven_S"), True)  # fmt: skip


def test_command_errors_are_one_line():
    for args, words in (
        (["--strategy", "nobody"], "unknown strategy 'nobody'"),
        (["--check", "cmd:true", "--strategy", "basic"], "--check checks another player"),
        (["--seed", "-1"], "--seed"),
    ):
        res = subprocess.run([*CLI, "bot", *args], input="", capture_output=True, text=True,
                             env=ENV, timeout=120)  # fmt: skip
        assert res.returncode == 2, res.stderr
        assert res.stdout == ""
        assert words in res.stderr and res.stderr.count("\n") == 1, res.stderr
