"""``bot --check``: it passes ``bonken-sim bot`` and the example player, and reports each
kind of broken player (garbage, an illegal card, a crash, a hang, notices answered)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from bonken_sim.errors import BadValue
from bonken_sim.table.check import run_check
from bonken_sim.table.pipe import CannotStart, command_argv
from bonken_sim.table.players import parse_player

REPO = Path(__file__).resolve().parents[2]
LOWEST = REPO / "examples" / "lowest_bot.py"
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _check(target: str, time_limit: float = 10.0, deals: int = 1) -> tuple[int, list[str]]:
    lines: list[str] = []
    status = run_check(target, time_limit=time_limit, deals=deals, seed=3, emit=lines.append)
    return status, lines


def _fails(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("FAIL")]


def _broken(tmp_path: Path, body: str) -> str:
    """A player: the example player with ``body`` run after it is loaded."""
    path = tmp_path / "broken_bot.py"
    path.write_text(
        f"import sys\nsys.path.insert(0, {str(LOWEST.parent)!r})\nimport lowest_bot\n"
        + textwrap.dedent(body)
        + "\nlowest_bot.main()\n"
    )
    return f"cmd:{sys.executable} {path}"


def test_bonken_sim_bot_passes(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", ENV["PYTHONPATH"])  # the player runs this checkout's package
    status, lines = _check(f"cmd:{sys.executable} -m bonken_sim.cli bot --strategy random")
    assert status == 0, "\n".join(lines)
    assert _fails(lines) == []
    assert lines[-1].endswith(" passed, 0 failed")
    names = " | ".join(lines)
    for case in ("hello (standard ruleset)", "notices get no answer", "unknown request",
                 "unreadable line", "a heart lead barred", "Domino: a seat that cannot lay",
                 "Domino: a seat that can lay", "the last turn without troeven",
                 "the chooser may double back", "must-overtrump", "rows open with the 7",
                 "must beat the highest trump", "quit ends the player",
                 "the end of its input ends the player"):  # fmt: skip
        assert case in names, case


def test_the_example_player_passes():
    status, lines = _check(f"cmd:{sys.executable} {LOWEST}", deals=2)
    assert status == 0, "\n".join(lines)
    assert len(lines) > 25 and not any(line.startswith("skip") for line in lines)


def test_the_command_line(tmp_path):
    res = subprocess.run(
        [sys.executable, "-m", "bonken_sim.cli", "bot", "--check", f"cmd:python3 {LOWEST}",
         "--deals", "1", "--time-limit", "5"],
        capture_output=True, text=True, env=ENV, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.splitlines()[0].startswith("ok   hello (standard ruleset): 'lowest'")
    bad = _broken(tmp_path, "lowest_bot.legal_cards = lambda view, rules: view['hand']")
    args = [sys.executable, "-m", "bonken_sim.cli", "bot", "--check", bad, "--deals", "1"]
    res = subprocess.run(args, capture_output=True, text=True, env=ENV, timeout=300)
    assert res.returncode == 1 and "FAIL" in res.stdout


def test_garbage_output_is_reported(tmp_path):
    target = _broken(
        tmp_path,
        """
        import json
        lowest_bot.json.dumps = lambda reply: "I am a card player"
    """,
    )
    status, lines = _check(target)
    assert status == 1
    assert lines[0].startswith("FAIL hello (standard ruleset): not JSON")
    assert lines[-1] == "0 passed, 1 failed"


def test_an_illegal_card_is_reported(tmp_path):
    # follows suit but ignores the heart-lead ban and must over-trump
    target = _broken(
        tmp_path,
        """
        legal = lowest_bot.legal_cards
        def careless(view, rules):
            if view["contract"] == "domino" or len(view["plays"]) % 4 == 0:
                return legal(view, rules)
            led = view["plays"][len(view["plays"]) // 4 * 4][1][1]
            return [c for c in view["hand"] if c[1] == led] or view["hand"]
        lowest_bot.legal_cards = careless
    """,
    )
    status, lines = _check(target, deals=2)
    assert status == 1
    fails = _fails(lines)
    assert fails and all("strict play: troeven" in line for line in fails), fails
    assert "answered" in fails[0] and "legal:" in fails[0]


def test_an_illegal_contract_and_double_are_reported(tmp_path):
    target = _broken(
        tmp_path,
        """
        answer = lowest_bot.answer
        def greedy(msg, rules):
            reply = answer(msg, rules)
            if msg.get("type") == "choose":
                reply["contract"] = msg["view"]["open"][-1]
            if msg.get("type") == "double":
                reply["doubles"] = [s for s in range(4) if s != msg["view"]["seat"]]
            return reply
        lowest_bot.answer = greedy
    """,
    )
    status, lines = _check(target)
    fails = _fails(lines)
    assert status == 1
    assert any("troeven had, a negative only" in line for line in fails), fails
    assert any("the chooser may double back" in line for line in fails), fails
    assert not any("a seat before the chooser" in line for line in fails), fails


def test_a_crash_is_reported_and_the_player_started_again(tmp_path):
    target = _broken(
        tmp_path,
        """
        answer = lowest_bot.answer
        def fragile(msg, rules):
            if msg.get("type") == "double" and msg["view"]["seat"] == 1:
                sys.stderr.write("seat 1 scares me\\n")
                sys.exit(3)
            return answer(msg, rules)
        lowest_bot.answer = fragile
    """,
    )
    status, lines = _check(target)
    fails = _fails(lines)
    assert status == 1
    assert any("exited with status 3" in line and "seat 1 scares me" in line for line in fails)
    assert any(line.startswith("FAIL not checked: the player was started") for line in fails)


def test_a_hang_is_reported(tmp_path):
    target = _broken(
        tmp_path,
        """
        import time
        answer = lowest_bot.answer
        def slow(msg, rules):
            if msg.get("type") == "choose" and msg["view"]["deal"] == 3:
                time.sleep(600)
            return answer(msg, rules)
        lowest_bot.answer = slow
    """,
    )
    status, lines = _check(target, time_limit=1.0)
    fails = _fails(lines)
    assert status == 1
    assert any("no answer within 1 s" in line for line in fails), fails
    assert any(line.startswith("ok   standard double") for line in lines)  # it went on


def test_answering_notices_and_ignoring_requests_is_reported(tmp_path):
    target = _broken(
        tmp_path,
        """
        answer = lowest_bot.answer
        def chatty(msg, rules):
            reply = answer(msg, rules)
            if reply is None:
                return {"type": "ok"}
            if msg["type"] == "bid":
                return None
            return reply
        lowest_bot.answer = chatty
    """,
    )
    status, lines = _check(target, time_limit=1.0)
    fails = " | ".join(_fails(lines))
    assert status == 1
    assert "FAIL notices get no answer" in fails
    assert "FAIL an unknown request is answered with an error" in fails


def test_a_player_may_refuse_a_ruleset(tmp_path):
    target = _broken(
        tmp_path,
        """
        answer = lowest_bot.answer
        def standard_only(msg, rules):
            if msg["type"] == "hello" and msg["ruleset"]["name"] != "standard":
                return {"type": "error", "message": "standard only"}
            return answer(msg, rules)
        lowest_bot.answer = standard_only
    """,
    )
    status, lines = _check(target)
    assert status == 0, lines
    assert "skip strict ruleset: the player refused the hello: 'standard only'" in lines


def test_a_player_that_never_ends_is_reported(tmp_path):
    target = _broken(
        tmp_path,
        """
        import time
        main = lowest_bot.main
        def stubborn():
            main()
            time.sleep(600)
        lowest_bot.main = stubborn
    """,
    )
    status, lines = _check(target, time_limit=1.0)
    assert status == 1
    assert "FAIL the end of its input ends the player: still running after 1 s" in lines
    assert "FAIL quit ends the player: still running after 1 s" in lines


def test_a_player_that_cannot_start_or_exits_at_once():
    with pytest.raises(CannotStart, match="cannot start the player 'no-such-player-here x'"):
        _check("cmd:no-such-player-here x")
    status, lines = _check(f"cmd:{sys.executable} -c 'import sys; sys.exit(4)'")
    assert status == 1
    assert lines[0] == "FAIL hello (standard ruleset): the player exited with status 4"


@pytest.mark.parametrize(
    ("target", "words"),
    [("tcp:localhost:80", "cmd:COMMAND"), ("cmd:  ", "names no command"),
     ("cmd:'x", "cannot split the command")],
)  # fmt: skip
def test_the_target_is_a_command(target, words):
    with pytest.raises(BadValue, match=words):
        command_argv(target)
    assert command_argv("cmd:python3 'a b.py' -x") == ["python3", "a b.py", "-x"]


@pytest.mark.parametrize("spec", ["cmd:", "cmd:  ", "cmd:'x", " cmd:a 'b"])
def test_match_and_the_checker_read_a_command_alike(spec):
    """One reading of ``cmd:COMMAND``: a seat of match and bot --check's target refuse the
    same command with the same words."""
    with pytest.raises(BadValue) as by_match:
        parse_player(spec)
    with pytest.raises(BadValue) as by_check:
        command_argv(spec)
    assert str(by_match.value) == str(by_check.value)
    assert command_argv(parse_player(" cmd: ./bot  'a b' ")) == ["./bot", "a b"]
