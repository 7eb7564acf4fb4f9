"""examples/lowest_bot.py: standard library only, and its own reading of the rules is the
engine's: its legal cards and contracts are ``decide``'s, turn by turn over many deals."""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from bonken_sim.rules.names import VARIANT_NAMES, variant_names
from bonken_sim.rules.rulesets import STANDARD, Ruleset, preset
from bonken_sim.table import protocol as P
from bonken_sim.table.positions import choose_positions, play_positions

LOWEST = Path(__file__).resolve().parents[2] / "examples" / "lowest_bot.py"
_spec = importlib.util.spec_from_file_location("lowest_bot", LOWEST)
assert _spec is not None and _spec.loader is not None
lowest_bot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lowest_bot)

RULESETS = {
    "standard": STANDARD,
    "strict": preset("strict"),
    "bierkaart": preset("bierkaart"),
    "must-trump, hearts free": Ruleset(name="club", trump_play="must-trump", heart_lead="free"),
}


def _rules(ruleset: Ruleset) -> dict:
    """The example's ruleset, as its hello reads it."""
    rules: dict = {}
    reply = lowest_bot.answer(P.decode(P.encode(P.hello(ruleset))), rules)
    assert reply["type"] == "hello" and reply["name"] == "lowest"
    return rules


def test_standard_library_only():
    tree = ast.parse(LOWEST.read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert imported <= {"json", "sys"}
    assert len(LOWEST.read_text().splitlines()) < 150


@pytest.mark.parametrize("name", list(RULESETS))
def test_its_legal_cards_are_the_engines(name):
    ruleset = RULESETS[name]
    rules = _rules(ruleset)
    positions = play_positions(ruleset, variant_names(ruleset), 8, seed=17)
    assert len(positions) > 4000
    for p in positions:
        view = P.view_to_json(p.view)
        mine = lowest_bot.legal_cards(view, rules) or ["pass"]
        assert sorted(mine) == sorted(p.legal), (view, p.legal)
        reply = lowest_bot.answer(P.request("play", 1, p.view), rules)
        assert reply["card"] in p.legal
        if reply["card"] != "pass":
            assert reply["card"] == min(p.legal, key=lambda c: ("23456789TJQKA".index(c[0]), c[1]))


@pytest.mark.parametrize(
    "ruleset",
    [STANDARD, preset("fixed-order"), Ruleset(name="aces", domino_ace_or_two=True)],
    ids=["standard", "fixed-order", "domino-ace-or-two"],
)
def test_its_legal_contracts_are_the_engines(ruleset):
    rules = _rules(ruleset)
    for p in choose_positions(ruleset, 30, seed=5):
        view = P.view_to_json(p.view)
        assert sorted(lowest_bot.legal_contracts(view, rules)) == sorted(p.legal), view
        reply = lowest_bot.answer(P.request("choose", 1, p.view), rules)
        assert reply["contract"] == next(v for v in p.view.open if v in p.legal)


def test_it_refuses_what_it_cannot_play():
    rules: dict = {}
    reply = lowest_bot.answer(P.hello(Ruleset(name="low aces", domino_aces="first-fixes")), rules)
    assert reply["type"] == "error" and "aces high" in reply["message"]
    assert lowest_bot.answer({"type": "hello", "protocol": 2}, rules)["type"] == "error"


def test_a_session_over_its_pipes():
    positions = play_positions(STANDARD, VARIANT_NAMES, 1, seed=9)
    lines = [P.encode(P.hello(STANDARD)), "not json\n", P.encode(P.game_end(0, [0] * 4))]
    lines += [P.encode(P.request("play", i, p.view)) for i, p in enumerate(positions)]
    lines += [P.encode({"type": "bid", "id": 10**6}), P.encode(P.QUIT)]
    res = subprocess.run([sys.executable, str(LOWEST)], input="".join(lines),
                         capture_output=True, text=True, timeout=60)  # fmt: skip
    assert res.returncode == 0 and res.stderr == ""
    replies = [P.decode(line) for line in res.stdout.splitlines()]
    assert P.hello_from_json(replies[0]) == ("lowest", "1.0")
    assert replies[1]["type"] == "error" and "id" not in replies[1]
    assert replies[-1] == {"type": "error", "id": 10**6, "message": "unknown request 'bid'"}
    for i, (p, reply) in enumerate(zip(positions, replies[2:-1], strict=True)):
        assert P.answer_from_json("play", reply, i)[0] in p.legal
